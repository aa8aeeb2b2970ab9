import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  batchBody,
  batchDay,
  batchOf,
  batchWithLine,
  expectNotFound,
  tokensOf,
  useBatchService,
  zarAccount,
} from './batchApi.fixtures.ts';

// Payment batches through the HTTP API: another account's batches and lines are never visible nor changed, and
// bad input on any batch endpoint is a 4xx, never a 500.

useBatchService();

describe('tenant isolation', () => {
  it("answers 404 on every endpoint for another account's batch or line, and changes nothing", async () => {
    const theirs = await zarAccount();
    const their = await batchWithLine(theirs);
    const batchBefore = await batchOf(theirs.account, their.token);
    const paymentBefore = await ok(theirs.account, 'GET', `/v1/payments/${their.paymentId}`);

    const mine = await zarAccount();
    const me = await batchWithLine(mine);
    const { account } = mine;
    expectNotFound(await account.request('GET', `/v1/batches/${their.token}`));
    expect(await tokensOf(account)).toEqual([me.token]);
    expectNotFound(
      await account.request('PUT', '/v1/batches', {
        body: batchBody(mine, { BatchToken: their.token, Notes: 'mine now' }),
      }),
    );
    expectNotFound(
      await account.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: their.token, ActionDate: batchDay(mine, 14) },
      }),
    );
    expectNotFound(await account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: their.token } }));
    expectNotFound(
      await account.request('POST', '/v1/batches/payments', {
        body: {
          BatchToken: their.token,
          customerID: me.customer.customerId,
          Amount: 5,
          paymentMethodID: me.customer.paymentMethodId,
          PaymentApplied: [],
        },
      }),
    );
    const editTheirs = {
      paymentID: their.paymentId,
      BatchToken: their.token,
      customerID: their.customer.customerId,
      Amount: 1,
      PaymentApplied: [],
    };
    expectNotFound(await account.request('PUT', '/v1/batches/payments', { body: editTheirs }));
    expectNotFound(
      await account.request('PUT', '/v1/batches/payments', {
        body: { ...editTheirs, BatchToken: me.token, customerID: me.customer.customerId },
      }),
    );
    // My own line, named with their batch.
    expectNotFound(
      await account.request('PUT', '/v1/batches/payments', {
        body: { ...editTheirs, paymentID: me.paymentId, customerID: me.customer.customerId },
      }),
    );
    expectNotFound(await account.request('DELETE', `/v1/batches/payments/${their.paymentId}`));
    // Their customer is not one of mine either: 404, as for a payment.
    expectNotFound(
      await account.request('POST', '/v1/batches/payments', {
        body: {
          BatchToken: me.token,
          customerID: their.customer.customerId,
          Amount: 5,
          paymentMethodID: their.customer.paymentMethodId,
          PaymentApplied: [],
        },
      }),
    );

    expect(await batchOf(theirs.account, their.token)).toEqual(batchBefore);
    expect(await ok(theirs.account, 'GET', `/v1/payments/${their.paymentId}`)).toEqual(paymentBefore);
    expect((await batchOf(account, me.token)).NumberOfPayments).toBe(1);
  });
});

describe('bad input on the batch endpoints', () => {
  it('is answered 4xx, never 500', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const long = 'x'.repeat(70);
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/batches', []],
      ['POST', '/v1/batches', 'batch'],
      ['POST', '/v1/batches', null],
      ['POST', '/v1/batches', { CurrencyCode: 5, GatewayToken: {}, ActionDate: [] }],
      ['POST', '/v1/batches', batchBody(setup, { CurrencyCode: 'ZA' })],
      ['POST', '/v1/batches', batchBody(setup, { CurrencyCode: 'ZARR' })],
      ['POST', '/v1/batches', batchBody(setup, { GatewayToken: long })],
      ['POST', '/v1/batches', batchBody(setup, { GatewayToken: null })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '0000-00-00' })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '99999-01-01' })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '31 Foo 2026' })],
      ['POST', '/v1/batches', batchBody(setup, { Notes: 7 })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: long })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: '' })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: 42 })],
      ['PUT', '/v1/batches', { BatchToken: token }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: null }],
      ['PUT', '/v1/batches/submit', { BatchToken: [token], ActionDate: setup.today }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: '2026-13-01' }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: setup.today, Notes: false }],
      ['PUT', '/v1/batches/cancel', { BatchToken: null }],
      ['PUT', '/v1/batches/cancel', { BatchToken: long }],
      ['PUT', '/v1/batches/cancel', []],
      ['GET', `/v1/batches/${long}`, undefined],
      ['GET', `/v1/batches/${encodeURIComponent('%00;drop table batches')}`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await setup.account.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeGreaterThanOrEqual(
        400,
      );
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeLessThan(500);
    }
    const malformed = await setup.account.request('POST', '/v1/batches', { rawBody: '{"CurrencyCode":' });
    expect(malformed.status).toBe(400);
    expect(await batchOf(setup.account, token)).toMatchObject({ State: 'open', NumberOfPayments: 1 });
    expect(await tokensOf(setup.account)).toEqual([token]);
  });
});
