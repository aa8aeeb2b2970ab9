import { Type } from '@sinclair/typebox';
import { ValidationError } from '../../errors.ts';
import { disableCurrency } from '../../flows/disableCurrency.ts';
import type { App } from '../../http/types.ts';
import { NoContent, emptyBodyAsObject } from '../../http/schemas.ts';
import * as currencies from './currency.service.ts';
import { CurrencyBody, CurrencyOut, CurrencyQuery } from './currencies.schemas.ts';

const tags = ['Currencies'];

export function registerCurrencyRoutes(app: App): void {
  app.get(
    '/currencies',
    {
      schema: {
        summary: 'List currencies',
        operationId: 'listCurrencies',
        description: 'The currencies enabled for the account, with their names.',
        tags,
        response: { 200: Type.Array(CurrencyOut) },
      },
    },
    async (request) =>
      (await currencies.listCurrencies(request.ctx)).map((c) => ({ CurrencyCode: c.code, Name: c.name })),
  );

  app.post(
    '/currencies',
    {
      schema: {
        summary: 'Enable a currency',
        operationId: 'enableCurrency',
        tags,
        description: 'Enables a currency for the account (201 with an empty body, as the spec says).',
        body: CurrencyBody,
      },
    },
    async (request, reply) => {
      await currencies.enableCurrency(request.ctx, request.body.CurrencyCode);
      return reply.code(201).send();
    },
  );

  app.delete(
    '/currencies',
    {
      schema: {
        summary: 'Remove a currency',
        operationId: 'removeCurrency',
        tags,
        description: 'Removes a currency; CurrencyCode in the body (as the spec says) or the query string.',
        querystring: CurrencyQuery,
        body: Type.Partial(CurrencyBody),
        response: NoContent,
      },
      // Most clients send DELETE without a body.
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const code = request.body?.CurrencyCode ?? request.query.CurrencyCode;
      if (code === undefined) throw ValidationError.field('CurrencyCode', 'is required');
      await disableCurrency(request.ctx, code);
      return reply.code(204).send(null);
    },
  );
}
