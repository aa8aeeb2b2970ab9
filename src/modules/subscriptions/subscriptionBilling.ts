import { cycleAnchorThrough, wholeTermEndingAt } from './billCycleDay.ts';
import { addDays, daysBetween, maxDate, minDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { decimalToMinor, minorToDecimalText, ratioOfMinor } from '../../core/money.ts';
import { boundary, isValidTerm, periodIndexAt } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import type { PackagePrice } from '../catalogue/index.ts';
import type { Bracket, Scheme } from '../catalogue/index.ts';
import { chargeCorrection, chargeUsage } from './usageCharge.ts';
import { periodText } from './meteredUsage.ts';
import { deductionText } from './progressiveBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { isResumeStub, pauseCutOf, pauseStopOf, skipPause } from './subscriptionPause.ts';
import type { PauseWindow } from './subscriptionPause.ts';

/**
 * What a subscription owes, decided from its record and a date: the pure core that the bill run, the upcoming-
 * invoice preview and the subscription's computed fields share. No I/O, no clock.
 *
 * The timeline. A subscription's billed periods tile time from its start: each period starts where the last one
 * ended. Periods are billed in advance: the invoice for a period is dated `numDaysBeforeToInv` days before the
 * period starts (never before the day the subscription was created) and is made once that date is today or
 * past. A subscription several periods behind gets one invoice per missed period. The kinds of period:
 * - trial: from the start to the trial's end (TrialPeriod × TrialPeriodType after StartDate); charges the
 *   TrialFee, never the package price. The billing cycle is anchored on the trial's end.
 * - stub: a pro-rated part of a term. With `isProRata` and a `firstProrataSyncDate`, the first period runs from
 *   the start to the sync date and the cycle is anchored on the sync date. A period cut short by the EndDate is
 *   a stub too, and so is the period from the day a change made now kept the anchor (`offCycleStart`) to the
 *   cycle's next boundary, its whole term being the cycle's period holding that day; the anchor stays.
 * - term: a whole term of the price in force: [anchor + k × term, anchor + (k+1) × term).
 *
 * Proration, the one rule: a stub is charged price × (days in the stub) / (days in the whole term it is part
 * of), the whole term being the one that ends at the sync date (for the first stub) or the one the stub starts
 * (for a stub cut by the EndDate), rounded once to the minor unit. Days are calendar days, so a month of 31 days
 * and one of 28 are each a whole month, and a day in February is worth more than a day in March.
 * Example: 30.00 a month, start Jan 22, sync Feb 1: the whole term is Jan 1–Feb 1 (31 days), the stub 10 days:
 * 30.00 × 10 / 31 = 9.677… → 9.68.
 *
 * The setup fee is charged on the first invoice. Usage of components is billed in arrears: a usage period's
 * units are priced (the component version's scheme and brackets) on the first invoice dated on or after the
 * usage period's end; when the subscription has ended, a last invoice carries the usage that is left.
 *
 * Changes scheduled for the next renewal take effect at the start of the period that begins on their date:
 * that period and the following ones use the new terms, anchored on that date.
 */
export interface PriceTerms {
  /** Shown on invoice lines, e.g. "Gold (v2)". */
  label: string;
  term: Term;
  /** Exact decimals in major units, at most 4 decimals. */
  chargePrice: string;
  setupFee: string;
  trialFee: string;
  /** The prices include the invoice's taxes (taxInclusive.ts); its lines say so. Exclusive when left out. */
  isTaxInclusive?: boolean;
}

export interface UnbilledUsage {
  /**
   * Passed through to the result so the caller can mark the row billed. Negative for usage read from events
   * (meteredUsage.ts), which has no row until the invoice that bills it is made.
   */
  usageId: number;
  label: string;
  unitName: string;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  units: string;
  scheme: Scheme;
  brackets: readonly Bracket[];
  /** The blocks of the package scheme; absent or null under the bracket schemes. */
  pack?: PackagePrice | null;
  /** The component's price in this currency includes the invoice's taxes. */
  isTaxInclusive?: boolean;
  /** Usage read from events: the metric it counts and the group ('' for none), named on the line. */
  metered?: { metricCode: string; group: string };
  /**
   * A correction of a period billed before (late events): the quantity billed then; `units` is what was added.
   * Priced at the difference between the period's price with and without the addition, so tiers stay right.
   */
  billedUnits?: string;
  /**
   * Usage read from events whose period progressive invoices billed in part (docs/usage.md, "Progressive
   * billing"): the minor units they billed, after their coupons' discounts, deducted on a line of its own below the
   * whole period's line.
   */
  progressiveMinor?: number;
  /** The component whose usage this is: a coupon restricted to components discounts its line (coupons module). */
  componentId?: number;
}

export interface SubscriptionTimeline {
  currencyCode: string;
  startDate: PlainDate;
  endDate: PlainDate | null;
  trialEndDate: PlainDate | null;
  isProRata: boolean;
  firstProrataSyncDate: PlainDate | null;
  anchorDate: PlainDate;
  /**
   * The day a change made now kept the anchor: a period starting that day off the cycle is a stub to the cycle's
   * next boundary. Any other start off the cycle breaks an invariant.
   */
  offCycleStart?: PlainDate | null;
  /**
   * The day of the month the cycle renews on (billCycleDay.ts), or null: an anchor that falls on it in a short
   * month is counted from the day itself, so the next month returns to it.
   */
  billCycleDay?: number | null;
  numDaysBeforeToInv: number;
  /** The day the subscription was created, in the account's time zone: no invoice is dated before it. */
  createdOn: PlainDate;
  /** The day billing stops (a cancellation's effective date), or null. */
  cancelDate: PlainDate | null;
  periodCount: number;
  /** Start of the next period to bill; null before the first. */
  nextRenewDate: PlainDate | null;
  setupBilled: boolean;
  terms: PriceTerms;
  pendingChange: { effectiveDate: PlainDate; terms: PriceTerms } | null;
  /**
   * Set when a component bills usage read from events and the subscription has stopped (or will stop) without that
   * usage billed through the stop: the stop day. That usage is not among the open usage until its period is over
   * (meteredUsage.service.ts reads it then), so this tells the plan that a last invoice is still to come on that
   * day (docs/usage.md, "Billing usage").
   */
  eventsUnbilledAtStop?: PlainDate | null;
  /**
   * Set when a component bills usage read from events and the subscription stops: the day its last period's grace
   * window has closed, when late events that came after the last invoice are billed on a final correction invoice
   * (docs/usage.md, "After the last invoice").
   */
  finalCorrectionOn?: PlainDate | null;
  /** Its pause, when it has one (subscriptionPause.ts): no period starts inside it. */
  pause?: PauseWindow | null;
}

export type PeriodKind = 'trial' | 'stub' | 'term';

export interface PlannedLine {
  descrip: string;
  qty: string;
  /** The price as listed: it includes the invoice's taxes when isTaxInclusive. */
  unitCostEx: string;
  periodStart: PlainDate | null;
  periodEnd: PlainDate | null;
  /** Set (true) only on a line of a tax-inclusive price. */
  isTaxInclusive?: true;
  /** Set only on a line of usage read from events: what it counted (a correction: what was added). */
  metered?: { metricCode: string; group: string; quantity: string };
  /** Set only on a line of a component's usage: which component (a line without it bills the package). */
  componentId?: number;
  /** Set (true) only on the deduction of what a period's progressive invoices billed (docs/usage.md). */
  isProgressiveDeduction?: true;
}

export interface PlannedInvoice {
  invoiceDate: PlainDate;
  lines: PlannedLine[];
  /** The usage rows this invoice bills. */
  usageIds: number[];
  /**
   * Set by the coupons (subscriptionCoupons.ts): what their discount lines took of each line planned before them,
   * in minor units as the lines are listed.
   */
  lineDiscountsMinor?: number[];
  /** Null for the last invoice of an ended subscription, which bills only usage. */
  period: {
    periodNo: number;
    start: PlainDate;
    end: PlainDate;
    kind: PeriodKind;
    chargePrice: string;
    amountMinor: number;
    /** The scheduled change took effect with this period. */
    appliesPendingChange: boolean;
    /** Set (true) only when amountMinor includes the taxes: a credit for it gives back a share of that. */
    isTaxInclusive?: true;
    /** Set only on a stub: its days of its whole term's, the fraction a fixed coupon is prorated with. */
    proration?: { days: number; termDays: number };
  } | null;
}

export interface BillingPlan {
  invoices: PlannedInvoice[];
  /** The subscription's record after these invoices. */
  next: {
    periodCount: number;
    nextRenewDate: PlainDate | null;
    lastRenewDate: PlainDate | null;
    lastInvDate: PlainDate | null;
    /** When the bill run should look at it again; null when nothing is left to bill. */
    nextInvDate: PlainDate | null;
    setupBilled: boolean;
    anchorDate: PlainDate;
    terms: PriceTerms;
    pendingChangeApplied: boolean;
  };
}

const PLAIN_DECIMAL = /^\d+(\.\d{1,4})?$/;

function checkTerms(terms: PriceTerms): void {
  if (!isValidTerm(terms.term)) {
    throw new BillingInvariantError(`invalid term ${terms.term.count} ${terms.term.unit}`);
  }
  for (const [name, value] of [
    ['charge price', terms.chargePrice],
    ['setup fee', terms.setupFee],
    ['trial fee', terms.trialFee],
  ] as const) {
    if (!PLAIN_DECIMAL.test(value)) throw new BillingInvariantError(`invalid ${name} ${value}`);
  }
}

/** A period's shape when it starts at `start`, under the terms and anchor given. */
export function periodStartingAt(
  timeline: Pick<
    SubscriptionTimeline,
    'endDate' | 'trialEndDate' | 'isProRata' | 'firstProrataSyncDate' | 'offCycleStart' | 'billCycleDay'
  > &
    Partial<Pick<SubscriptionTimeline, 'pause'>>,
  terms: PriceTerms,
  anchorDate: PlainDate,
  start: PlainDate,
): { start: PlainDate; end: PlainDate; kind: PeriodKind; fullStart: PlainDate; fullEnd: PlainDate } {
  const { term } = terms;
  let period: { end: PlainDate; kind: PeriodKind; fullStart: PlainDate; fullEnd: PlainDate };
  if (timeline.trialEndDate && start < timeline.trialEndDate) {
    period = { end: timeline.trialEndDate, kind: 'trial', fullStart: start, fullEnd: timeline.trialEndDate };
  } else if (timeline.isProRata && timeline.firstProrataSyncDate && start < timeline.firstProrataSyncDate) {
    const sync = timeline.firstProrataSyncDate;
    const fullStart = wholeTermEndingAt(sync, term, timeline.billCycleDay);
    period = { end: sync, kind: 'stub', fullStart, fullEnd: sync };
  } else {
    const k = periodIndexAt(anchorDate, term, start);
    const cycleStart = boundary(anchorDate, term, k);
    const end = boundary(anchorDate, term, k + 1);
    if (cycleStart === start) {
      period = { end, kind: 'term', fullStart: start, fullEnd: end };
    } else if (start === timeline.offCycleStart || isResumeStub(timeline.pause, start)) {
      // A change made now that kept the anchor: pro-rated over the cycle's period holding the change day.
      period = { end, kind: 'stub', fullStart: cycleStart, fullEnd: end };
    } else {
      throw new BillingInvariantError(
        `period start ${start} is not on the billing cycle anchored at ${anchorDate} (${term.count} ${term.unit})`,
      );
    }
  }
  // The EndDate cuts the last period short: a term becomes a pro-rated stub; a trial stays a trial. A pause cuts
  // the period it starts in the same way (subscriptionPause.ts).
  const cut = [timeline.endDate, pauseCutOf(timeline.pause, start)].filter((d) => d !== null).sort()[0];
  if (cut && period.end > cut) {
    return { start, ...period, end: cut, kind: period.kind === 'trial' ? 'trial' : 'stub' };
  }
  return { start, ...period };
}

function priceLine(
  terms: PriceTerms,
  period: { start: PlainDate; end: PlainDate; kind: PeriodKind; fullStart: PlainDate; fullEnd: PlainDate },
  currencyCode: string,
): {
  line: PlannedLine | null;
  amountMinor: number;
  chargePrice: string;
  proration?: { days: number; termDays: number };
} {
  const range = { periodStart: period.start, periodEnd: period.end };
  if (period.kind === 'trial') {
    const amountMinor = decimalToMinor(terms.trialFee, currencyCode);
    const line =
      amountMinor === 0
        ? null
        : { descrip: `${terms.label}: trial`, qty: '1', unitCostEx: terms.trialFee, ...range };
    return { line, amountMinor, chargePrice: terms.trialFee };
  }
  const fullMinor = decimalToMinor(terms.chargePrice, currencyCode);
  if (period.kind === 'term') {
    return {
      line: { descrip: terms.label, qty: '1', unitCostEx: terms.chargePrice, ...range },
      amountMinor: fullMinor,
      chargePrice: terms.chargePrice,
    };
  }
  const days = daysBetween(period.start, period.end);
  const termDays = daysBetween(period.fullStart, period.fullEnd);
  const amountMinor = ratioOfMinor(fullMinor, days, termDays);
  return {
    line: {
      descrip: `${terms.label} (pro-rated, ${days} of ${termDays} days)`,
      qty: '1',
      unitCostEx: minorToDecimalText(amountMinor, currencyCode),
      ...range,
    },
    amountMinor,
    chargePrice: terms.chargePrice,
    proration: { days, termDays },
  };
}

/**
 * A usage's line, and below it, when progressive invoices billed part of its period, the deduction of what they
 * billed (docs/usage.md, "Progressive billing"): the period's whole quantity is priced as ever, so the lines net to
 * what its price leaves to bill, tiers included. A deduction larger than the line (a quantity that fell) makes the
 * invoice's Total below zero, carried as a credit like a correction's (negativeTotal.ts).
 */
function usageLines(usage: UnbilledUsage, currencyCode: string): PlannedLine[] {
  const line = inclusiveIf(usageLine(usage, currencyCode), usage.isTaxInclusive);
  if (!usage.progressiveMinor) return [line];
  const label = usage.metered?.group ? `${usage.label} (${usage.metered.group})` : usage.label;
  const deduction: PlannedLine = {
    descrip: deductionText(label),
    qty: '1',
    unitCostEx: minorToDecimalText(-usage.progressiveMinor, currencyCode),
    periodStart: usage.periodStart,
    periodEnd: usage.periodEnd,
    ...(usage.componentId === undefined ? {} : { componentId: usage.componentId }),
    isProgressiveDeduction: true,
  };
  return [line, inclusiveIf(deduction, usage.isTaxInclusive)];
}

function usageLine(usage: UnbilledUsage, currencyCode: string): PlannedLine {
  const range = { periodStart: usage.periodStart, periodEnd: usage.periodEnd };
  const metered = {
    ...(usage.metered ? { metered: { ...usage.metered, quantity: usage.units } } : {}),
    ...(usage.componentId === undefined ? {} : { componentId: usage.componentId }),
  };
  // A group is named beside the component: "API calls (eu-west): 1200 calls".
  const label = usage.metered?.group ? `${usage.label} (${usage.metered.group})` : usage.label;
  if (usage.billedUnits !== undefined) {
    return {
      descrip: correctionText(label, usage),
      qty: '1',
      unitCostEx: chargeCorrection(usage, usage.billedUnits, usage.units, currencyCode),
      ...range,
      ...metered,
    };
  }
  const charge = chargeUsage(usage, usage.units);
  const quantity = `${label}: ${usage.units} ${usage.unitName}`;
  return {
    descrip: charge.detail === null ? quantity : `${quantity} (${charge.detail})`,
    qty: '1',
    unitCostEx: charge.amount,
    ...range,
    ...metered,
  };
}

/** "API calls, 1–30 Nov 2026: 120 more calls" (or "fewer", when late events lowered the quantity). */
function correctionText(label: string, usage: UnbilledUsage): string {
  const more = !usage.units.startsWith('-');
  const amount = more ? usage.units : usage.units.slice(1);
  const period = periodText({ start: usage.periodStart, end: usage.periodEnd });
  return `${label}, ${period}: ${amount} ${more ? 'more' : 'fewer'} ${usage.unitName}`;
}

/**
 * A line of a tax-inclusive price says so, and is then priced by splitting its amount (taxInclusive.ts); a line
 * of an exclusive price is left exactly as it was.
 */
function inclusiveIf<T extends object>(item: T, isTaxInclusive: boolean | undefined): T {
  return isTaxInclusive ? { ...item, isTaxInclusive: true } : item;
}

/** The date of the invoice for a period starting at `start`: numDaysBeforeToInv ahead, never before creation. */
export function invoiceDateOf(
  start: PlainDate,
  timeline: Pick<SubscriptionTimeline, 'numDaysBeforeToInv' | 'createdOn'>,
): PlainDate {
  return maxDate(addDays(start, -timeline.numDaysBeforeToInv), timeline.createdOn);
}

/**
 * The anchor of the periods after `period`: the cycle of a trial or a first pro-rata stub is anchored on its end;
 * a stub that a change made now cut from the cycle keeps the cycle's anchor (a month-end anchor stays the 31st).
 */
export function anchorAfter(
  period: { start: PlainDate; end: PlainDate; kind: PeriodKind },
  timeline: Pick<SubscriptionTimeline, 'isProRata' | 'firstProrataSyncDate' | 'billCycleDay'>,
  anchorDate: PlainDate,
  term: Term,
): PlainDate {
  const firstStub =
    period.kind === 'stub' && timeline.isProRata && period.end === timeline.firstProrataSyncDate;
  if (period.kind !== 'trial' && !firstStub) return anchorDate;
  // A bill-cycle day of 29 to 31 reached in a short month: renewals are counted from the day itself.
  return timeline.billCycleDay ? cycleAnchorThrough(period.end, timeline.billCycleDay, term) : period.end;
}

/**
 * The anchor of a period with which a scheduled change takes effect on `start`: a change keeping the same term
 * keeps the cycle (a month-end anchor returns to the 31st); another term starts a new cycle on that day, which
 * stays on the bill-cycle day when `start` is on it.
 */
export function anchorOnChange(
  current: Term,
  changed: Term,
  anchorDate: PlainDate,
  start: PlainDate,
  billCycleDay?: number | null,
): PlainDate {
  if (current.count === changed.count && current.unit === changed.unit) return anchorDate;
  return billCycleDay ? cycleAnchorThrough(start, billCycleDay, changed) : start;
}

/** At most this many invoices per plan; a subscription further behind continues on the next call. */
export const MAX_INVOICES_PER_PLAN = 400;

/** The invoices due by `today` and the record after them. Throws BillingInvariantError on a broken record. */
export function planBilling(
  timeline: SubscriptionTimeline,
  usage: readonly UnbilledUsage[],
  today: PlainDate,
): BillingPlan {
  checkTimeline(timeline);
  const run = startRun(timeline, usage);
  const stopAt = [timeline.cancelDate, timeline.endDate, pauseStopOf(timeline.pause)]
    .filter((d): d is PlainDate => d !== null)
    .sort()[0];
  while (stopAt === undefined || run.nextStart < stopAt) {
    if (!billNextPeriod(run, timeline, today)) break;
  }
  const ended = stopAt !== undefined && run.nextStart >= stopAt;
  if (ended && run.open.length > 0) billLastUsage(run, timeline, stopAt, today);
  return {
    invoices: run.invoices,
    next: {
      periodCount: run.periodCount,
      nextRenewDate: run.invoices.some((i) => i.period) ? run.nextStart : timeline.nextRenewDate,
      lastRenewDate: run.lastRenewDate,
      lastInvDate: run.lastInvDate,
      nextInvDate:
        ended && run.open.length === 0
          ? (lastEventsInvoiceDate(run, timeline) ?? finalCorrectionDate(run, timeline, today))
          : run.nextInvDate,
      setupBilled: run.setupBilled,
      anchorDate: run.anchorDate,
      terms: run.terms,
      pendingChangeApplied: run.pendingChangeApplied,
    },
  };
}

/** The record as billing moves through the periods: where the next one starts, the usage still open. */
interface BillingRun extends Omit<BillingPlan['next'], 'nextRenewDate'> {
  nextStart: PlainDate;
  /** Unbilled usage, by the end of its period. */
  open: UnbilledUsage[];
  invoices: PlannedInvoice[];
}

function checkTimeline(timeline: SubscriptionTimeline): void {
  checkTerms(timeline.terms);
  if (timeline.pendingChange) checkTerms(timeline.pendingChange.terms);
  if (timeline.nextRenewDate && timeline.nextRenewDate < timeline.startDate) {
    throw new BillingInvariantError(
      `next renewal ${timeline.nextRenewDate} is before the start ${timeline.startDate}`,
    );
  }
}

function startRun(timeline: SubscriptionTimeline, usage: readonly UnbilledUsage[]): BillingRun {
  return {
    terms: timeline.terms,
    anchorDate: timeline.anchorDate,
    periodCount: timeline.periodCount,
    setupBilled: timeline.setupBilled,
    pendingChangeApplied: false,
    lastRenewDate: null,
    lastInvDate: null,
    nextInvDate: null,
    nextStart: timeline.nextRenewDate ?? timeline.startDate,
    open: [...usage].sort((a, b) => (a.periodEnd < b.periodEnd ? -1 : a.periodEnd > b.periodEnd ? 1 : 0)),
    invoices: [],
  };
}

/** Takes the open usage whose period is over by `invoiceDate`. */
function takeUsage(run: BillingRun, invoiceDate: PlainDate): UnbilledUsage[] {
  const due = run.open.filter((u) => u.periodEnd <= invoiceDate);
  run.open = run.open.filter((u) => u.periodEnd > invoiceDate);
  return due;
}

/**
 * Invoices the period starting at `run.nextStart` (under the pending change once it is effective) and moves the
 * run past it; false, with the date to look again, when its invoice is not due by `today` or the cap is reached.
 */
function billNextPeriod(run: BillingRun, timeline: SubscriptionTimeline, today: PlainDate): boolean {
  if (skipPause(run, timeline.pause)) return true;
  const change = timeline.pendingChange;
  const applies = change !== null && !run.pendingChangeApplied && change.effectiveDate <= run.nextStart;
  const periodTerms = applies ? change.terms : run.terms;
  const periodAnchor = applies
    ? anchorOnChange(run.terms.term, change.terms.term, run.anchorDate, run.nextStart, timeline.billCycleDay)
    : run.anchorDate;
  const invoiceDate = invoiceDateOf(run.nextStart, timeline);
  if (invoiceDate > today || run.invoices.length >= MAX_INVOICES_PER_PLAN) {
    run.nextInvDate = invoiceDate;
    return false;
  }
  const period = periodStartingAt(timeline, periodTerms, periodAnchor, run.nextStart);
  if (period.end <= period.start) {
    throw new BillingInvariantError(`empty period ${period.start} to ${period.end}`);
  }
  run.invoices.push(periodInvoice(run, timeline, periodTerms, period, invoiceDate, applies));
  run.setupBilled = true;
  if (applies) {
    run.terms = change.terms;
    run.anchorDate = periodAnchor;
    run.pendingChangeApplied = true;
  }
  run.anchorDate = anchorAfter(period, timeline, run.anchorDate, periodTerms.term);
  run.lastRenewDate = period.start;
  run.lastInvDate = invoiceDate;
  run.nextStart = period.end;
  return true;
}

/** A period's invoice: the setup fee while unbilled, the period's price, and the usage over by its date. */
function periodInvoice(
  run: BillingRun,
  timeline: SubscriptionTimeline,
  periodTerms: PriceTerms,
  period: ReturnType<typeof periodStartingAt>,
  invoiceDate: PlainDate,
  appliesPendingChange: boolean,
): PlannedInvoice {
  const priced = priceLine(periodTerms, period, timeline.currencyCode);
  const lines: PlannedLine[] = [];
  const inclusive = periodTerms.isTaxInclusive;
  if (!run.setupBilled && decimalToMinor(periodTerms.setupFee, timeline.currencyCode) !== 0) {
    const setupLine = {
      descrip: `${periodTerms.label}: setup fee`,
      qty: '1',
      unitCostEx: periodTerms.setupFee,
      periodStart: null,
      periodEnd: null,
    };
    lines.push(inclusiveIf(setupLine, inclusive));
  }
  if (priced.line) lines.push(inclusiveIf(priced.line, inclusive));
  const billedUsage = takeUsage(run, invoiceDate);
  lines.push(...billedUsage.flatMap((u) => usageLines(u, timeline.currencyCode)));
  run.periodCount += 1;
  return {
    invoiceDate,
    lines,
    usageIds: billedUsage.map((u) => u.usageId),
    period: inclusiveIf(
      {
        periodNo: run.periodCount,
        start: period.start,
        end: period.end,
        kind: period.kind,
        chargePrice: priced.chargePrice,
        amountMinor: priced.amountMinor,
        appliesPendingChange,
        ...(priced.proration ? { proration: priced.proration } : {}),
      },
      inclusive,
    ),
  };
}

/**
 * Once every period is billed and no usage is open, nothing is left to bill, unless usage read from events is still
 * to be billed through the stop: its last invoice is then dated on the stop day (never before creation).
 */
function lastEventsInvoiceDate(run: BillingRun, timeline: SubscriptionTimeline): PlainDate | null {
  const stop = timeline.eventsUnbilledAtStop;
  if (stop === undefined || stop === null) return null;
  if (run.invoices.some((invoice) => invoice.invoiceDate >= stop)) return null;
  return maxDate(stop, timeline.createdOn);
}

/**
 * The day the bill run looks once more at a subscription whose last invoice billed its usage through the stop, for
 * late events (finalCorrectionOn); null once that day has come, so that it looks only once.
 */
function finalCorrectionDate(
  run: BillingRun,
  timeline: SubscriptionTimeline,
  today: PlainDate,
): PlainDate | null {
  const closing = timeline.finalCorrectionOn ?? null;
  if (closing === null || closing <= today) return null;
  return run.invoices.some((invoice) => invoice.invoiceDate >= closing) ? null : closing;
}

/**
 * Once the subscription has stopped, the usage still open goes on one last invoice without a period; once that
 * usage was billed through the stop, what is open then (late events' corrections) goes on the final correction
 * invoice, dated the day the last period's grace window has closed (finalCorrectionOn).
 */
function billLastUsage(
  run: BillingRun,
  timeline: SubscriptionTimeline,
  stopAt: PlainDate,
  today: PlainDate,
): void {
  // The last usage is billed once its period is over or the subscription has stopped, whichever comes first.
  // Like a period's invoice, it is made once its date (never before creation) is today, and within the cap.
  const lastUsageEnd = minDate(run.open[run.open.length - 1]!.periodEnd, stopAt);
  const closing = timeline.eventsUnbilledAtStop ? null : (timeline.finalCorrectionOn ?? null);
  const invoiceDate = maxDate(closing ?? lastUsageEnd, timeline.createdOn);
  if (invoiceDate <= today && run.invoices.length < MAX_INVOICES_PER_PLAN) {
    run.invoices.push({
      invoiceDate,
      lines: run.open.flatMap((u) => usageLines(u, timeline.currencyCode)),
      usageIds: run.open.map((u) => u.usageId),
      period: null,
    });
    run.lastInvDate = invoiceDate;
    run.open = [];
  } else {
    run.nextInvDate = invoiceDate;
  }
}
