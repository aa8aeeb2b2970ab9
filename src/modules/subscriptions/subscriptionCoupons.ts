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

/**
 * The redemptions of these that reach the subscription: its own and its customer's, oldest first. A coupon redeemed
 * on both discounts once, as the subscription's own.
 */
export function redemptionsOf(
  subscription: Pick<CouponSubscription, 'id' | 'customerId'>,
  redemptions: readonly AppliedRedemption[],
): AppliedRedemption[] {
  const own = redemptions.filter(({ redemption }) => redemption.subscriptionId === subscription.id);
  const ownCoupons = new Set(own.map(({ coupon }) => coupon.id));
  return redemptions.filter(
    ({ redemption, coupon }) =>
      redemption.subscriptionId === subscription.id ||
      (redemption.subscriptionId === null &&
        redemption.customerId === subscription.customerId &&
        !ownCoupons.has(coupon.id)),
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
    const made = discountFor(subscription, planned, applying, taxPercs);
    planned.lines.push(...made.map(({ line }) => line));
    // One billed period per invoice a redemption discounts, however many lines its discount takes.
    for (const redemptionId of new Set(made.map((m) => m.redemptionId))) {
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

/**
 * The discount lines of the coupons applying to one invoice, one per coupon and tax treatment, so that each is taxed
 * as the lines it came from. The period's amount is lowered by what they take of the period's line: a credit for the
 * unused part of a discounted period gives back what was paid, not the list price (docs/credits.md, "How a discount
 * shows on an invoice").
 */
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
  const amounts = planned.lines.map((line) => productToMinor(line.qty, line.unitCostEx, currencyCode));
  const isDeduction = (i: number) => Boolean(planned.lines[i]!.isProgressiveDeduction);
  const results = discountLines(
    amounts.map((amountMinor, i) => ({ amountMinor, isDeduction: isDeduction(i) })),
    applying.map(({ coupon }) => ({
      discount: coupon.discount,
      eligible: sources.map((source) => couponAppliesToLine(coupon, source)),
    })),
    fraction,
  );
  const discountLine = (c: number, amountMinor: number, inclusive: boolean) => {
    const { redemption, coupon } = applying[c]!;
    return {
      redemptionId: redemption.id,
      line: {
        descrip: discountLineText(coupon, coupon.discount.kind === 'fixed' ? fraction : null),
        qty: '1',
        unitCostEx: minorToDecimalText(-amountMinor, currencyCode),
        periodStart: planned.period?.start ?? null,
        periodEnd: planned.period?.end ?? null,
        ...(inclusive ? { isTaxInclusive: true as const } : {}),
      },
    };
  };
  const isInclusive = (i: number) => Boolean(planned.lines[i]!.isTaxInclusive);
  let made = results.flatMap((result, c) =>
    [false, true].flatMap((inclusive) => {
      const amount = result.perLineMinor.reduce(
        (sum, minor, i) => (isInclusive(i) === inclusive ? sum + minor : sum),
        0,
      );
      return amount === 0 ? [] : [discountLine(c, amount, inclusive)];
    }),
  );
  const discountedMinor = amounts.map((_, i) =>
    results.reduce((sum, result) => sum + result.perLineMinor[i]!, 0),
  );
  // A deduction of what progressive invoices billed stays out of both checks: what it takes below zero is the
  // customer's credit (coupons' discounts.ts).
  const charged = planned.lines.filter((_, i) => !isDeduction(i));
  if (
    amounts.every((amount, i) => isDeduction(i) || (amount >= 0 && discountedMinor[i] === amount)) &&
    !totalIsZero(charged, made, taxPercs, currencyCode)
  ) {
    // Everything is discounted, yet each line's tax is rounded on its own (invoicing's invoiceMath.ts), so one
    // discount line's tax can differ by a cent from the taxes of the lines it takes: a discount line per line taken
    // gives back each line's own tax, and the Total is exactly zero.
    made = results.flatMap((result, c) =>
      result.perLineMinor.flatMap((minor, i) =>
        minor === 0 ? [] : [discountLine(c, minor, isInclusive(i))],
      ),
    );
  } else {
    keepTotalAtZeroOrAbove(charged, made, taxPercs, currencyCode);
  }
  planned.lineDiscountsMinor = lessGivenBack(discountedMinor, made, currencyCode);
  lowerPeriodAmount(planned, planned.lineDiscountsMinor);
  return made;
}

/**
 * The lines' discounts as the discount lines finally take them: what keepTotalAtZeroOrAbove gave back comes off the
 * last lines discounted, so that the parts add up to the discount lines (a progressive invoice's deduction later
 * nets exactly what was charged).
 */
function lessGivenBack(
  discountedMinor: readonly number[],
  made: readonly { line: PlannedLine }[],
  currencyCode: string,
): number[] {
  const taken = made.reduce((sum, m) => sum - productToMinor('1', m.line.unitCostEx, currencyCode), 0);
  let givenBack = discountedMinor.reduce((sum, minor) => sum + minor, 0) - taken;
  const shares = [...discountedMinor];
  for (let i = shares.length - 1; i >= 0 && givenBack > 0; i -= 1) {
    const back = Math.min(givenBack, shares[i]!);
    shares[i] = shares[i]! - back;
    givenBack -= back;
  }
  return shares;
}

function totalIsZero(
  lines: readonly PlannedLine[],
  made: readonly { line: PlannedLine }[],
  taxPercs: readonly string[],
  currencyCode: string,
): boolean {
  return priceInvoice([...lines, ...made.map((m) => m.line)], taxPercs, currencyCode).totalMinor === 0;
}

/** The period's line is the one without a component that spans the period (a setup fee has no dates). */
function lowerPeriodAmount(planned: PlannedInvoice, discountedMinor: readonly number[]): void {
  const period = planned.period;
  if (period === null) return;
  const i = planned.lines.findIndex(
    (line) =>
      line.componentId === undefined && line.periodStart === period.start && line.periodEnd === period.end,
  );
  if (i >= 0) period.amountMinor = Math.max(0, period.amountMinor - discountedMinor[i]!);
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
