import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { changeBillCycle, honoursBillCycleDay } from '../../core/billCycleDay.ts';
import { creditsForCut } from '../../core/subscriptionChanges.ts';
import type { CreditRule, PeriodCredit } from '../../core/subscriptionChanges.ts';
import { BillingInvariantError, invoiceDateOf, trialEndOf } from '../../core/subscriptionBilling.ts';
import { upcomingInvoiceOf } from '../../core/subscriptionUpcoming.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { invoiceTaxPercs } from '../invoicing/index.ts';
import type { NewInvoice } from '../invoicing/index.ts';
import { issueCreditNoteAdjustment } from '../ledger/index.ts';
import * as repo from './subscriptionChanges.repository.ts';
import {
  assertInvoiceWithinBounds,
  billingInputs,
  billSubscriptionInTransaction,
} from './subscriptionBilling.service.ts';
import { listUnbilledUsageOf } from './subscription.repository.ts';
import type { SubscriptionChanges } from './subscription.repository.ts';
import {
  invariantConflict,
  lockSubscription,
  scheduledInvoiceDate,
  withSubscriptionHeld,
} from './subscriptionEditing.ts';
import { priceChoiceColumns, resolvePriceChoice } from './subscriptionInput.ts';
import type { PriceChoice, PriceChoiceInput } from './subscriptionInput.ts';
import { anchorDateOf, timelineOf } from './subscriptionTimeline.ts';
import type { PendingChange, SubscriptionRow } from './subscriptionTimeline.ts';

export const CANCEL_TYPES = ['renewal', 'norefund', 'prorata', 'fullcredit'] as const;
export type CancelType = (typeof CANCEL_TYPES)[number];

/** What a change did (or, previewed, would do): credits owed and invoices made. */
export interface ChangeResult {
  credits: (PeriodCredit & { descrip: string })[];
  invoiceIds: number[];
}

async function findOrThrow(ctx: ServiceContext, subscriptionId: number): Promise<SubscriptionRow> {
  const row = await repo.findSubscriptionRow(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return row;
}

function assertNotEnded(row: SubscriptionRow, day: PlainDate): void {
  if (row.cancel_date !== null && row.cancel_date <= day) {
    throw new ConflictError('subscription_cancelled', `Subscription ${row.id} is cancelled`);
  }
  if (row.end_date !== null && row.end_date <= day) {
    throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
  }
}

/**
 * Cuts the billed periods at `cutDate` and credits what the rule says: each credit is recorded
 * (subscription_credits) and issued as a credit_note adjustment, auto-applied to the customer's earliest open
 * invoices (the cut one among them, when unpaid), in the change's transaction.
 */
async function cutBilledTime(
  ctx: ServiceContext,
  row: SubscriptionRow,
  cutDate: PlainDate,
  rule: CreditRule,
  reason: string,
): Promise<ChangeResult['credits']> {
  const periods = await repo.listPeriodsEndingAfter(ctx.db, ctx.account.id, row.id, cutDate);
  const percs = await invoiceTaxPercs(
    ctx,
    periods.flatMap((p) => (p.invoice_id === null ? [] : [p.invoice_id])),
  );
  const { credits, cuts } = creditsForCut(
    periods.map((p) => ({
      periodNo: p.period_no,
      start: p.period_start,
      end: p.period_end,
      amountMinor: p.amount_minor,
      taxPercs: p.invoice_id === null ? [] : (percs.get(p.invoice_id) ?? []),
      isTaxInclusive: Boolean(p.is_tax_inclusive),
    })),
    cutDate,
    rule,
  );
  for (const cut of cuts) await repo.cutPeriod(ctx.db, ctx.account.id, row.id, cut);
  const described = credits.map((credit) => ({
    ...credit,
    descrip: `${reason}: unused ${credit.start} to ${credit.end}`,
  }));
  for (const credit of described) {
    const creditId = await repo.insertCredit(ctx.db, {
      account_id: ctx.account.id,
      customer_id: row.customer_id,
      subscription_id: row.id,
      currency_code: row.currency_code,
      amount_minor: credit.totalMinor,
      descrip: credit.descrip,
      period_start: credit.start,
      period_end: credit.end,
      created_at: nowInstant(ctx),
    });
    if (credit.totalMinor <= 0) continue;
    const adjustmentId = await issueCreditNoteAdjustment(ctx, {
      customerId: row.customer_id,
      subscriptionId: row.id,
      currencyCode: row.currency_code,
      amountMinor: credit.totalMinor,
      date: today(ctx),
      ref: `SUB-${row.id}-CREDIT-${creditId}`,
      memo: credit.descrip,
      autoApply: true,
    });
    await repo.linkCreditAdjustment(ctx.db, ctx.account.id, creditId, adjustmentId);
  }
  return described;
}

/**
 * Cancels (public notes: renewal at the end of the term; norefund, prorata and fullcredit now). Cancelled
 * subscriptions are never billed again; a cancellation at renewal is a future change until its date.
 */
export async function cancelSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
  type: CancelType,
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    assertNotEnded(row, day);
    // Nothing billed yet, or cancelling at renewal: billing stops where the billed time ends.
    const cancelDate = type === 'renewal' ? maxDate(row.next_renew_date ?? row.start_date, day) : day;
    const rule: CreditRule = type === 'prorata' ? 'prorata' : type === 'fullcredit' ? 'fullcredit' : 'none';
    // Billed time is cut at the cancellation, or at the StartDate for time billed ahead of it (as a change does):
    // cut dates then only move forward, and a period cut to empty is never cut, nor credited, again.
    const cutDate = maxDate(cancelDate, row.start_date);
    const credits = type === 'renewal' ? [] : await cutBilledTime(tctx, row, cutDate, rule, 'Cancelled');
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancel_type: type,
      cancel_date: cancelDate,
      cancelled_at: nowInstant(ctx),
      // Prorata and full credit end the billed time at the cancellation.
      ...(rule !== 'none' && row.next_renew_date !== null && row.next_renew_date > cutDate
        ? { next_renew_date: cutDate }
        : {}),
      // Billing stops now; usage left unbilled still gets its last invoice, which the bill run dates.
      ...(cancelDate <= day
        ? {
            next_inv_date: (await repo.countUnbilledUsage(trx, ctx.account.id, row.id)) > 0 ? day : null,
          }
        : {}),
      updated_at: nowInstant(ctx),
    });
    return { credits, invoiceIds: [] };
  });
}

export interface ChangeTermsInput extends PriceChoiceInput {
  /** True: at the next renewal (isFutureChange); false: now, with a pro-rated credit and charge. */
  atRenewal: boolean;
  /**
   * A change made now starts a new term on the change day instead of keeping the billing anchor. Absent: the
   * default (keep the anchor, but a term of another length starts a new term); false sent explicitly with a term
   * of another length is refused, as it cannot be honoured.
   */
  resetBillingAnchor?: boolean;
}

/**
 * Bills what is due up to `day`, on the terms in force, before a change: the bill run may be behind (a customer on
 * hold, or BILLING_INTERVAL_MS=0 with the cron not yet run). Answers the row as billed and the invoices made.
 */
async function billUpToDate(
  ctx: ServiceContext,
  row: SubscriptionRow,
  day: PlainDate,
): Promise<{ row: SubscriptionRow; invoiceIds: number[] }> {
  const invoiceIds = await billSubscriptionInTransaction(ctx, row.id, day);
  return { row: await lockSubscription(ctx, row.id), invoiceIds };
}

/**
 * A change made now cuts the billed time at `from` and bills the new terms from there: on a subscription billed
 * only up to an earlier day (next_renew_date), the days in between would never be billed. One still behind after
 * billUpToDate (its customer on hold, or parked) is refused, changing nothing: those days are the bill run's to
 * bill on the old terms once the customer is active again or the record mended.
 */
function assertBilledUpTo(row: SubscriptionRow, from: PlainDate): void {
  if (row.period_count === 0 || row.next_renew_date === null || row.next_renew_date >= from) return;
  const why =
    row.parked_reason !== null
      ? `it is parked (${row.parked_reason}): mend the record and unpark it`
      : 'its customer is on hold (inactive or suspended)';
  throw new ConflictError(
    'subscription_billing_behind',
    `Subscription ${row.id} is billed only up to ${row.next_renew_date} and cannot be billed further now: ${why}. ` +
      `A change made now would leave ${row.next_renew_date} to ${from} unbilled; make it at renewal ` +
      '(isFutureChange) or once the subscription is billed up to date',
  );
}

/**
 * Where the first period ends and the cycle is anchored, for new terms that replace a subscription's before
 * anything is billed. On a bill-cycle day, the first period is planned again as a new subscription's would be on
 * the new terms (docs/pricing.md, "Bill-cycle day"): from the start, or the new trial's end, to the first date on
 * the day; a term of days ignores the day, so the subscription leaves it.
 */
function firstPeriodOf(
  row: SubscriptionRow,
  term: Term,
  trialEnd: PlainDate | null,
): Pick<SubscriptionChanges, 'anchor_date' | 'is_pro_rata' | 'first_prorata_sync_date' | 'bill_cycle_day'> {
  if (row.bill_cycle_day === null) return { anchor_date: anchorDateOf(row, trialEnd) };
  if (!honoursBillCycleDay(term)) {
    return {
      bill_cycle_day: null,
      is_pro_rata: false,
      first_prorata_sync_date: null,
      anchor_date: trialEnd ?? row.start_date,
    };
  }
  const first = changeBillCycle(
    {
      startDate: row.start_date,
      trialEndDate: trialEnd,
      isProRata: false,
      firstProrataSyncDate: null,
      nextRenewDate: null,
      term,
    },
    row.bill_cycle_day,
  );
  return first.kind === 'first'
    ? {
        is_pro_rata: first.isProRata,
        first_prorata_sync_date: first.firstProrataSyncDate,
        anchor_date: first.anchorDate,
      }
    : { anchor_date: first.anchorDate };
}

/**
 * Changes the package, version or rate term. At renewal: scheduled (isFutureChange) and applied by the bill run
 * at the start of the next period. Now: the billed time from today is credited pro rata and the new terms are
 * invoiced at once, keeping the billing anchor (`keepAnchor`) unless the term's length changes or the caller
 * asks for a reset, in which case a new term starts today, its cycle anchored on today. Before anything was
 * billed, the terms are simply replaced.
 */
export async function changeSubscriptionTerms(
  ctx: ServiceContext,
  subscriptionId: number,
  input: ChangeTermsInput,
): Promise<ChangeResult> {
  if (input.atRenewal && input.resetBillingAnchor) {
    throw ValidationError.field(
      'resetBillingAnchor',
      'applies to a change made now: a change at renewal starts its term on the renewal day',
    );
  }
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, held, day) => {
    const trx = tctx.db;
    assertNotEnded(held, day);
    const choice = await resolvePriceChoice(tctx, input, held.currency_code);
    const now = nowInstant(ctx);
    // Everything due is billed first, on the terms in force (so a change at renewal also applies at the next
    // renewal after today, not at one the bill run has not reached yet).
    const { row, invoiceIds: billedFirst } = await billUpToDate(tctx, held, day);
    if (row.period_count === 0) {
      const trialEnd = trialEndOf(row.start_date, choice.trialPeriod, choice.trialPeriodType);
      await repo.updateSubscription(trx, ctx.account.id, row.id, {
        ...priceChoiceColumns(choice),
        trial_end_date: trialEnd,
        ...firstPeriodOf(row, choice.term, trialEnd),
        pending_change: null,
        updated_at: now,
      });
      return {
        credits: [],
        invoiceIds: [...billedFirst, ...(await billSubscriptionInTransaction(tctx, row.id, day))],
      };
    }
    if (input.atRenewal) {
      const pending: PendingChange = {
        effectiveDate: row.next_renew_date ?? row.start_date,
        packageId: choice.packageId,
        packageVersionId: choice.packageVersionId,
        packageRateTermId: choice.packageRateTermId,
        label: choice.label,
        term: choice.term,
        chargePrice: choice.chargePrice,
        setupFee: choice.setupFee,
        trialFee: choice.trialFee,
      };
      await repo.updateSubscription(trx, ctx.account.id, row.id, {
        pending_change: JSON.stringify(pending),
        updated_at: now,
      });
      return { credits: [], invoiceIds: billedFirst };
    }
    // A subscription billed ahead of its StartDate changes from the start: billed time never begins before it.
    const from = maxDate(day, row.start_date);
    // A new length of term starts a new cycle, as a scheduled change does (and Stripe on a new interval): the
    // renewal day of the old cycle means nothing to the new term.
    const sameLength = row.term === choice.term.count && row.term_type === choice.term.unit;
    if (input.resetBillingAnchor === false && !sameLength) {
      // Sent explicitly, false asks for what cannot be done; silently resetting would bill a whole new term the
      // caller said not to. Absent, the documented default applies (a new term).
      throw ValidationError.field(
        'resetBillingAnchor',
        `cannot be false with a term of another length (${row.term} ${row.term_type} to ` +
          `${choice.term.count} ${choice.term.unit}): a new length of term always starts a new term today; ` +
          'leave it out or send true',
      );
    }
    assertBilledUpTo(row, from);
    if (!input.resetBillingAnchor && sameLength) {
      const kept = await keepAnchor(tctx, row, choice, from, day);
      return { ...kept, invoiceIds: [...billedFirst, ...kept.invoiceIds] };
    }
    const credits = await cutBilledTime(tctx, row, from, 'prorata', 'Changed');
    const cancelAtRenewal =
      row.cancel_type === 'renewal' && row.cancel_date !== null && row.cancel_date > day;
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      ...priceChoiceColumns(choice),
      // The trial, if running, ends with the change: the new terms are billed from today.
      ...(row.trial_end_date !== null && row.trial_end_date > from ? { trial_end_date: from } : {}),
      ...(row.first_prorata_sync_date !== null && row.first_prorata_sync_date > from
        ? { first_prorata_sync_date: from }
        : {}),
      anchor_date: from,
      off_cycle_start: null,
      // The new cycle renews on the change day, not on a bill-cycle day (docs/pricing.md, "Bill-cycle day").
      bill_cycle_day: null,
      next_renew_date: from,
      next_inv_date: day,
      pending_change: null,
      // A cancellation at renewal still ahead ends the billed time: left at its date, the new term would be billed
      // in full past it (a year charged, a month served). It moves to the end of the time the change bills.
      ...(cancelAtRenewal ? { cancel_date: null } : {}),
      updated_at: now,
    });
    const invoiceIds = await billSubscriptionInTransaction(tctx, row.id, day);
    if (cancelAtRenewal) {
      const billed = await lockSubscription(tctx, row.id);
      const billedTo = billed.next_renew_date;
      await repo.updateSubscription(trx, ctx.account.id, row.id, {
        cancel_date: billedTo !== null && billedTo > day ? billedTo : row.cancel_date,
      });
    }
    return { credits, invoiceIds: [...billedFirst, ...invoiceIds] };
  });
}

/**
 * A change made now that keeps the billing anchor (the default; Stripe, Recurly and Chargebee do the same): the
 * renewal day stays, the unused billed time is credited pro rata and the new terms are charged pro rata up to the
 * next renewal: a stub period from the change day to the cycle's next boundary (`off_cycle_start` lets it start
 * off the cycle), with the proration and rounding of any stub. On a renewal day the stub is a whole term, so the
 * new price simply applies from that period. A running trial keeps its end, which stays the anchor: the trial is
 * not re-priced, the new terms apply from its end (a period billed ahead past it is credited in full).
 */
async function keepAnchor(
  ctx: ServiceContext,
  row: SubscriptionRow,
  choice: PriceChoice,
  from: PlainDate,
  day: PlainDate,
): Promise<ChangeResult> {
  const trialRunning = row.trial_end_date !== null && row.trial_end_date > from;
  const cutDate = trialRunning ? row.trial_end_date! : from;
  const credits = await cutBilledTime(ctx, row, cutDate, 'prorata', 'Changed');
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    // trial_end_date is left as it is, though the trial's length is now the new package's: it is the anchor.
    ...priceChoiceColumns(choice),
    off_cycle_start: cutDate,
    // As with a reset: the new terms are billed from the cut, whatever the bill run had not billed yet before it.
    next_renew_date: cutDate,
    // The bill run dates the next invoice itself from here (numDaysBeforeToInv before the cut, or today).
    next_inv_date: day,
    pending_change: null,
    updated_at: nowInstant(ctx),
  });
  return { credits, invoiceIds: await billSubscriptionInTransaction(ctx, row.id, day) };
}

/**
 * Undoes a cancellation. One at renewal not reached yet is simply removed. After a cancellation took effect,
 * billing resumes: at the end of the time already paid for when that is still ahead (a cancellation with no
 * refund), otherwise today, with a new cycle anchored on today. Expired subscriptions cannot be reactivated.
 */
export async function reactivateSubscription(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    if (row.cancel_date === null) {
      throw new ConflictError('subscription_not_cancelled', `Subscription ${row.id} is not cancelled`);
    }
    if (row.end_date !== null && row.end_date <= day) {
      throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
    }
    const timeline = timelineOf(row, '', ctx.account.timeZone);
    // Time already paid for that is still ahead (no refund was given) resumes where it ends.
    const paidAhead = row.next_renew_date !== null && row.next_renew_date > day;
    // One cancelled before anything was billed restarts too once its StartDate has passed: resuming from the
    // StartDate would bill the time it spent cancelled.
    const started = row.period_count > 0 || row.start_date < day;
    const restart = row.cancel_date <= day && !paidAhead && started;
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancel_type: null,
      cancel_date: null,
      cancelled_at: null,
      ...(restart
        ? {
            anchor_date: day,
            // A new cycle on the day of the reactivation, not on a bill-cycle day.
            bill_cycle_day: null,
            next_renew_date: day,
            next_inv_date: day,
            ...(row.trial_end_date !== null && row.trial_end_date > day ? { trial_end_date: day } : {}),
          }
        : { next_inv_date: invoiceDateOf(row.next_renew_date ?? row.start_date, timeline) }),
      updated_at: nowInstant(ctx),
    });
    return { credits: [], invoiceIds: await billSubscriptionInTransaction(tctx, row.id, day) };
  });
}

/**
 * Removes changes scheduled for the next renewal: a package or term change and a cancellation at renewal. What a
 * withdrawn cancellation makes due (an invoice date already passed, e.g. with numDaysBeforeToInv) is billed at once,
 * as a reactivation bills, not left for the bill run's next pass.
 */
export async function removeFutureChanges(ctx: ServiceContext, subscriptionId: number): Promise<void> {
  await withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    const trx = tctx.db;
    const scheduledCancel = row.cancel_date !== null && row.cancel_date > day;
    // Billing that met the cancellation (a change made now bills up to it) found nothing left to invoice: without
    // it, the next invoice date is planned again.
    const nextInvDate = async () => {
      const timeline = {
        ...timelineOf(row, '', ctx.account.timeZone),
        cancelDate: null,
        pendingChange: null,
      };
      const unbilled = await listUnbilledUsageOf(trx, ctx.account.id, row.id);
      try {
        return scheduledInvoiceDate(timeline, unbilled, day);
      } catch (error) {
        // A broken record is left for the bill run to park.
        if (error instanceof BillingInvariantError) return row.next_inv_date;
        throw error;
      }
    };
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      pending_change: null,
      ...(scheduledCancel
        ? { cancel_type: null, cancel_date: null, cancelled_at: null, next_inv_date: await nextInvDate() }
        : {}),
      updated_at: nowInstant(ctx),
    });
    if (scheduledCancel) await billSubscriptionInTransaction(tctx, row.id, day);
  });
}

/** Thrown to roll a preview's transaction back with its result. */
class PreviewRollback<T> extends Error {
  constructor(readonly result: T) {
    super('preview');
  }
}

/**
 * Runs a change for real inside a transaction and rolls it back, returning what it did and what the invoices
 * it made looked like: a preview computed by the very code that would act.
 */
export async function preview<T>(
  ctx: ServiceContext,
  change: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      throw new PreviewRollback(await change(inTransaction(ctx, trx)));
    });
  } catch (error) {
    if (error instanceof PreviewRollback) return error.result as T;
    throw error;
  }
  throw new Error('unreachable');
}

/** The next invoice the subscription will get, as the bill run would make it; null when none is coming. */
export async function upcomingInvoice(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<NewInvoice | null> {
  const row = await findOrThrow(ctx, subscriptionId);
  if (row.next_inv_date === null || row.parked_reason !== null) return null;
  const inputs = await billingInputs(ctx, [row]);
  try {
    const timeline = timelineOf(row, inputs.labelOf(row), ctx.account.timeZone, inputs.taxInclusionOf(row));
    const next = upcomingInvoiceOf(timeline, inputs.usage.bySubscription.get(row.id) ?? []);
    if (!next) return null;
    const invoice = inputs.toNewInvoice(row, next);
    assertInvoiceWithinBounds(invoice);
    return invoice;
  } catch (error) {
    // A record the core cannot plan (the bill run parks it when due) is the server's data, not the client's
    // request: a problem naming it, not a 500.
    throw invariantConflict(error, row.id, 'its next invoice cannot be planned');
  }
}

/** Changes the rate term within the package version (changeterm), as a package change. */
export async function changeRateTerm(
  ctx: ServiceContext,
  subscriptionId: number,
  input: { packageRateTermId: number; atRenewal: boolean; resetBillingAnchor?: boolean },
): Promise<ChangeResult> {
  const row = await findOrThrow(ctx, subscriptionId);
  return changeSubscriptionTerms(ctx, subscriptionId, {
    packageId: row.package_id,
    packageVersionId: row.package_version_id,
    ...input,
  });
}

export async function subscriptionCurrency(ctx: ServiceContext, subscriptionId: number): Promise<string> {
  return (await findOrThrow(ctx, subscriptionId)).currency_code;
}

export function noUpcomingInvoice(subscriptionId: number): NotFoundError {
  const error = new NotFoundError('Upcoming invoice', subscriptionId);
  error.message = `Subscription ${subscriptionId} has no invoice coming (cancelled, expired, parked or fully billed)`;
  return error;
}

export async function listSubscriptionCredits(ctx: ServiceContext, subscriptionId: number) {
  await subscriptionCurrency(ctx, subscriptionId);
  return repo.listCredits(ctx.db, ctx.account.id, subscriptionId);
}

export async function listBilledPeriods(ctx: ServiceContext, subscriptionId: number) {
  const currencyCode = await subscriptionCurrency(ctx, subscriptionId);
  return { currencyCode, periods: await repo.listPeriods(ctx.db, ctx.account.id, subscriptionId) };
}

/**
 * Takes a parked subscription back into billing once its record is mended (409 unless parked) and bills what is
 * due. Should it still break an invariant, it is parked again with the reason.
 */
export async function unparkSubscription(ctx: ServiceContext, subscriptionId: number): Promise<ChangeResult> {
  return withSubscriptionHeld(ctx, subscriptionId, async (tctx, row, day) => {
    if (row.parked_reason === null) {
      throw new ConflictError('subscription_not_parked', `Subscription ${row.id} is not parked`);
    }
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      parked_reason: null,
      parked_at: null,
      updated_at: nowInstant(ctx),
    });
    return { credits: [], invoiceIds: await billSubscriptionInTransaction(tctx, row.id, day) };
  });
}
