import { describe, expect, it } from 'vitest';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advance, linesOf, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';

// What a pause does to usage and entitlements (docs/subscriptions.md, "Pause and resume"): usage events sent while
// paused are stored but fall in no period, so they are never billed; usage recorded by the API is refused (409),
// as it would belong to no period; a paused subscription gives no feature.
const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

const day = (wire: string | null | undefined) => (wire ? wire.slice(0, 10) : null);
const meteredLines = (invoice: any) => linesOf(invoice).filter((line: unknown[]) => line.length > 2);

describe('usage and entitlements while paused', () => {
  it('bills the calls before the pause and after the resume, never those sent while paused', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const as = await t.newAccount('Paused usage', { isTest: true });
    const { metric, componentId } = await meteredComponent(as, 'api', 'count');
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: componentId }] });
    const subscriptionId = sub.subscriptionID as number;
    const path = `/v1/subscriptions/${subscriptionId}`;
    const calls = (time: string, n: number) =>
      Array.from({ length: n }, () => ({ customerId, subscriptionId, code: metric.code, at: time }));
    await advance(as, '2026-03-05T10:00:00Z');
    await sendEvents(as, calls('2026-03-05T09:00:00Z', 2));
    await advance(as, '2026-03-10T10:00:00Z');
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata' });
    await advance(as, '2026-03-15T10:00:00Z');
    await sendEvents(as, calls('2026-03-15T09:00:00Z', 3));
    // While paused no usage period runs: the current usage is empty.
    const usage = await ok(as, 'GET', `${path}/usage`);
    expect([usage.PeriodStart, usage.Usage]).toEqual([null, []]);
    await advance(as, '2026-04-20T10:00:00Z');
    await ok(as, 'PUT', `${path}/resume`, {});
    await advance(as, '2026-04-25T10:00:00Z');
    await sendEvents(as, calls('2026-04-25T09:00:00Z', 4));
    await advance(as, '2026-05-20T10:00:00Z');

    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => [day(i.InvoiceDate), i.Total])).toEqual([
      // Mar 1 – Apr 1 at 30.00; usage is billed in arrears.
      ['2026-03-01', 30],
      // The resumption: Apr 20 – May 20 at 30.00, and the 2 calls of Mar 1 – Mar 10 (the cut period) at 1.00.
      ['2026-04-20', 32],
      // May 20 – Jun 20 at 30.00 and the 4 calls of Apr 25: 34.00. The 3 calls of Mar 15 are billed nowhere.
      ['2026-05-20', 34],
    ]);
    expect(meteredLines(invoices[1])).toEqual([
      ['API calls: 2 calls', 2, 'api', '', '2', '2026-03-01', '2026-03-10'],
    ]);
    expect(meteredLines(invoices[2])).toEqual([
      ['API calls: 4 calls', 4, 'api', '', '4', '2026-04-20', '2026-05-20'],
    ]);
  });

  it('refuses usage recorded by the API while paused, and gives no feature until resumed', async () => {
    clock.set('2026-03-01T10:00:00.000Z');
    const as = await t.newAccount('Paused features', { isTest: true });
    const plan = await createPlan(as, { chargePrice: 30 });
    const feature = await ok(as, 'POST', '/v1/features', { Code: 'sso', Name: 'SSO', Type: 'boolean' });
    const set = await as.request('PUT', `/v1/packages/${plan.packageId}/features/${feature.Code}`, {
      body: { Enabled: true },
    });
    expect(set.status, set.text).toBe(200);
    const customerId = await createCustomer(as);
    const sms = await createComponent(as);
    const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: sms.componentID }] });
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    const allowed = async () =>
      (await ok(as, 'GET', `/v1/customers/${customerId}/entitlements/sso`)).Allowed as boolean;
    expect(await allowed()).toBe(true);
    await ok(as, 'PUT', `${path}/pause`, { Credit: 'prorata', ResumeDate: '2026-04-01' });
    expect(await allowed()).toBe(false);
    const recorded = await as.request('PUT', `${path}/components/recordusage`, {
      body: [{ componentID: sms.componentID, NumUnits: 5 }],
    });
    expect([recorded.status, recorded.body.code]).toEqual([409, 'subscription_paused']);
    await advance(as, '2026-04-01T10:00:00Z');
    expect(await allowed()).toBe(true);
  });
});
