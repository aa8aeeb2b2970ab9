import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * Cancel with a way to stay (docs/portal.md, "Cancel with a way to stay"; docs/design/subscription-lifecycle.md):
 * the account's cancel reasons, each with offers in order, and the report's arithmetic. Pure.
 */

export const OFFER_KINDS = ['coupon', 'package', 'pause'] as const;
export type OfferKind = (typeof OFFER_KINDS)[number];

/** What a reason offers: a retention coupon, a move to a package's rate term the account names, or a pause. */
export type RetentionOffer =
  | { kind: 'coupon'; couponId: number }
  | { kind: 'package'; packageId: number; packageRateTermId: number }
  | { kind: 'pause' };

export interface CancelReason {
  /** What the form sends and the records keep: lower-case letters, digits and _. */
  code: string;
  label: string;
  offers: RetentionOffer[];
}

export interface RetentionRules {
  reasons: CancelReason[];
  /** Null: the account never set rules, and these are the defaults. */
  updatedAt: string | null;
}

/** The reason every list has: a customer is never made to pick one that is not theirs. */
export const OTHER_REASON = 'other';
export const REASON_CODE = /^[a-z0-9_]{1,40}$/;
export const MAX_REASONS = 20;
export const MAX_OFFERS_PER_REASON = 5;
export const MAX_LABEL = 100;

/** The reasons the portal asked before an account set its own (docs/portal.md, "What customers may change"). */
export const DEFAULT_CANCEL_REASONS: readonly CancelReason[] = [
  { code: 'too_expensive', label: 'It costs too much', offers: [] },
  { code: 'not_using', label: 'We no longer use it', offers: [] },
  { code: 'missing_features', label: 'It lacks something we need', offers: [] },
  { code: 'switching', label: 'We are moving to another provider', offers: [] },
  { code: 'service', label: 'We are not happy with the service', offers: [] },
  { code: OTHER_REASON, label: 'Another reason', offers: [] },
];

/** The kinds of records a cancel leaves: an offer shown, taken or declined, and the cancellation. */
export type RecordKind = 'shown' | 'taken' | 'declined' | 'cancelled';

export interface RetentionRecord {
  id: number;
  subscriptionId: number;
  customerId: number;
  kind: RecordKind;
  reason: string;
  offer: RetentionOffer | null;
  madeOn: PlainDate;
  createdAt: string;
}

/** Days after an offer is taken within which a cancellation means the subscription was not kept. */
export const KEPT_DAYS = 30;

export interface KindCounts {
  coupon: number;
  package: number;
  pause: number;
}

export interface RetentionMonth {
  /** YYYY-MM */
  month: string;
  cancels: number;
  cancelsByReason: { reason: string; count: number }[];
  offersShown: KindCounts;
  offersTaken: KindCounts;
  offersDeclined: KindCounts;
  /** Offers taken in the month whose subscription was not cancelled within KEPT_DAYS of the take. */
  kept: number;
  /** Offers taken in the month whose KEPT_DAYS have not all passed yet, not cancelled so far. */
  keptPending: number;
}

const zeroKinds = (): KindCounts => ({ coupon: 0, package: 0, pause: 0 });

/** The months from `from`'s to `to`'s, each YYYY-MM. */
export function monthsBetween(from: PlainDate, to: PlainDate): string[] {
  const months: string[] = [];
  let [year, month] = [Number(from.slice(0, 4)), Number(from.slice(5, 7))];
  const last = to.slice(0, 7);
  for (;;) {
    const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
    months.push(text);
    if (text >= last) return months;
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
}

/**
 * Whether a taken offer kept its subscription: `cancelledOn` is the day the subscription's cancellation was made
 * (null: none), `today` the account's day. Kept: not cancelled within KEPT_DAYS after the take, the days all past;
 * pending: not cancelled so far, the days not all past.
 */
export function keptState(
  takenOn: PlainDate,
  cancelledOn: PlainDate | null,
  today: PlainDate,
): 'kept' | 'pending' | 'lost' {
  const end = addDays(takenOn, KEPT_DAYS);
  if (cancelledOn !== null && cancelledOn >= takenOn && cancelledOn <= end) return 'lost';
  return today > end ? 'kept' : 'pending';
}

/** The report's months from the records made in them and, per taken offer, whether it kept its subscription. */
export function retentionMonths(
  from: PlainDate,
  to: PlainDate,
  records: readonly RetentionRecord[],
  keptOf: (record: RetentionRecord) => 'kept' | 'pending' | 'lost',
): RetentionMonth[] {
  const byMonth = new Map(
    monthsBetween(from, to).map((month) => [
      month,
      {
        month,
        cancels: 0,
        reasons: new Map<string, number>(),
        offersShown: zeroKinds(),
        offersTaken: zeroKinds(),
        offersDeclined: zeroKinds(),
        kept: 0,
        keptPending: 0,
      },
    ]),
  );
  for (const record of records) {
    const month = byMonth.get(record.madeOn.slice(0, 7));
    if (!month) continue;
    if (record.kind === 'cancelled') {
      month.cancels += 1;
      month.reasons.set(record.reason, (month.reasons.get(record.reason) ?? 0) + 1);
      continue;
    }
    if (!record.offer) continue;
    const counts =
      record.kind === 'shown'
        ? month.offersShown
        : record.kind === 'taken'
          ? month.offersTaken
          : month.offersDeclined;
    counts[record.offer.kind] += 1;
    if (record.kind === 'taken') {
      const state = keptOf(record);
      if (state === 'kept') month.kept += 1;
      if (state === 'pending') month.keptPending += 1;
    }
  }
  return [...byMonth.values()].map(({ reasons, ...month }) => ({
    ...month,
    cancelsByReason: [...reasons]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
  }));
}
