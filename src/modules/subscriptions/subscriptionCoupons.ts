import { minorToDecimalText, productToMinor } from '../../core/money.ts';
import { priceInvoice } from '../invoicing/index.ts';
import { couponAppliesToLine, discountLineText, discountLines, periodsLeft } from '../coupons/index.ts';
import type { AppliedRedemption, CouponLineSource, PeriodFraction } from '../coupons/index.ts';
import type { PlannedInvoice, PlannedLine } from './subscriptionBilling.ts';
import type { SubscriptionRecord } from './subscription.ts';
import { parsePendingChange } from './subscriptionTimeline.ts';

/**
 * Coupons on a subscription's planned invoices, as the bill run and the upcoming-invoice preview both apply them
 * (docs/credits.md, "Coupons"): each invoice with lines gets, for every redemption that applies to it, one
 * discount line naming the coupon (coupons' discounts.ts decides the amounts), and each invoice a redemption
 * discounts counts one of its billed periods.
 */

/** What applying coupons needs to know of the subscription. */
export interface CouponSubscription {
  id: number;
  customerId: number;
  currencyCode: string;
  packageId: number;
  /** A scheduled change of package: the periods starting on or after its date are billed on its package. */
  pendingChange: { effectiveDate: string; packageId: number } | null;
}

/** Billed periods each redemption discounted, to be added to its PeriodsUsed. */
export type CouponUses = Map<number, number>;

/** The redemptions of these that reach the subscription: its own and its customer's, oldest first. */
export function redemptionsOf(
  subscription: Pick<CouponSubscription, 'id' | 'customerId'>,
  redemptions: readonly AppliedRedemption[],
): AppliedRedemption[] {
  return redemptions.filter(
    ({ redemption }) =>
      redemption.subscriptionId === subscription.id ||
      (redemption.subscriptionId === null && redemption.customerId === subscription.customerId),
  );
}

/**
 * Adds the coupons' discount lines to the planned invoices, in date order, and returns the billed periods each
 * redemption discounted. `usedBefore` holds the periods already counted earlier in the same pass (a customer's
 * redemption reaches each of its subscriptions). The invoices' lines are extended in place.
 */
export function applyCoupons(
  subscription: CouponSubscription,
  invoices: readonly PlannedInvoice[],
  redemptions: readonly AppliedRedemption[],
  taxPercs: readonly string[],
  usedBefore: ReadonlyMap<number, number> = new Map(),
): CouponUses {
  const mine = redemptionsOf(subscription, redemptions);
  const used: CouponUses = new Map();
  const usedSoFar = (id: number) => (usedBefore.get(id) ?? 0) + (used.get(id) ?? 0);
  for (const planned of invoices) {
    if (planned.lines.length === 0 || mine.length === 0) continue;
    const applying = mine.filter(({ redemption, coupon }) => {
      if (redemption.redeemedOn > planned.invoiceDate) return false;
      if (coupon.discount.kind === 'fixed' && coupon.discount.currencyCode !== subscription.currencyCode)
        return false;
      return periodsLeft(coupon, redemption.periodsUsed + usedSoFar(redemption.id)) !== 0;
    });
    if (applying.length === 0) continue;
    for (const { redemptionId, line } of discountFor(subscription, planned, applying, taxPercs)) {
      planned.lines.push(line);
      used.set(redemptionId, (used.get(redemptionId) ?? 0) + 1);
    }
  }
  return used;
}

/** Adds one subscription's uses to the pass's. */
export function addUses(total: CouponUses, uses: CouponUses): void {
  for (const [id, periods] of uses) total.set(id, (total.get(id) ?? 0) + periods);
}

/** What applying coupons needs of a subscription: its package, and its scheduled change's. */
export function couponSubscriptionOf(row: SubscriptionRecord): CouponSubscription {
  const pending = parsePendingChange(row.pendingChange);
  return {
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    packageId: row.packageId,
    pendingChange: pending && { effectiveDate: pending.effectiveDate, packageId: pending.packageId },
  };
}

/** Lines a coupon takes its discount from: per tax treatment, so each discount line is taxed as its lines. */
function discountFor(
  subscription: CouponSubscription,
  planned: PlannedInvoice,
  applying: readonly AppliedRedemption[],
  taxPercs: readonly string[],
): { redemptionId: number; line: PlannedLine }[] {
  const { currencyCode } = subscription;
  const sources = planned.lines.map((line) => sourceOf(subscription, planned, line));
  const fraction: PeriodFraction | null = planned.period?.proration
    ? { numerator: planned.period.proration.days, denominator: planned.period.proration.termDays }
    : null;
  const results = discountLines(
    planned.lines.map((line) => ({ amountMinor: productToMinor(line.qty, line.unitCostEx, currencyCode) })),
    applying.map(({ coupon }) => ({
      discount: coupon.discount,
      eligible: sources.map((source) => couponAppliesToLine(coupon, source)),
    })),
    fraction,
  );
  const made: { redemptionId: number; line: PlannedLine }[] = [];
  results.forEach((result, c) => {
    if (result.totalMinor === 0) return;
    const { redemption, coupon } = applying[c]!;
    const text = discountLineText(coupon, coupon.discount.kind === 'fixed' ? fraction : null);
    for (const inclusive of [false, true]) {
      const amount = result.perLineMinor.reduce(
        (sum, minor, i) => (Boolean(planned.lines[i]!.isTaxInclusive) === inclusive ? sum + minor : sum),
        0,
      );
      if (amount === 0) continue;
      made.push({
        redemptionId: redemption.id,
        line: {
          descrip: text,
          qty: '1',
          unitCostEx: minorToDecimalText(-amount, currencyCode),
          periodStart: planned.period?.start ?? null,
          periodEnd: planned.period?.end ?? null,
          ...(inclusive ? { isTaxInclusive: true as const } : {}),
        },
      });
    }
  });
  keepTotalAtZeroOrAbove(planned.lines, made, taxPercs, currencyCode);
  return made;
}

/**
 * Each line's tax is rounded on its own (invoicing's invoiceMath.ts), so a discount line's tax can be a cent more
 * than the taxes it takes back (three lines of 0.03 at 15 % carry no tax; their 0.09 off carries −0.01): where
 * that would take the Total below zero, the last discount line gives back a unit at a time until it does not.
 */
function keepTotalAtZeroOrAbove(
  lines: readonly PlannedLine[],
  made: { line: PlannedLine }[],
  taxPercs: readonly string[],
  currencyCode: string,
): void {
  const before = priceInvoice(lines, taxPercs, currencyCode).totalMinor;
  if (before < 0 || made.length === 0) return;
  const last = made.at(-1)!;
  let amountMinor = -productToMinor('1', last.line.unitCostEx, currencyCode);
  const total = () => priceInvoice([...lines, ...made.map((m) => m.line)], taxPercs, currencyCode).totalMinor;
  while (amountMinor > 0 && total() < 0) {
    amountMinor -= 1;
    last.line = { ...last.line, unitCostEx: minorToDecimalText(-amountMinor, currencyCode) };
  }
}

/** The line's package (the one its period is billed on) or component, for AppliesTo. */
function sourceOf(
  subscription: CouponSubscription,
  planned: PlannedInvoice,
  line: PlannedLine,
): CouponLineSource {
  if (line.componentId !== undefined) return { kind: 'component', componentId: line.componentId };
  const change = subscription.pendingChange;
  const changed = change !== null && planned.period !== null && change.effectiveDate <= planned.period.start;
  return { kind: 'package', packageId: changed ? change.packageId : subscription.packageId };
}
