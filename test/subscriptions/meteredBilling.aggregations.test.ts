import { describe, expect, it } from 'vitest';
import { invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  advance,
  linesOf,
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from './meteredBilling.fixtures.ts';

// docs/usage.md, "Billing usage": a usage component linked to a metric is billed from the events alone, by the
// bill run as the test clock moves, exactly as the upcoming invoice previewed it.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

describe('each aggregation billed from events by the bill run', () => {
  // Monthly 30.00 from 1 Mar (UTC), one component at 1.00 a call. The events, each naming the subscription:
  //   28 Feb 23:59:59  50  before the period: not March's
  //    1 Mar 09:00      5  unique "a"
  //    2 Mar 08:00      3  unique "b"
  //   31 Mar 23:30      4  unique "a"
  //    1 Apr 00:30    100  after the period: April's
  // March: count 3, sum 12, max 5, unique_count 2 (a, b), latest 4, and weighted_sum (the running total's average
  // over March's 744 hours, no total carried in): (5 × 735 + 3 × 712 + 4 × 0.5) / 744 = 5813 / 744 = 7.81317…
  // → 7.8132 (4 places), priced 7.8132 → 7.81.
  const cases: [string, string, number][] = [
    ['count', '3', 3],
    ['sum', '12', 12],
    ['max', '5', 5],
    ['unique_count', '2', 2],
    ['latest', '4', 4],
    ['weighted_sum', '7.8132', 7.81],
  ];

  it.each(cases)(
    '%s: March is billed on the 1 April invoice as previewed',
    async (aggregation, quantity, amount) => {
      const as = await t.newAccount(`Shop ${aggregation}`, { isTest: true });
      const { metric, componentId } = await meteredComponent(as, `api_${aggregation}`, aggregation as any, {
        property: aggregation === 'count' ? undefined : aggregation === 'unique_count' ? 'u' : 'n',
      });
      const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
      const event = (at: string, n: number, u: string) => ({
        customerId,
        subscriptionId,
        code: metric.code,
        at,
        n,
        u,
      });
      const early = aggregation === 'weighted_sum' ? [] : [event('2026-02-28T23:59:59Z', 50, 'z')];
      await sendEvents(as, [
        ...early,
        event('2026-03-01T09:00:00Z', 5, 'a'),
        event('2026-03-02T08:00:00Z', 3, 'b'),
      ]);
      await advance(as, '2026-03-31T23:00:00Z');
      await sendEvents(as, [event('2026-03-31T23:30:00Z', 4, 'a'), event('2026-04-01T00:30:00Z', 100, 'c')]);
      const upcoming = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
      // The usage so far this period is what the bill run will bill, priced the same.
      expect(await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/usage`)).toEqual({
        subscriptionID: subscriptionId,
        CurrencyCode: 'USD',
        PeriodStart: '2026-03-01T00:00:00.000Z',
        PeriodEnd: '2026-04-01T00:00:00.000Z',
        Usage: [
          {
            componentID: componentId,
            MetricCode: metric.code,
            UsageGroup: '',
            Quantity: quantity,
            Amount: amount,
          },
        ],
      });
      await advance(as, '2026-04-01T01:00:00Z');

      const invoice = (await invoicesOf(as, customerId)).at(-1);
      expect(invoice.InvoiceDate).toBe('2026-04-01T00:00:00.000Z');
      expect(linesOf(invoice)).toEqual([
        [expect.stringContaining('Plan'), 30],
        [`API calls: ${quantity} calls`, amount, metric.code, '', quantity, '2026-03-01', '2026-04-01'],
      ]);
      expect(invoice.Total).toBe(30 + amount);
      expect(linesOf(upcoming)).toEqual(linesOf(invoice));
      expect(upcoming.Total).toBe(invoice.Total);
    },
  );
});

describe('period bounds in the account time zone', () => {
  it('counts events from midnight to midnight in a zone that moves to summer time within the period', async () => {
    // New York: 1 Mar 00:00 EST is 05:00Z; summer time from 8 Mar; 1 Apr 00:00 EDT is 04:00Z. Counted: 05:00Z on
    // 1 Mar and 03:59:59Z on 1 Apr (31 Mar 23:59:59 there); not 04:59:59Z on 1 Mar nor 04:00Z on 1 Apr: 2 calls.
    const as = await t.newAccount('Shop New York', { isTest: true, timeZone: 'America/New_York' });
    const { metric, componentId } = await meteredComponent(as, 'api_ny', 'count');
    const { customerId, subscriptionId } = await meteredSubscription(as, [componentId]);
    const event = (at: string) => ({ customerId, subscriptionId, code: metric.code, at });
    await sendEvents(as, [event('2026-03-01T04:59:59Z'), event('2026-03-01T05:00:00Z')]);
    await advance(as, '2026-04-01T03:30:00Z');
    await sendEvents(as, [event('2026-04-01T03:59:59Z'), event('2026-04-01T04:00:00Z')]);
    await advance(as, '2026-04-01T05:00:00Z');

    const invoice = (await invoicesOf(as, customerId)).at(-1);
    expect(invoice.InvoiceDate.slice(0, 10)).toBe('2026-04-01');
    // Another account's subscription is not found.
    const other = await t.newAccount('Other shop', { isTest: true });
    expect((await other.request('GET', `/v1/subscriptions/${subscriptionId}/usage`)).status).toBe(404);
    // April so far, in New York's days: nothing yet.
    expect(await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/usage`)).toMatchObject({
      PeriodStart: '2026-04-01T04:00:00.000Z',
      PeriodEnd: '2026-05-01T04:00:00.000Z',
      Usage: [{ MetricCode: metric.code, Quantity: '1', Amount: 1 }],
    });
    expect(linesOf(invoice)[1]).toEqual([
      'API calls: 2 calls',
      2,
      metric.code,
      '',
      '2',
      '2026-03-01',
      '2026-04-01',
    ]);
  });
});
