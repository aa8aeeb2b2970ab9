import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  PortalClient,
  customerWithLogin,
  hiddenFieldsOf,
  portalPath,
  t,
  usePortalService,
} from './fixtures.ts';

usePortalService();

// PortalTopUpLimits (docs/portal.md, "Prepaid credit"): per currency, the least and the most prepaid credit a
// customer buys at once in the portal. 1 to 10,000 whole units fit dollars, not yen: a yen shop sets its own.

async function refused(as: TestAccount, body: Record<string, unknown>) {
  const res = await as.request('PUT', '/v1/account', { body });
  expect(res.status, res.text).toBe(422);
  return (res.body as { fields: { field: string; message: string }[] }).fields;
}

describe('PortalTopUpLimits', () => {
  it('is set per currency, read back, refused naming the field, and cleared with null', async () => {
    const shop = await t.newAccount('Limits shop');
    expect((await ok(shop, 'GET', '/v1/account')).PortalTopUpLimits).toEqual([]);
    const limits = [
      { CurrencyCode: 'jpy', Min: 1000, Max: '1000000' },
      { CurrencyCode: 'USD', Min: '5.00', Max: 500 },
    ];
    await ok(shop, 'PUT', '/v1/account', { PortalTopUpLimits: limits });
    const set = await ok(shop, 'GET', '/v1/account');
    expect(set.PortalTopUpLimits).toEqual([
      { CurrencyCode: 'JPY', Min: 1000, Max: 1000000 },
      { CurrencyCode: 'USD', Min: 5, Max: 500 },
    ]);

    const bad: [unknown, string[]][] = [
      [[{ CurrencyCode: 'XYZ', Min: 1, Max: 2 }], ['PortalTopUpLimits[0].CurrencyCode']],
      [[{ CurrencyCode: 'JPY', Min: 10.5, Max: 20 }], ['PortalTopUpLimits[0].Min']],
      [
        [{ CurrencyCode: 'USD', Min: 0, Max: 'lots' }],
        ['PortalTopUpLimits[0].Min', 'PortalTopUpLimits[0].Max'],
      ],
      [[{ CurrencyCode: 'USD', Min: 50, Max: 20 }], ['PortalTopUpLimits[0].Max']],
      [
        [
          { CurrencyCode: 'USD', Min: 1, Max: 2 },
          { CurrencyCode: 'usd', Min: 1, Max: 3 },
        ],
        ['PortalTopUpLimits[1].CurrencyCode'],
      ],
    ];
    for (const [PortalTopUpLimits, fields] of bad) {
      expect((await refused(shop, { PortalTopUpLimits })).map((f) => f.field)).toEqual(fields);
    }
    // Refused, nothing changed; a schema problem (a missing Max) is a 422 too.
    expect(
      (
        await shop.request('PUT', '/v1/account', {
          body: { PortalTopUpLimits: [{ CurrencyCode: 'USD', Min: 1 }] },
        })
      ).status,
    ).toBe(422);
    expect((await ok(shop, 'GET', '/v1/account')).PortalTopUpLimits).toEqual(set.PortalTopUpLimits);

    await ok(shop, 'PUT', '/v1/account', { PortalTopUpLimits: null });
    expect((await ok(shop, 'GET', '/v1/account')).PortalTopUpLimits).toEqual([]);
  });

  it('bounds what a yen customer buys in the portal', async () => {
    const shop = await t.newAccount('Yen shop', { currencyCode: 'JPY' });
    await ok(shop, 'PUT', '/v1/account', {
      PortalSlug: `yen-${process.pid}`,
      PortalTopUpLimits: [{ CurrencyCode: 'JPY', Min: 1000, Max: 1000000 }],
    });
    const login = await customerWithLogin(shop, { name: 'Kenji' });
    const customer = await ok(shop, 'GET', `/v1/customers/${login.customerId}`);
    expect(customer.CurrencyCode).toBe('JPY');
    const wallet = await ok(shop, 'POST', `/v1/customers/${login.customerId}/wallets`, {
      CurrencyCode: 'JPY',
    });
    const client = new PortalClient(await portalPath(shop), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);

    const page = await client.get(`${client.base}credit/${wallet.walletID}`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('JPY 1,000');
    expect(page.text).toContain('JPY 1,000,000');
    const buy = `${client.base}credit/${wallet.walletID}/buy`;
    const form = hiddenFieldsOf(page.text, buy);
    const refusals: [string, string][] = [
      ['999', 'The least you can buy is JPY 1,000'],
      ['1000001', 'The most you can buy at once here is JPY 1,000,000'],
      ['1500.5', 'Enter a whole number: JPY has no smaller unit'],
    ];
    for (const [amount, message] of refusals) {
      const res = await client.post(buy, { ...form, amount });
      expect(res.status, amount).toBe(422);
      expect(res.text).toContain(`<a href="#amount">${message}</a>`);
    }
    expect(await ok(shop, 'GET', `/v1/customers/${login.customerId}/invoices`)).toEqual([]);

    // 50,000 yen: a top-up invoice of ¥50,000, the customer sent on to pay it.
    const bought = await client.post(buy, { ...form, amount: '50,000' });
    expect(bought.status, bought.text).toBe(303);
    const [topUp] = await ok(shop, 'GET', `/v1/customers/${login.customerId}/invoices`);
    expect(topUp).toMatchObject({ CurrencyCode: 'JPY', Total: 50000 });
  });
});
