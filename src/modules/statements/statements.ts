import { addDays, daysBetween } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { boundary } from '../../core/periods.ts';
import type { StatementPeriod } from '../../core/periods.ts';

/**
 * A customer's statement of account (docs/spec-decisions.md, "Statements"): the money records of the customer in
 * date order with a running balance, and what is owed aged by days past its due date. Pure: the records are read
 * by the statements module, the dates are calendar dates in the account's time zone, amounts integer minor units.
 */

/** The kinds of records a statement lists, in the order they take on one day. */
export const STATEMENT_ENTRY_KINDS = [
  'invoice',
  'adjustment',
  'payment',
  'credit_note',
  'prepaid_credit',
] as const;
export type StatementEntryKind = (typeof STATEMENT_ENTRY_KINDS)[number];

export interface StatementEntry {
  kind: StatementEntryKind;
  id: number;
  /** The record's own date: InvoiceDate, a payment's Date, a credit note's Date, an adjustment's Date. */
  date: PlainDate;
  /** Signed: positive raises what is owed (an invoice, a positive adjustment), negative lowers it. */
  amountMinor: number;
}

export interface StatementLine<E extends StatementEntry = StatementEntry> {
  entry: E;
  /** The running balance after this line. */
  balanceMinor: number;
}

export interface StatementBody<E extends StatementEntry = StatementEntry> {
  openingMinor: number;
  lines: StatementLine<E>[];
  closingMinor: number;
}

function byDateThenKind(a: StatementEntry, b: StatementEntry): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  const kinds = STATEMENT_ENTRY_KINDS.indexOf(a.kind) - STATEMENT_ENTRY_KINDS.indexOf(b.kind);
  return kinds !== 0 ? kinds : a.id - b.id;
}

/**
 * The statement over [startDate, endDate]: the opening balance is the sum of every entry dated before startDate;
 * the lines are the entries dated within the range, earliest first (on one day invoices, then adjustments,
 * payments, credit notes, each by id), each with the balance after it; entries after endDate are left out. So
 * closing = opening + the sum of the lines, and each line's balance is the one before it plus its amount.
 */
export function statementOf<E extends StatementEntry>(
  entries: readonly E[],
  startDate: PlainDate,
  endDate: PlainDate,
): StatementBody<E> {
  let openingMinor = 0;
  const within: E[] = [];
  for (const entry of entries) {
    if (entry.date < startDate) openingMinor += entry.amountMinor;
    else if (entry.date <= endDate) within.push(entry);
  }
  within.sort(byDateThenKind);
  let balanceMinor = openingMinor;
  const lines = within.map((entry) => {
    balanceMinor += entry.amountMinor;
    return { entry, balanceMinor };
  });
  return { openingMinor, lines, closingMinor: balanceMinor };
}

/** Something still owed: an invoice's Balance or what is unpaid on a positive adjustment. */
export interface OwedItem {
  dueDate: PlainDate;
  openMinor: number;
}

/** What is owed by days past due at a date; the five buckets add up to `totalMinor`. */
export interface Ageing {
  /** Not past due: due on or after the date. */
  currentMinor: number;
  /** 1 to 30 days past due. */
  overdue1To30Minor: number;
  /** 31 to 60 days past due. */
  overdue31To60Minor: number;
  /** 61 to 90 days past due. */
  overdue61To90Minor: number;
  /** More than 90 days past due. */
  overdueOver90Minor: number;
  totalMinor: number;
}

/** The bucket of an amount `days` past due (0 or fewer: not past due). */
export function ageingBucket(days: number): Exclude<keyof Ageing, 'totalMinor'> {
  if (days <= 0) return 'currentMinor';
  if (days <= 30) return 'overdue1To30Minor';
  if (days <= 60) return 'overdue31To60Minor';
  if (days <= 90) return 'overdue61To90Minor';
  return 'overdueOver90Minor';
}

/**
 * Ages what is owed at `asOf`: each item goes whole into the bucket of its days past due (asOf − dueDate in
 * calendar days). Items with nothing open are left out; an amount open below zero is not owed and not aged.
 */
export function ageingOf(items: readonly OwedItem[], asOf: PlainDate): Ageing {
  const ageing: Ageing = {
    currentMinor: 0,
    overdue1To30Minor: 0,
    overdue31To60Minor: 0,
    overdue61To90Minor: 0,
    overdueOver90Minor: 0,
    totalMinor: 0,
  };
  for (const item of items) {
    if (item.openMinor <= 0) continue;
    ageing[ageingBucket(daysBetween(item.dueDate, asOf))] += item.openMinor;
    ageing.totalMinor += item.openMinor;
  }
  return ageing;
}

const PERIOD_MONTHS: Record<StatementPeriod, number> = { monthly: 1, quarterly: 3, yearly: 12 };

/**
 * The statement date after one sent on `statementDate`, for the bill run of `today`: the first date statementDate
 * + k periods (k ≥ 1, months clamped to shorter months and counted from statementDate itself, as billing periods
 * are: src/core/periods.ts) that is after today, so a customer whose date lay far behind gets one statement, not
 * one per missed period.
 */
export function nextStatementDate(
  statementDate: PlainDate,
  period: StatementPeriod,
  today: PlainDate,
): PlainDate {
  const term = { count: PERIOD_MONTHS[period], unit: 'months' as const };
  let k = 1;
  while (boundary(statementDate, term, k) <= today) k += 1;
  return boundary(statementDate, term, k);
}

/** The period a statement sent on `statementDate` covers: from the day after the previous one, to statementDate − 1. */
export function statementPeriodBefore(
  statementDate: PlainDate,
  period: StatementPeriod,
): { startDate: PlainDate; endDate: PlainDate } {
  const term = { count: PERIOD_MONTHS[period], unit: 'months' as const };
  return { startDate: boundary(statementDate, term, -1), endDate: addDays(statementDate, -1) };
}
