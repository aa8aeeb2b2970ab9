import { describe, expect, it } from 'vitest';
import { keptState, monthsBetween, retentionMonths } from './retention.ts';
import type { RetentionRecord } from './retention.ts';

describe('the retention report’s months', () => {
  it('run from the month of `from` to the month of `to`, across a year', () => {
    expect(monthsBetween('2026-11-15', '2027-02-01')).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
    expect(monthsBetween('2026-03-01', '2026-03-31')).toEqual(['2026-03']);
  });
});

describe('whether a taken offer kept its subscription', () => {
  // Taken on 15 March: its 30 days run to 14 April.
  it('is lost when cancelled on the day of the take or within the 30 days', () => {
    expect(keptState('2026-03-15', '2026-03-15', '2026-05-01')).toBe('lost');
    expect(keptState('2026-03-15', '2026-04-14', '2026-05-01')).toBe('lost');
  });
  it('is kept once the 30 days passed without a cancellation in them', () => {
    expect(keptState('2026-03-15', null, '2026-04-15')).toBe('kept');
    expect(keptState('2026-03-15', '2026-04-15', '2026-04-20')).toBe('kept');
    // A cancellation before the take (since reactivated, or one the take did not undo) is not the take's.
    expect(keptState('2026-03-15', '2026-03-01', '2026-04-20')).toBe('kept');
  });
  it('is pending while the 30 days have not all passed', () => {
    expect(keptState('2026-03-15', null, '2026-04-14')).toBe('pending');
  });
});

describe('the counts of a month', () => {
  const record = (
    kind: RetentionRecord['kind'],
    madeOn: string,
    offer: RetentionRecord['offer'],
    reason = 'too_expensive',
  ) => ({
    id: 0,
    subscriptionId: 1,
    customerId: 1,
    kind,
    reason,
    offer,
    madeOn,
    createdAt: `${madeOn}T10:00:00.000Z`,
  });

  it('count cancels by reason (most first) and offers by kind; taken offers by what became of them', () => {
    const coupon = { kind: 'coupon' as const, couponId: 4 };
    const pkg = { kind: 'package' as const, packageId: 2, packageRateTermId: 7 };
    const records = [
      record('shown', '2026-03-02', coupon),
      record('taken', '2026-03-02', coupon),
      record('shown', '2026-03-05', pkg, 'not_using'),
      record('declined', '2026-03-05', pkg, 'not_using'),
      record('cancelled', '2026-03-05', null, 'not_using'),
      record('cancelled', '2026-03-09', null, 'other'),
      record('cancelled', '2026-03-20', null, 'not_using'),
      record('shown', '2026-04-01', coupon),
      record('taken', '2026-04-01', coupon),
      // Outside the months asked for: left out.
      record('cancelled', '2026-05-01', null),
    ];
    const months = retentionMonths('2026-03-01', '2026-04-30', records, (r) =>
      r.madeOn === '2026-03-02' ? 'kept' : 'pending',
    );
    expect(months).toEqual([
      {
        month: '2026-03',
        cancels: 3,
        cancelsByReason: [
          { reason: 'not_using', count: 2 },
          { reason: 'other', count: 1 },
        ],
        offersShown: { coupon: 1, package: 1, pause: 0 },
        offersTaken: { coupon: 1, package: 0, pause: 0 },
        offersDeclined: { coupon: 0, package: 1, pause: 0 },
        kept: 1,
        keptPending: 0,
      },
      {
        month: '2026-04',
        cancels: 0,
        cancelsByReason: [],
        offersShown: { coupon: 1, package: 0, pause: 0 },
        offersTaken: { coupon: 1, package: 0, pause: 0 },
        offersDeclined: { coupon: 0, package: 0, pause: 0 },
        kept: 0,
        keptPending: 1,
      },
    ]);
  });
});
