import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { runBilling } from '../../src/billing/billRun.ts';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, linesOf, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// docs/usage.md, "After the last invoice": a subscription that stopped is looked at once more when its last
// period's grace window closes (the stop plus UsageGraceHours, 72 by default), and the late events dated in that
// period that came after its last invoice are billed then, on a final correction invoice dated that day.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

function billingDeps() {
  const s = t.service;
  return {
    db: s.storage.db,
    clock,
    wallClock: systemClock,
    log: s.log,
    secrets: s.secrets,
    mailQueued: () => {},
    ports: modulePorts(),
  };
}

/** A plan (30.00, billed in advance) with "API calls" at 1.00 a call, linked to the metric `api` (count). */
async function usageOnlySubscription(as: TestAccount) {
  const { metric, componentId } = await meteredComponent(as, 'api', 'count');
  const plan = await createPlan(as);
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: componentId }] });
  const subscriptionId = sub.subscriptionID as number;
  const calls = (time: string, n: number) =>
    Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at: time }));
  return { customerId, subscriptionId, calls };
}

async function storedNextInvDate(subscriptionId: number): Promise<string | null> {
  const row = await t.service.storage.db
    .selectFrom('subscriptions')
    .select('next_inv_date')
    .where('id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
  return row.next_inv_date;
}

const datesOf = (invoices: any[]) => invoices.map((i) => i.InvoiceDate.slice(0, 10));

describe('late events after the last invoice of a cancelled subscription (test clock)', () => {
  it('are billed once, on a final correction invoice dated the day the grace window closes', async () => {
    const as = await t.newAccount('Shop final correction', { isTest: true });
    const { customerId, subscriptionId, calls } = await usageOnlySubscription(as);
    await advance(as, '2026-03-05T10:00:00Z');
    await sendEvents(as, calls('2026-03-05T09:00:00Z', 2));
    await advance(as, '2026-03-10T10:00:00Z');
    // Cancelled now: billing stops at 10 Mar 00:00, and the last invoice, dated 10 Mar, bills 1–9 Mar.
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
    // Left due today: the day's bill run makes the last invoice.
    await advance(as, '2026-03-10T11:00:00Z');
    let invoices = await invoicesOf(as, customerId);
    expect(datesOf(invoices)).toEqual(['2026-03-01', '2026-03-10']);
    expect(linesOf(invoices[1])).toEqual([
      ['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-03-10'],
    ]);
    // The grace window of the last period closes at 10 Mar 00:00 + 72 h = 13 Mar 00:00.
    expect(await storedNextInvDate(subscriptionId)).toBe('2026-03-13');

    // 3 calls dated 9 Mar 23:00, sent on 11 Mar: after the last invoice, inside the grace window.
    await advance(as, '2026-03-11T10:00:00Z');
    await sendEvents(as, calls('2026-03-09T23:00:00Z', 3));
    const upcoming = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(upcoming.InvoiceDate.slice(0, 10)).toBe('2026-03-13');
    const correction = [
      'API calls, 1–9 Mar 2026: 3 more calls',
      3,
      'api',
      '',
      '3',
      '2026-03-01',
      '2026-03-10',
    ];
    expect(linesOf(upcoming)).toEqual([correction]);

    await advance(as, '2026-03-13T01:00:00Z');
    invoices = await invoicesOf(as, customerId);
    expect(datesOf(invoices)).toEqual(['2026-03-01', '2026-03-10', '2026-03-13']);
    // 5 calls cost 5.00, 2 were billed 2.00: 3.00.
    expect(linesOf(invoices[2])).toEqual([correction]);
    expect(invoices[2].Total).toBe(3);
    expect(await storedNextInvDate(subscriptionId)).toBeNull();

    // An event of the last period sent now is past the window (9 Mar 23:30 + 72 h = 12 Mar 23:30): refused.
    const late = await as.request('POST', '/v1/usage-events', {
      body: {
        transaction_id: 'too-late',
        customerID: customerId,
        subscriptionID: subscriptionId,
        code: 'api',
        timestamp: '2026-03-09T23:30:00Z',
      },
    });
    expect(late.status, late.text).toBe(422);
    expect(late.body.fields).toEqual([
      { field: 'timestamp', message: "is older than the account's grace window of 72 hours" },
    ]);

    // The bill run again, and months later: nothing more.
    expect((await runBilling(billingDeps(), { accountId: as.accountId })).invoices).toBe(0);
    await advance(as, '2026-05-02T01:00:00Z');
    expect(datesOf(await invoicesOf(as, customerId))).toEqual(['2026-03-01', '2026-03-10', '2026-03-13']);
    await expect(
      as.request('GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`),
    ).resolves.toMatchObject({ status: 404 });
  });

  it('make no invoice when nothing late came, and the subscription is not looked at again', async () => {
    const as = await t.newAccount('Shop nothing late', { isTest: true });
    const { customerId, subscriptionId, calls } = await usageOnlySubscription(as);
    await advance(as, '2026-03-05T10:00:00Z');
    await sendEvents(as, calls('2026-03-05T09:00:00Z', 2));
    await advance(as, '2026-03-10T10:00:00Z');
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
    // Left due today: the day's bill run makes the last invoice.
    await advance(as, '2026-03-10T11:00:00Z');
    // A call after the stop is past where billing stopped: not late, not billed.
    await sendEvents(as, calls('2026-03-10T11:00:00Z', 4));
    expect(await storedNextInvDate(subscriptionId)).toBe('2026-03-13');
    // Until the window closes, no invoice is coming unless late events come.
    await expect(
      as.request('GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`),
    ).resolves.toMatchObject({ status: 404 });

    await advance(as, '2026-03-14T01:00:00Z');
    expect(datesOf(await invoicesOf(as, customerId))).toEqual(['2026-03-01', '2026-03-10']);
    expect(await storedNextInvDate(subscriptionId)).toBeNull();
    expect((await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}`)).comp_nextInvDate).toBeNull();
  });
});

describe('the final correction through the bill run of a live account', () => {
  it('is made once by two bill runs at once and by a run again, for an EndDate, with the grace the account sets', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const as = await t.newAccount('Shop final correction live');
    // 30 hours: the window of the last period (ending 1 Apr 00:00) closes 2 Apr 06:00, so the look is on 3 Apr.
    await ok(as, 'PUT', '/v1/account', { UsageGraceHours: 30 });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as);
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: componentId }],
      EndDate: '2026-04-01',
    });
    const subscriptionId = sub.subscriptionID as number;
    const calls = (time: string, n: number) =>
      Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at: time }));
    clock.set('2026-03-20T10:00:00.000Z');
    await sendEvents(as, calls('2026-03-20T09:00:00Z', 4));

    clock.set('2026-04-01T00:30:00.000Z');
    expect((await runBilling(billingDeps(), { accountId: as.accountId })).invoices).toBe(1);
    expect(await storedNextInvDate(subscriptionId)).toBe('2026-04-03');
    // 31 Mar 23:00, sent 1 Apr 12:00: late for the last invoice, inside the 30 hours.
    clock.set('2026-04-01T12:00:00.000Z');
    await sendEvents(as, calls('2026-03-31T23:00:00Z', 6));
    // On 2 Apr the window is still open: nothing yet.
    clock.set('2026-04-02T01:00:00.000Z');
    expect((await runBilling(billingDeps(), { accountId: as.accountId })).invoices).toBe(0);

    clock.set('2026-04-03T00:10:00.000Z');
    const [first, second] = await Promise.all([
      runBilling(billingDeps(), { accountId: as.accountId }),
      runBilling(billingDeps(), { accountId: as.accountId }),
    ]);
    expect(first.invoices + second.invoices).toBe(1);
    expect((await runBilling(billingDeps(), { accountId: as.accountId })).invoices).toBe(0);
    const invoices = await invoicesOf(as, customerId);
    expect(datesOf(invoices)).toEqual(['2026-03-01', '2026-04-01', '2026-04-03']);
    expect(linesOf(invoices[1])).toEqual([
      ['API calls: 4 calls', 4, 'api', '', '4', '2026-03-01', '2026-04-01'],
    ]);
    // 10 calls cost 10.00, 4 were billed 4.00: 6.00.
    expect(linesOf(invoices[2])).toEqual([
      ['API calls, 1–31 Mar 2026: 6 more calls', 6, 'api', '', '6', '2026-03-01', '2026-04-01'],
    ]);
    expect(await storedNextInvDate(subscriptionId)).toBeNull();
  });
});

describe('a late event lowering the last period after its last invoice', () => {
  it('makes a final correction invoice at 0.00 whose lowering is the credit paying the last invoice', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const as = await t.newAccount('Shop final correction below zero', { isTest: true });
    // A 0.00 plan with "API calls" billed from the `sum` of the events' `n` at 1.00 a call, ending 1 April.
    const { metric, componentId } = await meteredComponent(as, 'api', 'sum', { property: 'n' });
    const plan = await createPlan(as, { chargePrice: 0 });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: componentId }],
      EndDate: '2026-04-01',
    });
    const subscriptionId = sub.subscriptionID as number;
    const calls = (at: string, n: number) => ({ customerId, subscriptionId, code: metric.code, at, n });
    await sendEvents(as, [calls('2026-03-01T09:00:00Z', 5)]);
    await advance(as, '2026-04-01T06:00:00Z');
    const last = (await invoicesOf(as, customerId)).find((i) => i.InvoiceDate.startsWith('2026-04-01'));
    expect(last.Total).toBe(5);
    // −4 dated 31 Mar, sent 1 Apr after the last invoice: March's 5 calls become 1.
    await sendEvents(as, [calls('2026-03-31T12:00:00Z', -4)]);
    await advance(as, '2026-04-05T01:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(datesOf(invoices)).toEqual(['2026-03-01', '2026-04-01', '2026-04-04']);
    const final = invoices[2];
    expect(final.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      ['API calls, 1–31 Mar 2026: 4 fewer calls', -4],
      ['Credit beyond this invoice, carried to your account', 4],
    ]);
    expect(final.Total).toBe(0);
    const credits = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
    expect(credits).toMatchObject([{ Descrip: 'Credit carried: 2026-03-01 to 2026-04-01', Amount: 4 }]);
    // The last invoice's 5.00 now owes 1.00: what March's 1 call costs.
    expect(invoices[1]).toMatchObject({ Total: 5, Balance: 1 });
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(1);
  });
});
