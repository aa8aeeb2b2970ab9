import type { PlainDate } from './calendar.ts';
import { daysBetween } from './calendar.ts';
import { ratioOfMinor } from './money.ts';

/**
 * Tax rates that change on a date, and supplies that span a change (docs/tax.md, "Rates that change on a date").
 * Pure: no I/O, no clock.
 *
 * A tax rule has an opening rate and dated rates: a dated rate is in force from its date (a calendar date in the
 * account's time zone) until the next one; before the first, the opening rate is. A supply is taxed at the rate in
 * force when it is made; a supply of services over a period [start, end) that crosses a change is taxed in parts
 * (the VAT Act's section 67A): each part of the period at the rate in force during it, the consideration
 * apportioned by days.
 */
export interface DatedTaxRate {
  /** An exact decimal fraction, e.g. "0.155". */
  perc: string;
  effectiveFrom: PlainDate;
}

export interface TaxRateTimeline {
  openingPerc: string;
  /** In any order; no two on one date (the service refuses them). */
  rates: readonly DatedTaxRate[];
}

/** The rate in force on `date`: the latest dated rate from that date or earlier, else the opening rate. */
export function percOn(timeline: TaxRateTimeline, date: PlainDate): string {
  let inForce: DatedTaxRate | undefined;
  for (const rate of timeline.rates) {
    if (rate.effectiveFrom <= date && (!inForce || rate.effectiveFrom > inForce.effectiveFrom))
      inForce = rate;
  }
  return inForce?.perc ?? timeline.openingPerc;
}

/** The dates strictly inside (start, end) on which some timeline's rate changes, ascending, each once. */
export function rateChangesWithin(
  period: { start: PlainDate; end: PlainDate },
  timelines: readonly TaxRateTimeline[],
): PlainDate[] {
  const dates = new Set<PlainDate>();
  for (const timeline of timelines) {
    for (const rate of timeline.rates) {
      if (rate.effectiveFrom > period.start && rate.effectiveFrom < period.end) dates.add(rate.effectiveFrom);
    }
  }
  return [...dates].sort();
}

export interface SupplyPart {
  start: PlainDate;
  /** Exclusive, as periods are (core/periods.ts). */
  end: PlainDate;
  days: number;
}

/**
 * The parts of a period [start, end) cut at the given change dates: one part when none falls inside it. A period
 * of no days (a supply made on one date, such as a one-off charge) is one part.
 */
export function splitPeriodAt(
  period: { start: PlainDate; end: PlainDate },
  changes: readonly PlainDate[],
): SupplyPart[] {
  const cuts = changes.filter((date) => date > period.start && date < period.end);
  const bounds = [period.start, ...[...new Set(cuts)].sort(), period.end];
  const parts: SupplyPart[] = [];
  for (let i = 0; i + 1 < bounds.length; i += 1) {
    parts.push({ start: bounds[i]!, end: bounds[i + 1]!, days: daysBetween(bounds[i]!, bounds[i + 1]!) });
  }
  return parts.length > 0 ? parts : [{ start: period.start, end: period.end, days: 0 }];
}

/**
 * An amount shared over the parts by their days: each part but the last gets amount × its days / all days,
 * rounded half away from zero (money.ts); the last gets the rest, so the shares add up to the amount exactly.
 */
export function apportionByDays(amountMinor: number, parts: readonly SupplyPart[]): number[] {
  const totalDays = parts.reduce((sum, part) => sum + part.days, 0);
  if (totalDays === 0) return parts.map((_part, i) => (i === 0 ? amountMinor : 0));
  let given = 0;
  return parts.map((part, i) => {
    if (i === parts.length - 1) return amountMinor - given;
    const share = ratioOfMinor(amountMinor, part.days, totalDays);
    given += share;
    return share;
  });
}
