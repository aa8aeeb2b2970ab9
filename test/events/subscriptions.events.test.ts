import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { eventsOf, expectEvents, read } from '../helpers/resourceEvents.ts';
import type { WireEvent } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { plusDays } from '../helpers/clock.ts';

// Subscription events through the API and the bill run: the object as GET /v1/subscriptions/{id} shows it right
// after the change, `previous` for updates and status moves, versions counting up by one.

const t = useTestService();

async function clockedAccount(name: string) {
  const account = await t.newAccount(name, { isTest: true });
  const clock = (await read(account, '/v1/account')).TestClockDate as string;
  return { account, clock, today: clock.slice(0, 10) };
}

async function smsComponent(account: TestAccount) {
  const group = await ok(account, 'POST', '/v1/packagegroups', { GroupName: 'Add-ons' });
  return ok(account, 'POST', '/v1/components', {
    ComponentCode: 'SMS',
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] },
      ],
    },
  });
}

/** The events after the ones the create made (the create, and the first term billed at once). */
const last = (events: WireEvent[], count: number) => events.slice(-count);

describe('subscription events', () => {
  it('announce create, usage, component changes, a scheduled and an immediate cancel and a reactivation', async () => {
    const { account, clock, today } = await clockedAccount('Subscription lifecycle');
    const plan = await createPlan(account, { chargePrice: 30 });
    const sms = await smsComponent(account);
    const customerId = await createCustomer(account);
    const sub = await subscribe(account, customerId, plan, {
      StartDate: today,
      componentUsage: [{ componentID: sms.componentID }],
    });
    const id = sub.subscriptionID as number;
    const path = `/v1/subscriptions/${id}`;
    const afterCreate = await read(account, path);
    let events = await eventsOf(account, 'subscription', id);
    // Created, then billed at once: its first term is billed (renewed), told by the object after it.
    expect(events.map((e) => e.type)).toEqual(['subscription.created', 'subscription.renewed']);
    expect(events[1]!.data.object).toEqual(afterCreate);
    expect(events[1]!.data.previous).toBeUndefined();

    await ok(account, 'PUT', `${path}/components/recordusage`, [
      { componentID: sms.componentID, NumUnits: 5 },
    ]);
    const afterUsage = await read(account, path);
    await ok(account, 'PUT', `${path}/components/modify`, {
      componentUsage: [{ componentID: sms.componentID, NumUnits: 5, Memo: 'checked' }],
    });
    const afterModify = await read(account, path);
    await ok(account, 'PUT', `${path}/cancel/renewal`);
    const afterSchedule = await read(account, path);
    await ok(account, 'DELETE', `${path}/futurechanges`);
    const afterUnschedule = await read(account, path);
    await ok(account, 'PUT', `${path}/cancel/norefund`);
    const afterCancel = await read(account, path);
    await ok(account, 'PUT', `${path}/reactivate`);
    const afterReactivate = await read(account, path);

    events = await expectEvents(account, 'subscription', id, [
      'subscription.created',
      'subscription.renewed',
      'subscription.usage_recorded',
      'subscription.updated',
      'subscription.future_change_scheduled',
      'subscription.updated',
      'subscription.cancelled',
      'subscription.reactivated',
    ]);
    const [usage, modify, schedule, unschedule, cancel, reactivate] = last(events, 6);
    expect(usage!.data.object).toEqual(afterUsage);
    expect(usage!.data.previous).toEqual({ componentUsage: afterCreate.componentUsage });
    expect(modify!.data.object).toEqual(afterModify);
    expect(modify!.data.previous).toMatchObject({ componentUsage: afterUsage.componentUsage });
    expect(schedule!.data.object).toEqual(afterSchedule);
    expect(schedule!.data.previous).toMatchObject({ isFutureChange: false, CancelDate: null });
    expect(unschedule!.data.object).toEqual(afterUnschedule);
    expect(unschedule!.data.previous).toMatchObject({ isFutureChange: true });
    expect(cancel!.data.object).toEqual(afterCancel);
    expect(cancel!.data.previous).toMatchObject({ comp_Status: 'Active', isCancelled: false });
    expect(reactivate!.data.object).toEqual(afterReactivate);
    expect(reactivate!.data.previous).toMatchObject({ comp_Status: 'Cancelled' });
    for (const event of events) expect(event.timestamp).toBe(clock);

    // A second cancel on the same day is announced too (its once-key was claimed by the first).
    await ok(account, 'PUT', `${path}/cancel/norefund`);
    await ok(account, 'PUT', `${path}/reactivate`);
    const types = (await eventsOf(account, 'subscription', id)).map((e) => e.type);
    expect(types.slice(-4)).toEqual([
      'subscription.cancelled',
      'subscription.reactivated',
      'subscription.cancelled',
      'subscription.reactivated',
    ]);
  });

  it('announce each new term the bill run bills as renewed, and a scheduled package change when it applies', async () => {
    const { account, today } = await clockedAccount('Subscription renewals');
    const plan = await createPlan(account, { chargePrice: 30, chargeTerm: 10, chargeTermType: 'days' });
    const gold = await createPlan(account, { chargePrice: 60, chargeTerm: 10, chargeTermType: 'days' });
    const customerId = await createCustomer(account);
    const { subscriptionID: id } = await subscribe(account, customerId, plan, { StartDate: today });
    const path = `/v1/subscriptions/${id}`;

    const renewal = plusDays(today, 10);
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${renewal}T09:00:00.000Z` }, 200);
    const afterRenewal = await read(account, path);
    await ok(account, 'PUT', `${path}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
      isFutureChange: true,
    });
    const afterChange = await read(account, path);
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${plusDays(today, 20)}T09:00:00.000Z` }, 200);
    const afterApplied = await read(account, path);

    const events = await expectEvents(account, 'subscription', id, [
      'subscription.created',
      'subscription.renewed',
      'subscription.renewed',
      'subscription.future_change_scheduled',
      'subscription.future_change_applied',
    ]);
    const [renewed, scheduled, applied] = last(events, 3);
    expect(renewed!.data.object).toEqual(afterRenewal);
    expect(renewed!.data.previous).toBeUndefined(); // a renewal is told by the object after it
    expect(renewed!.timestamp).toBe(`${renewal}T09:00:00.000Z`);
    expect(scheduled!.data.object).toEqual(afterChange);
    expect(applied!.data.object).toEqual(afterApplied);
    expect(applied!.data.previous).toMatchObject({ packageID: plan.packageId, ChargePrice: 30 });

    const invoices = (await read(account, `/v1/customers/${customerId}/invoices`)) as any[];
    expect(invoices.map((invoice) => invoice.Total)).toEqual([30, 30, 60]);
    for (const invoice of invoices) {
      const [created] = await eventsOf(account, 'invoice', invoice.invoiceID);
      expect(created!.type).toBe('invoice.created');
    }
  });

  it('announce an end date set to today as expired, once, and a refused change as nothing', async () => {
    const { account, today } = await clockedAccount('Subscription end');
    const plan = await createPlan(account);
    const customerId = await createCustomer(account);
    const { subscriptionID: id } = await subscribe(account, customerId, plan, {
      StartDate: plusDays(today, -5),
    });
    const path = `/v1/subscriptions/${id}`;
    const refused = await account.request('PUT', `${path}/changeenddate`, {
      body: { EndDate: plusDays(today, -10) },
    });
    expect(refused.status).toBe(422);
    await ok(account, 'PUT', `${path}/changeenddate`, { EndDate: today });
    const ended = await read(account, path);
    expect(ended.comp_Status).toBe('Expired');
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${plusDays(today, 2)}T09:00:00.000Z` }, 200);
    const events = await expectEvents(account, 'subscription', id, [
      'subscription.created',
      'subscription.renewed',
      'subscription.expired',
    ]);
    expect(events[2]!.data.object).toEqual(ended);
    expect(events[2]!.data.previous).toMatchObject({ comp_Status: 'Active', isExpired: false });
  });
});
