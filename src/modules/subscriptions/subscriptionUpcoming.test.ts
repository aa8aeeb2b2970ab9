import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../core/calendar.ts';
import { GOLD, subscription, termLine, usageRow } from './subscriptionBilling.fixtures.ts';
import { planBilling } from './subscriptionBilling.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { PlannedInvoice, SubscriptionTimeline, UnbilledUsage } from './subscriptionBilling.ts';
import { timelineAfter, upcomingInvoiceOf } from './subscriptionUpcoming.ts';

/**
 * The next-invoice example of docs/spec-decisions.md, "Subscriptions": created 2026-11-23, starts 2027-01-01 with a
 * 14-day free trial, then 25.00 a month.
 */
function futureFreeTrial(overrides: Partial<SubscriptionTimeline> = {}): SubscriptionTimeline {
  const trialEndDate = trialEndOf('2027-01-01', 14, 'days');
  return subscription({
    startDate: '2027-01-01',
    createdOn: '2026-11-23',
    trialEndDate,
    anchorDate: trialEndDate!,
    terms: { ...GOLD, chargePrice: '25.00' },
    ...overrides,
  });
}

describe('upcomingInvoiceOf', () => {
  it('skips the free trial of a future subscription: 25.00 on the trial’s end, 2027-01-15', () => {
    const upcoming = upcomingInvoiceOf(futureFreeTrial(), []);
    expect(upcoming).toEqual({
      invoiceDate: '2027-01-15',
      lines: [termLine('2027-01-15', '2027-02-15', 'Gold (v1)', '25.00')],
      usageIds: [],
      period: {
        periodNo: 2,
        start: '2027-01-15',
        end: '2027-02-15',
        kind: 'term',
        chargePrice: '25.00',
        amountMinor: 2500,
        appliesPendingChange: false,
      },
    });
  });

  it('throws BillingInvariantError when out of rounds, so readers fall back as for any broken record', () => {
    // The free trial takes a round without a line, its end the next: one round is not enough.
    expect(upcomingInvoiceOf(futureFreeTrial(), [], 2)?.invoiceDate).toBe('2027-01-15');
    expect(() => upcomingInvoiceOf(futureFreeTrial(), [], 1)).toThrow(BillingInvariantError);
    expect(() => upcomingInvoiceOf(futureFreeTrial(), [], 1)).toThrow(
      'no invoice with a line within 1 rounds',
    );
  });

  it('is dated numDaysBeforeToInv ahead of the trial’s end: 2027-01-15 − 3 days = 2027-01-12', () => {
    expect(upcomingInvoiceOf(futureFreeTrial({ numDaysBeforeToInv: 3 }), [])?.invoiceDate).toBe('2027-01-12');
  });

  it('is the trial’s own invoice when the trial has a fee or a setup fee', () => {
    const paid = upcomingInvoiceOf(futureFreeTrial({ terms: { ...GOLD, trialFee: '5.00' } }), []);
    expect(paid?.invoiceDate).toBe('2027-01-01');
    expect(paid?.lines.map((l) => [l.descrip, l.unitCostEx])).toEqual([['Gold (v1): trial', '5.00']]);
    const setup = upcomingInvoiceOf(futureFreeTrial({ terms: { ...GOLD, setupFee: '10.00' } }), []);
    expect(setup?.invoiceDate).toBe('2027-01-01');
    expect(setup?.lines.map((l) => [l.descrip, l.unitCostEx])).toEqual([['Gold (v1): setup fee', '10.00']]);
  });

  it('is a zero-priced term’s invoice: the bill run makes it with a 0.00 line', () => {
    const free = subscription({
      startDate: '2027-01-01',
      createdOn: '2026-11-23',
      terms: { ...GOLD, chargePrice: '0' },
    });
    expect(upcomingInvoiceOf(free, [])?.lines).toEqual([
      termLine('2027-01-01', '2027-02-01', 'Gold (v1)', '0'),
    ]);
  });

  it('carries on from a running subscription whose free trial is recorded', () => {
    const timeline = futureFreeTrial();
    const trialOnly = planBilling(timeline, [], '2027-01-01');
    expect(trialOnly.invoices.map((i) => i.lines.length)).toEqual([0]);
    const running = timelineAfter(timeline, trialOnly);
    expect(upcomingInvoiceOf(running, [])?.invoiceDate).toBe('2027-01-15');
    const afterFirst = timelineAfter(running, planBilling(running, [], '2027-01-15'));
    expect(upcomingInvoiceOf(afterFirst, [])?.period).toMatchObject({ start: '2027-02-15', periodNo: 3 });
  });

  it('bills usage of the trial on the first invoice dated on or after the trial’s end', () => {
    const usage = [usageRow(7, '2027-01-01', '2027-01-15', '12')];
    // 10 × 1.00 + 2 × 0.80 = 11.60, on the 25.00 invoice dated on the trial's end.
    expect(upcomingInvoiceOf(futureFreeTrial(), usage)?.lines.map((l) => l.unitCostEx)).toEqual([
      '25.00',
      '11.6',
    ]);
    // Dated three days before the trial ends, that invoice cannot carry it: the next one, 2027-02-12, does.
    const ahead = futureFreeTrial({ numDaysBeforeToInv: 3 });
    expect(upcomingInvoiceOf(ahead, usage)?.usageIds).toEqual([]);
  });

  it('is none when the subscription ends within its free trial, unless usage is left to bill', () => {
    const endsInTrial = futureFreeTrial({ endDate: '2027-01-10' });
    expect(upcomingInvoiceOf(endsInTrial, [])).toBeNull();
    const usage = [usageRow(3, '2027-01-01', '2027-01-10', '4')];
    expect(upcomingInvoiceOf(endsInTrial, usage)).toMatchObject({
      invoiceDate: '2027-01-10',
      usageIds: [3],
      period: null,
    });
  });

  it('equals the first invoice with a line the bill run makes, day after day', () => {
    fc.assert(
      fc.property(
        fc.record({
          startIn: fc.integer({ min: -40, max: 60 }),
          trialDays: fc.constantFrom(0, 1, 14, 31),
          trialFee: fc.constantFrom('0', '5.00'),
          setupFee: fc.constantFrom('0', '10.00'),
          chargePrice: fc.constantFrom('0', '25.00', '99.99'),
          term: fc.constantFrom({ count: 1, unit: 'months' as const }, { count: 14, unit: 'days' as const }),
          numDaysBeforeToInv: fc.constantFrom(0, 3, 20),
          endIn: fc.option(fc.integer({ min: 1, max: 90 }), { nil: null }),
        }),
        (c) => {
          const createdOn = '2026-11-23';
          const startDate = addDays(createdOn, c.startIn);
          const trialEndDate = trialEndOf(startDate, c.trialDays, 'days');
          const timeline = subscription({
            startDate,
            createdOn,
            trialEndDate,
            anchorDate: trialEndDate ?? startDate,
            endDate: c.endIn === null ? null : addDays(startDate, c.endIn),
            numDaysBeforeToInv: c.numDaysBeforeToInv,
            terms: {
              ...GOLD,
              term: c.term,
              trialFee: c.trialFee,
              setupFee: c.setupFee,
              chargePrice: c.chargePrice,
            },
          });
          const upcoming = upcomingInvoiceOf(timeline, []);
          // The bill run, once a day from creation, storing the record after each run.
          let record = timeline;
          let first: PlannedInvoice | null = null;
          for (let day = createdOn; first === null && day <= '2027-06-01'; day = addDays(day, 1)) {
            const plan = planBilling(record, [] as UnbilledUsage[], day);
            first = plan.invoices.find((i) => i.lines.length > 0) ?? null;
            record = timelineAfter(record, plan);
          }
          expect(upcoming).toEqual(first);
        },
      ),
      { numRuns: 300 },
    );
  });
});
