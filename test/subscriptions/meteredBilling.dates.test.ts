import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { up as backFillLastInvoices } from '../../src/storage/migrations/0046_metered_last_invoice.ts';
import { advance, linesOf, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';

// docs/usage.md, "Billing usage": a subscription billed for its usage alone (a plan at 0.00 whose only component is
// linked to a metric) gets its invoices, its next invoice date and its preview on the dates the bill run keeps.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

describe('a subscription billed for its metered usage alone', () => {
  it('is previewed for the end of its period and billed then, in arrears', async () => {
    const as = await t.newAccount('Shop usage only', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as, { chargePrice: 0 });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: componentId }] });
    const subscriptionId = sub.subscriptionID as number;
    const calls = (at: string, n: number) =>
      Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at }));

    await sendEvents(as, calls('2026-03-01T09:00:00Z', 3));
    // 1 March's invoice bills the plan's 0.00 in advance; the next is 1 April's, March's usage in arrears.
    expect((await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}`)).comp_nextInvDate).toBe(
      '2026-04-01T00:00:00.000Z',
    );
    const upcoming = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(upcoming.InvoiceDate.slice(0, 10)).toBe('2026-04-01');
    expect(linesOf(upcoming).at(-1)).toEqual([
      'API calls: 3 calls',
      3,
      'api',
      '',
      '3',
      '2026-03-01',
      '2026-04-01',
    ]);

    await advance(as, '2026-03-20T10:00:00Z');
    await sendEvents(as, calls('2026-03-20T09:00:00Z', 2));
    await advance(as, '2026-04-01T01:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual(['2026-03-01', '2026-04-01']);
    expect(linesOf(invoices[1]).at(-1)).toEqual([
      'API calls: 5 calls',
      5,
      'api',
      '',
      '5',
      '2026-03-01',
      '2026-04-01',
    ]);
    expect(invoices[1].Total).toBe(5);
    expect((await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}`)).comp_nextInvDate).toBe(
      '2026-05-01T00:00:00.000Z',
    );
  });

  it("whose EndDate ends its last period gets a last invoice on that day for the period's usage", async () => {
    const as = await t.newAccount('Shop usage until April', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as);
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: componentId }],
      EndDate: '2026-04-01',
    });
    const subscriptionId = sub.subscriptionID as number;
    await sendEvents(
      as,
      Array.from({ length: 4 }, () => ({
        customerId,
        subscriptionId,
        code: metric.code,
        at: '2026-03-01T09:00:00Z',
      })),
    );
    expect((await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}`)).comp_nextInvDate).toBe(
      '2026-04-01T00:00:00.000Z',
    );
    const upcoming = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(upcoming.InvoiceDate.slice(0, 10)).toBe('2026-04-01');
    expect(linesOf(upcoming)).toEqual([
      ['API calls: 4 calls', 4, 'api', '', '4', '2026-03-01', '2026-04-01'],
    ]);
    await advance(as, '2026-04-01T01:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.InvoiceDate.slice(0, 10))).toEqual(['2026-03-01', '2026-04-01']);
    expect(linesOf(invoices[1])).toEqual(linesOf(upcoming));
  });

  it('cancelled before its start owes no last invoice, and is not left due after a bill run', async () => {
    const as = await t.newAccount('Shop usage cancelled before start', { isTest: true });
    const { componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as);
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: componentId }],
      StartDate: '2026-03-10',
    });
    const subscriptionId = sub.subscriptionID as number;
    // Cancelled today, before the start: no usage period has any length.
    await ok(as, 'PUT', `/v1/subscriptions/${subscriptionId}/cancel/norefund`);
    await advance(as, '2026-03-02T01:00:00Z');
    expect(await storedNextInvDate(subscriptionId)).toBeNull();
    expect((await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}`)).comp_nextInvDate).toBeNull();
    expect(await invoicesOf(as, customerId)).toEqual([]);
  });

  it('stopped before the rule of the last invoice is made due on its stop day by migration 0046', async () => {
    const as = await t.newAccount('Shop usage stopped before 0046', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as);
    const customerId = await createCustomer(as);
    const subscribeUntil = async (body: Record<string, unknown>) =>
      (await subscribe(as, customerId, plan, body)).subscriptionID as number;
    const metered = await subscribeUntil({
      componentUsage: [{ componentID: componentId }],
      EndDate: '2026-04-01',
    });
    const notMetered = await subscribeUntil({ EndDate: '2026-04-01' });
    await sendEvents(
      as,
      Array.from({ length: 2 }, () => ({
        customerId,
        subscriptionId: metered,
        code: metric.code,
        at: '2026-03-01T09:00:00Z',
      })),
    );
    // As the bill run left them before: the period billed in advance, nothing left, no next invoice date.
    const db = t.service.storage.db;
    await db
      .updateTable('subscriptions')
      .set({ next_inv_date: null })
      .where('id', 'in', [metered, notMetered])
      .execute();

    await backFillLastInvoices(db);
    expect(await storedNextInvDate(metered)).toBe('2026-04-01');
    expect(await storedNextInvDate(notMetered)).toBeNull();
    await advance(as, '2026-04-01T01:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    const lastOfMetered = invoices.filter((i) => i.InvoiceDate.startsWith('2026-04-01'));
    expect(lastOfMetered.map(linesOf)).toEqual([
      [['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-04-01']],
    ]);
    // Looked at once more when the last period's grace window closes (docs/usage.md, "After the last invoice").
    expect(await storedNextInvDate(metered)).toBe('2026-04-04');
  });
});

async function storedNextInvDate(subscriptionId: number): Promise<string | null> {
  const row = await t.service.storage.db
    .selectFrom('subscriptions')
    .select('next_inv_date')
    .where('id', '=', subscriptionId)
    .executeTakeFirstOrThrow();
  return row.next_inv_date;
}
