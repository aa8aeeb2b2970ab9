import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, graduatedCallsSubscription } from '../subscriptions/meteredBilling.fixtures.ts';

// docs/usage.md, "Coupons": a percentage discounts each progressive invoice as it will the final one; a fixed
// amount is the period's and the final invoice takes it whole; the final invoice deducts what the progressive
// invoices charged after their discounts, so the period costs its usage's price less the period's discount.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

/** A 30.00 plan from 1 March with graduated "API calls", a threshold, and a coupon redeemed on it on 1 March. */
async function discountedShop(name: string, threshold: number, coupon: Record<string, unknown>) {
  const as = await t.newAccount(name, { isTest: true });
  const shop = await graduatedCallsSubscription(as);
  await ok(as, 'PUT', progressivePath(shop.subscriptionId), { ProgressiveBillingThreshold: threshold }, 200);
  await ok(as, 'POST', '/v1/coupons', { Name: coupon.Code, ...coupon });
  await ok(as, 'POST', `/v1/subscriptions/${shop.subscriptionId}/coupons`, { Code: coupon.Code });
  return { as, ...shop };
}

const progressivePath = (subscriptionId: number) => `/v1/subscriptions/${subscriptionId}/progressivebilling`;
const lines = (invoice: any) => invoice.Charges.map((c: any) => [c.Descrip, c.AmountEx]);

async function invoiceOn(as: TestAccount, customerId: number, day: string) {
  return (await invoicesOf(as, customerId)).filter((i) => i.InvoiceDate.startsWith(day));
}

describe('a percentage coupon on a subscription billed progressively', () => {
  it('discounts each progressive invoice, and the final invoice deducts what they charged', async () => {
    const { as, customerId, subscriptionId, send } = await discountedShop('Quarter off shop', 100, {
      Code: 'QUARTER',
      PercentOff: 25,
      Duration: 'forever',
    });
    // 3,000 calls: 1,000 × 0.10 + 2,000 × 0.05 = 200.00, less 25 %: 150.00.
    await send('2026-03-01T09:00:00Z', 3000);
    await advance(as, '2026-03-10T10:00:00.000Z');
    const progressive = (await invoicesOf(as, customerId))[1];
    expect(lines(progressive)).toEqual([
      ['API calls: 3000 calls, usage to 1 Mar (progressive)', 200],
      ['QUARTER: −25 %', -50],
    ]);
    expect(progressive.Total).toBe(150);
    expect(await ok(as, 'GET', progressivePath(subscriptionId))).toMatchObject({
      ProgressiveInvoiced: 200,
      ProgressiveDiscounted: 50,
    });

    // 1,500 more: 4,500 calls cost 100.00 + 3,500 × 0.05 = 275.00; 75.00 not invoiced waits for the period's end.
    await send('2026-03-10T09:00:00Z', 1500);
    // 1 Apr: April's 30.00 and March's 275.00, less the 150.00 charged progressively, less 25 % of 305.00 (76.25).
    const april = [
      [expect.stringMatching(/^Plan \d+$/), 30],
      ['API calls: 4500 calls (1,000 at 0.10; 3,500 at 0.05)', 275],
      ['API calls: less usage invoiced progressively', -150],
      ['QUARTER: −25 %', -76.25],
    ];
    const preview = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(lines(preview)).toEqual(april);
    await advance(as, '2026-04-01T10:00:00.000Z');
    const [final] = await invoiceOn(as, customerId, '2026-04-01');
    expect(lines(final)).toEqual(april);
    // 78.75: April's plan 22.50 and March's usage 56.25; with the 150.00, March's usage was billed 206.25, its
    // price 275.00 less 25 %.
    expect(final.Total).toBe(78.75);
  }, 60_000);

  it('leaves nothing to pay at 100 %, VAT included', async () => {
    const { as, customerId, send } = await discountedShop('Free shop', 50, {
      Code: 'FREE',
      PercentOff: 100,
      Duration: 'forever',
    });
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    // 600 calls × 0.10 = 60.00 reaches 50.00: invoiced, and all of it discounted, its VAT with it.
    await send('2026-03-01T09:00:00Z', 600);
    await advance(as, '2026-03-02T10:00:00.000Z');
    const progressive = (await invoicesOf(as, customerId))[1];
    expect(lines(progressive)).toEqual([
      ['API calls: 600 calls, usage to 1 Mar (progressive)', 60],
      ['FREE: −100 %', -60],
    ]);
    expect(progressive).toMatchObject({ Total: 0, Balance: 0 });

    // 1 Apr: nothing was charged progressively, so nothing is deducted; the plan and the usage are taken whole.
    await advance(as, '2026-04-01T10:00:00.000Z');
    const [final] = await invoiceOn(as, customerId, '2026-04-01');
    expect(lines(final)).toEqual([
      [expect.stringMatching(/^Plan \d+$/), 30],
      ['API calls: 600 calls', 60],
      ['FREE: −100 %', -90],
    ]);
    expect(final.Total).toBe(0);
  }, 60_000);
});

describe('a fixed coupon on a subscription billed progressively', () => {
  it('is taken whole by the final invoice, what the deduction leaves below zero credited', async () => {
    const { as, customerId, subscriptionId, send } = await discountedShop('Flat off shop', 100, {
      Code: 'FLAT',
      AmountOff: '100.00',
      CurrencyCode: 'USD',
      Duration: 'once',
    });
    // 3,000 calls: 200.00, invoiced whole on 1 Mar: a fixed amount waits for the period's end.
    await send('2026-03-01T09:00:00Z', 3000);
    await advance(as, '2026-03-10T10:00:00.000Z');
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([30, 200]);

    // 1 Apr: 30.00 + 200.00 − 200.00 leaves 30.00, yet the period's 100.00 off is taken whole (spread 13.04 and
    // 86.96 over the plan and the usage): the Total is brought to 0.00 and 70.00 is the customer's credit.
    await advance(as, '2026-04-01T10:00:00.000Z');
    const [final] = await invoiceOn(as, customerId, '2026-04-01');
    expect(lines(final)).toEqual([
      [expect.stringMatching(/^Plan \d+$/), 30],
      ['API calls: 3000 calls (1,000 at 0.10; 2,000 at 0.05)', 200],
      ['API calls: less usage invoiced progressively', -200],
      ['FLAT: −100.00 USD', -100],
      ['Credit beyond this invoice, carried to your account', 70],
    ]);
    expect(final.Total).toBe(0);
    const [credit] = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
    expect(credit.Amount).toBe(70);
    // Owed: March's 30.00 and 200.00, less the credit: 160.00, which is 30.00 + 200.00 + 30.00 − 100.00.
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(160);
  }, 60_000);
});
