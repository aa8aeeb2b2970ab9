import { inTransaction, nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceBoundsProblem } from '../invoicing/index.ts';
import { planBilling } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import type { BillingPlan, PlannedInvoice } from './subscriptionBilling.ts';
import { finalCorrectionOfRecord, meteredUsageOf } from './meteredUsage.service.ts';
import type { MeteredInputs } from './meteredUsage.service.ts';
import { insertBilledMeteredUsage } from './meteredUsage.repository.ts';
import { eventsUnbilledAtStop } from './meteredUsage.ts';
import type { BilledMeteredUsage } from './meteredUsage.repository.ts';
import { insertInvoices, payIssuedWithCredit, queueInvoiceMails } from '../invoicing/index.ts';
import type { NewInvoice } from '../invoicing/index.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import { subscriptionRef } from './subscriptionEvents.ts';
import type { CarriedInvoice } from './negativeTotal.ts';
import { invoiceOfTime, issueSubscriptionCredit } from './subscriptionCredits.service.ts';
import { withLockedCustomers } from '../ledger/index.ts';
import * as repo from './subscriptionBilling.repository.ts';
import type { NewSubscriptionPeriod } from './subscriptionBilling.repository.ts';
import { lockSubscriptionRecord } from './subscription.repository.ts';
import { recordPeriodsUsed } from '../coupons/index.ts';
import { addUses, applyCoupons, couponSubscriptionOf } from './subscriptionCoupons.ts';
import type { CouponUses } from './subscriptionCoupons.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';
import { billingInputs, meteringPlans, usageToPlan } from './subscriptionBillingInputs.service.ts';
import type { BillingInputs } from './subscriptionBillingInputs.service.ts';
import { packageTermsFields, parsePendingChange, timelineOf } from './subscriptionTimeline.ts';

/** What one pass of billing did. */
export interface BillingOutcome {
  /** Subscriptions looked at. */
  subscriptions: number;
  invoiceIds: number[];
  parked: number;
}

/** A plan for one subscription, or the reason it cannot be billed. */
type Decision =
  { row: SubscriptionRecord; plan: BillingPlan } | { row: SubscriptionRecord; parkReason: string };

/**
 * A billed subscription's event: `renewed` when a term was billed (its lastRenewDate set or moved on),
 * `future_change_applied` when its scheduled change took effect, else `updated` (its schedule moved, or it
 * was parked).
 */
function billingEvent(decision: Decision, before?: Snapshot): EventToEmit {
  const ref = subscriptionRef(decision.row.id);
  if (!('plan' in decision)) return { type: 'subscription.updated', ref, ...(before ? { before } : {}) };
  const { next } = decision.plan;
  // A term billed, the first one included: its object tells the new dates, so no `before` is rendered for it.
  const renewed =
    next.lastRenewDate !== undefined &&
    next.lastRenewDate !== null &&
    next.lastRenewDate !== decision.row.lastRenewDate;
  const type = next.pendingChangeApplied
    ? 'subscription.future_change_applied'
    : renewed
      ? 'subscription.renewed'
      : 'subscription.updated';
  return { type, ref, ...(before ? { before } : {}) };
}

/**
 * The periods a subscription missed when it is created (or its start moved) in the past, billed on one invoice
 * dated as the latest of them, a line per period with its service period, as Kill Bill's catch-up billing does:
 * one invoice and one e-mail instead of one per period (docs/spec-decisions.md, "Subscription lifecycle and
 * billing"). Each period keeps its own record, so none is billed twice.
 */
function catchUpInvoice(billed: PlannedInvoice[]): PlannedInvoice {
  if (billed.length === 1) return billed[0]!;
  return {
    invoiceDate: billed.at(-1)!.invoiceDate,
    lines: billed.flatMap((planned) => planned.lines),
    usageIds: billed.flatMap((planned) => planned.usageIds),
    period: null,
  };
}

/**
 * Plans and records the invoices of the given subscriptions (read and held by the caller's transaction) as of
 * `today`. Each subscription's periods, invoices, usage marks and new schedule land together or not at all.
 * A subscription whose record breaks an invariant is parked (not billed, the reason kept) rather than billed
 * wrongly. The unique (subscription, period number) makes a second invoice for a period impossible.
 */
async function billRows(
  ctx: ServiceContext,
  rows: SubscriptionRecord[],
  today: PlainDate,
  catchUp = false,
): Promise<BillingOutcome> {
  if (rows.length === 0) return { subscriptions: 0, invoiceIds: [], parked: 0 };
  const inputs = await billingInputs(ctx, rows);
  const metered = await meteredUsageOf(
    ctx,
    meteringPlans(ctx, rows, inputs, () => today),
  );
  const couponUses: CouponUses = new Map();
  const decisions = decideBilling(ctx, rows, inputs, metered, today, couponUses);
  const before = await snapshotUnlessRenewed(ctx, decisions);
  const invoices = invoicesToMake(decisions, inputs, today, catchUp);
  const invoiceIds = await insertInvoices(ctx, invoices.list, { payWithCredit: false });
  const writes = { ...billingWrites(ctx, decisions, invoices.indexOf, invoiceIds, metered), couponUses };
  await recordBilling(ctx, writes);
  await creditCarriedTotals(ctx, invoices.carried);
  // The customer's own money first, the usage credits just issued among it; then its credit grants
  // (docs/credits.md, "Consumption order").
  await payIssuedWithCredit(ctx, invoices.list, invoiceIds);
  const sent = await mailInvoices(ctx, invoices.list, invoiceIds, inputs.customers);
  // One call for the whole stretch: the bill run's speed depends on it.
  await emitEvents(ctx, [
    ...sent.map((id) => ({ type: 'invoice.sent', ref: { type: 'invoice', id } })),
    ...decisions.map((decision) => billingEvent(decision, before.get(decision.row.id))),
  ]);
  return { subscriptions: rows.length, invoiceIds, parked: writes.parked };
}

/**
 * Each billable subscription's plan (planBilling), or the reason it is parked. A held customer's subscriptions
 * wait, neither billed nor parked (the bill run's own query skips them too).
 */
function decideBilling(
  ctx: ServiceContext,
  rows: readonly SubscriptionRecord[],
  inputs: BillingInputs,
  metered: MeteredInputs,
  today: PlainDate,
  couponUses: CouponUses,
): Decision[] {
  const { customers, usage, labelOf, taxInclusionOf, toNewInvoice } = inputs;
  const billable = rows.filter((row) => customers.get(row.customerId)?.isBillable !== false);
  return billable.map((row) => {
    const customer = customers.get(row.customerId);
    const problem = usage.problems.get(row.id) ?? metered.problems.get(row.id);
    if (!customer) return { row, parkReason: `customer ${row.customerId} not found` };
    if (customer.currencyCode !== row.currencyCode) {
      return {
        row,
        parkReason: `the subscription is in ${row.currencyCode} but its customer is billed in ${customer.currencyCode}`,
      };
    }
    if (problem) return { row, parkReason: problem };
    try {
      const timeline = {
        ...timelineOf(row, labelOf(row), ctx.account.timeZone, taxInclusionOf(row)),
        eventsUnbilledAtStop: eventsOwedAtStop(row, metered, today),
        finalCorrectionOn: finalCorrectionOfRecord(ctx, row, metered.billingEvents.has(row.id)),
      };
      const plan = planBilling(timeline, usageToPlan(inputs, metered, row.id), today);
      const { redemptions, taxPercsOf } = inputs;
      // One invoice at a time: each is taxed at the rates of its own supplies (docs/tax.md).
      const uses: CouponUses = new Map();
      for (const planned of plan.invoices) {
        const usedBefore = new Map(couponUses);
        addUses(usedBefore, uses);
        const subscription = couponSubscriptionOf(row);
        addUses(
          uses,
          applyCoupons(subscription, [planned], redemptions, taxPercsOf(row, planned), usedBefore),
        );
      }
      for (const planned of plan.invoices) assertInvoiceWithinBounds(toNewInvoice(row, planned));
      addUses(couponUses, uses);
      return { row, plan };
    } catch (error) {
      if (error instanceof BillingInvariantError) return { row, parkReason: error.message };
      throw error;
    }
  });
}

/**
 * The stop day whose last invoice of usage read from events is still owed (eventsUnbilledAtStop), as the bill run
 * knows it, having read the events through today: once the stop is past, a read that found no period left to bill
 * means nothing is owed, and the subscription is not left due for ever with an empty upcoming invoice
 * (docs/spec-decisions.md, "Usage billed from events").
 */
function eventsOwedAtStop(
  row: SubscriptionRecord,
  metered: MeteredInputs,
  today: PlainDate,
): PlainDate | null {
  const stop = eventsUnbilledAtStop(row, metered.billingEvents.has(row.id));
  if (stop === null || stop > today) return stop;
  return (metered.bySubscription.get(row.id) ?? []).length > 0 ? stop : null;
}

/**
 * Throws BillingInvariantError, so that the bill run parks the subscription, when its invoice could not be made:
 * usage priced beyond the bound of an amount would otherwise be issued as figures no double holds exactly, or fail
 * the bill run's stretch each day (modules/invoicing/invoiceMath.ts, invoiceBoundsProblem).
 */
export function assertInvoiceWithinBounds(invoice: NewInvoice): void {
  const taxPercs = invoice.taxes.map((tax) => tax.perc);
  const problem = invoiceBoundsProblem(invoice.charges, taxPercs, invoice.currencyCode);
  if (problem) throw new BillingInvariantError(`its invoice of ${invoice.invoiceDate}: ${problem}`);
}

/**
 * The subscriptions as they were, for their event's `previous`: only those not renewed (an applied change, a parked
 * one). A renewal is told by the object after it; rendering every billed subscription twice would make events most
 * of a bill run's work.
 */
function snapshotUnlessRenewed(ctx: ServiceContext, decisions: readonly Decision[]) {
  return snapshotResources(
    ctx,
    'subscription',
    decisions
      .filter((decision) => billingEvent(decision).type !== 'subscription.renewed')
      .map((d) => d.row.id),
  );
}

/** A credit an invoice carried (carryNegativeTotal), with its subscription. */
interface CarriedCredit {
  row: SubscriptionRecord;
  invoiceDate: PlainDate;
  carried: CarriedInvoice;
}

/**
 * The invoices the plans make, which of them each planned invoice went on, and the credits they carry. Invoices
 * with no lines (a free trial) are not made; their period is still recorded. With `catchUp`, periods missed (begun
 * before today) are billed with the rest on one invoice.
 */
function invoicesToMake(
  decisions: readonly Decision[],
  { toCarriedInvoice }: BillingInputs,
  today: PlainDate,
  catchUp: boolean,
): { list: NewInvoice[]; indexOf: Map<PlannedInvoice, number>; carried: CarriedCredit[] } {
  const list: NewInvoice[] = [];
  const indexOf = new Map<PlannedInvoice, number>();
  const carried: CarriedCredit[] = [];
  for (const decision of decisions) {
    if (!('plan' in decision)) continue;
    const billed = decision.plan.invoices.filter((planned) => planned.lines.length > 0);
    const missed = billed.some((planned) => planned.period !== null && planned.period.start < today);
    for (const group of catchUp && missed ? [billed] : billed.map((planned) => [planned])) {
      for (const planned of group) indexOf.set(planned, list.length);
      const made = toCarriedInvoice(decision.row, catchUpInvoice(group));
      if (made.creditMinor > 0) {
        carried.push({ row: decision.row, invoiceDate: made.invoice.invoiceDate, carried: made });
      }
      list.push(made.invoice);
    }
  }
  return { list, indexOf, carried };
}

/**
 * Issues what the invoices below zero carried as their subscriptions' credits, dated as their invoice and
 * auto-applied to the customers' earliest open invoices, as a cancellation's credit is; the rest stays as the
 * customer's credit (docs/spec-decisions.md, "Usage billed from events"). The customers'
 * locks are taken at once, in id order, as for any batch of money movements.
 */
async function creditCarriedTotals(ctx: ServiceContext, carried: readonly CarriedCredit[]): Promise<void> {
  if (carried.length === 0) return;
  const customerIds = [...new Set(carried.map((credit) => credit.row.customerId))];
  await withLockedCustomers(ctx, customerIds, async (tctx) => {
    for (const { row, invoiceDate, carried: made } of carried) {
      const period = made.creditPeriod ?? { start: invoiceDate, end: invoiceDate };
      await issueSubscriptionCredit(
        tctx,
        row,
        {
          amountMinor: made.creditMinor,
          descrip: `Credit carried: ${period.start} to ${period.end}`,
          ...period,
          invoiceId: await invoiceOfTime(tctx, row.id, period.start),
        },
        { date: invoiceDate, autoApply: true },
      );
    }
  });
}

/** What billing writes besides the invoices, gathered to be made with a few multi-row statements. */
interface BillingWrites {
  periods: NewSubscriptionPeriod[];
  updates: { id: number; changes: SubscriptionChanges }[];
  usageMarks: { usageId: number; invoiceId: number; subscriptionId: number }[];
  /** The metered usage billed, stored with its invoice. */
  metered: BilledMeteredUsage[];
  parked: number;
  /** Billed periods each coupon redemption discounted. */
  couponUses?: CouponUses;
}

/**
 * Each decision's writes: a parked subscription its reason; a planned one its periods (with the invoice that bills
 * each, if any), its usage marked with its invoice, and its record moved on (an applied change's terms included).
 */
function billingWrites(
  ctx: ServiceContext,
  decisions: readonly Decision[],
  invoiceIndex: ReadonlyMap<PlannedInvoice, number>,
  invoiceIds: readonly number[],
  metered: MeteredInputs,
): BillingWrites {
  const now = nowInstant(ctx);
  const writes: BillingWrites = { periods: [], updates: [], usageMarks: [], metered: [], parked: 0 };
  for (const decision of decisions) {
    const { row } = decision;
    if (!('plan' in decision)) {
      writes.parked += 1;
      writes.updates.push({
        id: row.id,
        changes: { parkedReason: decision.parkReason, parkedAt: now, updatedAt: now },
      });
      ctx.log.warn({ subscriptionId: row.id, reason: decision.parkReason }, 'subscription parked');
      continue;
    }
    for (const planned of decision.plan.invoices) {
      const index = invoiceIndex.get(planned);
      const invoiceId = index === undefined ? null : invoiceIds[index]!;
      if (invoiceId !== null) {
        for (const usageId of planned.usageIds) {
          // Usage read from events has no row yet: it is stored now, with the invoice that bills it.
          const read = metered.toStore.get(usageId);
          if (read) writes.metered.push({ ...read, invoiceId });
          else writes.usageMarks.push({ usageId, invoiceId, subscriptionId: row.id });
        }
      }
      if (planned.period) writes.periods.push(billedPeriod(row.id, planned.period, invoiceId));
    }
    writes.updates.push({ id: row.id, changes: nextRecord(row, decision.plan.next, now) });
  }
  return writes;
}

function billedPeriod(
  subscriptionId: number,
  period: NonNullable<PlannedInvoice['period']>,
  invoiceId: number | null,
): NewSubscriptionPeriod {
  return {
    subscriptionId,
    periodNo: period.periodNo,
    periodStart: period.start,
    periodEnd: period.end,
    kind: period.kind,
    chargePrice: period.chargePrice,
    amountMinor: period.amountMinor,
    invoiceId,
    isTaxInclusive: period.isTaxInclusive ?? false,
  };
}

/** The subscription's billing record after the plan, with the terms of a scheduled change it applied. */
function nextRecord(row: SubscriptionRecord, next: BillingPlan['next'], now: string): SubscriptionChanges {
  const pending = next.pendingChangeApplied ? parsePendingChange(row.pendingChange) : null;
  return {
    periodCount: next.periodCount,
    nextRenewDate: next.nextRenewDate,
    ...(next.lastRenewDate ? { lastRenewDate: next.lastRenewDate } : {}),
    ...(next.lastInvDate ? { lastInvDate: next.lastInvDate } : {}),
    nextInvDate: next.nextInvDate,
    setupBilled: next.setupBilled,
    anchorDate: next.anchorDate,
    ...(pending ? { ...packageTermsFields(pending), pendingChange: null } : {}),
    updatedAt: now,
  };
}

/** Makes the writes: usage marked first, then the subscriptions' records and their periods. */
async function recordBilling(ctx: ServiceContext, writes: BillingWrites): Promise<void> {
  const billedElsewhere = new Set(await repo.markUsageRowsBilled(ctx.db, ctx.account.id, writes.usageMarks));
  if (billedElsewhere.size > 0) {
    // Usage billed by someone else meanwhile: give up the whole stretch rather than bill it twice.
    const first = writes.usageMarks.find((mark) => billedElsewhere.has(mark.usageId))!;
    throw new Error(`usage of subscription ${first.subscriptionId} was billed meanwhile`);
  }
  await repo.updateBilledSubscriptions(ctx.db, ctx.account.id, writes.updates);
  await repo.insertPeriods(ctx.db, ctx.account.id, writes.periods);
  await insertBilledMeteredUsage(ctx.db, ctx.account.id, writes.metered, nowInstant(ctx));
  await recordPeriodsUsed(ctx, writes.couponUses ?? new Map());
}

/**
 * Queues the e-mails of the invoices whose customers get theirs by e-mail (queueInvoiceMails checks them again):
 * most bill runs then read no invoice back. Returns the invoices sent.
 */
function mailInvoices(
  ctx: ServiceContext,
  invoices: readonly NewInvoice[],
  invoiceIds: readonly number[],
  customers: BillingInputs['customers'],
): Promise<number[]> {
  return queueInvoiceMails(
    ctx,
    invoiceIds.filter((_, i) => customers.get(invoices[i]!.customerId)?.sendsInvoices),
  );
}

/**
 * One stretch of the bill run for the context's account: claims up to `limit` due subscriptions with ids above
 * `afterId` and bills them in one transaction.
 */
export async function billNextDueSubscriptions(
  ctx: ServiceContext,
  today: PlainDate,
  limit: number,
  afterId = 0,
): Promise<BillingOutcome & { lastId: number }> {
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const rows = await repo.claimDueSubscriptions(trx, ctx.account.id, today, limit, afterId);
    const billed = await billRows(inTransaction(ctx, trx), rows, today);
    return { ...billed, lastId: rows.at(-1)?.id ?? afterId };
  });
  if (outcome.invoiceIds.length > 0) ctx.mailQueued();
  return outcome;
}

/** Bills one subscription now if anything is due (after a create, a change or a reactivation). */
export async function billSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
  options: { catchUp?: boolean } = {},
): Promise<number[]> {
  const on = today(ctx);
  const outcome = await withTransaction(ctx, (tctx) =>
    billSubscriptionInTransaction(tctx, subscriptionId, on, options),
  );
  if (outcome.length > 0) ctx.mailQueued();
  return outcome;
}

/**
 * The same inside the caller's transaction, for use cases that change a subscription and bill it at once;
 * `catchUp` bills the periods it missed on one invoice (catchUpInvoice).
 */
export async function billSubscriptionInTransaction(
  ctx: ServiceContext,
  subscriptionId: number,
  today: PlainDate,
  options: { catchUp?: boolean } = {},
): Promise<number[]> {
  const row = await lockSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  const due = (row ? [row] : []).filter(
    (r) => r.parkedReason === null && r.nextInvDate !== null && r.nextInvDate <= today,
  );
  return (await billRows(ctx, due, today, options.catchUp)).invoiceIds;
}

/** Due subscriptions' ids, not held (the bill run retries a failed batch one by one with them). */
export function dueSubscriptionIds(
  ctx: ServiceContext,
  today: PlainDate,
  limit: number,
  afterId: number,
): Promise<number[]> {
  return repo.listDueSubscriptionIds(ctx.db, ctx.account.id, today, limit, afterId);
}
