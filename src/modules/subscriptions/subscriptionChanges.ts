import { daysBetween, maxDate, minDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { fractionOfMinor, ratioOfMinor } from '../../core/money.ts';
import { splitInclusive } from '../../core/taxInclusive.ts';
import { apportionByDays, splitPeriodAt } from '../../core/taxRates.ts';

/**
 * What stopping a subscription's billed time at a date owes the customer: the pure rule behind cancelling now
 * and changing a package or term now. Amounts in the currency's minor unit.
 *
 * The periods already billed that reach past the cut date C are cut at C (a period starting after C becomes
 * empty at C), so billed periods keep tiling time with no overlap when a new run of periods starts at C.
 * - `prorata`: each cut period is credited for its unused part: its amount × (days from C to its end) / (days
 *   in the period), rounded once; a period not yet begun is credited in full.
 * - `fullcredit`: each cut period is credited in full.
 * - `none` (cancel now with no refund): nothing is credited and nothing is cut: the customer keeps the time
 *   paid for, which a reactivation before the period ends resumes.
 * A credit carries the taxes its period's invoice charged on the same part: each tax rounded on the credited
 * amount, as on an invoice line.
 *
 * A period of a tax-inclusive price was charged its amount with the taxes in it: the credit is the same share of
 * that amount, split into net and taxes as its line was (taxInclusive.ts), so the customer gets back exactly the
 * share of what they paid.
 *
 * Example: 30.00 for Mar 1–Apr 1 (31 days) with 15% tax, cut on Mar 21: 11 days unused,
 * 30.00 × 11 / 31 = 10.645… → 10.65 ex, tax 1.5975 → 1.60, credit 12.25. Had 30.00 included the tax, the credit
 * would be 10.65 with it: net 10.65 / 1.15 = 9.26 and tax 1.39.
 *
 * A period its invoice billed in parts at different rates (a change of rate inside it, docs/tax.md "Supplies that
 * span a change") is credited at the rates of the unused days: the credited share is apportioned by days over the
 * unused days' parts (taxRates.ts), each taxed at its part's rates. Example: 300.00 for 1 April–1 July 2025 (91
 * days) billed at 15 % to 30 April and 15.5 % from 1 May, cut on 16 June: 15 days unused, 300.00 × 15 / 91 =
 * 49.450… → 49.45, all after 1 May: tax 15.5 % 7.66475 → 7.66, credit 57.11.
 */
export type CreditRule = 'prorata' | 'fullcredit' | 'none';

export interface BilledPeriod {
  periodNo: number;
  start: PlainDate;
  end: PlainDate;
  amountMinor: number;
  /** The percs of the taxes its invoice charged. */
  taxPercs: readonly string[];
  /**
   * When its invoice billed it in parts at different rates: each part's first day and rates, by date (the days
   * before the first part bear the first part's).
   */
  taxParts?: readonly { start: PlainDate; taxPercs: readonly string[]; taxPositions?: readonly number[] }[];
  /** amountMinor includes the taxes. */
  isTaxInclusive?: boolean;
}

export interface PeriodCredit {
  periodNo: number;
  /** The part credited, [start, end). */
  start: PlainDate;
  end: PlainDate;
  exMinor: number;
  totalMinor: number;
  /**
   * A period billed in parts: what it credits of each part's taxes (their positions in the invoice's taxes), so
   * its credit note takes its VAT at the rates of its days (docs/tax.md, "How a crossing period is invoiced").
   */
  taxParts?: CreditTaxPart[];
}

/** What a credit takes of the taxes at some positions of its invoice: the amount with them, and each tax. */
export interface CreditTaxPart {
  positions: readonly number[];
  amountMinor: number;
  taxesMinor: number[];
}

export interface PeriodCut {
  periodNo: number;
  start: PlainDate;
  end: PlainDate;
}

export function creditsForCut(
  periods: readonly BilledPeriod[],
  cutDate: PlainDate,
  rule: CreditRule,
): { credits: PeriodCredit[]; cuts: PeriodCut[] } {
  if (rule === 'none') return { credits: [], cuts: [] };
  const credits: PeriodCredit[] = [];
  const cuts: PeriodCut[] = [];
  for (const period of periods) {
    if (period.end <= cutDate) continue;
    const unusedFrom = maxDate(period.start, cutDate);
    // A period already cut to nothing was credited in full then. A later cut can reach back before it (a change
    // in a trial cuts at the trial's end, a change after it on today), and must not credit it again.
    const alreadyCredited = period.start === period.end;
    // The credited share of what the period was charged (with its taxes when they were included).
    const shareMinor = alreadyCredited
      ? 0
      : rule === 'fullcredit' || period.start >= cutDate
        ? period.amountMinor
        : ratioOfMinor(
            period.amountMinor,
            daysBetween(unusedFrom, period.end),
            daysBetween(period.start, period.end),
          );
    const { netMinor, totalMinor, taxParts } = creditAtRates(period, unusedFrom, shareMinor);
    if (shareMinor !== 0) {
      credits.push({
        periodNo: period.periodNo,
        start: unusedFrom,
        end: period.end,
        exMinor: netMinor,
        totalMinor,
        ...(taxParts ? { taxParts } : {}),
      });
    }
    cuts.push({ periodNo: period.periodNo, start: minDate(period.start, cutDate), end: cutDate });
  }
  return { credits, cuts };
}

/**
 * The credited share with its taxes, at the rates of the unused days from `from` to the period's end; a period
 * billed in parts also gives what it credits of each part's taxes (when its parts know their positions).
 */
function creditAtRates(
  period: BilledPeriod,
  from: PlainDate,
  shareMinor: number,
): { netMinor: number; totalMinor: number; taxParts?: CreditTaxPart[] } {
  const parts = period.taxParts ?? [];
  if (parts.length === 0) {
    const { netMinor, totalMinor } = taxedShare(shareMinor, period.taxPercs, period.isTaxInclusive);
    return { netMinor, totalMinor };
  }
  const partOn = (day: PlainDate) => [...parts].reverse().find((part) => part.start <= day) ?? parts[0]!;
  const unused = splitPeriodAt(
    { start: from, end: period.end },
    parts.map((part) => part.start),
  );
  const shares = apportionByDays(shareMinor, unused);
  const taxed = unused.map((day, i) => ({
    part: partOn(day.start),
    ...taxedShare(shares[i]!, partOn(day.start).taxPercs, period.isTaxInclusive),
  }));
  const credited = taxed.filter(({ part }) => part.taxPositions !== undefined);
  const taxParts = credited.length === taxed.length ? creditTaxParts(credited) : undefined;
  return {
    netMinor: taxed.reduce((sum, part) => sum + part.netMinor, 0),
    totalMinor: taxed.reduce((sum, part) => sum + part.totalMinor, 0),
    ...(taxParts ? { taxParts } : {}),
  };
}

/** The taxed parts of a credit by the positions of their taxes, parts of the same positions added (none of 0 left). */
function creditTaxParts(
  taxed: readonly { part: { taxPositions?: readonly number[] }; totalMinor: number; taxesMinor: number[] }[],
): CreditTaxPart[] {
  const byKey = new Map<string, CreditTaxPart>();
  for (const { part, totalMinor, taxesMinor } of taxed) {
    const positions = part.taxPositions ?? [];
    const key = positions.join(',');
    const sum = byKey.get(key) ?? { positions, amountMinor: 0, taxesMinor: positions.map(() => 0) };
    sum.amountMinor += totalMinor;
    taxesMinor.forEach((tax, i) => (sum.taxesMinor[i] = (sum.taxesMinor[i] ?? 0) + tax));
    byKey.set(key, sum);
  }
  return [...byKey.values()].filter((part) => part.amountMinor !== 0);
}

function taxedShare(
  shareMinor: number,
  taxPercs: readonly string[],
  isTaxInclusive: boolean | undefined,
): { netMinor: number; totalMinor: number; taxesMinor: number[] } {
  if (isTaxInclusive) {
    const split = splitInclusive(shareMinor, taxPercs);
    return { netMinor: split.netMinor, totalMinor: shareMinor, taxesMinor: split.taxMinor };
  }
  const taxesMinor = taxPercs.map((perc) => fractionOfMinor(shareMinor, perc));
  return {
    netMinor: shareMinor,
    totalMinor: taxesMinor.reduce((sum, tax) => sum + tax, shareMinor),
    taxesMinor,
  };
}
