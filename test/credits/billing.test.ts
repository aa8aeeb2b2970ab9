import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import {
  advance,
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';
import {
  expectJournalBalances,
  grant,
  grantOf,
  journalOf,
  useCreditsService,
  walletOf,
} from './credits.fixtures.ts';

// docs/credits.md, "Consumption order" and "Expiry", on a test account whose clock the bill run follows: a grant
// restricted to a metric pays only that metric's lines of the bill run's invoice, and grants past their expiry are
// written off by the daily run.
useCreditsService();

describe('credit and the bill run', () => {
  it('a grant restricted to one metric pays only its lines; an unrestricted one the rest', async () => {
    const { as, customerId, walletId } = await walletOf('Metric shop', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const { subscriptionId } = await meteredSubscription(as, [componentId], customerId);
    const calls = Array.from({ length: 5 }, (_, i) => ({
      customerId,
      subscriptionId,
      code: 'api',
      at: `2026-03-01T09:0${i}:00Z`,
    }));
    await sendEvents(as, calls);
    const onlyApi = await grant(as, walletId, { Amount: 100, AppliesTo: { MetricCodes: ['api'] } });
    // March's plan invoice of 30.00 is open when the grants come: the api grant pays nothing of its plan line, the
    // other pays it at once (docs/credits.md, "Consumption order"), 40.00 − 30.00 = 10.00 left.
    const any = await grant(as, walletId, { Amount: 40, Priority: 2 });
    const march = (await invoicesOf(as, customerId)).at(-1);
    expect(march).toMatchObject({ Total: 30, TotalNegativeAdjs: 30, Balance: 0 });
    await advance(as, '2026-04-01T12:00:00Z');
    const april = (await invoicesOf(as, customerId)).at(-1);
    // 1 April: March's 5 calls at 1.00 = 5.00, and April's plan 30.00: 35.00. The api grant pays the 5.00 of its
    // lines only; the other grant (priority 2) its 10.00 left; 20.00 left to owe.
    expect(april).toMatchObject({ Total: 35, TotalNegativeAdjs: 15, Balance: 20 });
    expect(await grantOf(as, onlyApi.creditGrantID)).toMatchObject({
      Remaining: 95,
      Consumed: 5,
      Invoices: [{ invoiceID: april.invoiceID, Amount: 5 }],
    });
    expect(await grantOf(as, any.creditGrantID)).toMatchObject({
      Remaining: 0,
      Consumed: 40,
      Invoices: [
        { invoiceID: march.invoiceID, Amount: 30 },
        { invoiceID: april.invoiceID, Amount: 10 },
      ],
    });
    await expectJournalBalances(as, walletId);
    // The bill run's invoice is created before the grants that pay it are consumed.
    const types = ((await ok(as, 'GET', '/v1/events?page_size=200')) as any[]).map((e) => e.type).reverse();
    const aprilCreated = types.lastIndexOf('invoice.created');
    expect(aprilCreated).toBeGreaterThanOrEqual(0);
    expect(types.lastIndexOf('credit_grant.consumed')).toBeGreaterThan(aprilCreated);
  });

  it("a usage correction's credit pays the bill run's invoices before the grants do", async () => {
    const { as, customerId, walletId } = await walletOf('Correction shop', { isTest: true });
    const g = await grant(as, walletId, { Amount: 100 });
    const { metric, componentId } = await meteredComponent(as, 'api', 'sum', { property: 'n' });
    const free = await createPlan(as, { chargePrice: 0 });
    const usage = await subscribe(as, customerId, free, { componentUsage: [{ componentID: componentId }] });
    await subscribe(as, customerId, await createPlan(as, { chargePrice: 10 }));
    const calls = (at: string, n: number) => ({
      customerId,
      subscriptionId: usage.subscriptionID as number,
      code: metric.code,
      at,
      n,
    });
    await sendEvents(as, [calls('2026-03-01T09:00:00Z', 5)]);
    await advance(as, '2026-04-01T06:00:00Z');
    // A late −4 for March: May's usage invoice is 0.00 and 4.00 is credited to the customer.
    await sendEvents(as, [calls('2026-03-31T12:00:00Z', -4)]);
    await advance(as, '2026-05-01T06:00:00Z');
    // The grant paid 10.00 (Mar 1), 5.00 and 10.00 (Apr 1): 75.00 left. On May 1 the 4.00 of corrected usage, the
    // customer's own money, pays 4.00 of the 10.00 plan invoice (at once when both invoices are made in one
    // transaction, as on PostgreSQL; at collection when SQLite's bill run makes them one at a time); the grant only
    // the other 6.00: 69.00 left, and the customer owes nothing.
    const may = (await invoicesOf(as, customerId)).filter((i) => i.InvoiceDate.startsWith('2026-05-01'));
    expect(may.map((i) => i.Total).sort()).toEqual([0, 10]);
    expect((await grantOf(as, g.creditGrantID)).Remaining).toBe(69);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    await expectJournalBalances(as, walletId);
  });

  it('a grant expiring mid-period is written off by the daily run, and pays nothing after', async () => {
    const { as, customerId, walletId } = await walletOf('Expiring shop', { isTest: true });
    const early = await grant(as, walletId, { Amount: 40, ExpiresAt: '2026-03-15' });
    const kept = await grant(as, walletId, { Amount: 40, Priority: 2 });
    await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 25 }],
    });
    await advance(as, '2026-03-20T12:00:00Z');
    // 40.00 − 25.00 = 15.00 expired on 15 March; the 40.00 of priority 2 stays.
    expect(await grantOf(as, early.creditGrantID)).toMatchObject({
      Status: 'expired',
      Expired: 15,
      Consumed: 25,
    });
    expect((await journalOf(as, walletId)).filter((entry) => entry[1] === 'expire')).toEqual([
      [early.creditGrantID, 'expire', 15, null],
    ]);
    // Another run on a later day writes nothing more.
    await advance(as, '2026-03-22T12:00:00Z');
    expect((await journalOf(as, walletId)).filter((entry) => entry[1] === 'expire')).toHaveLength(1);
    const later = await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 30 }],
    });
    expect((await ok(as, 'GET', `/v1/invoices/${later.invoiceID}`)).Balance).toBe(0);
    expect(await grantOf(as, kept.creditGrantID)).toMatchObject({ Remaining: 10, Consumed: 30 });
    expect((await ok(as, 'GET', `/v1/wallets/${walletId}`)).Balance).toBe(10);
    await expectJournalBalances(as, walletId);
  });
});
