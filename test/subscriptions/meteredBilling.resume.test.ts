import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, linesOf, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';

// docs/usage.md, "Reactivating": a cancelled subscription billing usage from events that is reactivated bills the
// usage of the time between its stop and the resume once when the time already paid for resumes, and none when it
// restarts on a new cycle (that time it was cancelled, and was not paid for).
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

/** A plan at 30.00 with "API calls" at 1.00 a call, 2 calls on 5 Mar, cancelled on 10 Mar without refund. */
async function cancelledOnTenth(as: TestAccount) {
  const { metric, componentId } = await meteredComponent(as, 'api', 'count');
  const plan = await createPlan(as);
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: componentId }] });
  const subscriptionId = sub.subscriptionID as number;
  const calls = (time: string, n: number) =>
    Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at: time }));
  await advance(as, '2026-03-05T10:00:00Z');
  await sendEvents(as, calls('2026-03-05T09:00:00Z', 2));
  await advance(as, '2026-03-10T10:00:00Z');
  await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
  await advance(as, '2026-03-10T11:00:00Z');
  return { customerId, subscriptionId, calls };
}

const meteredLines = (invoice: any) => linesOf(invoice).filter((line: unknown[]) => line.length > 2);

describe('a metered subscription reactivated', () => {
  it('within the time paid for bills the usage from the stop to its period end once, at its renewal', async () => {
    const as = await t.newAccount('Shop resumed', { isTest: true });
    const { customerId, subscriptionId, calls } = await cancelledOnTenth(as);
    await advance(as, '2026-03-15T10:00:00Z');
    await sendEvents(as, calls('2026-03-15T09:00:00Z', 3));
    await advance(as, '2026-03-20T10:00:00Z');
    // The period paid for (1 Mar–1 Apr) is still ahead: billing resumes where it ends.
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/reactivate`);
    await advance(as, '2026-03-25T10:00:00Z');
    await sendEvents(as, calls('2026-03-25T09:00:00Z', 4));
    await advance(as, '2026-04-01T01:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual([
      '2026-03-01',
      '2026-03-10',
      '2026-04-01',
    ]);
    expect(meteredLines(invoices[1])).toEqual([
      ['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-03-10'],
    ]);
    // 10 Mar–1 Apr: the 3 calls of 15 Mar (while cancelled) and the 4 of 25 Mar, 7 × 1.00.
    expect(meteredLines(invoices[2])).toEqual([
      ['API calls: 7 calls', 7, 'api', '', '7', '2026-03-10', '2026-04-01'],
    ]);

    await advance(as, '2026-05-01T01:00:00Z');
    const may = (await invoicesOf(as, customerId)).at(-1);
    expect(meteredLines(may)).toEqual([
      ['API calls: 0 calls', 0, 'api', '', '0', '2026-04-01', '2026-05-01'],
    ]);
  });

  it('after the time paid for restarts on a new cycle, and bills none of the time it was cancelled', async () => {
    const as = await t.newAccount('Shop restarted', { isTest: true });
    const { customerId, subscriptionId, calls } = await cancelledOnTenth(as);
    await advance(as, '2026-03-15T10:00:00Z');
    await sendEvents(as, calls('2026-03-15T09:00:00Z', 3));
    await advance(as, '2026-04-03T10:00:00Z');
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/reactivate`);
    await sendEvents(as, calls('2026-04-04T09:00:00Z', 4));
    await advance(as, '2026-05-03T01:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual([
      '2026-03-01',
      '2026-03-10',
      '2026-04-03',
      '2026-05-03',
    ]);
    expect(invoices.slice(1).map(meteredLines)).toEqual([
      [['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-03-10']],
      [],
      [['API calls: 4 calls', 4, 'api', '', '4', '2026-04-03', '2026-05-03']],
    ]);
  });
});
