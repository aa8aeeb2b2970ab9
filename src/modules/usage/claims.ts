import type { Interval } from './aggregation.ts';

/**
 * Which subscription an event that names none counts for (docs/design/usage.md, "Which subscription an event counts
 * for"): the customer's subscription that bills the event's metric and covers its time; where several do, the one
 * created first, so that no event is counted twice and none that a subscription covers is left out. Pure.
 */

export interface MeteringSubscription {
  /** Ids grow with creation: the lower id was created first. */
  id: number;
  metricCodes: readonly string[];
  /** When it bills usage: its periods from its start to its end (or to now), as disjoint intervals. */
  covers: readonly Interval[];
}

/** The parts of `within` during which `subscriptionId` claims the customer's unnamed events of `metricCode`. */
export function claimedIntervals(
  subscriptionId: number,
  metricCode: string,
  within: Interval,
  subscriptions: readonly MeteringSubscription[],
): Interval[] {
  const own = subscriptions.find((s) => s.id === subscriptionId);
  if (!own || !own.metricCodes.includes(metricCode)) return [];
  const earlier = subscriptions
    .filter((s) => s.id < subscriptionId && s.metricCodes.includes(metricCode))
    .flatMap((s) => s.covers);
  return own.covers.flatMap((cover) => subtract(intersect(cover, within), earlier));
}

function intersect(a: Interval, b: Interval): Interval[] {
  const from = Math.max(a.from, b.from);
  const to = Math.min(a.to, b.to);
  return from < to ? [{ from, to }] : [];
}

/** `pieces` without any instant of `removed`, in order. */
function subtract(pieces: Interval[], removed: readonly Interval[]): Interval[] {
  let left = pieces;
  for (const cut of removed) {
    left = left.flatMap((piece) => [
      ...(piece.from < cut.from ? [{ from: piece.from, to: Math.min(piece.to, cut.from) }] : []),
      ...(piece.to > cut.to ? [{ from: Math.max(piece.from, cut.to), to: piece.to }] : []),
    ]);
  }
  return left.filter((piece) => piece.from < piece.to).sort((a, b) => a.from - b.from);
}
