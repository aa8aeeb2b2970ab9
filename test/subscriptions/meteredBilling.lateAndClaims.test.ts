import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  TIERS,
  advance,
  linesOf,
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from './meteredBilling.fixtures.ts';

// docs/usage.md, "Billing usage": late events, groups, customer-level events and a change of plan, billed from the
// events by the bill run as the test clock moves.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

const at = (day: string, n: number) => Array.from({ length: n }, () => `2026-${day}`);

describe('late events', () => {
  it('count in their period before it is invoiced, and as a correction on the next invoice after', async () => {
    const as = await t.newAccount('Shop late', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count', { currency: TIERS });
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    const events = (times: string[]) =>
      times.map((time) => ({ customerId, subscriptionId, code: metric.code, at: time }));
    await sendEvents(as, events(at('03-01T09:00:00Z', 8)));
    await advance(as, '2026-03-31T23:00:00Z');
    // 29 Mar, sent 31 Mar: late, inside the 72-hour grace window, March not invoiced yet: counted in March.
    await sendEvents(as, events(at('03-29T12:00:00Z', 2)));
    await advance(as, '2026-04-01T01:00:00Z');
    const march = (await invoicesOf(as, customerId)).at(-1);
    // 10 calls: 10 × 1.00
    expect(linesOf(march)[1]).toEqual([
      'API calls: 10 calls',
      10,
      'api',
      '',
      '10',
      '2026-03-01',
      '2026-04-01',
    ]);

    // 31 Mar, sent 1 Apr after March was invoiced: 5 more calls for March, billed on the 1 May invoice at the
    // difference they make: 15 calls cost 10 × 1.00 + 5 × 0.50 = 12.50, 10 cost 10.00, so 2.50 (not 5 × 1.00).
    await sendEvents(as, events(at('03-31T12:00:00Z', 5)));
    await advance(as, '2026-05-01T01:00:00Z');
    const may = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(may)).toEqual([
      [expect.stringContaining('Plan'), 30],
      ['API calls, 1–31 Mar 2026: 5 more calls', 2.5, 'api', '', '5', '2026-03-01', '2026-04-01'],
      ['API calls: 0 calls', 0, 'api', '', '0', '2026-04-01', '2026-05-01'],
    ]);
    expect(may.Total).toBe(32.5);

    // Past the grace window March is final: the 1 June invoice corrects nothing again.
    await advance(as, '2026-06-01T01:00:00Z');
    const june = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(june).map((line: any[]) => line[0])).toEqual([
      expect.stringContaining('Plan'),
      'API calls: 0 calls',
    ]);
  });
});

describe('groups', () => {
  it('bill one line per value of the GroupBy property, named on it', async () => {
    const as = await t.newAccount('Shop groups', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'tokens', 'sum', {
      property: 'n',
      groupBy: 'region',
    });
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    const event = (region: string, n: number) => ({
      customerId,
      subscriptionId,
      code: metric.code,
      at: '2026-03-01T08:00:00Z',
      n,
      region,
    });
    await sendEvents(as, [event('us', 7), event('eu', 3), event('eu', 2)]);
    await advance(as, '2026-04-01T01:00:00Z');
    // eu: 3 + 2 = 5, us: 7, at 1.00
    expect(linesOf((await invoicesOf(as, customerId)).at(-1)).slice(1)).toEqual([
      ['API calls (eu): 5 calls', 5, 'tokens', 'eu', '5', '2026-03-01', '2026-04-01'],
      ['API calls (us): 7 calls', 7, 'tokens', 'us', '7', '2026-03-01', '2026-04-01'],
    ]);
  });
});

describe('customer-level events', () => {
  it('count for the earliest subscription that bills their metric; an event naming one counts for it alone', async () => {
    const as = await t.newAccount('Shop claims', { isTest: true });
    const storage = await meteredComponent(as, 'storage', 'count');
    const api = await meteredComponent(as, 'calls', 'count');
    const customerId = await createCustomer(as);
    // Created in this order: the first bills storage only, the second and third bill calls.
    const first = await meteredSubscription(as, [storage.componentId], customerId);
    const second = await meteredSubscription(as, [api.componentId], customerId);
    const third = await meteredSubscription(as, [api.componentId], customerId);
    const call = (subscriptionId: number | null) => ({
      customerId,
      subscriptionId,
      code: 'calls',
      at: '2026-03-01T08:00:00Z',
    });
    await sendEvents(as, [call(null), call(null), call(null), call(null), call(third.subscriptionId)]);
    await advance(as, '2026-04-01T01:00:00Z');

    const april = (await invoicesOf(as, customerId)).filter((i) => i.InvoiceDate.startsWith('2026-04-01'));
    const usageOf = (plan: { name: string }) =>
      linesOf(april.find((i) => i.Charges[0].Descrip === plan.name))
        .slice(1)
        .map((line: any[]) => line[0]);
    expect(usageOf(first.plan)).toEqual(['API calls: 0 calls']);
    expect(usageOf(second.plan)).toEqual(['API calls: 4 calls']);
    expect(usageOf(third.plan)).toEqual(['API calls: 1 calls']);
  });
});

describe('a change of plan in the middle of a period', () => {
  it('bills the usage before the change on its invoice and the usage after it at renewal', async () => {
    const as = await t.newAccount('Shop change', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    const calls = (day: string, n: number) =>
      at(day, n).map((time) => ({ customerId, subscriptionId, code: metric.code, at: time }));
    await advance(as, '2026-03-05T10:00:00Z');
    await sendEvents(as, calls('03-05T09:00:00Z', 3));
    await advance(as, '2026-03-16T10:00:00Z');
    const gold = await createPlan(as, { chargePrice: 62 });
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
    });
    await sendEvents(as, calls('03-16T09:00:00Z', 4));
    await advance(as, '2026-04-01T01:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual([
      '2026-03-01',
      '2026-03-16',
      '2026-04-01',
    ]);
    // The change's invoice: Gold from 16 Mar to 1 Apr, 62.00 × 16 / 31 = 32.00, and 1–16 Mar's 3 calls.
    expect(linesOf(invoices[1])).toEqual([
      [expect.stringContaining(gold.name), 32],
      ['API calls: 3 calls', 3, 'api', '', '3', '2026-03-01', '2026-03-16'],
    ]);
    // The renewal: Gold's April, and 16 Mar–1 Apr's 4 calls (9:00 on the 16th, after the change day's midnight).
    expect(linesOf(invoices[2])).toEqual([
      [gold.name, 62],
      ['API calls: 4 calls', 4, 'api', '', '4', '2026-03-16', '2026-04-01'],
    ]);
  });
});

describe('a cancellation', () => {
  it('bills the usage up to the cancellation on a last invoice, and none after it', async () => {
    const as = await t.newAccount('Shop cancel', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    const calls = (time: string, n: number) =>
      Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at: time }));
    await advance(as, '2026-03-05T10:00:00Z');
    await sendEvents(as, calls('2026-03-05T09:00:00Z', 2));
    await advance(as, '2026-03-10T10:00:00Z');
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
    await sendEvents(as, calls('2026-03-10T11:00:00Z', 3));
    await advance(as, '2026-04-01T01:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual(['2026-03-01', '2026-03-10']);
    // 1–10 Mar: the 2 calls of 5 Mar; the 3 after the cancellation (10 Mar 11:00) are past where billing stopped.
    expect(linesOf(invoices[1])).toEqual([
      ['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-03-10'],
    ]);
  });
});

describe('events before any subscription', () => {
  it('are kept and count once a subscription covering their time is created', async () => {
    const as = await t.newAccount('Shop early events', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const customerId = await createCustomer(as);
    const call = { customerId, code: 'api', at: '2026-03-01T08:00:00Z' };
    await sendEvents(as, [call, call, call]);
    await advance(as, '2026-03-02T10:00:00Z');
    // Created on 2 March, starting on 1 March: its time holds the events sent before it existed.
    await meteredSubscription(as, [componentId], customerId, { StartDate: '2026-03-01' });
    await advance(as, '2026-04-01T01:00:00Z');
    const april = (await invoicesOf(as, customerId)).at(-1);
    expect(linesOf(april)[1]).toEqual(['API calls: 3 calls', 3, 'api', '', '3', '2026-03-01', '2026-04-01']);
  });
});

describe('usage past what an amount may be', () => {
  it('is a 409 naming why when its price so far is read, never a 500', async () => {
    const as = await t.newAccount('Shop huge', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'huge', 'sum', {
      property: 'tokens',
      currency: { ComponentBracketPrices: [{ Price: 1000, QtyFrom: 1, QtyTill: null }] },
    });
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    // 100 events of 10^9 tokens at 1,000.00: 10^14 dollars, 10^16 cents, past what an amount may be.
    await sendEvents(
      as,
      Array.from({ length: 100 }, () => ({
        customerId,
        subscriptionId,
        code: metric.code,
        at: '2026-03-01T09:00:00Z',
        tokens: 1_000_000_000,
      })),
    );
    const res = await as.request('GET', `/v1/subscriptions/${subscriptionId}/usage`);
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ code: 'usage_amount_too_large' });
  });
});
