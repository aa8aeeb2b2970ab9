/**
 * What billing reads besides the subscriptions' rows (packages, customers, recorded usage, taxes, coupon
 * redemptions), shared by the bill run (subscriptionBilling.service.ts) and the upcoming-invoice preview.
 */
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { PlannedInvoice, SubscriptionTimeline, UnbilledUsage } from './subscriptionBilling.ts';
import type { MeteredInputs, MeteringPlan } from './meteredUsage.service.ts';
import { rateChangesFor, taxesForSupplies, taxesOn } from '../../core/tax.ts';
import type { AppliedTax } from '../../core/tax.ts';
import {
  listTaxSettings,
  packageNamesByIds,
  rateTermsTaxInclusion,
  usagePricing,
} from '../catalogue/index.ts';
import { billingProfiles } from '../customers/index.ts';
import type { NewInvoice } from '../invoicing/index.ts';
import { carryNegativeTotal } from './negativeTotal.ts';
import type { CarriedInvoice } from './negativeTotal.ts';
import * as repo from './subscriptionBilling.repository.ts';
import { redemptionsForBilling } from '../coupons/index.ts';
import type { SubscriptionRecord } from './subscription.ts';
import { parsePendingChange, timelineOf } from './subscriptionTimeline.ts';
import { taxByRates } from './subscriptionTaxParts.ts';
import type { SupplyRates } from './subscriptionTaxParts.ts';

/** The usage rows waiting to be billed, priced by each subscription's component version in its currency. */
async function unbilledUsage(
  ctx: ServiceContext,
  rows: SubscriptionRecord[],
): Promise<{ bySubscription: Map<number, UnbilledUsage[]>; problems: Map<number, string> }> {
  const usageRows = await repo.listUnbilledUsage(
    ctx.db,
    ctx.account.id,
    rows.map((r) => r.id),
  );
  const pricing = await usagePricing(
    ctx,
    usageRows.map((u) => u.componentVersionId),
  );
  const currencyOf = new Map(rows.map((r) => [r.id, r.currencyCode]));
  const bySubscription = new Map<number, UnbilledUsage[]>();
  const problems = new Map<number, string>();
  for (const usage of usageRows) {
    const currency = currencyOf.get(usage.subscriptionId)!;
    const price = pricing.get(usage.componentVersionId);
    const brackets = price?.bracketsByCurrency.get(currency);
    if (!price || !brackets) {
      problems.set(
        usage.subscriptionId,
        `component version ${usage.componentVersionId} has no price in ${currency}`,
      );
      continue;
    }
    const list = bySubscription.get(usage.subscriptionId) ?? [];
    list.push({
      usageId: usage.id,
      componentId: price.componentId,
      label: price.name,
      unitName: price.unitName,
      periodStart: usage.periodStart,
      periodEnd: usage.periodEnd,
      units: usage.numUnits,
      scheme: price.scheme,
      brackets,
      pack: price.packByCurrency.get(currency) ?? null,
      isTaxInclusive: price.taxInclusiveByCurrency.get(currency) ?? ctx.account.isTaxInclusive,
    });
    bySubscription.set(usage.subscriptionId, list);
  }
  return { bySubscription, problems };
}

/** What billing the subscriptions needs besides their rows, read in a fixed number of statements. */
export async function billingInputs(ctx: ServiceContext, rows: SubscriptionRecord[]) {
  const [packages, customers, usage, taxSettings, inclusion, redemptions] = await Promise.all([
    packageNamesByIds(ctx, [...new Set(rows.map((r) => r.packageId))]),
    billingProfiles(
      ctx,
      rows.map((r) => r.customerId),
    ),
    unbilledUsage(ctx, rows),
    listTaxSettings(ctx),
    rateTermsTaxInclusion(
      ctx,
      [
        ...new Set(
          rows.flatMap((r) => [r.packageRateTermId, parsePendingChange(r.pendingChange)?.packageRateTermId]),
        ),
      ].filter((id): id is number => id !== undefined && id !== null),
    ),
    redemptionsForBilling(ctx, {
      customerIds: rows.map((r) => r.customerId),
      subscriptionIds: rows.map((r) => r.id),
    }),
  ]);
  // A rate's own setting, else the account's, resolved now: the invoice's lines keep what they were priced with.
  const rateInclusion = new Map(inclusion.map((r) => [r.id, r.isTaxInclusive]));
  const inclusiveOf = (rateTermId: number | undefined): boolean => {
    const own = rateTermId === undefined ? null : (rateInclusion.get(rateTermId) ?? null);
    return own === null ? ctx.account.isTaxInclusive : Boolean(own);
  };
  const packageNames = new Map(packages.map((p) => [p.id, p.name]));
  /** The customer's taxes on a planned invoice, at the rates in force when its lines are supplied (core/tax.ts). */
  const taxesOf = (customerId: number, planned: PlannedInvoice): AppliedTax[] =>
    taxesForSupplies(
      taxSettings,
      customers.get(customerId)!,
      planned.lines.map((line) => ({ start: line.periodStart, end: line.periodEnd })),
      planned.invoiceDate,
    );
  /** The customer's rates by day, for taxing each line at the rates of its supply (subscriptionTaxParts.ts). */
  const ratesOf = (customerId: number): SupplyRates => ({
    taxesOn: (date) => taxesOn(taxSettings, customers.get(customerId)!, date),
    changesWithin: (period) => rateChangesFor(taxSettings, customers.get(customerId)!, period),
  });
  /**
   * The invoice for a planned one: lines as planned, each taxed at the customer's rates of its supply (none when
   * waived; a period crossing a change of rate cut into parts, subscriptionTaxParts.ts), and a last line bringing a
   * Total below zero to 0.00, with the credit that line carries (negativeTotal.ts).
   */
  const toCarriedInvoice = (row: SubscriptionRecord, planned: PlannedInvoice): CarriedInvoice => {
    const { charges, taxes } = taxByRates(planned, ratesOf(row.customerId), row.currencyCode);
    return carryNegativeTotal({
      customerId: row.customerId,
      currencyCode: row.currencyCode,
      invoiceDate: planned.invoiceDate,
      source: 'Auto',
      isDraft: false,
      subscriptionId: row.id,
      // Its own collection when it names one; otherwise its invoices follow the customer's settings.
      collectionMethod: row.collectionMethod,
      gatewayId: row.gatewayId,
      customerPaymentMethodId: row.customerPaymentMethodId,
      charges,
      taxes,
    });
  };
  return {
    customers,
    usage,
    /** The live coupon redemptions of the subscriptions and their customers (subscriptionCoupons.ts). */
    redemptions,
    taxPercsOf: (row: SubscriptionRecord, planned: PlannedInvoice) =>
      taxesOf(row.customerId, planned).map((tax) => tax.perc),
    labelOf: (row: SubscriptionRecord) => packageNames.get(row.packageId) ?? `Package ${row.packageId}`,
    /** Whether the prices of its terms, and of its scheduled change's, include tax. */
    taxInclusionOf: (row: SubscriptionRecord) => ({
      terms: inclusiveOf(row.packageRateTermId),
      pending: inclusiveOf(parsePendingChange(row.pendingChange)?.packageRateTermId),
    }),
    toNewInvoice: (row: SubscriptionRecord, planned: PlannedInvoice): NewInvoice =>
      toCarriedInvoice(row, planned).invoice,
    toCarriedInvoice,
  };
}

export type BillingInputs = Awaited<ReturnType<typeof billingInputs>>;

/**
 * What reading the metered usage needs of each subscription: its timeline, its recorded usage and the date it is
 * billed through. A record the core cannot follow is left out (decideBilling parks it).
 */
export function meteringPlans(
  ctx: ServiceContext,
  rows: readonly SubscriptionRecord[],
  { usage, labelOf, taxInclusionOf }: BillingInputs,
  throughOf: (row: SubscriptionRecord, timeline: SubscriptionTimeline) => PlainDate | null,
): MeteringPlan[] {
  return rows.flatMap((row) => {
    try {
      const timeline = timelineOf(row, labelOf(row), ctx.account.timeZone, taxInclusionOf(row));
      const through = throughOf(row, timeline);
      const recorded = usage.bySubscription.get(row.id) ?? [];
      return through === null ? [] : [{ row, timeline, recorded, through }];
    } catch (error) {
      if (error instanceof BillingInvariantError) return [];
      throw error;
    }
  });
}

/** A subscription's usage to plan with: recorded per period, then read from events. */
export function usageToPlan(
  inputs: BillingInputs,
  metered: MeteredInputs,
  subscriptionId: number,
): UnbilledUsage[] {
  return [
    ...(inputs.usage.bySubscription.get(subscriptionId) ?? []),
    ...(metered.bySubscription.get(subscriptionId) ?? []),
  ];
}
