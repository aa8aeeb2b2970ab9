import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import type { PlanOptions } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceToDay } from '../helpers/clock.ts';

// A change made now keeps the billing anchor unless `resetBillingAnchor: true` (docs/spec-decisions.md,
// "Subscription lifecycle and billing"). Every figure below is computed by hand in the comment beside it: the
// unused part of the billed term is credited and the new price charged over the same days, each rounded once.

const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

const day = (wire: string | null) => (wire === null ? null : wire.slice(0, 10));

/** A fresh test account whose clock reads `on`, a customer, and a subscription from that day to `options`. */
async function subscribedOn(
  on: string,
  options: PlanOptions & { tax?: number; body?: Record<string, unknown>; live?: boolean } = {},
) {
  clock.set(`${on}T10:00:00.000Z`);
  // A live account bills by the service's clock, which moves without running the bill run.
  const as = await t.newAccount('Anchor', { isTest: !options.live });
  if (options.tax !== undefined)
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: options.tax }] });
  const plan = await createPlan(as, options);
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan, options.body ?? {});
  const id = sub.subscriptionID as number;
  return { as, plan, customerId, id, path: `/v1/subscriptions/${id}` };
}

/** The body of PUT changePackage moving to `plan`, with `extra` (resetBillingAnchor, isFutureChange). */
const changeTo = (plan: { packageId: number; rateTermId: number }, extra: Record<string, unknown> = {}) => ({
  packageID: plan.packageId,
  packageRateTermID: plan.rateTermId,
  ...extra,
});

const periodsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/periods`)) as any[]).map((p) => [
    day(p.PeriodStart),
    day(p.PeriodEnd),
    p.Kind,
    p.Amount,
  ]);
const creditsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/credits`)) as any[]).map((c) => [
    day(c.PeriodStart),
    day(c.PeriodEnd),
    c.Amount,
  ]);
const invoiceFigures = async (as: TestAccount, customerId: number) =>
  (await invoicesOf(as, customerId)).map((i) => [day(i.InvoiceDate), i.Total, i.Balance]);

describe('a change made now keeps the billing anchor (the default)', () => {
  it('upgrade 10.00 → 20.00 a month half-way: credit 5.00, charge 10.00, the renewal date unchanged', async () => {
    const { as, customerId, path } = await subscribedOn('2026-04-01', { chargePrice: 10 });
    const gold = await createPlan(as, { chargePrice: 20 });
    await advanceToDay(as, '2026-04-16');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));

    // Apr 1 – May 1 is 30 days, Apr 16 – May 1 is 15 of them: credit 10.00 × 15 / 30 = 5.00,
    // charge 20.00 × 15 / 30 = 10.00.
    expect(await creditsOf(as, path)).toEqual([['2026-04-16', '2026-05-01', 5]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-04-01', '2026-04-16', 'term', 10],
      ['2026-04-16', '2026-05-01', 'stub', 10],
    ]);
    // The charge is a new invoice, and the credit note pays it first (10.00 → 5.00 owed), as the preview's net
    // promised (docs/pricing.md, "Changes and their credits"); the earlier invoice still owes its 10.00.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-04-01', 10, 10],
      ['2026-04-16', 10, 5],
    ]);
    const [, charge] = await invoicesOf(as, customerId);
    expect(charge.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      [expect.stringMatching(/\(pro-rated, 15 of 30 days\)$/), 10],
    ]);
    const sub = await ok(as, 'GET', path);
    expect([day(sub.nextRenewDate), day(sub.comp_nextInvDate), sub.ChargePrice]).toEqual([
      '2026-05-01',
      '2026-05-01',
      20,
    ]);

    // The renewal comes on May 1 as before, at the new price.
    await advanceToDay(as, '2026-05-01');
    expect((await periodsOf(as, path)).at(-1)).toEqual(['2026-05-01', '2026-06-01', 'term', 20]);
  });

  it('downgrade 31.00 → 12.40 with 15% tax: the credit is larger than the charge', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', { chargePrice: 31, tax: 0.15 });
    const basic = await createPlan(as, { chargePrice: 12.4 });
    await advanceToDay(as, '2026-03-21');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(basic));

    // Mar 21 – Apr 1 is 11 of March's 31 days. Credit 31.00 × 11 / 31 = 11.00 + tax 1.65 = 12.65.
    // Charge 12.40 × 11 / 31 = 4.40 + tax 0.66 = 5.06.
    expect(await creditsOf(as, path)).toEqual([['2026-03-21', '2026-04-01', 12.65]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-21', 'term', 31],
      ['2026-03-21', '2026-04-01', 'stub', 4.4],
    ]);
    // The credit note pays the change's own invoice first (5.06), then the earliest open invoice with the rest:
    // 35.65 − 7.59 = 28.06 owed. The customer owes 28.06.
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-03-01', 35.65, 28.06],
      ['2026-03-21', 5.06, 0],
    ]);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(28.06);
    await advanceToDay(as, '2026-04-01');
    expect((await periodsOf(as, path)).at(-1)).toEqual(['2026-04-01', '2026-05-01', 'term', 12.4]);
  });

  it('a month-end anchor stays: a stub to Feb 28 over the 28 days of Jan 31 – Feb 28, then the 31st again', async () => {
    const { as, path } = await subscribedOn('2026-01-31', { chargePrice: 28 });
    const gold = await createPlan(as, { chargePrice: 56 });
    await advanceToDay(as, '2026-02-10');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));

    // Feb 10 – Feb 28 is 18 of 28 days: credit 28.00 × 18 / 28 = 18.00, charge 56.00 × 18 / 28 = 36.00.
    expect(await creditsOf(as, path)).toEqual([['2026-02-10', '2026-02-28', 18]]);
    await advanceToDay(as, '2026-03-31');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-01-31', '2026-02-10', 'term', 28],
      ['2026-02-10', '2026-02-28', 'stub', 36],
      ['2026-02-28', '2026-03-31', 'term', 56],
      ['2026-03-31', '2026-04-30', 'term', 56],
    ]);
  });

  it('on the renewal day itself: no proration, the new price applies from that period', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', { chargePrice: 31 });
    const gold = await createPlan(as, { chargePrice: 62 });
    // The bill run has already invoiced Apr 1 – May 1 at 31.00 when the change comes the same day.
    await advanceToDay(as, '2026-04-01');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));

    // That period has not begun before the change day: credited in full (31.00), cut to nothing, and the whole
    // term invoiced at 62.00.
    expect(await creditsOf(as, path)).toEqual([['2026-04-01', '2026-05-01', 31]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 'term', 31],
      ['2026-04-01', '2026-04-01', 'term', 31],
      ['2026-04-01', '2026-05-01', 'term', 62],
    ]);
    const last = (await invoicesOf(as, customerId)).at(-1);
    expect(last.Charges.map((c: any) => [c.Descrip, c.AmountEx])).toEqual([
      [expect.not.stringMatching(/pro-rated/), 62],
    ]);
    expect(day((await ok(as, 'GET', path)).nextRenewDate)).toBe('2026-05-01');
  });

  it('during a trial: the trial runs to its end, which stays the anchor; the new price is billed from it', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', {
      chargePrice: 31,
      trialPeriod: 14,
      trialFee: 5,
    });
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceToDay(as, '2026-03-05');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));

    // Nothing billed past the trial's end (Mar 15): no credit, no invoice; the trial fee is not re-priced.
    expect(await creditsOf(as, path)).toEqual([]);
    expect(await invoiceFigures(as, customerId)).toEqual([['2026-03-01', 5, 5]]);
    const sub = await ok(as, 'GET', path);
    expect([sub.comp_Status, day(sub.TrialEndDate), day(sub.nextRenewDate), sub.ChargePrice]).toEqual([
      'Trial',
      '2026-03-15',
      '2026-03-15',
      62,
    ]);
    await advanceToDay(as, '2026-03-15');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-15', 'trial', 5],
      ['2026-03-15', '2026-04-15', 'term', 62],
    ]);
  });

  it('during a trial with the first term billed ahead: that term is credited in full and billed anew', async () => {
    const { as, path } = await subscribedOn('2026-03-01', {
      chargePrice: 31,
      trialPeriod: 14,
      trialFee: 5,
      body: { numDaysBeforeToInv: 5 },
    });
    const gold = await createPlan(as, { chargePrice: 62 });
    // Mar 10 = Mar 15 − 5 days: the first term is invoiced at 31.00.
    await advanceToDay(as, '2026-03-12');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));
    // Mar 15 – Apr 15 had not begun: credit 31.00 in full; the same term at 62.00.
    expect(await creditsOf(as, path)).toEqual([['2026-03-15', '2026-04-15', 31]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-15', 'trial', 5],
      ['2026-03-15', '2026-03-15', 'term', 31],
      ['2026-03-15', '2026-04-15', 'term', 62],
    ]);
  });

  it('for a suspended customer: the stub waits, off the cycle, and is billed on unsuspend without parking', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', { chargePrice: 31 });
    const gold = await createPlan(as, { chargePrice: 62 });
    await ok(as, 'PUT', `/v1/customers/${customerId}/suspend`);
    await advanceToDay(as, '2026-03-21');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));
    // The credit is made now (31.00 × 11 / 31 = 11.00); the charge waits for the customer.
    expect(await creditsOf(as, path)).toEqual([['2026-03-21', '2026-04-01', 11]]);
    expect(await periodsOf(as, path)).toEqual([['2026-03-01', '2026-03-21', 'term', 31]]);
    expect(day((await ok(as, 'GET', path)).nextRenewDate)).toBe('2026-03-21');

    await advanceToDay(as, '2026-03-25');
    await ok(as, 'PUT', `/v1/customers/${customerId}/unsuspend`);
    await advanceToDay(as, '2026-03-26');
    // 62.00 × 11 / 31 = 22.00 for Mar 21 – Apr 1; the cycle stays on the 1st.
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-21', 'term', 31],
      ['2026-03-21', '2026-04-01', 'stub', 22],
    ]);
    expect(await ok(as, 'GET', path)).toMatchObject({
      isParked: false,
      nextRenewDate: '2026-04-01T00:00:00.000Z',
    });
  });

  it('usage keeps its periods: recorded before and after the change, both billed at the unchanged renewal', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', { chargePrice: 31 });
    const group = await ok(as, 'POST', '/v1/packagegroups', { GroupName: 'Usage' });
    const component = await ok(as, 'POST', '/v1/components', {
      ComponentCode: 'SMS',
      Name: 'SMS bundle',
      Type: 'quantity',
      Scheme: 'unit',
      UnitName: 'sms',
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
    const usage = (NumUnits: number) => [{ componentID: component.componentID, NumUnits }];
    await ok(as, 'PUT', `${path}/components/modify`, usage(0));
    await advanceToDay(as, '2026-03-10');
    await ok(as, 'PUT', `${path}/components/recordusage`, usage(4));
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceToDay(as, '2026-03-21');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));
    await advanceToDay(as, '2026-03-25');
    // Usage periods follow billed periods: usage recorded now belongs to the stub Mar 21 – Apr 1.
    await ok(as, 'PUT', `${path}/components/recordusage`, usage(3));
    // Both usage periods hold Mar 25; the units shown are the newer period's, where usage now goes.
    expect((await ok(as, 'GET', path)).componentUsage).toEqual([expect.objectContaining({ NumUnits: 3 })]);

    // Apr 1: the month at 62.00, and in arrears 4 sms of Mar 1 – Apr 1 and 3 of Mar 21 – Apr 1 at 1.00:
    // 62.00 + 4.00 + 3.00 = 69.00.
    await advanceToDay(as, '2026-04-01');
    const renewal = (await invoicesOf(as, customerId)).at(-1);
    expect(day(renewal.InvoiceDate)).toBe('2026-04-01');
    expect(renewal.Charges.map((c: any) => c.AmountEx)).toEqual([62, 4, 3]);
    expect(renewal.Total).toBe(69);
  });

  it('a change of term length (monthly → yearly) starts a new term today, as Stripe does', async () => {
    const { as, plan, customerId, path } = await subscribedOn('2026-03-01', {
      chargePrice: 31,
      extraTerms: [{ ChargePrice: 300, ChargeTerm: 12, ChargeTermType: 'months' }],
    });
    await advanceToDay(as, '2026-03-21');
    await ok(as, 'PUT', `${path}/changeterm`, { packageRateTermID: plan.rateTermIds[1] });

    // Credit 31.00 × 11 / 31 = 11.00; a whole year at 300.00 from today.
    expect(await creditsOf(as, path)).toEqual([['2026-03-21', '2026-04-01', 11]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-21', 'term', 31],
      ['2026-03-21', '2027-03-21', 'term', 300],
    ]);
    expect((await invoiceFigures(as, customerId)).map(([date, total]) => [date, total])).toEqual([
      ['2026-03-01', 31],
      ['2026-03-21', 300],
    ]);
  });
});

describe('resetBillingAnchor: true starts a new term on the change day', () => {
  it('upgrade 10.00 → 20.00 half-way: credit 5.00, a whole month at 20.00 from today, renewals from today', async () => {
    const { as, path } = await subscribedOn('2026-04-01', { chargePrice: 10 });
    const gold = await createPlan(as, { chargePrice: 20 });
    await advanceToDay(as, '2026-04-16');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold, { resetBillingAnchor: true }));

    // credit 10.00 × 15 / 30 = 5.00; the new term Apr 16 – May 16 at 20.00.
    expect(await creditsOf(as, path)).toEqual([['2026-04-16', '2026-05-01', 5]]);
    await advanceToDay(as, '2026-05-16');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-04-01', '2026-04-16', 'term', 10],
      ['2026-04-16', '2026-05-16', 'term', 20],
      ['2026-05-16', '2026-06-16', 'term', 20],
    ]);
  });

  it('downgrade from a month-end anchor: the cycle moves to the change day', async () => {
    const { as, path } = await subscribedOn('2026-01-31', { chargePrice: 28 });
    const basic = await createPlan(as, { chargePrice: 14 });
    await advanceToDay(as, '2026-02-10');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(basic, { resetBillingAnchor: true }));
    // credit 28.00 × 18 / 28 = 18.00; then 14.00 a month from Feb 10.
    expect(await creditsOf(as, path)).toEqual([['2026-02-10', '2026-02-28', 18]]);
    await advanceToDay(as, '2026-03-10');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-01-31', '2026-02-10', 'term', 28],
      ['2026-02-10', '2026-03-10', 'term', 14],
      ['2026-03-10', '2026-04-10', 'term', 14],
    ]);
  });

  it('during a trial: the trial ends today, its unused fee credited, and a term starts', async () => {
    const { as, path } = await subscribedOn('2026-03-01', { chargePrice: 31, trialPeriod: 14, trialFee: 5 });
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceToDay(as, '2026-03-05');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold, { resetBillingAnchor: true }));
    // Mar 5 – Mar 15 is 10 of the trial's 14 days: 5.00 × 10 / 14 = 3.571… → 3.57.
    expect(await creditsOf(as, path)).toEqual([['2026-03-05', '2026-03-15', 3.57]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-05', 'trial', 5],
      ['2026-03-05', '2026-04-05', 'term', 62],
    ]);
    expect(await ok(as, 'GET', path)).toMatchObject({
      comp_Status: 'Active',
      TrialEndDate: '2026-03-05T00:00:00.000Z',
    });
  });
});

// The bill run behind: a live account's clock is moved without running it (the test service has
// BILLING_INTERVAL_MS=0 and no cron), so on Apr 16 the subscription of Mar 1 is billed only to Apr 1. The change bills Apr 1 – May 1 on the old
// terms first, then cuts: without that, Apr 1 – Apr 16 would never be billed.
describe('a change made now with the bill run behind', () => {
  const behindOnApr16 = async () => {
    const sub = await subscribedOn('2026-03-01', { chargePrice: 31, live: true });
    const gold = await createPlan(sub.as, { chargePrice: 62 });
    clock.set('2026-04-16T10:00:00.000Z');
    expect(day((await ok(sub.as, 'GET', sub.path)).nextRenewDate)).toBe('2026-04-01');
    return { ...sub, gold };
  };

  it('keeping the anchor: Apr 1 – May 1 billed at 31.00 first, then credit 15.50 and a stub of 31.00', async () => {
    const { as, customerId, path, gold } = await behindOnApr16();
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));
    // Apr 1 – May 1 is 30 days, Apr 16 – May 1 is 15: credit 31.00 × 15 / 30 = 15.50, charge 62.00 × 15 / 30 =
    // 31.00. The credit note pays the change's own invoice first (31.00 → 15.50 owed).
    expect(await creditsOf(as, path)).toEqual([['2026-04-16', '2026-05-01', 15.5]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 'term', 31],
      ['2026-04-01', '2026-04-16', 'term', 31],
      ['2026-04-16', '2026-05-01', 'stub', 31],
    ]);
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-03-01', 31, 31],
      ['2026-04-01', 31, 31],
      ['2026-04-16', 31, 15.5],
    ]);
    expect(day((await ok(as, 'GET', path)).nextRenewDate)).toBe('2026-05-01');
  });

  it('resetBillingAnchor: Apr 1 – May 1 billed first, credit 15.50, a whole month at 62.00 from Apr 16', async () => {
    const { as, customerId, path, gold } = await behindOnApr16();
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold, { resetBillingAnchor: true }));
    expect(await creditsOf(as, path)).toEqual([['2026-04-16', '2026-05-01', 15.5]]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 'term', 31],
      ['2026-04-01', '2026-04-16', 'term', 31],
      ['2026-04-16', '2026-05-16', 'term', 62],
    ]);
    expect(await invoiceFigures(as, customerId)).toEqual([
      ['2026-03-01', 31, 31],
      ['2026-04-01', 31, 31],
      ['2026-04-16', 62, 46.5],
    ]);
    expect(day((await ok(as, 'GET', path)).nextRenewDate)).toBe('2026-05-16');
  });

  it('still behind (customer suspended): 409 subscription_billing_behind in both modes, nothing changed', async () => {
    const { as, customerId, path, gold } = await behindOnApr16();
    await ok(as, 'PUT', `/v1/customers/${customerId}/suspend`);
    const before = [
      await ok(as, 'GET', path),
      await periodsOf(as, path),
      await creditsOf(as, path),
      await invoiceFigures(as, customerId),
    ];
    for (const extra of [{}, { resetBillingAnchor: true }]) {
      for (const query of ['', '?preview=true']) {
        const res = await as.request('PUT', `${path}/changePackage${query}`, {
          body: changeTo(gold, extra),
        });
        expect(res.status, res.text).toBe(409);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body.code).toBe('subscription_billing_behind');
        expect(res.body.detail).toMatch(
          /billed only up to 2026-04-01 .*on hold.*2026-04-01 to 2026-04-16 unbilled/,
        );
      }
    }
    expect([
      await ok(as, 'GET', path),
      await periodsOf(as, path),
      await creditsOf(as, path),
      await invoiceFigures(as, customerId),
    ]).toEqual(before);
  });

  it('a second change while the customer is suspended is refused: the first one’s stub is not lost', async () => {
    const { as, customerId, path } = await subscribedOn('2026-03-01', { chargePrice: 31 });
    const gold = await createPlan(as, { chargePrice: 62 });
    const silver = await createPlan(as, { chargePrice: 45 });
    await ok(as, 'PUT', `/v1/customers/${customerId}/suspend`);
    await advanceToDay(as, '2026-03-21');
    await ok(as, 'PUT', `${path}/changePackage`, changeTo(gold));
    await advanceToDay(as, '2026-03-23');
    const res = await as.request('PUT', `${path}/changePackage`, {
      body: changeTo(silver),
    });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('subscription_billing_behind');
    // On unsuspend the stub Mar 21 – Apr 1 is billed as the first change made it: 62.00 × 11 / 31 = 22.00.
    await ok(as, 'PUT', `/v1/customers/${customerId}/unsuspend`);
    await advanceToDay(as, '2026-03-24');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-21', 'term', 31],
      ['2026-03-21', '2026-04-01', 'stub', 22],
    ]);
  });
});

describe('refusals', () => {
  it('resetBillingAnchor: false with a term of another length is a 422 naming it; left out, a new term starts', async () => {
    const { as, customerId, plan, path } = await subscribedOn('2026-03-01', {
      chargePrice: 31,
      extraTerms: [{ ChargePrice: 300, ChargeTerm: 12, ChargeTermType: 'months' }],
    });
    await advanceToDay(as, '2026-03-21');
    const before = [
      await ok(as, 'GET', path),
      await periodsOf(as, path),
      await invoiceFigures(as, customerId),
    ];
    const res = await as.request('PUT', `${path}/changeterm`, {
      body: { packageRateTermID: plan.rateTermIds[1], resetBillingAnchor: false },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.fields.map((f: any) => f.field)).toEqual(['resetBillingAnchor']);
    expect([
      await ok(as, 'GET', path),
      await periodsOf(as, path),
      await invoiceFigures(as, customerId),
    ]).toEqual(before);
    // At renewal, false means nothing and is accepted; left out now, the documented default: a new term today.
    await ok(as, 'PUT', `${path}/changeterm`, {
      packageRateTermID: plan.rateTermIds[1],
      isFutureChange: true,
      resetBillingAnchor: false,
    });
    await ok(as, 'DELETE', `${path}/futurechanges`, undefined, 204);
    await ok(as, 'PUT', `${path}/changeterm`, { packageRateTermID: plan.rateTermIds[1] });
    expect((await periodsOf(as, path)).at(-1)).toEqual(['2026-03-21', '2027-03-21', 'term', 300]);
  });

  it('resetBillingAnchor with isFutureChange, or not a boolean, is a 422 naming it, and changes nothing', async () => {
    const { as, id, path } = await subscribedOn('2026-03-01', { chargePrice: 31 });
    const gold = await createPlan(as, { chargePrice: 62 });
    const before = [await ok(as, 'GET', path), await periodsOf(as, path)];
    for (const extra of [{ isFutureChange: true, resetBillingAnchor: true }, { resetBillingAnchor: 'yes' }]) {
      const res = await as.request('PUT', `${path}/changePackage`, {
        body: changeTo(gold, extra),
      });
      expect(res.status, res.text).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.fields.map((f: any) => f.field)).toEqual(['resetBillingAnchor']);
    }
    const term = await as.request('PUT', `${path}/changeterm`, {
      body: { packageRateTermID: gold.rateTermId, isFutureChange: true, resetBillingAnchor: true },
    });
    expect(term.status).toBe(422);
    expect([await ok(as, 'GET', path), await periodsOf(as, path)]).toEqual(before);

    const other = await t.newAccount('Other', { isTest: true });
    const foreign = await other.request('PUT', `/v1/subscriptions/${id}/changePackage`, {
      body: changeTo(gold, { resetBillingAnchor: true }),
    });
    expect(foreign.status).toBe(404);
  });
});
