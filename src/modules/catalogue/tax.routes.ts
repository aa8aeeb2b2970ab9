import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as taxes from './tax.service.ts';
import { TaxSettingBody, TaxSettingIdParams, TaxSettingOut } from './tax.schemas.ts';
import { taxSettingInputFromWire, toTaxSettingDto } from './tax.serializer.ts';

const tags = ['Tax settings'];

export function registerTaxRoutes(app: App): void {
  app.get(
    '/tax',
    {
      schema: {
        summary: 'List tax settings',
        operationId: 'listTaxSettings',
        description: "The account's tax settings with their rules, in creation order.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(TaxSettingOut) },
      },
    },
    async (request) => (await taxes.listTaxSettings(request.ctx, pageOf(request.query))).map(toTaxSettingDto),
  );

  app.get(
    '/tax/:taxSettingID',
    {
      schema: {
        summary: 'Get a tax setting',
        operationId: 'getTaxSetting',
        tags,
        // The spec's example payload shows a list here; its table says one setting, which is what a client of
        // a single-resource path can rely on.
        description: 'One tax setting with its rules.',
        params: TaxSettingIdParams,
        response: { 200: TaxSettingOut },
      },
    },
    async (request) => toTaxSettingDto(await taxes.getTaxSetting(request.ctx, request.params.taxSettingID)),
  );

  app.post(
    '/tax',
    {
      schema: {
        summary: 'Create a tax setting',
        operationId: 'createTaxSetting',
        description: 'Creates a tax setting with its rules (Perc a fraction: 0.15 is 15%).',
        tags,
        body: TaxSettingBody,
        response: { 201: TaxSettingOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          toTaxSettingDto(await taxes.createTaxSetting(request.ctx, taxSettingInputFromWire(request.body))),
        ),
  );

  app.put(
    '/tax/:taxSettingID',
    {
      schema: {
        summary: 'Edit a tax setting',
        operationId: 'editTaxSetting',
        tags,
        description:
          'Rules without taxRuleID are added, rules with one of this setting are edited, rules left out are deleted; ' +
          'a body without rules keeps them.',
        params: TaxSettingIdParams,
        body: TaxSettingBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await taxes.editTaxSetting(
        request.ctx,
        request.params.taxSettingID,
        taxSettingInputFromWire(request.body),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/tax/:taxSettingID',
    {
      schema: {
        summary: 'Delete a tax setting',
        operationId: 'deleteTaxSetting',
        description: 'Deletes the tax setting with its rules; invoices already issued keep their taxes.',
        tags,
        params: TaxSettingIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await taxes.deleteTaxSetting(request.ctx, request.params.taxSettingID);
      return reply.code(204).send(null);
    },
  );
}
