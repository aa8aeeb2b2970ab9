import Big from 'big.js';
import { addDays, minDate, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Interval, MeteringSubscription } from '../usage/index.ts';

/**
 * Usage read from events, as billing sees it (docs/usage.md, "Billing usage"). Pure. A usage component linked to a
 * billable metric has no usage rows recorded by the client: its quantity for a usage period (a billing period, cut
 * where billing stops) is the metric's aggregate over the period's instants, which are the account's midnights in
 * its time zone. The quantity is read when the invoice that bills the period is made, and stored with it, so that
 * events arriving later (inside the grace window) are billed as a correction on the next invoice.
 */

export interface UsagePeriod {
  start: PlainDate;
  end: PlainDate;
}

/** The end of time as claims see it: the latest instant a Date holds. */
export const OPEN_END = 8_640_000_000_000_000;

/**
 * The instants of a usage period: from the start date's midnight to the end date's, in the account's zone, so
 * that a day of 23 or 25 hours (a change to or from summer time) is counted as the zone lives it.
 */
export function periodInterval(period: UsagePeriod, timeZone: string): Interval {
  return {
    from: Date.parse(startOfDate(period.start, timeZone)),
    to: Date.parse(startOfDate(period.end, timeZone)),
  };
}

/** A subscription as claims see it: when it bills the metrics of its components. */
export function meteringSubscription(
  subscription: { id: number; startDate: PlainDate; stopAt: PlainDate | null },
  metricCodes: readonly string[],
  timeZone: string,
): MeteringSubscription {
  const from = Date.parse(startOfDate(subscription.startDate, timeZone));
  const to = subscription.stopAt === null ? OPEN_END : Date.parse(startOfDate(subscription.stopAt, timeZone));
  return { id: subscription.id, metricCodes, covers: from < to ? [{ from, to }] : [] };
}

/** The day billing stops (the earlier of the cancellation and the EndDate), or null. */
export function stopDateOf(record: {
  cancelDate: PlainDate | null;
  endDate: PlainDate | null;
}): PlainDate | null {
  const dates = [record.cancelDate, record.endDate].filter((d): d is PlainDate => d !== null).sort();
  return dates[0] ?? null;
}

/**
 * The day billing stops, when a subscription billing usage from events has not billed that usage through it yet
 * (its last invoice is dated before the stop): the date its last invoice of that usage is due. Null otherwise, and
 * when it stops on or before its start: no usage period has any length, so there is no usage to bill at all.
 */
export function eventsUnbilledAtStop(
  record: {
    startDate: PlainDate;
    cancelDate: PlainDate | null;
    endDate: PlainDate | null;
    lastInvDate: PlainDate | null;
  },
  billsUsageFromEvents: boolean,
): PlainDate | null {
  const stop = stopDateOf(record);
  if (!billsUsageFromEvents || stop === null || stop <= record.startDate) return null;
  return record.lastInvDate !== null && record.lastInvDate >= stop ? null : stop;
}

/**
 * The day a subscription billing usage from events that stops is looked at once more, for the late events of its
 * last period (docs/usage.md, "After the last invoice"): the first day that begins once that period's grace window
 * has closed (the stop plus `graceHours`, in the account's zone). Null when it bills no usage from events or does
 * not stop after its start.
 */
export function finalCorrectionOn(
  record: { startDate: PlainDate; cancelDate: PlainDate | null; endDate: PlainDate | null },
  billsUsageFromEvents: boolean,
  graceHours: number,
  timeZone: string,
): PlainDate | null {
  const stop = stopDateOf(record);
  if (!billsUsageFromEvents || stop === null || stop <= record.startDate) return null;
  const closesAt = Date.parse(startOfDate(stop, timeZone)) + graceHours * 3_600_000;
  let day = addDays(stop, Math.floor(graceHours / 24));
  while (Date.parse(startOfDate(day, timeZone)) < closesAt) day = addDays(day, 1);
  return day;
}

/**
 * The usage periods whose metered usage can be billed through `through`: each billing period once (a period
 * recorded and planned again counts once, by its start), cut at `stopAt`, over by `through`, and not billed yet.
 * In order of their start.
 */
export function periodsToMeter(
  periods: readonly UsagePeriod[],
  stopAt: PlainDate | null,
  through: PlainDate,
  billedStarts: ReadonlySet<PlainDate>,
): UsagePeriod[] {
  const byStart = new Map<PlainDate, UsagePeriod>();
  for (const period of periods) {
    const end = stopAt === null ? period.end : minDate(period.end, stopAt);
    if (end <= period.start || end > through || billedStarts.has(period.start)) continue;
    byStart.set(period.start, { start: period.start, end });
  }
  return [...byStart.values()].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/**
 * The rest of each period whose usage was billed only up to a stop that was undone since (a reactivation within the
 * time paid for): from where its billed usage ends to the period's end, when billing goes on where
 * the period ends (a period starts there) or no period follows (a new stop cuts it). A period that a restart on a new
 * cycle followed keeps no rest: the time between the stop and the restart was not the subscription's
 * (docs/usage.md, "Reactivating").
 */
export function restsAfterUndoneStops(
  periods: readonly UsagePeriod[],
  billedEnds: ReadonlyMap<PlainDate, PlainDate>,
): UsagePeriod[] {
  return periods.flatMap((period) => {
    const billedEnd = billedEnds.get(period.start);
    if (billedEnd === undefined || billedEnd >= period.end) return [];
    const later = periods.filter((other) => other.start > billedEnd).map((other) => other.start);
    return later.length === 0 || later.includes(period.end) ? [{ start: billedEnd, end: period.end }] : [];
  });
}

/**
 * Whether events could have reached a billed period since the subscription was last billed: an event is taken only
 * within the grace window after its time, and the last bill ran on `lastInvDate` or later. Periods further back are
 * final and never read again.
 */
export function mayHaveLateEvents(
  period: UsagePeriod,
  lastInvDate: PlainDate | null,
  graceHours: number,
  timeZone: string,
): boolean {
  if (lastInvDate === null) return true;
  const closesAt = Date.parse(startOfDate(period.end, timeZone)) + graceHours * 3_600_000;
  return closesAt > Date.parse(startOfDate(lastInvDate, timeZone));
}

/** What late events changed in a billed period, per group: the quantity billed so far and what is to be added. */
export interface Correction {
  group: string;
  billed: string;
  added: string;
}

/**
 * The corrections of a billed period: each group whose quantity now differs from what was billed (a group seen
 * only now was billed 0). A group billed and now without events is corrected to 0.
 */
export function correctionsOf(
  billed: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): Correction[] {
  const groups = [...new Set([...billed.keys(), ...now.keys()])].sort();
  return groups.flatMap((group) => {
    const before = new Big(billed.get(group) ?? '0');
    const added = new Big(now.get(group) ?? '0').minus(before);
    return added.eq(0) ? [] : [{ group, billed: before.toFixed(), added: added.toFixed() }];
  });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A usage period as a correction line names it, its last day included: "1–30 Nov 2026",
 * "15 Nov–14 Dec 2026", "15 Dec 2026–14 Jan 2027".
 */
export function periodText(period: UsagePeriod): string {
  const last = addDays(period.end, -1);
  const [y1, m1, d1] = period.start.split('-').map(Number) as [number, number, number];
  const [y2, m2, d2] = last.split('-').map(Number) as [number, number, number];
  const day = (d: number, m: number) => `${d} ${MONTHS[m - 1]!}`;
  if (period.start === last) return `${day(d1, m1)} ${y1}`;
  if (y1 !== y2) return `${day(d1, m1)} ${y1}–${day(d2, m2)} ${y2}`;
  if (m1 !== m2) return `${day(d1, m1)}–${day(d2, m2)} ${y2}`;
  return `${d1}–${day(d2, m2)} ${y2}`;
}
