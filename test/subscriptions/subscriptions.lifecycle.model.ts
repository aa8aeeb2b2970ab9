import { expect } from 'vitest';
import { plusDays } from '../helpers/clock.ts';

// The model of the subscription lifecycle property (subscriptions.lifecycle.property.test.ts): what a timeline is
// made of (its Setup and its Steps), what the test remembers beyond the service's state (Model), what a step does to
// billed time as the model predicts it (changeCutDate, billsFirst), and the invariants each Snapshot read back is
// checked against (check). Nothing here talks to the service, so the predictions can be read, and changed, apart
// from the HTTP plumbing that draws and runs the timelines.

// Dates are calendar dates in the account's time zone (UTC here).
const DAY_MS = 86_400_000;
export { plusDays as addDays };
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
export const day = (wire: string | null) => (wire === null ? null : wire.slice(0, 10));
const laterOf = (a: string, b: string) => (a > b ? a : b);
const dayOfMonth = (date: string) => Number(date.slice(8, 10));
/** Days in a month (1-12). */
const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
/** `months` months after `date`, on `anchorDay` clamped to the end of a shorter month (src/core/periods.ts). */
function addMonths(date: string, months: number, anchorDay: number): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  const [year, month] = [Math.floor(index / 12), (index % 12) + 1];
  const dd = Math.min(anchorDay, daysInMonth(year, month));
  return `${year}-${String(month).padStart(2, '0')}-${String(dd).padStart(2, '0')}`;
}
export const minor = (amount: number) => Math.round(amount * 100);
/** a × n / d rounded half away from zero, as src/core/money.ts rounds (a, n, d ≥ 0). */
const ratio = (a: number, n: number, d: number) => Math.floor((2 * a * n + d) / (2 * d));
/** The account's one tax: 15%, rounded on each amount. */
const withTax = (exMinor: number) => exMinor + ratio(exMinor, 15, 100);

// Three packages with three rate terms each: monthly, 14 days and yearly; the third starts with a paid trial.
export const PACKAGES = [
  { chargePrice: 31, extraTerms: [14, 300] },
  { chargePrice: 62, extraTerms: [28.5, 600.01] },
  { chargePrice: 40, extraTerms: [20, 400], trialPeriod: 10, trialFee: 5 },
] as const;

export type CancelType = 'renewal' | 'norefund' | 'prorata' | 'fullcredit';
export type Step =
  | { kind: 'advance'; days: number }
  | { kind: 'changePackage'; pkg: number; term: number; atRenewal: boolean; resetBillingAnchor?: boolean }
  | { kind: 'changeTerm'; term: number; atRenewal: boolean; resetBillingAnchor?: boolean }
  | { kind: 'cancel'; type: CancelType }
  | { kind: 'reactivate' }
  | { kind: 'removeFutureChanges' }
  | { kind: 'changeEndDate'; days: number | null };

export interface Setup {
  /** The day the account's clock starts, as days after 2027-11-01 (the constants are month ends and Feb 29). */
  clockOffset: number;
  /** StartDate, in days after the clock's day: 0 starts (and bills) at once. */
  startIn: number;
  numDaysBeforeToInv: number;
  /** isProRata with firstProrataSyncDate this many days after the StartDate, or not pro rata. */
  syncIn: number | null;
  pkg: number;
  term: number;
}

export interface Period {
  no: number;
  start: string;
  end: string;
  amountMinor: number;
  invoiceId: number | null;
}
export interface Credit {
  id: number;
  start: string;
  end: string;
  amountMinor: number;
}
export interface Snapshot {
  today: string;
  sub: any;
  periods: Period[];
  credits: Credit[];
  invoices: any[];
}

/** What the test knows beyond the server's state. */
export interface Model {
  startDate: string;
  /** Each period's invoice total, and the credits made for it so far. */
  charged: Map<number, number>;
  credited: Map<number, number>;
  /** Periods cut to empty: their number → the cut date. */
  emptied: Map<number, string>;
  /** Cancelled time [from, to) ended by a reactivation, and how many periods existed before it. */
  cancelledTime: { from: string; to: string; periodsBefore: number }[];
  /** The cancellation in effect when first seen, with the number of periods then: nothing is billed after it. */
  inEffect: { cancelDate: string; periods: number } | null;
  /** The day the subscription was created: no invoice is dated before it. */
  createdOn: string;
  /** A change at renewal not applied yet: the length of its term, and the start of the period it applies from. */
  pending: { term: TermLength; effectiveDate: string } | null;
}

/** What a step did to billed time, as the model predicts it from the request. */
export type Cut = { date: string; rule: 'prorata' | 'fullcredit' } | null;

/** A term's length, as the subscription's Term and TermType. */
export interface TermLength {
  Term: number;
  TermType: string;
}
const sameLength = (a: TermLength, b: TermLength) => a.Term === b.Term && a.TermType === b.TermType;

/** The rate terms' lengths, in the order of each package's rate terms. */
export const TERMS: readonly TermLength[] = [
  { Term: 1, TermType: 'months' },
  { Term: 14, TermType: 'days' },
  { Term: 12, TermType: 'months' },
];

/**
 * Where a change made now cuts billed time (src/modules/subscriptions/subscriptionChanges.service.ts): on the
 * change day, except one keeping the anchor (no reset asked, the same length of term as the one in force) while a
 * trial runs: the trial keeps its end, and billed time is cut there.
 */
export function changeCutDate(
  sub: any,
  inForce: TermLength,
  termIndex: number,
  resetBillingAnchor: boolean,
  cutDate: string,
): string {
  const trialEnd = day(sub.TrialEndDate);
  return !resetBillingAnchor &&
    sameLength(inForce, TERMS[termIndex]!) &&
    trialEnd !== null &&
    trialEnd > cutDate
    ? trialEnd
    : cutDate;
}

/**
 * The ends a whole term from `start`, a boundary of the billing cycle, can have: days add up; months land on the
 * anchor's day of the month, clamped to shorter months. The anchor is not on the wire: unless the model knows its
 * day, a start before the last day of its month gives it, and a start on a month's last day leaves it anywhere
 * from that day to the 31st.
 */
function termEnds(start: string, term: TermLength, anchorDay: number | null): string[] {
  if (term.TermType === 'days') return [plusDays(start, term.Term)];
  const startDay = dayOfMonth(start);
  const monthEnd = startDay === daysInMonth(Number(start.slice(0, 4)), Number(start.slice(5, 7)));
  const anchorDays =
    anchorDay !== null
      ? [anchorDay]
      : monthEnd
        ? Array.from({ length: 32 - startDay }, (_, k) => startDay + k)
        : [startDay];
  return [...new Set(anchorDays.map((d) => addMonths(start, term.Term, d)))];
}

/** A period a change billed first: its number, its time before any cut, and its invoice's date. */
export interface BilledFirst {
  no: number;
  start: string;
  end: string;
  invoiceDate: string;
}

/**
 * billUpToDate (src/modules/subscriptions/subscriptionChanges.service.ts): a package or term change, now or at
 * renewal, first bills what the bill run would have billed by today, on the terms in force, as
 * src/modules/subscriptions/subscriptionBilling.ts plans it. The bill run may be behind: a cancellation at renewal withdrawn after
 * the next period's invoice date leaves that period due but not billed until the bill run comes by. From the end of
 * the billed time (the StartDate before anything is billed), each period whose invoice date (numDaysBeforeToInv
 * days before its start, never before the day the subscription was created) is today or past is billed, until the
 * cancellation or the EndDate. A period is the trial, the first pro-rata stub, or a whole term (of a change at
 * renewal from its date on, which starts a new cycle there when its term has another length), cut short by the
 * EndDate. Answers those periods and the term in force after them; `pick` chooses among ends the model cannot
 * tell apart (termEnds).
 */
export function billsFirst(
  model: Model,
  before: Snapshot,
  today: string,
  pick: (no: number, start: string, ends: string[]) => string,
): { periods: BilledFirst[]; term: TermLength } {
  const { sub } = before;
  const endDate = day(sub.EndDate);
  const stopAt = [day(sub.CancelDate), endDate].filter((d): d is string => d !== null).sort()[0];
  const trialEnd = day(sub.TrialEndDate);
  const syncDate = sub.isProRata ? day(sub.firstProrataSyncDate) : null;
  let term: TermLength = { Term: sub.Term, TermType: sub.TermType };
  let pending = model.pending;
  let start = day(sub.nextRenewDate) ?? day(sub.StartDate)!;
  // Before anything is billed the cycle starts at the StartDate, or after a trial or a first stub (below).
  let anchorDay = before.periods.length === 0 ? dayOfMonth(start) : null;
  const periods: BilledFirst[] = [];
  while (stopAt === undefined || start < stopAt) {
    const invoiceDate = laterOf(plusDays(start, -sub.numDaysBeforeToInv), model.createdOn);
    if (invoiceDate > today) break;
    if (pending !== null && pending.effectiveDate <= start) {
      if (!sameLength(term, pending.term)) anchorDay = dayOfMonth(start);
      term = pending.term;
      pending = null;
    }
    const first =
      trialEnd !== null && start < trialEnd
        ? trialEnd
        : syncDate !== null && start < syncDate
          ? syncDate
          : null;
    const ends = [
      ...new Set(
        (first !== null ? [first] : termEnds(start, term, anchorDay)).map((end) =>
          endDate !== null && end > endDate ? endDate : end,
        ),
      ),
    ];
    const no = before.periods.length + periods.length + 1;
    const end = ends.length === 1 ? ends[0]! : pick(no, start, ends);
    // The cycle after a trial or a first pro-rata stub is anchored on its end.
    if (first !== null) anchorDay = dayOfMonth(end);
    periods.push({ no, start, end, invoiceDate });
    start = end;
  }
  return { periods, term };
}

export const show = (periods: Period[]) =>
  periods.map((p) => `${p.no}:${p.start}..${p.end}=${p.amountMinor}#${p.invoiceId}`).join(' ');

/**
 * The invariants, checked after every step against the state before it, the periods a change billed first
 * (billsFirst) and the step's predicted cut.
 */
export function check(
  model: Model,
  before: Snapshot | null,
  after: Snapshot,
  cut: Cut,
  billedFirst: BilledFirst[] = [],
): void {
  const { periods, sub, today } = after;

  // Period numbers are 1..n.
  expect(
    periods.map((p) => p.no),
    'period numbers',
  ).toEqual(periods.map((_, k) => k + 1));

  // A period billed in the step: charged, on an invoice of its own with one line (no setup fee, no usage: the
  // period's charge or its trial fee) and 15% tax. A change at renewal takes effect with the first one from its date.
  const charged = (p: Period, start: string) => {
    expect(p.amountMinor, `period ${p.no} charges something`).toBeGreaterThan(0);
    const invoice = after.invoices.find((i) => i.invoiceID === p.invoiceId);
    expect(invoice, `invoice of period ${p.no}`).toBeDefined();
    expect(
      invoice.Charges.map((c: any) => minor(c.AmountEx)),
      `lines of period ${p.no}`,
    ).toEqual([p.amountMinor]);
    expect(minor(invoice.Total), `total of period ${p.no}`).toBe(withTax(p.amountMinor));
    model.charged.set(p.no, withTax(p.amountMinor));
    if (model.pending !== null && model.pending.effectiveDate <= start) model.pending = null;
    return invoice;
  };

  // The periods a change billed first, at its charge and on an invoice dated as the bill run dates it, join the
  // billed time the change then cuts.
  const billed = [...(before?.periods ?? [])];
  for (const due of billedFirst) {
    const now = periods.find((p) => p.no === due.no);
    expect(
      now,
      `period ${due.no} (${due.start} to ${due.end}, due ${due.invoiceDate}) billed first`,
    ).toBeDefined();
    const invoice = charged(now!, due.start);
    expect(day(invoice.InvoiceDate), `invoice date of period ${due.no}`).toBe(due.invoiceDate);
    billed.push({
      no: due.no,
      start: due.start,
      end: due.end,
      amountMinor: now!.amountMinor,
      invoiceId: now!.invoiceId,
    });
  }

  // Periods billed before the step are unchanged, except those a cut reached past the cut date: cut at it (one
  // not yet begun becomes empty there), with a credit for the part cut off.
  const expectedCredits: Omit<Credit, 'id'>[] = [];
  for (const old of billed) {
    const now = periods.find((p) => p.no === old.no);
    expect(now, `period ${old.no} still exists`).toBeDefined();
    if (cut && old.end > cut.date) {
      const start = old.start < cut.date ? old.start : cut.date;
      expect(now, `period ${old.no} cut at ${cut.date}`).toEqual({ ...old, start, end: cut.date });
      if (start === cut.date) model.emptied.set(old.no, cut.date);
      const from = old.start > cut.date ? old.start : cut.date;
      // Spec of the rule (src/modules/subscriptions/subscriptionChanges.ts): full credit, or pro rata for a period begun, 15% tax.
      // A period already empty was credited in full when it was emptied: nothing is left to credit.
      const ex =
        old.start === old.end
          ? 0
          : cut.rule === 'fullcredit' || old.start >= cut.date
            ? old.amountMinor
            : ratio(old.amountMinor, daysBetween(cut.date, old.end), daysBetween(old.start, old.end));
      if (ex !== 0) expectedCredits.push({ start: from, end: old.end, amountMinor: withTax(ex) });
    } else {
      expect(now, `period ${old.no} unchanged`).toEqual(old);
    }
  }
  const newCredits = after.credits.filter((c) => !(before?.credits ?? []).some((b) => b.id === c.id));
  expect(
    newCredits.map(({ id: _id, ...c }) => c),
    'credits of the step',
  ).toEqual(expectedCredits);
  for (const credit of newCredits) {
    const no = billed.find((p) => p.end === credit.end && p.start <= credit.start)!.no;
    const total = (model.credited.get(no) ?? 0) + credit.amountMinor;
    model.credited.set(no, total);
    // Credits never exceed what was charged for the period.
    expect(total, `credits of period ${no}`).toBeLessThanOrEqual(model.charged.get(no)!);
  }

  // The other periods billed in the step are whole and charged.
  for (const p of periods.filter((p) => !billed.some((b) => b.no === p.no))) {
    expect(p.end > p.start, `new period ${p.no} is not empty`).toBe(true);
    charged(p, p.start);
  }

  // end > start, except a period cut to empty: cut at a date on or before its first day, it became [cut, cut)
  // and was credited in full (checked with the step's credits above).
  for (const p of periods) {
    if (p.end === p.start)
      expect(model.emptied.get(p.no), `empty period ${p.no} was cut there`).toBe(p.start);
    else expect(p.end > p.start, `period ${p.no} ends after it starts`).toBe(true);
  }

  // No two periods overlap.
  for (const p of periods) {
    for (const q of periods) {
      if (p.no < q.no && p.start < p.end && q.start < q.end) {
        expect(p.end <= q.start || q.end <= p.start, `periods ${p.no} and ${q.no} overlap`).toBe(true);
      }
    }
  }

  // Contiguous from the StartDate, except a gap of cancelled time ended by a reactivation that restarted billing.
  let previousEnd = model.startDate;
  for (const p of periods) {
    if (p.start !== previousEnd) {
      const end = previousEnd;
      const restart = model.cancelledTime.find((c) => c.to === p.start && c.from <= end);
      expect(
        p.start > end && restart !== undefined,
        `period ${p.no} starts at ${p.start}, the time before ends at ${end}`,
      ).toBe(true);
    }
    previousEnd = p.end;
  }

  // Cancelled time is never billed: periods billed after a cancellation took effect stay out of the time it held.
  for (const c of model.cancelledTime) {
    for (const p of periods.filter((p) => p.no > c.periodsBefore && p.start < p.end)) {
      expect(
        p.end <= c.from || p.start >= c.to,
        `period ${p.no} (${p.start}..${p.end}) bills cancelled time ${c.from}..${c.to}`,
      ).toBe(true);
    }
  }

  // A cancellation: no period reaches past it (norefund keeps the time paid for), and none is billed once it is
  // in effect.
  const cancelDate = day(sub.CancelDate);
  if (cancelDate !== null && sub.CancelType !== 'norefund') {
    for (const p of periods.filter((p) => p.start < p.end)) {
      expect(p.end <= cancelDate, `period ${p.no} ends by CancelDate ${cancelDate}`).toBe(true);
    }
  }
  if (cancelDate !== null && cancelDate <= today) {
    if (model.inEffect?.cancelDate === cancelDate) {
      expect(periods.length, 'periods billed while cancelled').toBe(model.inEffect.periods);
    } else {
      model.inEffect = { cancelDate, periods: periods.length };
    }
  } else {
    model.inEffect = null;
  }

  // Every charged period has its own invoice; the customer has no other invoice; numbers 1..N without gaps.
  const invoiceIds = periods.filter((p) => p.amountMinor > 0).map((p) => p.invoiceId);
  expect(invoiceIds.every((id) => id !== null)).toBe(true);
  expect(new Set(invoiceIds).size, 'distinct invoices').toBe(invoiceIds.length);
  expect(after.invoices.map((i) => i.invoiceID).sort((a, b) => a - b)).toEqual(
    [...invoiceIds].sort((a, b) => a! - b!),
  );
  expect(
    after.invoices.map((i) => i.invoiceNum).sort((a, b) => a - b),
    'invoice numbers',
  ).toEqual(after.invoices.map((_, k) => k + 1));

  // Billed up to the clock while active; the record agrees with its periods; never parked.
  expect(sub.isParked, `parked: ${sub.ParkedReason}`).toBe(false);
  if (periods.length > 0) expect(day(sub.nextRenewDate), 'nextRenewDate').toBe(periods.at(-1)!.end);
  if (sub.comp_Status === 'Active' || sub.comp_Status === 'Trial') {
    expect(day(sub.nextRenewDate)! > today, `billed up to ${today}: nextRenewDate ${sub.nextRenewDate}`).toBe(
      true,
    );
  }
}
