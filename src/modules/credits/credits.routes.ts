import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { PagingQuery, emptyBodyAsObject, pageOf } from '../../http/schemas.ts';
import * as grants from './grant.service.ts';
import { createTopUp } from './topUp.service.ts';
import * as wallets from './wallet.service.ts';
import {
  CustomerParams,
  EntryOut,
  GrantBody,
  GrantOut,
  GrantParams,
  TopUpBody,
  TopUpOut,
  WalletBody,
  WalletOut,
  WalletParams,
  WalletPutBody,
} from './credits.schemas.ts';
import { toEntryDto, toGrantDto, toTopUpDto, toWalletDto } from './credits.serializer.ts';

const tags = ['Prepaid credit'];

/** The wire's wallet settings as the service takes them. */
function settingsOf(body: WalletBody | WalletPutBody): wallets.WalletSettingsInput {
  return {
    autoTopUpThreshold: body.AutoTopUpThreshold,
    autoTopUpAmount: body.AutoTopUpAmount,
    lowBalanceAlertThreshold: body.LowBalanceAlertThreshold,
  };
}

/** Wallets, credit grants, their journal and paid top-ups (docs/credits.md). */
export function registerCreditsRoutes(app: App): void {
  app.post(
    '/customers/:customerID/wallets',
    {
      schema: {
        summary: 'Create a wallet',
        operationId: 'createWallet',
        description:
          'A wallet of prepaid credit for the customer in one currency; one per currency, optionally with an ' +
          'automatic top-up (AutoTopUpThreshold, AutoTopUpAmount) and a LowBalanceAlertThreshold.',
        tags,
        params: CustomerParams,
        body: WalletBody,
        response: { 201: WalletOut },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        toWalletDto(
          await wallets.createWallet(request.ctx, request.params.customerID, {
            currencyCode: request.body.CurrencyCode,
            name: request.body.Name ?? null,
            ...settingsOf(request.body),
          }),
        ),
      ),
  );

  app.get(
    '/customers/:customerID/wallets',
    {
      schema: {
        summary: "List a customer's wallets",
        operationId: 'listWallets',
        description: "The customer's wallets in creation order, each with its balances.",
        tags,
        params: CustomerParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(WalletOut) },
      },
    },
    async (request) =>
      (await wallets.listWallets(request.ctx, request.params.customerID, pageOf(request.query))).map(
        toWalletDto,
      ),
  );

  app.get(
    '/wallets/:walletID',
    {
      schema: {
        summary: 'Get a wallet',
        operationId: 'getWallet',
        description:
          'One wallet with Balance, PaidBalance and GrantedBalance, summed from its grants’ journals.',
        tags,
        params: WalletParams,
        response: { 200: WalletOut },
      },
    },
    async (request) => toWalletDto(await wallets.getWallet(request.ctx, request.params.walletID)),
  );

  app.put(
    '/wallets/:walletID',
    {
      schema: {
        summary: 'Update a wallet',
        operationId: 'updateWallet',
        description:
          'Its name, automatic top-up and low-balance alert, the whole of them (a setting left out is turned ' +
          'off); the customer and currency stay.',
        tags,
        params: WalletParams,
        body: WalletPutBody,
        response: { 200: WalletOut },
      },
    },
    async (request) =>
      toWalletDto(
        await wallets.updateWallet(request.ctx, request.params.walletID, {
          name: request.body.Name,
          ...settingsOf(request.body),
        }),
      ),
  );

  app.post(
    '/wallets/:walletID/top-ups',
    {
      schema: {
        summary: 'Sell prepaid credit',
        operationId: 'createWalletTopUp',
        description:
          'Makes an invoice of one line "Prepaid credit" with the customer’s taxes, collected as any invoice; once ' +
          'it is paid in full, by any means, the wallet gets a paid grant of Amount.',
        tags,
        params: WalletParams,
        body: TopUpBody,
        response: { 201: TopUpOut },
      },
    },
    async (request, reply) => {
      const wallet = await wallets.getWallet(request.ctx, request.params.walletID);
      const made = await createTopUp(request.ctx, wallet.id, { amount: request.body.Amount });
      return reply.code(201).send(toTopUpDto(made, wallet.currencyCode));
    },
  );

  app.post(
    '/wallets/:walletID/grants',
    {
      schema: {
        summary: 'Grant credit',
        operationId: 'createCreditGrant',
        description:
          'Free credit: it pays invoices as they are issued and at each credit-first moment, after the customer’s ' +
          'own money, by Priority, then the earliest ExpiresAt, then the oldest.',
        tags,
        params: WalletParams,
        body: GrantBody,
        response: { 201: GrantOut },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        toGrantDto(
          await grants.createGrant(request.ctx, request.params.walletID, {
            amount: request.body.Amount,
            priority: request.body.Priority,
            expiresAt: request.body.ExpiresAt,
            appliesTo: request.body.AppliesTo && {
              metricCodes: request.body.AppliesTo.MetricCodes,
              componentIds: request.body.AppliesTo.ComponentIDs,
            },
            note: request.body.Note,
          }),
        ),
      ),
  );

  app.get(
    '/wallets/:walletID/grants',
    {
      schema: {
        summary: "List a wallet's grants",
        operationId: 'listCreditGrants',
        description: 'Its grants, paid and granted, in creation order, with what remains of each.',
        tags,
        params: WalletParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(GrantOut) },
      },
    },
    async (request) =>
      (await grants.listGrants(request.ctx, request.params.walletID, pageOf(request.query))).map(toGrantDto),
  );

  app.get(
    '/wallets/:walletID/entries',
    {
      schema: {
        summary: "List a wallet's journal",
        operationId: 'listCreditEntries',
        description:
          'Every change to its grants, oldest first: grant, consume, release, expire, void, refund.',
        tags,
        params: WalletParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(EntryOut) },
      },
    },
    async (request) => {
      const wallet = await wallets.getWallet(request.ctx, request.params.walletID);
      const entries = await grants.listEntries(request.ctx, wallet.id, pageOf(request.query));
      return entries.map((entry) => toEntryDto(entry, wallet.currencyCode));
    },
  );

  app.get(
    '/credit-grants/:creditGrantID',
    {
      schema: {
        summary: 'Get a credit grant',
        operationId: 'getCreditGrant',
        description: 'One grant with its figures and every invoice its credit pays.',
        tags,
        params: GrantParams,
        response: { 200: GrantOut },
      },
    },
    async (request) => toGrantDto(await grants.getGrant(request.ctx, request.params.creditGrantID)),
  );

  app.post(
    '/credit-grants/:creditGrantID/void',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Void a credit grant',
        operationId: 'voidCreditGrant',
        description: 'What remains of it is written off; what it already paid stays paid.',
        tags,
        params: GrantParams,
        response: { 200: GrantOut },
      },
    },
    async (request) => toGrantDto(await grants.voidGrant(request.ctx, request.params.creditGrantID)),
  );
}
