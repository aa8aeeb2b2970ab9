import { Temporal } from 'temporal-polyfill';
import { earliestActionDate, isBusinessDay, onBusinessDay } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { addDays, maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { LAST_DAY_OF_MONTH } from './mandates.ts';
import type { DebitFrequency } from './mandates.ts';
import { fractionOfMinor } from '../../core/money.ts';

/**
 * What a collection under an eMandate must keep to, pure (docs/design/mandates.md, "Checks at build time"): its
 * schedule, its dates, its amount after escalation, one collection a period, its currency. The batch build asks
 * these of each line whose bank account is linked to a mandate.
 */

/** The terms a collection is checked against: a mandate's debit terms. */
export interface MandateTerms {
  currencyCode: string;
  frequency: DebitFrequency;
  actionDay: number;
  startDate: PlainDate;
  endDate: PlainDate | null;
  amountMinor: number;
  maxAmountMinor: number;
  /** A yearly rate in percent, exact decimal text; null: never. */
  escalation: string | null;
  variableAmounts: boolean;
}

/** One collection: its action date, amount and currency. */
export interface Collection {
  actionDate: PlainDate;
  amountMinor: number;
  currencyCode: string;
}

const MONTHS_APART: Partial<Record<DebitFrequency, number>> = {
  Monthly: 1,
  Quarterly: 3,
  Biannually: 6,
  Yearly: 12,
};
const DAYS_APART: Partial<Record<DebitFrequency, number>> = { Weekly: 7, Fortnightly: 14 };

const plain = (date: PlainDate) => Temporal.PlainDate.from(date);

/** The collection day of the month `date` is in: the action day, or the month's last day for 99 or a day past it. */
function collectionDayIn(date: Temporal.PlainDate, actionDay: number): number {
  return actionDay === LAST_DAY_OF_MONTH || actionDay > date.daysInMonth ? date.daysInMonth : actionDay;
}

/** Whether the date falls on the mandate's collection day (weekday, or day of the month), whatever the month. */
function onCollectionDay(terms: MandateTerms, date: Temporal.PlainDate): boolean {
  if (DAYS_APART[terms.frequency] !== undefined) return date.dayOfWeek === terms.actionDay;
  return date.day === collectionDayIn(date, terms.actionDay);
}

/** The first collection date the mandate allows: the first collection day on or after its start date. */
export function firstCollectionDate(terms: MandateTerms): PlainDate {
  let date = plain(terms.startDate);
  // At most a week, or a month's days, ahead.
  while (!onCollectionDay(terms, date)) date = date.add({ days: 1 });
  return date.toString();
}

const monthIndex = (date: Temporal.PlainDate) => date.year * 12 + date.month - 1;

/**
 * The collection period a date falls in, counted from the first collection date (0 is its period): weeks or
 * fortnights of days, or runs of months (a month, a quarter, half a year, a year) from the first collection's month.
 * Undefined for an ad hoc mandate, which has no periods.
 */
export function collectionPeriod(terms: MandateTerms, date: PlainDate): number | undefined {
  const first = plain(firstCollectionDate(terms));
  const days = DAYS_APART[terms.frequency];
  if (days !== undefined) {
    return Math.floor(first.until(plain(date), { largestUnit: 'days' }).days / days);
  }
  const months = MONTHS_APART[terms.frequency];
  if (months === undefined) return undefined;
  return Math.floor((monthIndex(plain(date)) - monthIndex(first)) / months);
}

/** Whether the date is one of the mandate's collection dates (an ad hoc mandate's every date is). */
export function onSchedule(terms: MandateTerms, date: PlainDate): boolean {
  if (terms.frequency === 'AdHoc') return true;
  const day = plain(date);
  if (!onCollectionDay(terms, day)) return false;
  const first = plain(firstCollectionDate(terms));
  const days = DAYS_APART[terms.frequency];
  if (days !== undefined) return first.until(day, { largestUnit: 'days' }).days % days === 0;
  const months = MONTHS_APART[terms.frequency]!;
  return (monthIndex(day) - monthIndex(first)) % months === 0;
}

/**
 * A collection date of the schedule as the bank processes it: moved to the next SA business day when it falls on a
 * weekend or a public holiday, never earlier (docs/gateways.md, "Debit orders on the mandate's day": a debit before
 * the agreed day takes money the customer may not have yet, and could fall before the mandate's start).
 */
export const processedOn = (scheduled: PlainDate): PlainDate => onBusinessDay(scheduled, 'debit_order');

/** The longest run of days without a business day (Easter, or Christmas to a Sunday Day of Goodwill's Monday). */
const LONGEST_CLOSED_RUN = 7;
/** Far enough ahead for any schedule's next date: a year and its longest closed run. */
const LOOK_AHEAD_DAYS = 366 + LONGEST_CLOSED_RUN;

/**
 * The first date on or after `from` that the mandate lets a debit order be processed (docs/gateways.md, "Debit orders
 * on the mandate's day"): a date of its schedule, not before its start nor after its end, moved off weekends and
 * public holidays (processedOn). Undefined when the mandate allows none (it has ended). An ad hoc mandate allows
 * any business day from its start.
 */
export function mandatedActionDate(terms: MandateTerms, from: PlainDate): PlainDate | undefined {
  // A scheduled date a few days before `from` may be processed on or after it.
  let scheduled = maxDate(terms.startDate, addDays(from, -LONGEST_CLOSED_RUN));
  const last = addDays(from, LOOK_AHEAD_DAYS);
  for (; scheduled <= last; scheduled = addDays(scheduled, 1)) {
    if (terms.endDate !== null && scheduled > terms.endDate) return undefined;
    if (!onSchedule(terms, scheduled)) continue;
    const actionDate = processedOn(scheduled);
    if (actionDate >= from) return actionDate;
  }
  return undefined;
}

/** When a debit is to be presented, or why its mandate allows none. */
export type ActionDatePlan = { actionDate: PlainDate } | { problem: string };

/** The eMandate a debit is taken under, as the plan reads it. */
export interface PlanMandate {
  contractRef: string;
  /** Only `signed` allows a debit. */
  status: string;
  terms: MandateTerms;
  /** Why the mandate allows no debit beyond its status (a DebiCheck authentication not given: debiCheck.ts). */
  problem?: string;
}

/**
 * When a debit is presented (docs/gateways.md, "Debit orders on the mandate's day"): on the first date on or after
 * `asked` (the invoice's due date, or the date it is to be presented again) that its bank account's eMandate allows,
 * moved off weekends and public holidays, and never before the rail's lead time from `today`; without a mandate,
 * that date itself on a business day. The one rule: batches plan by it, and the invoice's documents announce its
 * date before the run has planned it (docs/spec-decisions.md, "Pending debits on documents").
 */
export function plannedActionDate(
  rail: Rail,
  asked: PlainDate,
  today: PlainDate,
  mandate: PlanMandate | undefined,
): ActionDatePlan {
  const wanted = maxDate(asked, earliestActionDate(rail, today));
  if (!mandate) return { actionDate: onBusinessDay(wanted, rail) };
  const name = `eMandate ${mandate.contractRef}`;
  // Signed stands for active; a DebiCheck mandate's bank authentication is checked apart (docs/design/mandates.md,
  // "DebiCheck").
  if (mandate.status !== 'signed') return { problem: `${name} is ${mandate.status}, not signed` };
  if (mandate.problem) return { problem: `${name}: ${mandate.problem}` };
  const actionDate = mandatedActionDate(mandate.terms, wanted);
  if (actionDate === undefined) {
    // Said the same way each day (the date asked, not the moving earliest): the staff are told once.
    return {
      problem: `${name} allows no collection on or after ${asked} (it ends on ${mandate.terms.endDate})`,
    };
  }
  return { actionDate };
}

/**
 * The scheduled date an action date stands for: itself when it is on the schedule, else the scheduled date before it
 * that processedOn moved to it; undefined when none did.
 */
export function scheduledDateOf(terms: MandateTerms, actionDate: PlainDate): PlainDate | undefined {
  if (onSchedule(terms, actionDate)) return actionDate;
  for (let back = 1; back <= LONGEST_CLOSED_RUN; back += 1) {
    const scheduled = addDays(actionDate, -back);
    if (isBusinessDay('debit_order', scheduled)) return undefined;
    if (onSchedule(terms, scheduled) && processedOn(scheduled) === actionDate) return scheduled;
  }
  return undefined;
}

/**
 * The whole years from the mandate's start date to the action date: escalation applies on each anniversary of
 * debit_StartDate (docs/spec-decisions.md, "eMandates"), so a collection in the first year has none.
 */
export function escalationYears(terms: MandateTerms, actionDate: PlainDate): number {
  if (actionDate <= terms.startDate) return 0;
  return plain(terms.startDate).until(plain(actionDate), { largestUnit: 'years' }).years;
}

/** A rate in percent ("7.25") as the fraction it adds ("0.0725"), exact. */
function percentAsFraction(percent: string): string {
  const [whole, decimals = ''] = percent.split('.');
  const digits = `${whole!.padStart(3, '0')}${decimals}`;
  return `${digits.slice(0, -2 - decimals.length) || '0'}.${digits.slice(-2 - decimals.length)}`;
}

/**
 * An amount after `years` yearly increases by `escalation` percent, compounded, each year's increase rounded to the
 * minor unit by the one rule (src/core/money.ts): the instalment a bank applies on each anniversary is a whole
 * amount.
 */
export function escalatedMinor(amountMinor: number, escalation: string | null, years: number): number {
  if (escalation === null || Number(escalation) === 0) return amountMinor;
  const fraction = percentAsFraction(escalation);
  let amount = amountMinor;
  for (let year = 0; year < years; year += 1) amount += fractionOfMinor(amount, fraction);
  return amount;
}

/**
 * The collection period an action date counts in: that of the scheduled date it stands for (a date moved off a
 * weekend or a public holiday counts in the period of the day it was moved from); undefined for an ad hoc mandate,
 * which has no periods.
 */
export function periodOfActionDate(terms: MandateTerms, actionDate: PlainDate): number | undefined {
  return collectionPeriod(terms, scheduledDateOf(terms, actionDate) ?? actionDate);
}

/** The mandate's instalment on an action date, after the escalation of the years since its start. */
export function instalmentOn(terms: MandateTerms, actionDate: PlainDate): number {
  const years = escalationYears(terms, scheduledDateOf(terms, actionDate) ?? actionDate);
  return escalatedMinor(terms.amountMinor, terms.escalation, years);
}

/**
 * Whether one debit on the action date may collect `totalMinor` (docs/gateways.md, "Months that stay in step"):
 * the mandate takes variable amounts and the total stays within its maximum after escalation. A fixed mandate's
 * debit is its instalment, so it never carries a second amount.
 */
export function mayCollectTogether(terms: MandateTerms, actionDate: PlainDate, totalMinor: number): boolean {
  if (!terms.variableAmounts) return false;
  const years = escalationYears(terms, scheduledDateOf(terms, actionDate) ?? actionDate);
  return totalMinor <= escalatedMinor(terms.maxAmountMinor, terms.escalation, years);
}

/**
 * Why the collection breaks the mandate's terms (the rule, as a phrase), or undefined when it keeps to them. Every
 * rule of docs/design/mandates.md, "Checks at build time", but the mandate's state and one collection a period,
 * which need more than the terms (mandateCollectionProblem's caller passes `earlierInPeriod`).
 */
export function collectionTermsProblem(
  terms: MandateTerms,
  collection: Collection,
  earlierInPeriod: PlainDate | undefined,
): string | undefined {
  const { actionDate } = collection;
  if (collection.currencyCode !== terms.currencyCode) {
    return `it is in ${collection.currencyCode}; the mandate collects in ${terms.currencyCode}`;
  }
  if (actionDate < terms.startDate) {
    return `the action date ${actionDate} is before the mandate's start date ${terms.startDate}`;
  }
  if (terms.endDate !== null && actionDate > terms.endDate) {
    return `the action date ${actionDate} is after the mandate's end date ${terms.endDate}`;
  }
  if (!onSchedule(terms, actionDate)) {
    return `the action date ${actionDate} is not on the mandate's ${terms.frequency} schedule (${scheduleText(terms)})`;
  }
  const years = escalationYears(terms, actionDate);
  const max = escalatedMinor(terms.maxAmountMinor, terms.escalation, years);
  const instalment = escalatedMinor(terms.amountMinor, terms.escalation, years);
  if (collection.amountMinor > max) {
    return `the amount ${collection.amountMinor} is more than the mandate's maximum ${max} (minor units, after ${years} year(s) of escalation)`;
  }
  if (!terms.variableAmounts && collection.amountMinor !== instalment) {
    return `the amount ${collection.amountMinor} is not the fixed mandate's instalment ${instalment} (minor units, after ${years} year(s) of escalation)`;
  }
  if (earlierInPeriod !== undefined) {
    return `the mandate already collects on ${earlierInPeriod} in the same ${terms.frequency} period`;
  }
  return undefined;
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function scheduleText(terms: MandateTerms): string {
  const first = firstCollectionDate(terms);
  if (DAYS_APART[terms.frequency] !== undefined) {
    return `${WEEKDAYS[terms.actionDay - 1]}s from ${first}`;
  }
  const day = terms.actionDay === LAST_DAY_OF_MONTH ? 'the last day' : `day ${terms.actionDay}`;
  return `${day} of the month from ${first}`;
}
