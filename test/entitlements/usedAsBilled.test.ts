import { describe, expect, it } from 'vitest';
import { createCustomer, invoicesOf, movableClock, ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  advance,
  linesOf,
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';

// docs/usage.md, "Entitlements": a limit's Used is what the bill run counts for the metric in the period. An
// account in New York, whose summer time starts on 8 March 2026: March is 1 Mar 05:00Z to 1 Apr 04:00Z.
const clock = movableClock('2026-03-01T15:00:00.000Z');

const t = useTestService({ clock });

describe("a limit's Used", () => {
  it('counts the events the bill run bills to the governing subscription, and no other', async () => {
    const as = await t.newAccount('Shop in New York', { isTest: true, timeZone: 'America/New_York' });
    const { componentId } = await meteredComponent(as, 'calls', 'count');
    const customerId = await createCustomer(as);
    // Both bill `calls`; the first, created first, claims the customer's unnamed events while it bills.
    const first = await meteredSubscription(as, [componentId], customerId);
    const second = await meteredSubscription(as, [componentId], customerId);
    await ok(as, 'POST', '/v1/features', {
      Code: 'calls',
      Name: 'Calls',
      Type: 'limit',
      MetricCode: 'calls',
    });
    await ok(as, 'PUT', `/v1/packages/${second.plan.packageId}/features/calls`, { Limit: 100 }, 200);
    const calls = (at: string, n: number, subscriptionId: number | null = null) =>
      Array.from({ length: n }, () => ({ customerId, subscriptionId, code: 'calls', at }));

    await advance(as, '2026-03-06T16:00:00Z');
    await sendEvents(as, [
      ...calls('2026-03-05T15:00:00Z', 3), // unnamed, while the first bills: the first's
      ...calls('2026-03-06T15:00:00Z', 2, second.subscriptionId),
    ]);
    await advance(as, '2026-03-10T15:00:00Z');
    await ok(as, 'PUT', `/v1/subscriptions/${first.subscriptionId}/cancel/norefund`);
    await advance(as, '2026-03-12T16:00:00Z');
    await sendEvents(as, calls('2026-03-12T15:00:00Z', 4)); // unnamed, the first cancelled: the second's

    // 23:45 on 31 March in New York (EDT): an unnamed call at 23:30 is March's, one at 00:30 on 1 April is not.
    await advance(as, '2026-04-01T03:45:00Z');
    await sendEvents(as, [...calls('2026-04-01T03:30:00Z', 1), ...calls('2026-04-01T04:30:00Z', 1)]);
    const path = `/v1/customers/${customerId}/entitlements/calls`;
    expect(await ok(as, 'GET', path)).toMatchObject({
      subscriptionID: second.subscriptionId,
      Used: '7',
      Remaining: '93',
      PeriodStart: '2026-03-01',
      PeriodEnd: '2026-04-01',
    });

    // The bill run's March invoice of the second bills those same 7; the first's last invoice, its 3.
    await advance(as, '2026-04-01T15:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    const ofPlan = (plan: { name: string }) =>
      invoices.filter((i) => i.Charges[0]?.Descrip.includes(plan.name));
    const marchOfSecond = ofPlan(second.plan).find((i) => i.InvoiceDate.startsWith('2026-04-01'));
    expect(linesOf(marchOfSecond)[1]).toEqual([
      'API calls: 7 calls',
      7,
      'calls',
      '',
      '7',
      '2026-03-01',
      '2026-04-01',
    ]);
    const usageLines = invoices.flatMap((i) => i.Charges).filter((c: any) => c.MetricCode === 'calls');
    expect(usageLines.map((c: any) => [c.Quantity, c.PeriodStart])).toContainEqual([
      '3',
      '2026-03-01T05:00:00.000Z',
    ]);
    expect(await ok(as, 'GET', path)).toMatchObject({ Used: '1', PeriodStart: '2026-04-01' });
  });
});
