import Big from 'big.js';
import { groupThousands } from '../../core/money.ts';

/** Text for invoice documents (invoicePdf.ts). Pure. */

/** A tax fraction as a percentage: "0.15" → "15", "0.075" → "7.5". */
export function percentText(perc: string): string {
  return new Big(perc).times(100).toFixed();
}

/**
 * A stored decimal (a unit price, a quantity) with at least `digits` decimals, so prices line up with amounts:
 * ("3", 2) → "3.00", ("3.333", 2) → "3.333", ("-0.5", 2) → "-0.50", thousands grouped as amounts are
 * ("1234567.89", 2) → "1,234,567.89". Never rounded: the document shows the price that was billed.
 */
export function decimalForDocument(text: string, digits: number): string {
  const amount = new Big(text);
  const decimals = Math.max(0, amount.c.length - amount.e - 1);
  return groupThousands(amount.toFixed(Math.max(decimals, digits)));
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A calendar date as a person reads it on a document: "2026-12-01" → "1 Dec 2026". */
export function dateForDocument(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return `${day} ${MONTHS[month! - 1]} ${year}`;
}

/**
 * A line's service period. Periods are half-open (their end is the next period's first day), while a document
 * names the last day served: ("2026-12-01", "2027-01-01") → "1 Dec 2026 – 31 Dec 2026".
 */
export function periodForDocument(start: string, end: string): string {
  const last = new Date(`${end}T00:00:00Z`);
  last.setUTCDate(last.getUTCDate() - 1);
  const lastDay = last.toISOString().slice(0, 10);
  return `${dateForDocument(start)} – ${dateForDocument(lastDay < start ? start : lastDay)}`;
}
