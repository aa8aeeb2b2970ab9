import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { clock, grant, t, useCreditsService, walletOf } from './credits.fixtures.ts';

// docs/credits.md, "Wallets" and "Grants": the resources, what is refused (a 422 naming the field, nothing made),
// and another account's wallets and grants answering 404.
useCreditsService();

async function problem(as: any, method: string, path: string, body: unknown, status = 422) {
  const res = await as.request(method, path, { body });
  expect(res.status, res.text).toBe(status);
  return res.body as { code: string; fields?: { field: string; message: string }[] };
}

describe('wallets and grants through the API', () => {
  it('are made, read, listed and renamed, each change with its event', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Wallet shop');
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}`)).toMatchObject({
      walletID: walletId,
      customerID: customerId,
      CurrencyCode: 'USD',
      Name: null,
      Balance: 0,
    });
    const renamed = await ok(as, 'PUT', `/v1/wallets/${walletId}`, { Name: 'Launch credit' }, 200);
    expect(renamed.Name).toBe('Launch credit');
    expect((await ok(as, 'GET', `/v1/customers/${customerId}/wallets`)).map((w: any) => w.walletID)).toEqual([
      walletId,
    ]);
    const made = await grant(as, walletId, {
      Amount: '12.50',
      Priority: 3,
      ExpiresAt: '2026-04-01',
      Note: 'Welcome',
    });
    expect(made).toMatchObject({
      Kind: 'granted',
      Status: 'active',
      Amount: 12.5,
      Remaining: 12.5,
      Priority: 3,
      ExpiresAt: '2026-04-01T00:00:00.000Z',
      AppliesTo: null,
      Note: 'Welcome',
      Invoices: [],
    });
    const listed = await ok(as, 'GET', `/v1/wallets/${walletId}/grants`);
    expect(listed.map((g: any) => g.creditGrantID)).toEqual([made.creditGrantID]);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}/entries`)).toMatchObject([
      { creditGrantID: made.creditGrantID, Kind: 'grant', Amount: 12.5, invoiceID: null },
    ]);

    const voided = await ok(as, 'POST', `/v1/credit-grants/${made.creditGrantID}/void`, undefined, 200);
    expect(voided).toMatchObject({ Status: 'voided', Remaining: 0, Voided: 12.5 });
    expect(
      (await problem(as, 'POST', `/v1/credit-grants/${made.creditGrantID}/void`, undefined, 409)).code,
    ).toBe('credit_grant_voided');
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(0);

    const events = ((await ok(as, 'GET', '/v1/events?page_size=200')) as any[]).reverse();
    const ofType = (type: string) => events.filter((e) => e.type === type);
    expect(ofType('wallet.created')).toHaveLength(1);
    expect(ofType('wallet.updated')[0].data).toMatchObject({
      object: { Name: 'Launch credit' },
      previous: { Name: null },
    });
    expect(ofType('credit_grant.created')[0].data.object).toMatchObject({ Amount: 12.5 });
    expect(ofType('credit_grant.voided')[0].data).toMatchObject({
      object: { Status: 'voided' },
      previous: { Status: 'active' },
    });
  });

  it('refuses a second wallet in a currency, and bad grants naming the field, making nothing', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Refusing shop');
    expect(
      (await problem(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' }, 409)).code,
    ).toBe('wallet_exists');
    const fields = async (body: unknown) =>
      (await problem(as, 'POST', `/v1/wallets/${walletId}/grants`, body)).fields?.map((f) => f.field);
    expect(await fields({ Amount: 0 })).toEqual(['Amount']);
    expect(await fields({ Amount: '1.001' })).toEqual(['Amount']);
    expect(await fields({ Amount: -5 })).toEqual(['Amount']);
    expect(await fields({ Amount: 5, ExpiresAt: '2026-02-01' })).toEqual(['ExpiresAt']);
    expect(await fields({ Amount: 5, AppliesTo: { MetricCodes: ['nope'] } })).toEqual([
      'AppliesTo.MetricCodes',
    ]);
    const priority = await as.request('POST', `/v1/wallets/${walletId}/grants`, {
      body: { Amount: 5, Priority: 51 },
    });
    expect(priority.status, priority.text).toBe(422);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}/grants`)).toEqual([]);
    expect(await ok(as, 'GET', `/v1/wallets/${walletId}/entries`)).toEqual([]);
    const top = await as.request('POST', `/v1/wallets/${walletId}/top-ups`, { body: { Amount: 'ten' } });
    expect(top.status, top.text).toBe(422);
    expect(await ok(as, 'GET', `/v1/customers/${customerId}/invoices`)).toEqual([]);
  });

  it("answers 404 for another account's wallets, grants and customers", async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const { as, customerId, walletId } = await walletOf('Owner shop');
    const g = await grant(as, walletId, { Amount: 5 });
    const other = await t.newAccount('Other shop');
    for (const [method, path, body] of [
      ['GET', `/v1/wallets/${walletId}`],
      ['PUT', `/v1/wallets/${walletId}`, { Name: 'Mine' }],
      ['GET', `/v1/wallets/${walletId}/grants`],
      ['GET', `/v1/wallets/${walletId}/entries`],
      ['POST', `/v1/wallets/${walletId}/grants`, { Amount: 5 }],
      ['POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 5 }],
      ['GET', `/v1/credit-grants/${g.creditGrantID}`],
      ['POST', `/v1/credit-grants/${g.creditGrantID}/void`],
      ['GET', `/v1/customers/${customerId}/wallets`],
      ['POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' }],
    ] as [string, string, unknown?][]) {
      const res = await other.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
    }
    expect((await grant(as, walletId, { Amount: 1 })).Remaining).toBe(1);
    expect((await ok(as, 'GET', `/v1/credit-grants/${g.creditGrantID}`)).Status).toBe('active');
  });
});
