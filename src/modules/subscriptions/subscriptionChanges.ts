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
  taxParts?: readonly { start: PlainDate; taxPercs: readonly string[] }[];
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
    const { netMinor, totalMinor } = creditAtRates(period, unusedFrom, shareMinor);
    if (shareMinor !== 0) {
      credits.push({
        periodNo: period.periodNo,
        start: unusedFrom,
        end: period.end,
        exMinor: netMinor,
        totalMinor,
      });
    }
    cuts.push({ periodNo: period.periodNo, start: minDate(period.start, cutDate), end: cutDate });
  }
  return { credits, cuts };
}

/** The credited share with its taxes, at the rates of the unused days from `from` to the period's end. */
function creditAtRates(
  period: BilledPeriod,
  from: PlainDate,
  shareMinor: number,
): { netMinor: number; totalMinor: number } {
  const parts = period.taxParts ?? [];
  if (parts.length === 0) return taxedShare(shareMinor, period.taxPercs, period.isTaxInclusive);
  const percsOn = (day: PlainDate) =>
    [...parts].reverse().find((part) => part.start <= day)?.taxPercs ?? parts[0]!.taxPercs;
  const unused = splitPeriodAt(
    { start: from, end: period.end },
    parts.map((part) => part.start),
  );
  const shares = apportionByDays(shareMinor, unused);
  return unused.reduce(
    (sum, part, i) => {
      const taxed = taxedShare(shares[i]!, percsOn(part.start), period.isTaxInclusive);
      return { netMinor: sum.netMinor + taxed.netMinor, totalMinor: sum.totalMinor + taxed.totalMinor };
    },
    { netMinor: 0, totalMinor: 0 },
  );
}

function taxedShare(
  shareMinor: number,
  taxPercs: readonly string[],
  isTaxInclusive: boolean | undefined,
): { netMinor: number; totalMinor: number } {
  if (isTaxInclusive)
    return { netMinor: splitInclusive(shareMinor, taxPercs).netMinor, totalMinor: shareMinor };
  return {
    netMinor: shareMinor,
    totalMinor: taxPercs.reduce((sum, perc) => sum + fractionOfMinor(shareMinor, perc), shareMinor),
  };
}
