import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorToDecimalText, productToMinor } from '../../core/money.ts';
import type { AppliedRedemption, Coupon } from '../coupons/index.ts';
import { priceInvoice } from '../invoicing/index.ts';
import { applyCoupons } from './subscriptionCoupons.ts';
import type { CouponSubscription } from './subscriptionCoupons.ts';
import type { PlannedInvoice, PlannedLine } from './subscriptionBilling.ts';

const SUB: CouponSubscription = {
  id: 7,
  customerId: 3,
  currencyCode: 'USD',
  packageId: 1,
  pendingChange: null,
};

function coupon(fields: Partial<Coupon>): Coupon {
  return {
    id: 1,
    code: 'C',
    name: 'C',
    discount: { kind: 'percent', percentOff: '10' },
    duration: 'forever',
    durationPeriods: null,
    redeemBy: null,
    maxRedemptions: null,
    redemptionCount: 1,
    packageIds: null,
    componentIds: null,
    portalRedeemable: false,
    isRetention: false,
    archivedAt: null,
    createdAt: '2026-03-01T00:00:00.000Z',
    updatedAt: '2026-03-01T00:00:00.000Z',
    ...fields,
  };
}

function redeemed(fields: Partial<Coupon>, on = '2026-03-01', periodsUsed = 0, id = 11): AppliedRedemption {
  return {
    coupon: coupon(fields),
    redemption: {
      id,
      couponId: 1,
      customerId: 3,
      subscriptionId: 7,
      redeemedOn: on,
      periodsUsed,
      endedAt: null,
      createdAt: `${on}T00:00:00.000Z`,
    },
  };
}

const line = (unitCostEx: string, extra: Partial<PlannedLine> = {}): PlannedLine => ({
  descrip: 'Line',
  qty: '1',
  unitCostEx,
  periodStart: null,
  periodEnd: null,
  ...extra,
});

function invoice(invoiceDate: string, lines: PlannedLine[], start = invoiceDate): PlannedInvoice {
  return {
    invoiceDate,
    lines,
    usageIds: [],
    period: {
      periodNo: 1,
      start,
      end: '2026-12-31',
      kind: 'term',
      chargePrice: '0',
      amountMinor: 0,
      appliesPendingChange: false,
    },
  };
}

const added = (planned: PlannedInvoice) => planned.lines.slice(1).map((l) => [l.descrip, l.unitCostEx]);

describe('applyCoupons', () => {
  it('discounts a once coupon on the first invoice only and counts one period', () => {
    const invoices = [invoice('2026-04-01', [line('30.00')]), invoice('2026-05-01', [line('30.00')])];
    const uses = applyCoupons(SUB, invoices, [redeemed({ code: 'ONCE', duration: 'once' })], []);
    expect(added(invoices[0]!)).toEqual([['ONCE: −10 %', '-3.00']]);
    expect(added(invoices[1]!)).toEqual([]);
    expect([...uses]).toEqual([[11, 1]]);
  });

  it('counts the periods used before this pass, and leaves invoices dated before the redemption alone', () => {
    const invoices = [invoice('2026-04-01', [line('30.00')]), invoice('2026-05-01', [line('30.00')])];
    const late = redeemed({ duration: 'repeating', durationPeriods: 2 }, '2026-04-15', 1);
    const uses = applyCoupons(SUB, invoices, [late], []);
    expect(added(invoices[0]!)).toEqual([]);
    expect(added(invoices[1]!)).toHaveLength(1);
    expect([...uses]).toEqual([[11, 1]]);
    const more = [invoice('2026-06-01', [line('30.00')])];
    expect([...applyCoupons(SUB, more, [late], [], uses)]).toEqual([]);
  });

  it('follows a scheduled change of package for AppliesTo, and a component restriction to its lines', () => {
    const sub = { ...SUB, pendingChange: { effectiveDate: '2026-05-01', packageId: 2 } };
    const invoices = [
      invoice('2026-04-01', [line('30.00'), line('5.00', { componentId: 9 })]),
      invoice('2026-05-01', [line('60.00'), line('5.00', { componentId: 9 })]),
    ];
    applyCoupons(sub, invoices, [redeemed({ code: 'P2', packageIds: [2], componentIds: [9] })], []);
    // April: only the usage of component 9 (0.50); May, on package 2: 6.00 + 0.50.
    expect(invoices[0]!.lines.slice(2).map((l) => l.unitCostEx)).toEqual(['-0.50']);
    expect(invoices[1]!.lines.slice(2).map((l) => l.unitCostEx)).toEqual(['-6.50']);
  });

  it('takes each line back on its own line when everything is discounted, so that the Total is exactly zero', () => {
    // Three lines of 0.05 at 15 %: 0.0075 each → 0.01 of tax, Total 0.18. One line of −0.15 would carry −0.0225 →
    // −0.02 and leave 0.01 to pay; three lines of −0.05 carry −0.01 each.
    const planned = invoice('2026-04-01', [line('0.05'), line('0.05'), line('0.05')]);
    applyCoupons(
      SUB,
      [planned],
      [redeemed({ code: 'ALL', discount: { kind: 'percent', percentOff: '100' } })],
      ['0.15'],
    );
    expect(planned.lines.slice(3).map((l) => l.unitCostEx)).toEqual(['-0.05', '-0.05', '-0.05']);
    expect(priceInvoice(planned.lines, ['0.15'], 'USD').totalMinor).toBe(0);
  });

  it('gives back the cent by which the discount line’s own rounded tax would take the Total below zero', () => {
    // Lines of 0.03, 0.03, 0.03 and a usage correction of −0.01 at 15 %: no tax on any, Total 0.08, all the coupon
    // may take (3, 3 and 2 cents). −0.08 carries −0.012 → −0.01, Total −0.01; at −0.07 (tax −0.0105 → −0.01) the
    // Total is 0.00.
    const correction = line('-0.01', { componentId: 9 });
    const planned = invoice('2026-04-01', [line('0.03'), line('0.03'), line('0.03'), correction]);
    applyCoupons(
      SUB,
      [planned],
      [redeemed({ code: 'ALL', discount: { kind: 'percent', percentOff: '100' } })],
      ['0.15'],
    );
    expect(planned.lines.slice(4).map((l) => l.unitCostEx)).toEqual(['-0.07']);
    expect(priceInvoice(planned.lines, ['0.15'], 'USD').totalMinor).toBe(0);
  });

  it('lowers the period’s amount by the discount of its line, so a credit for it gives back what was paid', () => {
    const planned = invoice('2026-04-01', [
      line('30.00', { periodStart: '2026-04-01', periodEnd: '2026-12-31' }),
      line('5.00', { componentId: 9 }),
    ]);
    planned.period!.amountMinor = 3000;
    applyCoupons(SUB, [planned], [redeemed({ code: 'TEN' })], []);
    // 10 % of 30.00 off the period's line; the usage line's 0.50 is not the period's.
    expect(planned.period!.amountMinor).toBe(2700);
  });

  it('makes one line per tax treatment, each taxed as the lines it came from', () => {
    const planned = invoice('2026-04-01', [line('31.00', { isTaxInclusive: true }), line('10.00')]);
    const uses = applyCoupons(SUB, [planned], [redeemed({ code: 'TEN' })], ['0.15']);
    // Two lines, one billed period used.
    expect([...uses]).toEqual([[11, 1]]);
    expect(planned.lines.slice(2)).toEqual([
      expect.objectContaining({ descrip: 'TEN: −10 %', unitCostEx: '-1.00' }),
      expect.objectContaining({ descrip: 'TEN: −10 %', unitCostEx: '-3.10', isTaxInclusive: true }),
    ]);
  });

  it('discounts once with a coupon redeemed on both the customer and the subscription', () => {
    const planned = invoice('2026-04-01', [line('30.00')]);
    const onCustomer = redeemed({ code: 'TEN' }, '2026-03-01', 0, 12);
    onCustomer.redemption.subscriptionId = null;
    const uses = applyCoupons(SUB, [planned], [onCustomer, redeemed({ code: 'TEN' })], []);
    expect(added(planned)).toEqual([['TEN: −10 %', '-3.00']]);
    expect([...uses]).toEqual([[11, 1]]);
  });

  it('leaves a fixed coupon in another currency alone', () => {
    const planned = invoice('2026-04-01', [line('30.00')]);
    const euro = redeemed({ discount: { kind: 'fixed', amountOffMinor: 500, currencyCode: 'EUR' } });
    expect([...applyCoupons(SUB, [planned], [euro], [])]).toEqual([]);
    expect(planned.lines).toHaveLength(1);
  });
});

describe('coupons on a period billed progressively (docs/usage.md, "Coupons")', () => {
  const listed = (planned: PlannedInvoice) =>
    planned.lines.reduce((sum, l) => sum + productToMinor(l.qty, l.unitCostEx, 'USD'), 0);
  const usage = (minor: number, extra: Partial<PlannedLine> = {}) =>
    line(minorToDecimalText(minor, 'USD'), { componentId: 5, ...extra });
  const bare = (lines: PlannedLine[]): PlannedInvoice => ({ ...invoice('2026-03-10', lines), period: null });

  it('costs what the period costs billed at once, whatever the usage, threshold and coupons', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.array(fc.integer({ min: -5_000, max: 60_000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 30_000 }),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: null }),
        fc.constantFrom([], ['0.15'], ['0.075', '0.2']),
        (planMinor, increments, thresholdMinor, percentOff, fixedMinor, taxPercs) => {
          const percent = { kind: 'percent' as const, percentOff: String(percentOff) };
          const fixed = { kind: 'fixed' as const, amountOffMinor: fixedMinor ?? 0, currencyCode: 'USD' };
          // Redeemed in the order given: the percentage, then the fixed amount on what it left.
          const coupons = [
            ...(percentOff === null ? [] : [redeemed({ code: 'P', discount: percent }, '2026-03-01', 0, 21)]),
            ...(fixedMinor === null ? [] : [redeemed({ code: 'F', discount: fixed }, '2026-03-01', 0, 22)]),
          ];
          const percentages = coupons.filter((c) => c.coupon.discount.kind === 'percent');
          let soFar = 0;
          let invoiced = 0;
          let discounted = 0;
          let chargedProgressively = 0;
          for (const increment of increments) {
            soFar += increment;
            if (soFar - invoiced < thresholdMinor) continue;
            const progressive = bare([usage(soFar - invoiced)]);
            applyCoupons(SUB, [progressive], percentages, taxPercs);
            const discount = progressive.lineDiscountsMinor?.[0] ?? 0;
            // What the invoice charged before tax is the usage less the discount it records.
            expect(listed(progressive)).toBe(soFar - invoiced - discount);
            expect(priceInvoice(progressive.lines, taxPercs, 'USD').totalMinor).toBeGreaterThanOrEqual(0);
            chargedProgressively += listed(progressive);
            invoiced += soFar - invoiced;
            discounted += discount;
          }
          const plan = line(minorToDecimalText(planMinor, 'USD'), { periodStart: '2026-03-10' });
          const deduction = invoiced - discounted;
          const final = bare([
            plan,
            usage(soFar),
            ...(deduction === 0 ? [] : [usage(-deduction, { isProgressiveDeduction: true })]),
          ]);
          applyCoupons(SUB, [final], coupons, taxPercs);
          const atOnce = bare([plan, usage(soFar)]);
          applyCoupons(SUB, [atOnce], coupons, taxPercs);
          expect(chargedProgressively + listed(final)).toBe(listed(atOnce));
        },
      ),
      { numRuns: 300 },
    );
  });
});
