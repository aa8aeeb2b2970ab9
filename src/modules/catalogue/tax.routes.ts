import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as taxes from './tax.service.ts';
import * as taxRates from './taxRate.service.ts';
import {
  TaxRateBody,
  TaxRateIdParams,
  TaxRateOut,
  TaxSettingBody,
  TaxSettingIdParams,
  TaxSettingOut,
} from './tax.schemas.ts';
import {
  scheduledTaxRateInputFromWire,
  taxSettingInputFromWire,
  toTaxRateDto,
  toTaxSettingDto,
} from './tax.serializer.ts';

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
    async (request) =>
      (await taxes.listTaxSettings(request.ctx, pageOf(request.query))).map((setting) =>
        toTaxSettingDto(setting, request.ctx.account.timeZone),
      ),
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
    async (request) =>
      toTaxSettingDto(
        await taxes.getTaxSetting(request.ctx, request.params.taxSettingID),
        request.ctx.account.timeZone,
      ),
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
          toTaxSettingDto(
            await taxes.createTaxSetting(request.ctx, taxSettingInputFromWire(request.body)),
            request.ctx.account.timeZone,
          ),
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
          "a body without rules keeps them. An edited rule's Perc is the rate in force today, edited in place; " +
          'its scheduled rates stay (POST /v1/tax/{taxSettingID}/rates).',
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

  registerTaxRateRoutes(app);
}

/** Rates from a date (docs/tax.md, "Rates that change on a date"); not in the spec (docs/spec-decisions.md). */
function registerTaxRateRoutes(app: App): void {
  app.post(
    '/tax/:taxSettingID/rates',
    {
      schema: {
        summary: 'Schedule a tax rate',
        operationId: 'scheduleTaxRate',
        description:
          "Schedules a rate of one of the setting's rules from a date after today (account time zone). Supplies " +
          'from that date are taxed at it; a period crossing it is taxed in parts (docs/tax.md).',
        tags,
        params: TaxSettingIdParams,
        body: TaxRateBody,
        response: { 201: TaxRateOut },
      },
    },
    async (request, reply) => {
      const rate = await taxRates.scheduleTaxRate(
        request.ctx,
        request.params.taxSettingID,
        scheduledTaxRateInputFromWire(request.body),
      );
      return reply.code(201).send(toTaxRateDto(rate, request.ctx.account.timeZone));
    },
  );

  app.delete(
    '/tax/:taxSettingID/rates/:taxRateID',
    {
      schema: {
        summary: 'Withdraw a scheduled tax rate',
        operationId: 'withdrawTaxRate',
        description:
          'Withdraws a rate before its date; a rate in force or past is a 409 (tax_rate_in_force).',
        tags,
        params: TaxRateIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await taxRates.withdrawTaxRate(request.ctx, request.params.taxSettingID, request.params.taxRateID);
      return reply.code(204).send(null);
    },
  );
}
