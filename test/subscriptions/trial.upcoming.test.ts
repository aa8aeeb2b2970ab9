import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import type { PlanOptions } from '../helpers/billing.ts';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceTo, billedContent, day, newInvoices, upcomingOf } from './trial.helpers.ts';

// comp_nextInvDate and the upcoming invoice of subscriptions whose first period bills nothing (a free trial) or
// something other than the price (a trial fee, a setup fee, a zero price), at creation and while running, checked
// against the invoices the bill run then makes. Each test has a test account in UTC whose clock starts on
// 2026-11-23 and moves through the API; 15% VAT.

const clock = movableClock('2026-11-23T10:00:00.000Z');

const t = useTestService({ clock });

async function shopWith(plan: PlanOptions) {
  const as = await t.newAccount('Trial shop', { isTest: true });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  const customerId = await createCustomer(as);
  return { as, customerId, plan: await createPlan(as, plan) };
}

const subscription = (as: TestAccount, id: number) => ok(as, 'GET', `/v1/subscriptions/${id}`);

describe('a subscription starting later with a free trial', () => {
  it('shows the first charge, on the trial’s end, as its next invoice (docs/spec-decisions.md’s example)', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01' });
    const id = created.subscriptionID;
    // The trial runs 2027-01-01 to 2027-01-15 (14 days) and bills nothing; 25.00 is due on 2027-01-15.
    expect(created).toMatchObject({
      comp_Status: 'Future',
      TrialEndDate: '2027-01-15T00:00:00.000Z',
      comp_nextInvDate: '2027-01-15T00:00:00.000Z',
    });
    const upcoming = await upcomingOf(as, id);
    // 25.00 + 15% VAT (3.75) = 28.75.
    expect(upcoming).toMatchObject({
      InvoiceDate: '2027-01-15T00:00:00.000Z',
      Total: 28.75,
      Status: 'Due',
    });
    expect(upcoming.Charges.map((c: any) => [c.Descrip, c.AmountEx, c.AmountInc])).toEqual([
      [expect.stringMatching(/^Plan \d+$/), 25, 28.75],
    ]);

    // In the trial, once the bill run has recorded it: the same answer, and no invoice yet.
    await advanceTo(as, '2027-01-14');
    const inTrial = await subscription(as, id);
    expect(inTrial).toMatchObject({
      comp_Status: 'Trial',
      nextRenewDate: '2027-01-15T00:00:00.000Z',
      comp_nextInvDate: '2027-01-15T00:00:00.000Z',
    });
    expect(await ok(as, 'GET', `/v1/subscriptions/${id}/periods`)).toHaveLength(1);
    expect(await newInvoices(as, customerId, new Set())).toEqual([]);
    expect(billedContent(await upcomingOf(as, id))).toEqual(billedContent(upcoming));

    // The trial's end: the invoice made is the one previewed; the next is a month later.
    await advanceTo(as, '2027-01-15');
    const made = await newInvoices(as, customerId, new Set());
    expect(made.map(billedContent)).toEqual([billedContent(upcoming)]);
    const running = await subscription(as, id);
    expect(running).toMatchObject({ comp_Status: 'Active', comp_nextInvDate: '2027-02-15T00:00:00.000Z' });
    expect((await upcomingOf(as, id)).InvoiceDate).toBe('2027-02-15T00:00:00.000Z');
  });

  it('lists the same date as it reads one subscription', async () => {
    const { as, customerId, plan } = await shopWith({
      chargePrice: 25,
      trialPeriod: 1,
      trialPeriodType: 'months',
    });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-31' });
    // A month's trial from Jan 31 ends on Feb 28 (the month has no 31st).
    expect(created.comp_nextInvDate).toBe('2027-02-28T00:00:00.000Z');
    const listed = await ok(as, 'GET', `/v1/customers/${customerId}/subscriptions`);
    expect(listed.map((s: any) => s.comp_nextInvDate)).toEqual(['2027-02-28T00:00:00.000Z']);
    expect(await ok(as, 'GET', '/v1/subscriptions')).toEqual(listed);
  });

  it('is invoiced numDaysBeforeToInv ahead of the trial’s end', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01', numDaysBeforeToInv: 5 });
    // 2027-01-15 less 5 days.
    expect(created.comp_nextInvDate).toBe('2027-01-10T00:00:00.000Z');
    const upcoming = await upcomingOf(as, created.subscriptionID);
    expect(day(upcoming.InvoiceDate)).toBe('2027-01-10');
    await advanceTo(as, '2027-01-10');
    expect((await newInvoices(as, customerId, new Set())).map(billedContent)).toEqual([
      billedContent(upcoming),
    ]);
  });

  it('has no invoice coming when it ends within its free trial', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01', EndDate: '2027-01-10' });
    expect(created.comp_nextInvDate).toBeNull();
    expect(await upcomingOf(as, created.subscriptionID)).toBeNull();
    await advanceTo(as, '2027-02-01');
    expect(await newInvoices(as, customerId, new Set())).toEqual([]);
    expect(await subscription(as, created.subscriptionID)).toMatchObject({
      comp_Status: 'Expired',
      comp_nextInvDate: null,
    });
  });
});

/** A component priced 1.00 a unit for the first 10, 0.50 above, in the plan's package group. */
async function smsComponent(as: TestAccount, packageId: number): Promise<number> {
  const pkg = await ok(as, 'GET', `/v1/packages/${packageId}`);
  const component = await ok(as, 'POST', '/v1/components', {
    ComponentCode: `SMS-${packageId}`,
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'sms',
    packageGroupID: pkg.packageGroupID,
    Term: 1,
    TermType: 'months',
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        {
          CurrencyCode: 'USD',
          ComponentBracketPrices: [
            { Price: 1, QtyFrom: 1, QtyTill: 10 },
            { Price: 0.5, QtyFrom: 11, QtyTill: null },
          ],
        },
      ],
    },
  });
  return component.componentID;
}

describe('usage in a free trial', () => {
  it('is billed on the first invoice after the trial, which the preview shows', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const componentId = await smsComponent(as, plan.packageId);
    const created = await subscribe(as, customerId, plan, {
      StartDate: '2027-01-01',
      componentUsage: [{ componentID: componentId, NumUnits: 12 }],
    });
    expect(created.comp_nextInvDate).toBe('2027-01-15T00:00:00.000Z');
    await advanceTo(as, '2027-01-05');
    const upcoming = await upcomingOf(as, created.subscriptionID);
    // 25.00, and 12 units of the trial: 10 × 1.00 + 2 × 0.50 = 11.00; 36.00 + 15% (5.40) = 41.40.
    expect(upcoming.Charges.map((c: any) => c.AmountEx)).toEqual([25, 11]);
    expect(upcoming).toMatchObject({ InvoiceDate: '2027-01-15T00:00:00.000Z', Total: 41.4 });
    await advanceTo(as, '2027-01-15');
    expect((await newInvoices(as, customerId, new Set())).map(billedContent)).toEqual([
      billedContent(upcoming),
    ]);
  });

  it('makes the next invoice of a subscription ending within its free trial: the usage, on its EndDate', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const componentId = await smsComponent(as, plan.packageId);
    const created = await subscribe(as, customerId, plan, {
      StartDate: '2027-01-01',
      EndDate: '2027-01-10',
      componentUsage: [{ componentID: componentId, NumUnits: 3 }],
    });
    expect(created.comp_nextInvDate).toBe('2027-01-10T00:00:00.000Z');
    const listed = await ok(as, 'GET', `/v1/customers/${customerId}/subscriptions`);
    expect(listed.map((s: any) => s.comp_nextInvDate)).toEqual(['2027-01-10T00:00:00.000Z']);
    const upcoming = await upcomingOf(as, created.subscriptionID);
    // 3 × 1.00 = 3.00 + 15% = 3.45.
    expect(upcoming).toMatchObject({ InvoiceDate: '2027-01-10T00:00:00.000Z', Total: 3.45 });
    await advanceTo(as, '2027-01-10');
    expect((await newInvoices(as, customerId, new Set())).map(billedContent)).toEqual([
      billedContent(upcoming),
    ]);
    const ended = await subscription(as, created.subscriptionID);
    expect(ended).toMatchObject({ comp_Status: 'Expired', comp_nextInvDate: null });
    expect(await upcomingOf(as, created.subscriptionID)).toBeNull();
  });
});

describe('other first periods that bill something else than the price', () => {
  it('a trial fee is invoiced on the start', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14, trialFee: 2 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01' });
    expect(created.comp_nextInvDate).toBe('2027-01-01T00:00:00.000Z');
    const upcoming = await upcomingOf(as, created.subscriptionID);
    // 2.00 + 15% = 2.30.
    expect(upcoming.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      [expect.stringMatching(/: trial$/), 2],
    ]);
    expect(upcoming.Total).toBe(2.3);
    await advanceTo(as, '2027-01-01');
    expect((await newInvoices(as, customerId, new Set())).map(billedContent)).toEqual([
      billedContent(upcoming),
    ]);
    expect((await subscription(as, created.subscriptionID)).comp_nextInvDate).toBe(
      '2027-01-15T00:00:00.000Z',
    );
  });

  it('a setup fee with a free trial is invoiced on the start, alone', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14, setupFee: 10 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01' });
    expect(created.comp_nextInvDate).toBe('2027-01-01T00:00:00.000Z');
    const upcoming = await upcomingOf(as, created.subscriptionID);
    // 10.00 + 15% = 11.50.
    expect(upcoming.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      [expect.stringMatching(/: setup fee$/), 10],
    ]);
    expect(upcoming.Total).toBe(11.5);
    await advanceTo(as, '2027-01-01');
    const known = new Set<number>();
    const first = await newInvoices(as, customerId, known);
    expect(first.map(billedContent)).toEqual([billedContent(upcoming)]);
    first.forEach((i) => known.add(i.invoiceID));
    // Then the price, on the trial's end.
    const second = await upcomingOf(as, created.subscriptionID);
    expect(second).toMatchObject({ InvoiceDate: '2027-01-15T00:00:00.000Z', Total: 28.75 });
    await advanceTo(as, '2027-01-15');
    expect((await newInvoices(as, customerId, known)).map(billedContent)).toEqual([billedContent(second)]);
  });

  it('a zero price is invoiced at 0.00 on the start, as the bill run does', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 0 });
    const created = await subscribe(as, customerId, plan, { StartDate: '2027-01-01' });
    expect(created.comp_nextInvDate).toBe('2027-01-01T00:00:00.000Z');
    const upcoming = await upcomingOf(as, created.subscriptionID);
    expect(upcoming).toMatchObject({ InvoiceDate: '2027-01-01T00:00:00.000Z', Total: 0 });
    await advanceTo(as, '2027-01-01');
    expect((await newInvoices(as, customerId, new Set())).map(billedContent)).toEqual([
      billedContent(upcoming),
    ]);
  });

  it('a free trial begun in the past is billed at once when it has ended, and shows the next term', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    // Started 2026-11-01: the trial ended 2026-11-15, so the term 2026-11-15 to 2026-12-15 is billed on create.
    const created = await subscribe(as, customerId, plan, { StartDate: '2026-11-01' });
    const made = await newInvoices(as, customerId, new Set());
    expect(made.map((i) => [day(i.InvoiceDate), i.Total])).toEqual([['2026-11-23', 28.75]]);
    expect(created.comp_nextInvDate).toBe('2026-12-15T00:00:00.000Z');
    expect(day((await upcomingOf(as, created.subscriptionID)).InvoiceDate)).toBe('2026-12-15');
  });
});

describe('a record the core cannot plan', () => {
  it('answers the upcoming invoice with a 409 problem, and still lists with its stored date', async () => {
    const { as, customerId, plan } = await shopWith({ chargePrice: 25, trialPeriod: 14 });
    const { subscriptionID: id } = await subscribe(as, customerId, plan, { StartDate: '2027-01-01' });
    // Broken behind the API's back, as a bad migration or manual edit would; the bill run has not parked it yet.
    await t.service.storage.db
      .updateTable('subscriptions')
      .set({ term_type: 'weeks' })
      .where('id', '=', id)
      .execute();
    const res = await as.request('GET', `/v1/subscriptions/${id}/upcoming-invoice`);
    expect(res.status, res.text).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('subscription_invalid');
    expect(res.body.detail).toMatch(/invalid term 1 weeks.*next invoice cannot be planned/);
    // The list does not fail for it: comp_nextInvDate falls back to the bill run's stored date.
    const listed = (await ok(as, 'GET', '/v1/subscriptions')) as any[];
    expect(listed.find((s) => s.subscriptionID === id)?.comp_nextInvDate).toBe('2027-01-01T00:00:00.000Z');
  });
});
