import { describe, expect, it } from 'vitest';
import { createCustomer, invoicesOf, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { t, useCreditsService } from './credits.fixtures.ts';

// docs/spec-decisions.md, "Idempotency": an Idempotency-Key on the POSTs of prepaid credit and coupons (docs/
// credits.md) makes one resource however often the request is sent, answered the same each time, and the same key
// with another body is refused with a 409 `idempotency_key_reused` before anything else is considered.
useCreditsService();

let keys = 0;

/**
 * Sends `body` twice and `other` once under one new key: the second answer is the first replayed, `count()` is one
 * more than before only, and `other` is refused. Returns the first answer's body.
 */
async function expectIdempotent(
  as: TestAccount,
  path: string,
  body: Record<string, unknown>,
  other: Record<string, unknown>,
  count: () => Promise<number>,
) {
  const headers = { 'Idempotency-Key': `credits-${++keys}` };
  const before = await count();
  const first = await as.request('POST', path, { body, headers });
  expect(first.status, first.text).toBe(201);
  expect(await count(), `${path}: made`).toBe(before + 1);
  // Key order does not make another request.
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  const again = await as.request('POST', path, { body: reordered, headers });
  expect(again.status, again.text).toBe(201);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  const changed = await as.request('POST', path, { body: other, headers });
  expect(changed.status, changed.text).toBe(409);
  expect(changed.body.code).toBe('idempotency_key_reused');
  expect(await count(), `${path}: made once`).toBe(before + 1);
  return first.body;
}

const lengthOf = (as: TestAccount, path: string) => async () =>
  ((await ok(as, 'GET', path)) as unknown[]).length;

describe('Idempotency-Key on prepaid credit and coupons', () => {
  it('makes one wallet, grant and top-up per key, and refuses the key with another body', async () => {
    const as = await t.newAccount('Idempotent credit shop');
    const customerId = await createCustomer(as, { autoSendInvoice: false });
    const wallet = await expectIdempotent(
      as,
      `/v1/customers/${customerId}/wallets`,
      { CurrencyCode: 'USD', Name: 'Launch credit' },
      { CurrencyCode: 'USD', Name: 'Other credit' },
      lengthOf(as, `/v1/customers/${customerId}/wallets`),
    );
    const grants = `/v1/wallets/${wallet.walletID}/grants`;
    await expectIdempotent(
      as,
      grants,
      { Amount: 25, Note: 'Goodwill' },
      { Amount: 26 },
      lengthOf(as, grants),
    );
    // A top-up is an invoice: one invoice, and no grant until it is paid.
    const topUp = await expectIdempotent(
      as,
      `/v1/wallets/${wallet.walletID}/top-ups`,
      { Amount: 40 },
      { Amount: 41 },
      async () => (await invoicesOf(as, customerId)).length,
    );
    expect(topUp).toMatchObject({ walletID: wallet.walletID, Amount: 40 });
    // 25.00 granted once; the top-up's invoice of 40.00 once.
    expect((await ok(as, 'GET', `/v1/wallets/${wallet.walletID}`)).Balance).toBe(25);
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([40]);
  });

  it('makes one coupon and one redemption per key, and refuses the key with another body', async () => {
    const as = await t.newAccount('Idempotent coupon shop');
    const customerId = await createCustomer(as);
    const coupon = await expectIdempotent(
      as,
      '/v1/coupons',
      { Code: 'ONCE', Name: 'Once', PercentOff: 10, Duration: 'once' },
      { Code: 'ONCE', Name: 'Once', PercentOff: 20, Duration: 'once' },
      lengthOf(as, '/v1/coupons'),
    );
    const redemptions = `/v1/customers/${customerId}/coupons`;
    await expectIdempotent(as, redemptions, { Code: 'ONCE' }, { Code: 'once' }, lengthOf(as, redemptions));
    expect((await ok(as, 'GET', `/v1/coupons/${coupon.couponID}`)).RedemptionCount).toBe(1);
  });
});
