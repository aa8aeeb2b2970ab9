import type { PlainDate } from '../../core/calendar.ts';

/**
 * Progressive (threshold) billing of metered usage (docs/usage.md, "Progressive billing"). Pure. While a usage
 * period runs, each metered component's usage so far is priced as its whole quantity would be at the period's end
 * (rounded to the minor unit as its invoice line will be); what progressive invoices of the period already billed
 * of it is taken off. When what is left reaches the subscription's threshold, one invoice bills all of it, however
 * many multiples of the threshold it holds. The period's final invoice bills the whole quantity and deducts the sum
 * of the progressive amounts, so every component's amounts over the period add up to the price of its whole
 * quantity: the differences telescope, tiers and volume brackets included.
 */

/** A component's usage of one group in the current period, priced as a whole. */
export interface UsageSoFar {
  componentId: number;
  group: string;
  /** Exact decimal. */
  quantity: string;
  /** The price of the whole quantity, in minor units, rounded as its invoice line is. */
  amountMinor: number;
}

/** What the period's progressive invoices billed so far of one component's group, summed. */
export interface InvoicedSoFar {
  componentId: number;
  group: string;
  amountMinor: number;
}

/** One line of a progressive invoice: the quantity so far and the amount not invoiced yet. */
export interface ProgressiveLine {
  componentId: number;
  group: string;
  quantity: string;
  amountMinor: number;
}

const keyOf = (line: { componentId: number; group: string }): string =>
  `${line.componentId}\u0000${line.group}`;

/** The sums invoiced so far, by component and group. */
export function invoicedByKey(invoiced: readonly InvoicedSoFar[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const row of invoiced) sums.set(keyOf(row), (sums.get(keyOf(row)) ?? 0) + row.amountMinor);
  return sums;
}

/** What progressive invoices of the period billed of this component's group (0 when none). */
export function invoicedOf(
  sums: ReadonlyMap<string, number>,
  line: { componentId: number; group: string },
): number {
  return sums.get(keyOf(line)) ?? 0;
}

/**
 * The lines of the progressive invoice to make now, or null when the amount not invoiced yet is below the
 * threshold (or the threshold is not positive). A line per component and group whose amount changed since the last
 * progressive invoice; a group whose quantity fell (a sum of negative values) gives back what it was billed over.
 */
export function progressiveInvoiceLines(
  soFar: readonly UsageSoFar[],
  invoiced: readonly InvoicedSoFar[],
  thresholdMinor: number,
): ProgressiveLine[] | null {
  if (!(thresholdMinor > 0)) return null;
  const sums = invoicedByKey(invoiced);
  const lines = soFar
    .map((usage) => ({
      componentId: usage.componentId,
      group: usage.group,
      quantity: usage.quantity,
      amountMinor: usage.amountMinor - invoicedOf(sums, usage),
    }))
    .filter((line) => line.amountMinor !== 0);
  const notInvoiced = lines.reduce((sum, line) => sum + line.amountMinor, 0);
  return notInvoiced >= thresholdMinor ? lines : null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A progressive line's words: "API calls: 1200 calls, usage to 14 Mar (progressive)", the day it was read (its
 * events up to that moment; what comes later that day is billed by the next invoice or the final one).
 */
export function progressiveText(label: string, quantity: string, unitName: string, today: PlainDate): string {
  const [, m, d] = today.split('-').map(Number) as [number, number, number];
  return `${label}: ${quantity} ${unitName}, usage to ${d} ${MONTHS[m - 1]!} (progressive)`;
}

/** The final invoice's deduction line: "API calls: less 3,000.00 invoiced progressively". */
export function deductionText(label: string): string {
  return `${label}: less usage invoiced progressively`;
}
