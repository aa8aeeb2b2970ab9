import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock } from '../helpers/clock.ts';

// Every test account's clock starts on Mar 1 2026: March has 31 days, so a 31.00 monthly price is 1.00 a day.
const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

/** A test account with a customer subscribed on Mar 1 to 31.00 a month (invoiced at once for Mar 1 – Apr 1). */
async function subscribed(options: { tax?: number; subscription?: Record<string, unknown> } = {}) {
  const as = await t.newAccount('Shop', { isTest: true });
  if (options.tax !== undefined)
    await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: options.tax }] });
  const plan = await createPlan(as, {
    chargePrice: 31,
    extraTerms: [{ ChargePrice: 300, ChargeTerm: 12, ChargeTermType: 'months' }],
  });
  const customerId = await createCustomer(as);
  const sub = await subscribe(as, customerId, plan, options.subscription);
  const id = sub.subscriptionID as number;
  return { as, plan, customerId, id, path: `/v1/subscriptions/${id}` };
}

const periodsOf = async (as: TestAccount, path: string) =>
  ((await ok(as, 'GET', `${path}/periods`)) as any[]).map((p) => [
    p.PeriodStart.slice(0, 10),
    p.PeriodEnd.slice(0, 10),
    p.Amount,
  ]);

describe('cancelling', () => {
  it('prorata: credits the unused days with their tax, stops billing, and cuts the billed period', async () => {
    const { as, customerId, path } = await subscribed({ tax: 0.15 });
    await advanceClock(as, '2026-03-21T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/prorata`);

    // Mar 21 – Apr 1 unused: 31.00 × 11 / 31 = 11.00, plus 15% tax 1.65 = 12.65.
    const credits = await ok(as, 'GET', `${path}/credits`);
    expect(credits).toMatchObject([
      { Amount: 12.65, CurrencyCode: 'USD', PeriodStart: '2026-03-21T00:00:00.000Z' },
    ]);
    expect(credits[0].PeriodEnd).toBe('2026-04-01T00:00:00.000Z');

    // The credit is issued as a credit_note adjustment and applied to the unpaid invoice it cuts:
    // 31.00 + 15% = 35.65 invoiced, 35.65 − 12.65 = 23.00 still owed.
    const adjustmentID = credits[0].adjustmentID;
    const { adjustment } = await ok(
      as,
      'GET',
      `/v1/adjustment/get?type=negative&adjustmentID=${adjustmentID}&customerID=${customerId}`,
      undefined,
      200,
    );
    const [invoice] = await invoicesOf(as, customerId);
    expect(adjustment).toMatchObject({
      NegativeAdjustmentType: 'credit_note',
      Amount: 12.65,
      Status: 'Allocated',
      allocations: [{ objectID: invoice.invoiceID, amountApplied: 12.65, isAdjustment: false }],
    });
    expect(invoice).toMatchObject({ Total: 35.65, TotalNegativeAdjs: 12.65, Balance: 23 });
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`, undefined, 200)).Balance).toBe(23);
    // It is the record of the cancellation: not deletable, its amount fixed.
    const removal = await as.request(
      'DELETE',
      `/v1/adjustment/delete?type=negative&adjustmentID=${adjustmentID}&customerID=${customerId}`,
    );
    expect(removal.status).toBe(409);
    expect(removal.body.code).toBe('adjustment_issued_for_subscription');
    expect(await periodsOf(as, path)).toEqual([['2026-03-01', '2026-03-21', 31]]);
    const sub = await ok(as, 'GET', path);
    expect(sub).toMatchObject({ comp_Status: 'Cancelled', isCancelled: true, comp_nextInvDate: null });

    await advanceClock(as, '2026-06-01T00:00:00Z');
    expect(await invoicesOf(as, customerId)).toHaveLength(1);
  });

  it('fullcredit: credits the whole current term', async () => {
    const { as, path } = await subscribed();
    await advanceClock(as, '2026-03-10T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/fullcredit`);
    expect((await ok(as, 'GET', `${path}/credits`)).map((c: any) => c.Amount)).toEqual([31]);
  });

  it('norefund: no credit; a reactivation before the paid term ends resumes billing at its end', async () => {
    const { as, customerId, path } = await subscribed();
    await advanceClock(as, '2026-03-10T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/norefund`);
    expect(await ok(as, 'GET', `${path}/credits`)).toEqual([]);
    expect((await ok(as, 'GET', path)).comp_Status).toBe('Cancelled');

    await ok(as, 'PUT', `${path}/reactivate`);
    const sub = await ok(as, 'GET', path);
    expect(sub).toMatchObject({ comp_Status: 'Active', comp_nextInvDate: '2026-04-01T00:00:00.000Z' });
    await advanceClock(as, '2026-04-01T10:00:00Z');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 31],
      ['2026-04-01', '2026-05-01', 31],
    ]);
    expect(await invoicesOf(as, customerId)).toHaveLength(2);
  });

  it('after a prorata cancellation, reactivating starts a new cycle today', async () => {
    const { as, path } = await subscribed();
    await advanceClock(as, '2026-03-11T10:00:00Z');
    await ok(as, 'PUT', `${path}/cancel/prorata`);
    await advanceClock(as, '2026-03-15T10:00:00Z');
    await ok(as, 'PUT', `${path}/reactivate`);
    // Cancelled time (Mar 11 – Mar 15) is not billed; the new cycle is anchored on Mar 15.
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-11', 31],
      ['2026-03-15', '2026-04-15', 31],
    ]);
  });

  it('renewal: a future change until the term ends, then cancelled without another invoice', async () => {
    const { as, customerId, path } = await subscribed();
    await ok(as, 'PUT', `${path}/cancel/renewal`);
    expect(await ok(as, 'GET', path)).toMatchObject({
      comp_Status: 'Active',
      isCancelled: false,
      isFutureChange: true,
      CancelDate: '2026-04-01T00:00:00.000Z',
    });
    await advanceClock(as, '2026-05-01T00:00:00Z');
    expect(await ok(as, 'GET', path)).toMatchObject({ comp_Status: 'Cancelled', isCancelled: true });
    expect(await invoicesOf(as, customerId)).toHaveLength(1);
  });

  it('removing future changes withdraws a cancellation at renewal', async () => {
    const { as, customerId, path } = await subscribed();
    await ok(as, 'PUT', `${path}/cancel/renewal`);
    await ok(as, 'DELETE', `${path}/futurechanges`);
    expect(await ok(as, 'GET', path)).toMatchObject({ isFutureChange: false, CancelDate: null });
    await advanceClock(as, '2026-04-01T10:00:00Z');
    expect(await invoicesOf(as, customerId)).toHaveLength(2);
  });

  it('a cancellation withdrawn after the next invoice date has passed: the next period is billed at once', async () => {
    const { as, customerId, path } = await subscribed({ subscription: { numDaysBeforeToInv: 20 } });
    await ok(as, 'PUT', `${path}/cancel/renewal`);
    // Apr 1 – May 1 would have been invoiced on Mar 12; the bill run found nothing to bill past the cancellation.
    await advanceClock(as, '2026-03-20T10:00:00Z');
    expect(await invoicesOf(as, customerId)).toHaveLength(1);
    await ok(as, 'DELETE', `${path}/futurechanges`);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 31],
      ['2026-04-01', '2026-05-01', 31],
    ]);
    const invoices = await invoicesOf(as, customerId);
    expect(invoices).toHaveLength(2);
    expect(invoices[1].InvoiceDate.slice(0, 10)).toBe('2026-03-12');
    expect(await ok(as, 'GET', path)).toMatchObject({ isFutureChange: false, CancelDate: null });
  });

  it('refuses what cannot be done', async () => {
    const { as, path, id } = await subscribed();
    expect((await as.request('PUT', `${path}/reactivate`)).status).toBe(409);
    const bad = await as.request('PUT', `${path}/cancel/sometime`);
    expect(bad.status).toBe(422);
    await ok(as, 'PUT', `${path}/cancel/norefund`);
    const twice = await as.request('PUT', `${path}/cancel/prorata`);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('subscription_cancelled');
    const other = await t.newAccount('Other', { isTest: true });
    expect((await other.request('PUT', `/v1/subscriptions/${id}/cancel/norefund`)).status).toBe(404);
    expect((await other.request('GET', `/v1/subscriptions/${id}/credits`)).status).toBe(404);
    expect((await other.request('GET', `/v1/subscriptions/${id}/periods`)).status).toBe(404);
  });
});

describe('changing the package or term', () => {
  it('now with resetBillingAnchor: credits the unused part, invoices a new term from today, anchored there', async () => {
    const { as, customerId, path } = await subscribed();
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceClock(as, '2026-03-21T10:00:00Z');
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
      resetBillingAnchor: true,
    });

    // Unused Mar 21 – Apr 1 of the old 31.00: 11.00. The new term Mar 21 – Apr 21 is 62.00, invoiced today.
    expect((await ok(as, 'GET', `${path}/credits`)).map((c: any) => c.Amount)).toEqual([11]);
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-03-21', 31],
      ['2026-03-21', '2026-04-21', 62],
    ]);
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => [i.InvoiceDate.slice(0, 10), i.Total])).toEqual([
      ['2026-03-01', 31],
      ['2026-03-21', 62],
    ]);
    expect(await ok(as, 'GET', path)).toMatchObject({ packageID: gold.packageId, ChargePrice: 62 });
  });

  it('at renewal: scheduled as a future change and billed at the new price from the next term', async () => {
    const { as, customerId, path } = await subscribed();
    const gold = await createPlan(as, { chargePrice: 62 });
    await ok(as, 'PUT', `${path}/changePackage`, {
      packageID: gold.packageId,
      packageRateTermID: gold.rateTermId,
      isFutureChange: true,
    });
    expect(await ok(as, 'GET', path)).toMatchObject({ isFutureChange: true, ChargePrice: 31 });
    await advanceClock(as, '2026-04-01T10:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    expect(invoices.map((i) => i.Total)).toEqual([31, 62]);
    expect(await ok(as, 'GET', path)).toMatchObject({ isFutureChange: false, packageID: gold.packageId });
  });

  it('changeterm moves to another term of the version, here yearly from the next renewal', async () => {
    const { as, plan, customerId, path } = await subscribed();
    await ok(as, 'PUT', `${path}/changeterm`, {
      packageRateTermID: plan.rateTermIds[1],
      isFutureChange: true,
    });
    await advanceClock(as, '2026-04-01T10:00:00Z');
    expect(await periodsOf(as, path)).toEqual([
      ['2026-03-01', '2026-04-01', 31],
      ['2026-04-01', '2027-04-01', 300],
    ]);
    expect((await invoicesOf(as, customerId)).map((i) => i.Total)).toEqual([31, 300]);
  });

  it('previews a change with the code that makes it, and changes nothing', async () => {
    const { as, customerId, path } = await subscribed();
    const gold = await createPlan(as, { chargePrice: 62 });
    await advanceClock(as, '2026-03-21T10:00:00Z');
    const body = { packageID: gold.packageId, packageRateTermID: gold.rateTermId, resetBillingAnchor: true };
    const previewed = await ok(as, 'PUT', `${path}/changePackage?preview=true`, body, 200);
    expect(previewed.Credits.map((c: any) => c.Amount)).toEqual([11]);
    expect(previewed.Invoices.map((i: any) => [i.Total, i.invoiceNum])).toEqual([[62, 2]]);
    expect(await invoicesOf(as, customerId)).toHaveLength(1);
    expect(await ok(as, 'GET', `${path}/credits`)).toEqual([]);

    const cancelPreview = await ok(as, 'PUT', `${path}/cancel/prorata?preview=true`, undefined, 200);
    expect(cancelPreview.Credits.map((c: any) => c.Amount)).toEqual([11]);
    expect((await ok(as, 'GET', path)).comp_Status).toBe('Active');

    // The real change numbers its invoice 2: the preview consumed no number.
    await ok(as, 'PUT', `${path}/changePackage`, body);
    expect((await invoicesOf(as, customerId)).map((i) => i.invoiceNum)).toEqual([1, 2]);
  });

  it('refuses a rate term that is not the package version’s in the subscription currency', async () => {
    const { as, path } = await subscribed();
    const euro = await createPlan(as, { currency: 'USD', chargePrice: 5 });
    const res = await as.request('PUT', `${path}/changePackage`, {
      body: { packageID: euro.packageId, packageRateTermID: 999_999 },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: any) => f.field)).toContain('packageRateTermID');
    const missing = await as.request('PUT', `${path}/changePackage`, {
      body: { packageID: 999_999, packageRateTermID: euro.rateTermId },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.fields.map((f: any) => f.field)).toContain('packageID');
  });
});
