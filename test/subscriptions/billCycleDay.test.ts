import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import {
  createComponent,
  createCustomer,
  createPlan,
  invoicesOf,
  movableClock,
  ok,
  subscribe,
} from '../helpers/billing.ts';
import type { PlanOptions } from '../helpers/billing.ts';
import { auditOf, eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceToDay } from '../helpers/clock.ts';

// The bill-cycle day (docs/pricing.md, "Bill-cycle day"), end to end: a customer's (or the account's) day makes
// new monthly subscriptions renew on it, the first period pro-rated up to it; PUT .../changebillcycleday moves an
// existing one from the end of its billed time. Every figure is computed by hand in the comment beside it.

const clock = movableClock('2026-01-20T10:00:00.000Z');
const t = useTestService({ clock });

const day = (wire: string | null) => (wire === null ? null : wire.slice(0, 10));

/** A fresh test account whose clock reads `on`, with a monthly plan. */
async function accountOn(on: string, options: PlanOptions = {}) {
  clock.set(`${on}T10:00:00.000Z`);
  const as = await t.newAccount('Cycle', { isTest: true });
  const plan = await createPlan(as, options);
  return { as, plan };
}

const periodsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/periods`)) as any[]).map((p) => [
    day(p.PeriodStart),
    day(p.PeriodEnd),
    p.Kind,
    p.Amount,
  ]);

/** What an invoice bills, to compare a preview with the invoice it predicts. */
const billed = (invoice: any) => ({
  InvoiceDate: day(invoice.InvoiceDate),
  Total: invoice.Total,
  Charges: invoice.Charges.map((c: any) => [c.Descrip, c.Qty, c.UnitCostEx, c.AmountEx, c.AmountInc]),
});

const upcoming = async (as: TestAccount, path: string) =>
  billed(await ok(as, 'GET', `${path}/upcoming-invoice`));

describe('BillCycleDay on customers and the account', () => {
  it('is stored, shown only when set, cleared by null, and refused out of 1–31 naming the field', async () => {
    const { as } = await accountOn('2026-01-20');
    const plain = await ok(as, 'POST', '/v1/customers', { Name: 'Plain' });
    expect('BillCycleDay' in plain).toBe(false);
    const withDay = await ok(as, 'POST', '/v1/customers', { Name: 'Ada', BillCycleDay: 31 });
    expect(withDay.BillCycleDay).toBe(31);

    for (const bad of [0, 32, 1.5, '1']) {
      const res = await as.request('PUT', `/v1/customers/${withDay.customerID}`, {
        body: { BillCycleDay: bad },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(JSON.stringify(res.body)).toContain('BillCycleDay');
    }
    expect((await ok(as, 'GET', `/v1/customers/${withDay.customerID}`)).BillCycleDay).toBe(31);
    await ok(as, 'PUT', `/v1/customers/${withDay.customerID}`, { BillCycleDay: null });
    expect('BillCycleDay' in (await ok(as, 'GET', `/v1/customers/${withDay.customerID}`))).toBe(false);

    expect('BillCycleDay' in (await ok(as, 'GET', '/v1/account'))).toBe(false);
    const bad = await as.request('PUT', '/v1/account', { body: { BillCycleDay: 0 } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('BillCycleDay');
    await ok(as, 'PUT', '/v1/account', { BillCycleDay: 15 });
    expect((await ok(as, 'GET', '/v1/account')).BillCycleDay).toBe(15);
    await ok(as, 'PUT', '/v1/account', { BillCycleDay: null });
    expect('BillCycleDay' in (await ok(as, 'GET', '/v1/account'))).toBe(false);
  });
});

describe('a new subscription renews on the customer’s day', () => {
  it('30.00 a month from Jan 20 on the 1st: a stub of 11.61, then 30.00 on each 1st; the preview is the invoice', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    expect([sub.isProRata, day(sub.firstProrataSyncDate), sub.BillCycleDay, day(sub.nextRenewDate)]).toEqual([
      true,
      '2026-02-01',
      1,
      '2026-02-01',
    ]);

    // Jan 20–Feb 1 over Jan 1–Feb 1 (31 days): 30.00 × 12 / 31 = 11.612… → 11.61
    const [first] = await invoicesOf(as, customerId);
    expect(billed(first)).toEqual({
      InvoiceDate: '2026-01-20',
      Total: 11.61,
      Charges: [[expect.stringMatching(/\(pro-rated, 12 of 31 days\)$/), 1, 11.61, 11.61, 11.61]],
    });

    const predicted = await upcoming(as, path);
    await advanceToDay(as, '2026-02-01');
    const second = (await invoicesOf(as, customerId))[1];
    expect(billed(second)).toEqual(predicted);
    expect(predicted).toMatchObject({ InvoiceDate: '2026-02-01', Total: 30 });

    await advanceToDay(as, '2026-03-01');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-01-20', '2026-02-01', 'stub', 11.61],
      ['2026-02-01', '2026-03-01', 'term', 30],
      ['2026-03-01', '2026-04-01', 'term', 30],
    ]);
  });

  it('usage follows the periods: the stub’s usage is billed in arrears on the 1st, as the preview says', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const component = await createComponent(as, {
      name: 'SMS bundle',
      currency: { ComponentBracketPrices: [{ Price: 0.5, QtyFrom: 1, QtyTill: null }] },
    });
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const sub = await subscribe(as, customerId, plan, {
      componentUsage: [{ componentID: component.componentID }],
    });
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await advanceToDay(as, '2026-01-25');
    await ok(as, 'PUT', `${path}/components/recordusage`, [
      { componentID: component.componentID, NumUnits: 7 },
    ]);

    // Feb 1: the month at 30.00, and in arrears the 7 sms of the stub Jan 20 – Feb 1 at 0.50: 30.00 + 3.50 = 33.50.
    const predicted = await upcoming(as, path);
    expect([predicted.InvoiceDate, predicted.Total]).toEqual(['2026-02-01', 33.5]);
    await advanceToDay(as, '2026-02-01');
    expect(billed((await invoicesOf(as, customerId)).at(-1))).toEqual(predicted);
  });

  it('on the 31st from Feb 10: a stub to Feb 28 over its 28 days, then Mar 31 and Apr 30', async () => {
    const { as, plan } = await accountOn('2026-02-10', { chargePrice: 28 });
    const customerId = await createCustomer(as, { BillCycleDay: 31 });
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await advanceToDay(as, '2026-04-30');
    expect(await periodsOf(as, path)).toEqual([
      // Feb 10–Feb 28 over Jan 31–Feb 28 (28 days): 28.00 × 18 / 28 = 18.00
      ['2026-02-10', '2026-02-28', 'stub', 18],
      ['2026-02-28', '2026-03-31', 'term', 28],
      ['2026-03-31', '2026-04-30', 'term', 28],
      ['2026-04-30', '2026-05-31', 'term', 28],
    ]);
  });

  it('the account’s day applies to a customer without one; the customer’s own day wins', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    await ok(as, 'PUT', '/v1/account', { BillCycleDay: 25 });
    const followsAccount = await subscribe(as, await createCustomer(as), plan);
    const ownDay = await subscribe(as, await createCustomer(as, { BillCycleDay: 1 }), plan);
    expect([day(followsAccount.firstProrataSyncDate), followsAccount.BillCycleDay]).toEqual([
      '2026-01-25',
      25,
    ]);
    expect([day(ownDay.firstProrataSyncDate), ownDay.BillCycleDay]).toEqual(['2026-02-01', 1]);
  });

  it('an explicit firstProrataSyncDate or isProRata false wins; a start on the day needs no stub', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const explicit = await subscribe(as, customerId, plan, {
      isProRata: true,
      firstProrataSyncDate: '2026-02-10',
    });
    expect([day(explicit.firstProrataSyncDate), 'BillCycleDay' in explicit]).toEqual(['2026-02-10', false]);
    const optedOut = await subscribe(as, customerId, plan, { isProRata: false });
    expect([optedOut.isProRata, day(optedOut.nextRenewDate), 'BillCycleDay' in optedOut]).toEqual([
      false,
      '2026-02-20',
      false,
    ]);
    const onTheDay = await subscribe(as, customerId, plan, { StartDate: '2026-02-01' });
    expect([onTheDay.isProRata, onTheDay.firstProrataSyncDate, onTheDay.BillCycleDay]).toEqual([
      false,
      null,
      1,
    ]);
  });

  it('a new StartDate plans the first period again; a new customer day leaves the subscription as it is', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const sub = await subscribe(as, customerId, plan, { StartDate: '2026-03-10' });
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    const read = async () => {
      const s = await ok(as, 'GET', path);
      return [s.isProRata, day(s.firstProrataSyncDate), s.BillCycleDay];
    };
    expect(await read()).toEqual([true, '2026-04-01', 1]);
    await ok(as, 'PUT', `${path}/changestartdate`, { StartDate: '2026-04-01' });
    expect(await read()).toEqual([false, null, 1]);
    await ok(as, 'PUT', `${path}/changestartdate`, { StartDate: '2026-04-05' });
    expect(await read()).toEqual([true, '2026-05-01', 1]);

    await ok(as, 'PUT', `/v1/customers/${customerId}`, { BillCycleDay: 20 });
    expect(await read()).toEqual([true, '2026-05-01', 1]);
  });

  it('a term of days ignores the day', async () => {
    const { as, plan } = await accountOn('2026-01-20', { chargeTerm: 30, chargeTermType: 'days' });
    const sub = await subscribe(as, await createCustomer(as, { BillCycleDay: 1 }), plan);
    expect([sub.isProRata, day(sub.nextRenewDate), 'BillCycleDay' in sub]).toEqual([
      false,
      '2026-02-19',
      false,
    ]);
  });

  it('with a 14-day trial from Mar 1 on the 1st: the stub runs from the trial’s end to Apr 1', async () => {
    const { as, plan } = await accountOn('2026-03-01', { trialPeriod: 14 });
    const sub = await subscribe(as, await createCustomer(as, { BillCycleDay: 1 }), plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await advanceToDay(as, '2026-04-01');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-15', 'trial', 0],
      // Mar 15–Apr 1 over Mar 1–Apr 1 (31 days): 30.00 × 17 / 31 = 16.451… → 16.45
      ['2026-03-15', '2026-04-01', 'stub', 16.45],
      ['2026-04-01', '2026-05-01', 'term', 30],
    ]);
  });
});

describe('PUT /v1/subscriptions/{id}/changebillcycleday', () => {
  it('moves from the end of the billed time: the preview is what it then bills', async () => {
    const { as, plan } = await accountOn('2026-03-01');
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    await advanceToDay(as, '2026-03-10');

    const preview = await ok(as, 'PUT', `${path}/changebillcycleday?preview=true`, { BillCycleDay: 15 }, 200);
    expect([preview.Credits, preview.Invoices]).toEqual([[], []]);
    // Apr 1–Apr 15 over the new cycle's Mar 15–Apr 15 (31 days): 30.00 × 14 / 31 = 13.548… → 13.55
    expect(billed(preview.UpcomingInvoice)).toEqual({
      InvoiceDate: '2026-04-01',
      Total: 13.55,
      Charges: [[expect.stringMatching(/\(pro-rated, 14 of 31 days\)$/), 1, 13.55, 13.55, 13.55]],
    });
    // A preview changes nothing.
    expect('BillCycleDay' in (await ok(as, 'GET', path))).toBe(false);
    expect((await upcoming(as, path)).Total).toBe(30);

    await ok(as, 'PUT', `${path}/changebillcycleday`, { BillCycleDay: 15 });
    // Recorded as the other changes are: a subscription.updated event, with its audit entry.
    const event = (await eventsOf(as, 'subscription', sub.subscriptionID)).at(-1)!;
    expect([event.type, event.data.object.BillCycleDay, event.data.previous!.BillCycleDay ?? null]).toEqual([
      'subscription.updated',
      15,
      null,
    ]);
    expect((await auditOf(as, event.id)).eventID).toBe(event.id);
    const moved = await ok(as, 'GET', path);
    expect([moved.BillCycleDay, day(moved.nextRenewDate), day(moved.comp_nextInvDate)]).toEqual([
      15,
      '2026-04-01',
      '2026-04-01',
    ]);
    expect(await upcoming(as, path)).toEqual(billed(preview.UpcomingInvoice));

    await advanceToDay(as, '2026-04-15');
    const invoices = await invoicesOf(as, customerId);
    expect(billed(invoices[1])).toEqual(billed(preview.UpcomingInvoice));
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 'term', 30],
      ['2026-04-01', '2026-04-15', 'stub', 13.55],
      ['2026-04-15', '2026-05-15', 'term', 30],
    ]);
    // The customer paid 30.00 for March, then 13.55 + 30.00 for Apr 1–May 15: no day billed twice, none left out.
  });

  it('before the first whole term is billed, the first period is planned again', async () => {
    const { as, plan } = await accountOn('2026-01-20', { trialPeriod: 14 });
    const customerId = await createCustomer(as, { BillCycleDay: 1 });
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    // The trial runs to Feb 3; the stub after it would end Mar 1. Moved to the 10th, it ends Feb 10.
    await ok(as, 'PUT', `${path}/changebillcycleday`, { BillCycleDay: 10 });
    const moved = await ok(as, 'GET', path);
    expect([moved.isProRata, day(moved.firstProrataSyncDate), moved.BillCycleDay]).toEqual([
      true,
      '2026-02-10',
      10,
    ]);
    await advanceToDay(as, '2026-02-10');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-01-20', '2026-02-03', 'trial', 0],
      // Feb 3–Feb 10 over Jan 10–Feb 10 (31 days): 30.00 × 7 / 31 = 6.774… → 6.77
      ['2026-02-03', '2026-02-10', 'stub', 6.77],
      ['2026-02-10', '2026-03-10', 'term', 30],
    ]);
  });

  it('the same day changes nothing', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const sub = await subscribe(as, await createCustomer(as, { BillCycleDay: 1 }), plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    const preview = await ok(as, 'PUT', `${path}/changebillcycleday?preview=true`, { BillCycleDay: 1 }, 200);
    expect(billed(preview.UpcomingInvoice)).toEqual(await upcoming(as, path));
    await ok(as, 'PUT', `${path}/changebillcycleday`, { BillCycleDay: 1 });
    const after = await ok(as, 'GET', path);
    expect([day(after.firstProrataSyncDate), after.BillCycleDay, after.LastModified]).toEqual([
      '2026-02-01',
      1,
      sub.LastModified,
    ]);
  });

  it('refuses a day out of range (422), a term of days, a cancelled subscription (409) and another account’s (404)', async () => {
    const { as, plan } = await accountOn('2026-01-20');
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan);
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    for (const body of [{ BillCycleDay: 0 }, { BillCycleDay: 32 }, {}, { BillCycleDay: 5, Extra: 1 }]) {
      const res = await as.request('PUT', `${path}/changebillcycleday`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
    }
    const zero = await as.request('PUT', `${path}/changebillcycleday`, { body: { BillCycleDay: 0 } });
    expect(JSON.stringify(zero.body)).toContain('BillCycleDay');

    const daily = await createPlan(as, { chargeTerm: 30, chargeTermType: 'days' });
    const dailySub = await subscribe(as, customerId, daily);
    const days = await as.request('PUT', `/v1/subscriptions/${dailySub.subscriptionID}/changebillcycleday`, {
      body: { BillCycleDay: 5 },
    });
    expect([days.status, days.body.code]).toEqual([409, 'bill_cycle_day_not_applicable']);

    await ok(as, 'PUT', `${path}/cancel/renewal`);
    const cancelled = await as.request('PUT', `${path}/changebillcycleday`, { body: { BillCycleDay: 5 } });
    expect([cancelled.status, cancelled.body.code]).toEqual([409, 'subscription_cancelled']);

    const other = await t.newAccount('Other', { isTest: true });
    const foreign = await other.request('PUT', `${path}/changebillcycleday`, { body: { BillCycleDay: 5 } });
    expect(foreign.status).toBe(404);
    expect('BillCycleDay' in (await ok(as, 'GET', path))).toBe(false);
  });
});
