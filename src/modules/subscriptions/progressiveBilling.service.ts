import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText, wireAmountToMinor } from '../../core/money.ts';
import type { Db } from '../../storage/database.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { emitEvents } from '../events/index.ts';
import { BillingInvariantError, insertInvoices, queueInvoiceMails } from '../invoicing/index.ts';
import { pricedUsageSoFar } from './meteredUsage.service.ts';
import { progressiveInvoiceLines, progressiveText } from './progressiveBilling.ts';
import type { ProgressiveLine } from './progressiveBilling.ts';
import * as repo from './progressiveBilling.repository.ts';
import { listBilledMeteredUsage } from './meteredUsage.repository.ts';
import { findSubscriptionRecord, lockSubscriptionRecord } from './subscription.repository.ts';
import type { SubscriptionRecord } from './subscription.ts';
import type { PlannedInvoice, PlannedLine } from './subscriptionBilling.ts';
import { assertInvoiceWithinBounds } from './subscriptionBilling.service.ts';
import { billingInputs } from './subscriptionBillingInputs.service.ts';
import { currentUsagePeriod } from './subscriptionEditing.ts';
import { applyCoupons, couponSubscriptionOf } from './subscriptionCoupons.ts';
import type { PricedUsageSoFar } from './meteredUsage.service.ts';
import type { UsagePeriod } from './meteredUsage.ts';

/**
 * Progressive (threshold) billing (docs/usage.md, "Progressive billing"): a subscription with a threshold is
 * invoiced mid-period for its metered usage not invoiced yet once that reaches the threshold. Checked by the usage
 * alerts' rounds and on each day a test clock passes, never inside an event's insert, so that sending usage costs
 * nothing more (docs/spec-decisions.md, "Progressive billing").
 */

/** A subscription's progressive billing, as GET and PUT .../progressivebilling answer it. */
export interface ProgressiveBilling {
  subscriptionId: number;
  currencyCode: string;
  thresholdMinor: number | null;
  /** The usage period holding today, or null once billing stopped. */
  period: UsagePeriod | null;
  /** What this period's progressive invoices billed so far of its usage, and which they are. */
  invoicedMinor: number;
  /** What coupons took off it: the final invoice deducts the rest. */
  discountedMinor: number;
  invoiceIds: number[];
}

async function recordOrThrow(db: Db, accountId: number, subscriptionId: number): Promise<SubscriptionRecord> {
  const row = await findSubscriptionRecord(db, accountId, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return row;
}

/** GET /v1/subscriptions/{id}/progressivebilling. */
export async function getProgressiveBilling(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<ProgressiveBilling> {
  const row = await recordOrThrow(ctx.db, ctx.account.id, subscriptionId);
  const threshold = await repo.findThreshold(ctx.db, ctx.account.id, row.id);
  const period = await currentUsagePeriod(ctx, row, today(ctx));
  const billed =
    period === null
      ? []
      : await repo.listProgressiveUsageOfPeriod(ctx.db, ctx.account.id, row.id, period.start);
  return {
    subscriptionId: row.id,
    currencyCode: row.currencyCode,
    thresholdMinor: threshold ?? null,
    period,
    invoicedMinor: billed.reduce((sum, b) => sum + b.amountMinor, 0),
    discountedMinor: billed.reduce((sum, b) => sum + b.discountMinor, 0),
    invoiceIds: [...new Set(billed.map((b) => b.invoiceId))],
  };
}

/**
 * PUT /v1/subscriptions/{id}/progressivebilling: sets the threshold (a money amount in the subscription's
 * currency, above 0), or turns progressive billing off with null. What was invoiced this period stays deducted.
 */
export async function setProgressiveThreshold(
  ctx: ServiceContext,
  subscriptionId: number,
  threshold: string | number | null,
): Promise<ProgressiveBilling> {
  await withTransaction(ctx, async (tctx) => {
    const row = await lockSubscriptionRecord(tctx.db, ctx.account.id, subscriptionId);
    if (!row) throw new NotFoundError('Subscription', subscriptionId);
    let thresholdMinor: number | null = null;
    if (threshold !== null) {
      const read = wireAmountToMinor(threshold, row.currencyCode);
      if ('message' in read) throw ValidationError.field('ProgressiveBillingThreshold', read.message);
      thresholdMinor = read.minor;
    }
    await repo.saveThreshold(tctx.db, ctx.account.id, row.id, thresholdMinor, nowInstant(tctx));
    await emitEvents(tctx, [{ type: 'subscription.updated', ref: { type: 'subscription', id: row.id } }]);
  });
  return getProgressiveBilling(ctx, subscriptionId);
}

/** What a check did. */
export interface ProgressiveCheckSummary {
  /** Subscriptions with a threshold read. */
  subscriptions: number;
  /** Progressive invoices made. */
  invoices: number;
  /** Subscriptions whose usage could not be read or invoiced (logged). */
  failures: number;
}

/** The accounts with a subscription billed progressively, for the rounds that check them. */
export function accountsWithProgressiveBilling(db: Db): Promise<number[]> {
  return repo.listAccountsWithThresholds(db);
}

/**
 * Checks the account's subscriptions with a threshold (all, or those of the customers whose events arrived) and
 * invoices each whose usage not invoiced yet reaches it. One subscription's failure is logged and counted; the
 * others are still checked.
 */
export async function invoiceProgressiveUsage(
  ctx: ServiceContext,
  which: { customerIds: readonly number[] } | 'all',
): Promise<ProgressiveCheckSummary> {
  const summary: ProgressiveCheckSummary = { subscriptions: 0, invoices: 0, failures: 0 };
  const thresholds = await repo.listThresholds(
    ctx.db,
    ctx.account.id,
    which === 'all' ? 'all' : which.customerIds,
  );
  for (const { subscriptionId } of thresholds) {
    summary.subscriptions += 1;
    try {
      if (await invoiceSubscriptionUsage(ctx, subscriptionId)) summary.invoices += 1;
    } catch (error) {
      summary.failures += 1;
      ctx.log.warn({ err: error, subscriptionId }, 'progressive billing of a subscription failed');
    }
  }
  return summary;
}

/**
 * One subscription's check, under its lock: the threshold and the period's progressive invoices are read again
 * there, so two checks at once make one invoice between them. Returns the invoice made, if any.
 */
async function invoiceSubscriptionUsage(ctx: ServiceContext, subscriptionId: number): Promise<number | null> {
  const made = await withTransaction(ctx, async (tctx) => {
    const row = await lockSubscriptionRecord(tctx.db, ctx.account.id, subscriptionId);
    if (!row || row.parkedReason !== null) return null;
    const thresholdMinor = await repo.findThreshold(tctx.db, ctx.account.id, row.id);
    if (thresholdMinor === undefined) return null;
    const on = today(tctx);
    const period = await currentUsagePeriod(tctx, row, on);
    // Not before the period starts (a future subscription), and never for a period that is over: its final
    // invoice bills what is left.
    if (period === null || period.start > on) return null;
    // A period billed up to a stop since undone (a reactivation) bills its rest at its end, as before: its usage
    // so far holds what that stop's invoice billed (docs/usage.md, "Reactivating").
    if (await billedInPart(tctx, row.id, period)) return null;
    const soFar = await pricedUsageSoFar(tctx, row, period);
    const invoiced = await repo.listProgressiveUsageOfPeriod(tctx.db, ctx.account.id, row.id, period.start);
    const lines = progressiveInvoiceLines(soFar, invoiced, thresholdMinor);
    if (lines === null) return null;
    return makeProgressiveInvoice(tctx, row, period, on, soFar, lines);
  });
  if (made === null) return null;
  if (made.mailed) ctx.mailQueued();
  return made.invoiceId;
}

async function billedInPart(
  ctx: ServiceContext,
  subscriptionId: number,
  period: UsagePeriod,
): Promise<boolean> {
  const billed = await listBilledMeteredUsage(ctx.db, ctx.account.id, [subscriptionId], period.start);
  return billed.some((b) => b.periodStart === period.start);
}

/**
 * The progressive invoice: a line per component and group with its quantity so far and the amount not invoiced
 * yet, discounted by the percentages of its coupons, taxed as the final invoice would be (the customer's taxes, the
 * component's tax inclusion), paid from prepaid credit at issue and collected like any invoice of the subscription
 * (its own collection, else the customer's).
 */
async function makeProgressiveInvoice(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  period: UsagePeriod,
  on: string,
  soFar: readonly PricedUsageSoFar[],
  lines: readonly ProgressiveLine[],
): Promise<{ invoiceId: number; mailed: boolean } | null> {
  const inputs = await billingInputs(ctx, [row]);
  const customer = inputs.customers.get(row.customerId);
  // A held customer's usage waits, as its bill run does; a currency mismatch is the bill run's to park.
  if (!customer || customer.isBillable === false || customer.currencyCode !== row.currencyCode) return null;
  const planned: PlannedInvoice = {
    invoiceDate: on,
    lines: lines.map((line) => plannedLine(line, soFar, period, on, row.currencyCode)),
    usageIds: [],
    period: null,
  };
  // A percentage discounts the usage as it is invoiced, as it will the final invoice; a fixed amount is the period's
  // and the final invoice takes it whole. Neither counts a billed period: the final invoice does (docs/usage.md,
  // "Coupons").
  const percentages = inputs.redemptions.filter(({ coupon }) => coupon.discount.kind === 'percent');
  applyCoupons(couponSubscriptionOf(row), [planned], percentages, inputs.taxPercsOf(row, planned));
  const invoice = inputs.toNewInvoice(row, planned);
  try {
    assertInvoiceWithinBounds(invoice);
  } catch (error) {
    if (!(error instanceof BillingInvariantError)) throw error;
    ctx.log.warn({ subscriptionId: row.id, reason: error.message }, 'progressive invoice not made');
    return null;
  }
  const [invoiceId] = await insertInvoices(ctx, [invoice]);
  const now = nowInstant(ctx);
  await repo.insertProgressiveUsage(
    ctx.db,
    ctx.account.id,
    lines.map((line, i) => ({
      subscriptionId: row.id,
      componentId: line.componentId,
      group: line.group,
      periodStart: period.start,
      periodEnd: period.end,
      quantity: line.quantity,
      amountMinor: line.amountMinor,
      discountMinor: planned.lineDiscountsMinor?.[i] ?? 0,
      invoiceId: invoiceId!,
    })),
    now,
  );
  const sent = customer.sendsInvoices ? await queueInvoiceMails(ctx, [invoiceId!]) : [];
  // insertInvoices emitted invoice.created.
  await emitEvents(
    ctx,
    sent.map((id) => ({ type: 'invoice.sent', ref: { type: 'invoice', id } })),
  );
  return { invoiceId: invoiceId!, mailed: sent.length > 0 };
}

function plannedLine(
  line: ProgressiveLine,
  soFar: readonly PricedUsageSoFar[],
  period: UsagePeriod,
  on: string,
  currencyCode: string,
): PlannedLine {
  const usage = soFar.find((u) => u.componentId === line.componentId && u.group === line.group)!;
  const label = usage.group ? `${usage.label} (${usage.group})` : usage.label;
  return {
    descrip: progressiveText(label, usage.quantity, usage.unitName, on),
    qty: '1',
    unitCostEx: minorToDecimalText(line.amountMinor, currencyCode),
    periodStart: period.start,
    periodEnd: period.end,
    ...(usage.isTaxInclusive ? { isTaxInclusive: true as const } : {}),
    metered: { metricCode: usage.metricCode, group: usage.group, quantity: usage.quantity },
    componentId: usage.componentId,
  };
}

/** Threshold in wire form: "100.00" in the currency's minor digits, or null. */
export function thresholdText(progressive: ProgressiveBilling): string | null {
  return progressive.thresholdMinor === null
    ? null
    : minorToDecimalText(progressive.thresholdMinor, progressive.currencyCode);
}
