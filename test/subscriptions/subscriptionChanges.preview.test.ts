import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import type { PlanOptions } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// `?preview=true` answers exactly what the change then does: for each case the preview is taken, then the same
// request is made for real, and its credits and invoices, read back, must equal the preview's field for field
// (ids aside: PostgreSQL does not give back sequence values a rolled-back transaction took).

const clock = movableClock('2026-03-01T10:00:00.000Z');
const t = useTestService({ clock });

interface Case {
  name: string;
  start: string;
  plan: PlanOptions;
  tax?: number;
  subscription?: Record<string, unknown>;
  /** The day of the change. */
  changeOn: string;
  target: PlanOptions | 'yearly';
  body?: Record<string, unknown>;
  /**
   * The bill run behind: a live account, whose clock moves to the change day without running the bill run
   * (BILLING_INTERVAL_MS=0 in tests), so the change first bills the periods due on the old terms.
   */
  behind?: boolean;
}

const CASES: Case[] = [
  {
    name: 'upgrade half-way',
    start: '2026-04-01',
    plan: { chargePrice: 10 },
    changeOn: '2026-04-16',
    target: { chargePrice: 20 },
  },
  {
    name: 'downgrade with tax',
    start: '2026-03-01',
    plan: { chargePrice: 31 },
    tax: 0.15,
    changeOn: '2026-03-21',
    target: { chargePrice: 12.4 },
  },
  {
    name: 'month-end anchor',
    start: '2026-01-31',
    plan: { chargePrice: 28 },
    changeOn: '2026-02-10',
    target: { chargePrice: 56 },
  },
  {
    name: 'renewal day',
    start: '2026-03-01',
    plan: { chargePrice: 31 },
    changeOn: '2026-04-01',
    target: { chargePrice: 62 },
  },
  {
    name: 'in a trial',
    start: '2026-03-01',
    plan: { chargePrice: 31, trialPeriod: 14, trialFee: 5 },
    subscription: { numDaysBeforeToInv: 5 },
    changeOn: '2026-03-12',
    target: { chargePrice: 62 },
  },
  {
    name: 'term length changed',
    start: '2026-03-01',
    plan: { chargePrice: 31, extraTerms: [{ ChargePrice: 300, ChargeTerm: 12, ChargeTermType: 'months' }] },
    changeOn: '2026-03-21',
    target: 'yearly',
  },
  {
    name: 'billed ahead, with a setup fee on the new package',
    start: '2026-03-01',
    plan: { chargePrice: 31 },
    tax: 0.2,
    subscription: { numDaysBeforeToInv: 10 },
    changeOn: '2026-03-25',
    target: { chargePrice: 45.5, setupFee: 9 },
  },
  {
    name: 'reset: upgrade',
    start: '2026-04-01',
    plan: { chargePrice: 10 },
    changeOn: '2026-04-16',
    target: { chargePrice: 20 },
    body: { resetBillingAnchor: true },
  },
  {
    name: 'reset: in a trial',
    start: '2026-03-01',
    plan: { chargePrice: 31, trialPeriod: 14, trialFee: 5 },
    changeOn: '2026-03-05',
    target: { chargePrice: 62 },
    body: { resetBillingAnchor: true },
  },
  {
    name: 'bill run behind',
    start: '2026-03-01',
    plan: { chargePrice: 31 },
    tax: 0.15,
    changeOn: '2026-04-16',
    target: { chargePrice: 62 },
    behind: true,
  },
  {
    name: 'reset: bill run behind',
    start: '2026-03-01',
    plan: { chargePrice: 31 },
    changeOn: '2026-04-16',
    target: { chargePrice: 62 },
    body: { resetBillingAnchor: true },
    behind: true,
  },
];

/**
 * The ids sequences hand out to the rows a change writes: the invoice's own, and those of the credit that pays it
 * (its adjustment, the allocation and the invoice it names). NOTE: PostgreSQL's sequences do not roll back, so the
 * preview's rows take ids the change then does not get.
 */
const SEQUENCE_IDS = new Set([
  'invoiceID',
  'chargeID',
  'invoiceTaxID',
  'NegativeAdjustmentID',
  'allocationID',
  'objectID',
]);

/** Drops the ids a sequence hands out, everywhere in a document. */
function withoutSequenceIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSequenceIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !SEQUENCE_IDS.has(key))
      .map(([key, v]) => [key, withoutSequenceIds(v)]),
  );
}

async function state(as: TestAccount, path: string, customerId: number) {
  return {
    sub: await ok(as, 'GET', path),
    periods: await ok(as, 'GET', `${path}/periods`),
    credits: await ok(as, 'GET', `${path}/credits`),
    invoices: await ok(as, 'GET', `/v1/customers/${customerId}/invoices?page_size=200`),
  };
}

describe('?preview=true on a change made now', () => {
  it.each(CASES)('$name: the preview equals what the change does, and changes nothing', async (c) => {
    clock.set(`${c.start}T10:00:00.000Z`);
    const as = await t.newAccount('Preview', { isTest: !c.behind });
    if (c.tax !== undefined) await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: c.tax }] });
    const plan = await createPlan(as, c.plan);
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan, c.subscription ?? {});
    const path = `/v1/subscriptions/${sub.subscriptionID}`;
    if (c.behind) clock.set(`${c.changeOn}T10:00:00.000Z`);
    else await ok(as, 'POST', '/v1/test-clock/advance', { To: `${c.changeOn}T10:00:00Z` }, 200);
    let route = 'changeterm';
    let request: Record<string, unknown> = { packageRateTermID: plan.rateTermIds[1], ...c.body };
    if (c.target !== 'yearly') {
      const target = await createPlan(as, c.target);
      route = 'changePackage';
      request = { packageID: target.packageId, packageRateTermID: target.rateTermId, ...c.body };
    }

    const before = await state(as, path, customerId);
    const previewed = await ok(as, 'PUT', `${path}/${route}?preview=true`, request, 200);
    expect(await state(as, path, customerId), 'the preview changed nothing').toEqual(before);
    // Every case credits or invoices something: an empty preview would prove nothing.
    expect(previewed.Credits.length + previewed.Invoices.length).toBeGreaterThan(0);
    // Behind, the preview shows the invoice that catches up (Apr 1 – May 1 on the old terms) before the change's.
    if (c.behind) expect(previewed.Invoices[0].InvoiceDate.slice(0, 10)).toBe('2026-04-01');

    await ok(as, 'PUT', `${path}/${route}`, request);
    const after = await state(as, path, customerId);
    const newCredits = after.credits.filter(
      (credit: any) =>
        !before.credits.some((old: any) => old.subscriptionCreditID === credit.subscriptionCreditID),
    );
    expect(
      newCredits.map(({ Descrip, Amount, CurrencyCode, PeriodStart, PeriodEnd }: any) => ({
        Descrip,
        Amount,
        CurrencyCode,
        PeriodStart,
        PeriodEnd,
      })),
    ).toEqual(previewed.Credits);
    const newInvoiceIds = after.invoices
      .filter((invoice: any) => !before.invoices.some((old: any) => old.invoiceID === invoice.invoiceID))
      .map((invoice: any) => invoice.invoiceID);
    const made = [];
    for (const id of newInvoiceIds) made.push(await ok(as, 'GET', `/v1/invoices/${id}`));
    expect(withoutSequenceIds(made)).toEqual(withoutSequenceIds(previewed.Invoices));
  });
});
