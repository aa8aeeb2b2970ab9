import { Temporal } from 'temporal-polyfill';
import { addDays, isWeekend } from './calendar.ts';
import type { PlainDate } from './calendar.ts';
import { southAfricanPublicHoliday } from './publicHolidays.ts';

/**
 * The rails bank debits run on and the dates they impose (docs/design/batches.md): business days, action dates,
 * return windows. Used by the gateways' batch contract, mandates, invoicing's planned debits and batches. Pure: the
 * caller passes today.
 */

/** The bank-account methods a batch collects by; one batch, one rail (one bank file). */
export const RAILS = ['debit_order', 'ach', 'sepa'] as const;
export type Rail = (typeof RAILS)[number];

export const isRail = (method: string): method is Rail => (RAILS as readonly string[]).includes(method);

/**
 * Whether the rail's banks process on the date (docs/gateways.md, "Business days and public holidays"): Monday to
 * Friday, and for SA debit orders not one of South Africa's public holidays (src/core/publicHolidays.ts). NOTE: ACH
 * and SEPA keep to weekdays only, as before: the Fed's holidays and TARGET2's closing days are not known here, so a
 * line that falls on one is settled a day early at worst, and the bank's own return still reverses it.
 */
export function isBusinessDay(rail: Rail, date: PlainDate): boolean {
  if (isWeekend(date)) return false;
  return rail !== 'debit_order' || southAfricanPublicHoliday(date) === undefined;
}

/**
 * The rail a batch collects on: its lines' once it has any, else its currency's when that currency has one rail
 * only: ZAR, South Africa's debit orders (the capture widget offers ZAR accounts that rail alone). Undefined when
 * the lines will say.
 */
export function railOfBatch(rail: Rail | null, currencyCode: string): Rail | undefined {
  if (rail !== null) return rail;
  return currencyCode.toUpperCase() === 'ZAR' ? 'debit_order' : undefined;
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/**
 * Why the rail's banks do not process on the date, with the next date they do, for a person who chose it
 * ("2026-12-25 is a public holiday (Christmas Day); the next business day is 2026-12-28"); undefined on a business
 * day (docs/gateways.md, "Action dates a person sets").
 */
export function notBusinessDayReason(rail: Rail, date: PlainDate): string | undefined {
  if (isBusinessDay(rail, date)) return undefined;
  const holiday = rail === 'debit_order' ? southAfricanPublicHoliday(date) : undefined;
  const why = holiday
    ? `a public holiday (${holiday.name})`
    : `a ${WEEKDAYS[Temporal.PlainDate.from(date).dayOfWeek - 1]}`;
  return `${date} is ${why}; the next business day is ${onBusinessDay(date, rail)}`;
}

/** `days` business days of the rail after `date`. */
export function addBusinessDays(date: PlainDate, days: number, rail: Rail): PlainDate {
  let at = date;
  for (let left = days; left > 0;) {
    at = addDays(at, 1);
    if (isBusinessDay(rail, at)) left -= 1;
  }
  return at;
}

/** The date itself when it is a business day of the rail, else the next one. */
export function onBusinessDay(date: PlainDate, rail: Rail): PlainDate {
  let at = date;
  while (!isBusinessDay(rail, at)) at = addDays(at, 1);
  return at;
}

/** The last business day of the rail before the date. */
export function businessDayBefore(date: PlainDate, rail: Rail): PlainDate {
  let at = addDays(date, -1);
  while (!isBusinessDay(rail, at)) at = addDays(at, -1);
  return at;
}

/**
 * Business days between submitting a batch and its action date: SA two-day debit orders must reach the bank two
 * business days before; ACH files go the business day before settlement; SEPA collections by D-1
 * (docs/design/batches.md, "Rails and their dates").
 */
const LEAD_BUSINESS_DAYS: Readonly<Record<Rail, number>> = { debit_order: 2, ach: 1, sepa: 1 };

/** The earliest action date a batch submitted today can have. */
export function earliestActionDate(rail: Rail, today: PlainDate): PlainDate {
  return addBusinessDays(today, LEAD_BUSINESS_DAYS[rail], rail);
}

/**
 * The last day a batch with this action date can be submitted: its lead time in business days before it
 * (the inverse of earliestActionDate: earliestActionDate(rail, lastSubmitDate(rail, d)) ≤ d).
 */
export function lastSubmitDate(rail: Rail, actionDate: PlainDate): PlainDate {
  let at = actionDate;
  for (let left = LEAD_BUSINESS_DAYS[rail]; left > 0; left -= 1) at = businessDayBefore(at, rail);
  return at;
}

/**
 * The day after which a line the bank has not returned is taken as paid: SA EFT unpaids come within four business
 * days of the action date, ACH returns within two banking days, SEPA returns within five interbank days
 * (docs/design/batches.md, "Rails and their dates").
 */
const RETURN_WINDOW_BUSINESS_DAYS: Readonly<Record<Rail, number>> = { debit_order: 4, ach: 2, sepa: 5 };

export function returnWindowEnd(rail: Rail, actionDate: PlainDate): PlainDate {
  return addBusinessDays(actionDate, RETURN_WINDOW_BUSINESS_DAYS[rail], rail);
}

/**
 * How long after the action date a processed batch's gateway is still asked for late reversals: SA disputes within
 * 40 days, ACH unauthorised returns (R10) within 60, SEPA refunds of authorised debits within 8 weeks
 * (docs/design/batches.md, "Rails and their dates").
 */
const LATE_WINDOW_DAYS: Readonly<Record<Rail, number>> = { debit_order: 40, ach: 60, sepa: 56 };

export function lateWindowEnd(rail: Rail, actionDate: PlainDate): PlainDate {
  return addDays(actionDate, LATE_WINDOW_DAYS[rail]);
}

/**
 * The oldest action date whose batch may still see a late return today: the longest late window of any rail (ACH's
 * 60 days). Each batch found from it is then held to its own rail's window (lateWindowEnd).
 */
export function oldestActionDateWithLateReturns(today: PlainDate): PlainDate {
  return addDays(today, -Math.max(...Object.values(LATE_WINDOW_DAYS)));
}
