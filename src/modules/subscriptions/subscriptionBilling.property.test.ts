import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, maxDate, minDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { priceInvoice } from '../invoicing/index.ts';
import { decimalToMinor, productToMinor } from '../../core/money.ts';
import { boundary, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { subscription, usageRow } from './subscriptionBilling.fixtures.ts';
import { MAX_INVOICES_PER_PLAN, planBilling } from './subscriptionBilling.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import type {
  BillingPlan,
  PlannedInvoice,
  PriceTerms,
  SubscriptionTimeline,
  UnbilledUsage,
} from './subscriptionBilling.ts';
import { timelineAfter } from './subscriptionUpcoming.ts';

// Properties over random subscriptions and random bill runs.

interface Scenario {
  timeline: SubscriptionTimeline;
  usage: UnbilledUsage[];
  /** Increasing days the bill run happens on; the last is the end of the story. */
  runDates: PlainDate[];
}

interface Run {
  invoices: PlannedInvoice[];
  timeline: SubscriptionTimeline;
  usage: UnbilledUsage[];
  lastPlan: BillingPlan;
  /** For each call: the day, how many invoices it made, the nextInvDate it reported. */
  calls: { today: PlainDate; made: number; nextInvDate: PlainDate | null }[];
}

const EPOCH = '2020-01-01';
const LAST_START = daysBetween(EPOCH, '2030-12-31');

/** A price with 0–4 decimals. */
const priceArb = fc
  .tuple(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 4 }))
  .map(([units, decimals]) => {
    const text = String(units).padStart(decimals + 1, '0');
    return decimals === 0 ? text : `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
  });

const termArb: fc.Arbitrary<Term> = fc.oneof(
  fc.integer({ min: 1, max: 3 }).map((count) => ({ count, unit: 'months' as const })),
  fc.integer({ min: 1, max: 30 }).map((count) => ({ count, unit: 'days' as const })),
);

const termsArb = (label: string): fc.Arbitrary<PriceTerms> =>
  fc.record({
    label: fc.constant(label),
    term: termArb,
    chargePrice: priceArb,
    setupFee: fc.oneof(fc.constant('0'), priceArb),
    trialFee: fc.oneof(fc.constant('0'), priceArb),
  });

const STORY_DAYS = 450;

/** null with probability 1 − p. */
const maybe = <T>(arb: fc.Arbitrary<T>, p = 0.5): fc.Arbitrary<T | null> =>
  fc.oneof(
    { arbitrary: fc.constant(null), weight: Math.round((1 - p) * 10) },
    { arbitrary: arb, weight: Math.round(p * 10) },
  );

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    start: fc.integer({ min: 0, max: LAST_START }),
    currencyCode: fc.constantFrom('USD', 'JPY', 'BHD'),
    terms: termsArb('Plan (v1)'),
    trial: maybe(
      fc.oneof(
        fc.record({ count: fc.integer({ min: 1, max: 30 }), unit: fc.constant('days') }),
        fc.record({ count: fc.integer({ min: 1, max: 2 }), unit: fc.constant('months') }),
      ),
    ),
    // as a fraction of the first term, so the sync date lies within it
    sync: maybe(fc.double({ min: 0, max: 1, noNaN: true })),
    isProRata: fc.boolean(),
    endOffset: maybe(fc.integer({ min: 1, max: STORY_DAYS })),
    cancelOffset: maybe(fc.integer({ min: -20, max: STORY_DAYS })),
    numDaysBeforeToInv: fc.integer({ min: 0, max: 10 }),
    createdOffset: fc.integer({ min: -30, max: 30 }),
    change: maybe(fc.record({ offset: fc.integer({ min: 0, max: 400 }), terms: termsArb('Plan (v2)') }), 0.3),
    usage: fc.array(
      fc.record({
        endOffset: fc.integer({ min: 0, max: STORY_DAYS }),
        units: fc.integer({ min: 0, max: 40 }),
      }),
      { maxLength: 4 },
    ),
    runOffsets: fc.uniqueArray(fc.integer({ min: -40, max: STORY_DAYS }), { maxLength: 12 }),
  })
  .map((r): Scenario => {
    const startDate = addDays(EPOCH, r.start);
    const trialEndDate = r.trial ? trialEndOf(startDate, r.trial.count, r.trial.unit) : null;
    const firstTermDays = daysBetween(startDate, boundary(startDate, r.terms.term, 1));
    const syncOffset = r.sync === null ? null : Math.max(1, Math.ceil(r.sync * firstTermDays));
    const timeline = subscription({
      currencyCode: r.currencyCode,
      startDate,
      anchorDate: startDate,
      createdOn: addDays(startDate, r.createdOffset),
      terms: r.terms,
      trialEndDate,
      isProRata: r.isProRata && syncOffset !== null,
      firstProrataSyncDate: syncOffset === null ? null : addDays(startDate, syncOffset),
      endDate: r.endOffset === null ? null : addDays(startDate, r.endOffset),
      cancelDate: r.cancelOffset === null ? null : addDays(startDate, r.cancelOffset),
      numDaysBeforeToInv: r.numDaysBeforeToInv,
      pendingChange: r.change
        ? { effectiveDate: addDays(startDate, r.change.offset), terms: r.change.terms }
        : null,
    });
    const usage = r.usage.map((u, i) => {
      const periodEnd = addDays(startDate, u.endOffset);
      return usageRow(i + 1, addDays(periodEnd, -30), periodEnd, String(u.units));
    });
    const end = STORY_DAYS + 20;
    const runDates = [...r.runOffsets.filter((o) => o < end), end]
      .sort((a, b) => a - b)
      .map((o) => addDays(startDate, o));
    return { timeline, usage, runDates };
  });

/** The bill run on each day given, carrying the record forward; repeats a day while a plan is capped. */
function runOn(scenario: Scenario, days: readonly PlainDate[]): Run {
  let timeline = scenario.timeline;
  let usage = scenario.usage;
  const invoices: PlannedInvoice[] = [];
  const calls: Run['calls'] = [];
  let lastPlan: BillingPlan | undefined;
  for (const today of days) {
    for (;;) {
      const plan = planBilling(timeline, usage, today);
      invoices.push(...plan.invoices);
      const billed = new Set(plan.invoices.flatMap((i) => i.usageIds));
      usage = usage.filter((u) => !billed.has(u.usageId));
      timeline = timelineAfter(timeline, plan);
      calls.push({ today, made: plan.invoices.length, nextInvDate: plan.next.nextInvDate });
      lastPlan = plan;
      if (plan.invoices.length < MAX_INVOICES_PER_PLAN) break;
    }
  }
  return { invoices, timeline, usage, lastPlan: lastPlan!, calls };
}

function everyDay(from: PlainDate, to: PlainDate): PlainDate[] {
  const days: PlainDate[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

const stopOf = (timeline: SubscriptionTimeline): PlainDate | null =>
  [timeline.cancelDate, timeline.endDate].filter((d): d is PlainDate => d !== null).sort()[0] ?? null;

const isMonthly = (terms: PriceTerms) => terms.term.unit === 'months' && terms.term.count === 1;

/** The invariants one run's invoices must hold. */
function checkRun(scenario: Scenario, run: Run): void {
  const { timeline } = scenario;
  const finalDay = scenario.runDates[scenario.runDates.length - 1]!;
  const stop = stopOf(timeline);
  const periods = run.invoices.flatMap((i) => (i.period ? [i.period] : []));

  // tiling from the start: no gap, no overlap, numbered 1..n, nothing billed twice
  periods.forEach((period, i) => {
    expect(period.periodNo).toBe(i + 1);
    expect(period.start).toBe(i === 0 ? timeline.startDate : periods[i - 1]!.end);
    expect(period.end > period.start).toBe(true);
    if (stop !== null) expect(period.start < stop).toBe(true);
    if (timeline.endDate !== null) expect(period.end <= timeline.endDate).toBe(true);
  });
  expect(new Set(periods.map((p) => p.start)).size).toBe(periods.length);

  // everything due by the final day is billed, and the record says when to look again
  const next = run.lastPlan.next;
  const nextStart = periods.length > 0 ? periods[periods.length - 1]!.end : timeline.startDate;
  expect(run.timeline.nextRenewDate).toBe(periods.length > 0 ? nextStart : null);
  if (next.nextInvDate === null) {
    expect(stop !== null && nextStart >= stop).toBe(true);
    expect(run.usage).toEqual([]);
    expect(planBilling(run.timeline, run.usage, '2099-12-31').invoices).toEqual([]);
  } else {
    expect(next.nextInvDate > finalDay).toBe(true);
    expect(planBilling(run.timeline, run.usage, next.nextInvDate).invoices.length).toBeGreaterThan(0);
  }

  // invoice dates: numDaysBeforeToInv ahead of the period, never before creation, in order
  run.invoices.forEach((invoice, i) => {
    expect(invoice.invoiceDate >= timeline.createdOn).toBe(true);
    expect(invoice.invoiceDate <= finalDay).toBe(true);
    if (i > 0) expect(invoice.invoiceDate >= run.invoices[i - 1]!.invoiceDate).toBe(true);
    if (invoice.period) {
      expect(invoice.invoiceDate).toBe(
        maxDate(addDays(invoice.period.start, -timeline.numDaysBeforeToInv), timeline.createdOn),
      );
    }
  });
  // only the last invoice may be usage-only
  run.invoices.slice(0, -1).forEach((invoice) => expect(invoice.period).not.toBeNull());

  // amounts: non-negative integers; the period's line carries the period's amount
  const setupMinor = decimalToMinor(
    (periods[0]?.appliesPendingChange ? timeline.pendingChange!.terms : timeline.terms).setupFee,
    timeline.currencyCode,
  );
  run.invoices.forEach((invoice, i) => {
    const priced = priceInvoice(invoice.lines, [], timeline.currencyCode);
    for (const charge of priced.charges) {
      expect(Number.isSafeInteger(charge.amountExMinor) && charge.amountExMinor >= 0).toBe(true);
    }
    if (!invoice.period) return;
    const period = invoice.period;
    expect(Number.isSafeInteger(period.amountMinor) && period.amountMinor >= 0).toBe(true);
    const hasSetup = i === 0 && setupMinor !== 0;
    const periodLines = invoice.lines.length - (hasSetup ? 1 : 0) - invoice.usageIds.length;
    if (periodLines === 1) {
      const line = invoice.lines[hasSetup ? 1 : 0]!;
      expect([line.periodStart, line.periodEnd]).toEqual([period.start, period.end]);
      expect(productToMinor(line.qty, line.unitCostEx, timeline.currencyCode)).toBe(period.amountMinor);
    } else {
      // only a trial without a fee has no line
      expect(periodLines).toBe(0);
      expect([period.kind, period.amountMinor]).toEqual(['trial', 0]);
    }
    const fullMinor = decimalToMinor(period.chargePrice, timeline.currencyCode);
    if (period.kind === 'term' || period.kind === 'trial') expect(period.amountMinor).toBe(fullMinor);
    if (period.kind === 'stub' && timeline.pendingChange === null) {
      expect(period.amountMinor).toBeLessThanOrEqual(fullMinor);
    }
  });

  // the setup fee: exactly once when it is not zero, on the first invoice
  const setupLines = run.invoices.flatMap((invoice, i) =>
    invoice.lines.filter((line) => line.descrip.endsWith(': setup fee')).map(() => i),
  );
  expect(setupLines).toEqual(periods.length > 0 && setupMinor !== 0 ? [0] : []);

  // usage: each row billed once, on the first invoice dated on or after its end (or the last one at the stop)
  const billedIds = run.invoices.flatMap((i) => i.usageIds);
  expect(new Set(billedIds).size).toBe(billedIds.length);
  for (const row of scenario.usage) {
    const at = run.invoices.findIndex((i) => i.usageIds.includes(row.usageId));
    const firstOnOrAfter = run.invoices.findIndex((i) => i.period !== null && i.invoiceDate >= row.periodEnd);
    if (at === -1) {
      expect(firstOnOrAfter).toBe(-1);
      continue;
    }
    if (run.invoices[at]!.period) expect(at).toBe(firstOnOrAfter);
    else expect(firstOnOrAfter).toBe(-1);
  }
  const last = run.invoices[run.invoices.length - 1];
  if (last && last.period === null) {
    // dated when the last of its usage ends or billing stops, whichever is first
    const lastEnd = scenario.usage
      .filter((u) => last.usageIds.includes(u.usageId))
      .map((u) => u.periodEnd)
      .sort()
      .pop()!;
    expect(stop).not.toBeNull();
    expect(last.invoiceDate).toBe(maxDate(minDate(lastEnd, stop!), timeline.createdOn));
  }

  // the cycle: without a change, term periods are whole terms on the boundaries of one anchor
  const terms = periods.filter((p) => p.kind === 'term');
  if (timeline.pendingChange === null && terms.length > 0) {
    const anchor = terms[0]!.start;
    const { term } = timeline.terms;
    for (const period of terms) {
      const k = periodIndexAt(anchor, term, period.start);
      expect(boundary(anchor, term, k)).toBe(period.start);
      expect(boundary(anchor, term, k + 1)).toBe(period.end);
    }
  }

  // a monthly subscription never bills two periods starting in one calendar month, stubs and trials aside
  if (
    isMonthly(timeline.terms) &&
    (timeline.pendingChange === null || isMonthly(timeline.pendingChange.terms))
  ) {
    const months = terms.map((p) => p.start.slice(0, 7));
    expect(new Set(months).size).toBe(months.length);
  }
}

describe('planBilling over random subscriptions and bill runs', () => {
  it('holds every invariant and bills the same whether run once, on random days, or every day', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const finalDay = scenario.runDates[scenario.runDates.length - 1]!;
        const once = runOn(scenario, [finalDay]);
        const random = runOn(scenario, scenario.runDates);
        const firstDay = addDays(minDate(scenario.timeline.createdOn, scenario.timeline.startDate), -11);
        const daily = runOn(scenario, everyDay(firstDay, finalDay));

        checkRun(scenario, once);
        checkRun(scenario, random);
        checkRun(scenario, daily);
        expect(random.invoices).toEqual(once.invoices);
        expect(daily.invoices).toEqual(once.invoices);
        expect(daily.timeline).toEqual(once.timeline);

        // run every day, each invoice is made on its own date, on the day the previous run said to look again
        let expected: PlainDate | null = firstDay;
        let made = 0;
        for (const call of daily.calls) {
          if (call.made > 0) {
            expect(call.today).toBe(expected);
            daily.invoices
              .slice(made, made + call.made)
              .forEach((i) => expect(i.invoiceDate).toBe(call.today));
            made += call.made;
          }
          expected = call.nextInvDate;
          // a capped plan asks to run again at once; any other asks for a later day, or never
          if (expected !== null)
            expect(expected > call.today || call.made === MAX_INVOICES_PER_PLAN).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});
