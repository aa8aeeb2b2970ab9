import { inTransaction, nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { changeBillCycle, honoursBillCycleDay } from './billCycleDay.ts';
import { creditsForCut } from './subscriptionChanges.ts';
import type { CreditRule, PeriodCredit } from './subscriptionChanges.ts';
import { invoiceDateOf, trialEndOf } from './subscriptionBilling.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { upcomingInvoiceOf } from './subscriptionUpcoming.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { invoiceTaxPercs } from '../invoicing/index.ts';
import type { NewInvoice } from '../invoicing/index.ts';
import { applyCustomerCredit, issueCreditNoteAdjustment } from '../ledger/index.ts';
import * as repo from './subscriptionChanges.repository.ts';
import {
  assertInvoiceWithinBounds,
  billingInputs,
  billSubscriptionInTransaction,
} from './subscriptionBilling.service.ts';
import { listUnbilledUsageOf } from './subscription.repository.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';
import {
  invariantConflict,
  lockSubscription,
  scheduledInvoiceDate,
  withSubscriptionHeld,
} from './subscriptionEditing.ts';
import { priceChoiceFields, resolvePriceChoice } from './subscriptionInput.ts';
import type { PriceChoice, PriceChoiceInput } from './subscriptionInput.ts';
import { anchorDateOf, timelineOf } from './subscriptionTimeline.ts';
import type { PendingChange } from './subscriptionTimeline.ts';

export const CANCEL_TYPES = ['renewal', 'norefund', 'prorata', 'fullcredit'] as const;
export type CancelType = (typeof CANCEL_TYPES)[number];

/** What a change did (or, previewed, would do): credits owed and invoices made. */
export interface ChangeResult {
  /** Each with the credit_note adjustment that issued it (null for a credit of nothing). */
  credits: (PeriodCredit & { descrip: string; adjustmentId?: number | null })[];
  invoiceIds: number[];
}

async function findOrThrow(ctx: ServiceContext, subscriptionId: number): Promise<SubscriptionRecord> {
  const row = await repo.findSubscriptionRecord(ctx.db, ctx.account.id, subscriptionId);
  if (!row) throw new NotFoundError('Subscription', subscriptionId);
  return row;
}

function assertNotEnded(row: SubscriptionRecord, day: PlainDate): void {
  if (row.cancelDate !== null && row.cancelDate <= day) {
    throw new ConflictError('subscription_cancelled', `Subscription ${row.id} is cancelled`);
  }
  if (row.endDate !== null && row.endDate <= day) {
    throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
  }
}

/**
 * Cuts the billed periods at `cutDate` and credits what the rule says: each credit is recorded
 * (subscription_credits) and issued as a credit_note adjustment in the change's transaction. A cancellation's is
 * auto-applied to the customer's earliest open invoices (the cut one among them, when unpaid), the rest staying as
 * the customer's credit; a change's is left for payChangeFromCredit, which pays the change's own invoice first.
 */
async function cutBilledTime(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  cutDate: PlainDate,
  rule: CreditRule,
  reason: 'Cancelled' | 'Changed',
): Promise<ChangeResult['credits']> {
  const periods = await repo.listPeriodsEndingAfter(ctx.db, ctx.account.id, row.id, cutDate);
  const percs = await invoiceTaxPercs(
    ctx,
    periods.flatMap((p) => (p.invoiceId === null ? [] : [p.invoiceId])),
  );
  const { credits, cuts } = creditsForCut(
    periods.map((p) => ({
      periodNo: p.periodNo,
      start: p.periodStart,
      end: p.periodEnd,
      amountMinor: p.amountMinor,
      taxPercs: p.invoiceId === null ? [] : (percs.get(p.invoiceId) ?? []),
      isTaxInclusive: p.isTaxInclusive,
    })),
    cutDate,
    rule,
  );
  for (const cut of cuts) await repo.cutPeriod(ctx.db, ctx.account.id, row.id, cut);
  const described: ChangeResult['credits'] = credits.map((credit) => ({
    ...credit,
    descrip: `${reason}: unused ${credit.start} to ${credit.end}`,
    adjustmentId: null,
  }));
  for (const credit of described) {
    const creditId = await repo.insertCredit(ctx.db, ctx.account.id, row.id, row.customerId, {
      currencyCode: row.currencyCode,
      amountMinor: credit.totalMinor,
      descrip: credit.descrip,
      periodStart: credit.start,
      periodEnd: credit.end,
      createdAt: nowInstant(ctx),
    });
    if (credit.totalMinor <= 0) continue;
    const adjustmentId = await issueCreditNoteAdjustment(ctx, {
      customerId: row.customerId,
      subscriptionId: row.id,
      currencyCode: row.currencyCode,
      amountMinor: credit.totalMinor,
      date: today(ctx),
      ref: `SUB-${row.id}-CREDIT-${creditId}`,
      memo: credit.descrip,
      autoApply: reason === 'Cancelled',
    });
    await repo.linkCreditAdjustment(ctx.db, ctx.account.id, creditId, adjustmentId);
    credit.adjustmentId = adjustmentId;
  }
  return described;
}

/**
 * A change made now charges what its preview said (docs/pricing.md, "Changes and their credits"): the credit for
 * the unused time pays the invoices the change made first, whatever ApplyCreditBeforeCollecting says, then the
 * customer's other open invoices, earliest first; what is left stays as the customer's credit.
 */
async function payChangeFromCredit(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  credits: ChangeResult['credits'],
  invoiceIds: readonly number[],
): Promise<void> {
  const sources = credits.flatMap((credit) =>
    credit.adjustmentId ? [{ type: 'adjustment' as const, id: credit.adjustmentId }] : [],
  );
  if (sources.length === 0) return;
  await applyCustomerCredit(ctx, {
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    invoiceIds,
    sources,
    thenOpenInvoices: true,
  });
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
    const cancelDate = type === 'renewal' ? maxDate(row.nextRenewDate ?? row.startDate, day) : day;
    const rule: CreditRule = type === 'prorata' ? 'prorata' : type === 'fullcredit' ? 'fullcredit' : 'none';
    // Billed time is cut at the cancellation, or at the StartDate for time billed ahead of it (as a change does):
    // cut dates then only move forward, and a period cut to empty is never cut, nor credited, again.
    const cutDate = maxDate(cancelDate, row.startDate);
    const credits = type === 'renewal' ? [] : await cutBilledTime(tctx, row, cutDate, rule, 'Cancelled');
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancelType: type,
      cancelDate: cancelDate,
      cancelledAt: nowInstant(ctx),
      // Prorata and full credit end the billed time at the cancellation.
      ...(rule !== 'none' && row.nextRenewDate !== null && row.nextRenewDate > cutDate
        ? { nextRenewDate: cutDate }
        : {}),
      // Billing stops now; usage left unbilled still gets its last invoice, which the bill run dates.
      ...(cancelDate <= day
        ? {
            nextInvDate: (await repo.countUnbilledUsage(trx, ctx.account.id, row.id)) > 0 ? day : null,
          }
        : {}),
      updatedAt: nowInstant(ctx),
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
  row: SubscriptionRecord,
  day: PlainDate,
): Promise<{ row: SubscriptionRecord; invoiceIds: number[] }> {
  const invoiceIds = await billSubscriptionInTransaction(ctx, row.id, day);
  return { row: await lockSubscription(ctx, row.id), invoiceIds };
}

/**
 * A change made now cuts the billed time at `from` and bills the new terms from there: on a subscription billed
 * only up to an earlier day (next_renew_date), the days in between would never be billed. One still behind after
 * billUpToDate (its customer on hold, or parked) is refused, changing nothing: those days are the bill run's to
 * bill on the old terms once the customer is active again or the record mended.
 */
function assertBilledUpTo(row: SubscriptionRecord, from: PlainDate): void {
  if (row.periodCount === 0 || row.nextRenewDate === null || row.nextRenewDate >= from) return;
  const why =
    row.parkedReason !== null
      ? `it is parked (${row.parkedReason}): mend the record and unpark it`
      : 'its customer is on hold (inactive or suspended)';
  throw new ConflictError(
    'subscription_billing_behind',
    `Subscription ${row.id} is billed only up to ${row.nextRenewDate} and cannot be billed further now: ${why}. ` +
      `A change made now would leave ${row.nextRenewDate} to ${from} unbilled; make it at renewal ` +
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
  row: SubscriptionRecord,
  term: Term,
  trialEnd: PlainDate | null,
): Pick<SubscriptionChanges, 'anchorDate' | 'isProRata' | 'firstProrataSyncDate' | 'billCycleDay'> {
  if (row.billCycleDay === null) return { anchorDate: anchorDateOf(row, trialEnd) };
  if (!honoursBillCycleDay(term)) {
    return {
      billCycleDay: null,
      isProRata: false,
      firstProrataSyncDate: null,
      anchorDate: trialEnd ?? row.startDate,
    };
  }
  const first = changeBillCycle(
    {
      startDate: row.startDate,
      trialEndDate: trialEnd,
      isProRata: false,
      firstProrataSyncDate: null,
      nextRenewDate: null,
      term,
    },
    row.billCycleDay,
  );
  return first.kind === 'first'
    ? {
        isProRata: first.isProRata,
        firstProrataSyncDate: first.firstProrataSyncDate,
        anchorDate: first.anchorDate,
      }
    : { anchorDate: first.anchorDate };
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
    assertNotEnded(held, day);
    const choice = await resolvePriceChoice(tctx, input, held.currencyCode);
    const now = nowInstant(ctx);
    // Everything due is billed first, on the terms in force (so a change at renewal also applies at the next
    // renewal after today, not at one the bill run has not reached yet).
    const { row, invoiceIds: billedFirst } = await billUpToDate(tctx, held, day);
    const changed = await changeTermsOfBilled(tctx, row, choice, input, day, now);
    return { ...changed, invoiceIds: [...billedFirst, ...changed.invoiceIds] };
  });
}

/** The change itself, once everything due is billed: which of the ways above applies, and applying it. */
async function changeTermsOfBilled(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  choice: PriceChoice,
  input: ChangeTermsInput,
  day: PlainDate,
  now: string,
): Promise<ChangeResult> {
  if (row.periodCount === 0) return replaceUnbilledTerms(ctx, row, choice, day, now);
  if (input.atRenewal) return scheduleTermsAtRenewal(ctx, row, choice, now);
  // A subscription billed ahead of its StartDate changes from the start: billed time never begins before it.
  const from = maxDate(day, row.startDate);
  // A new length of term starts a new cycle, as a scheduled change does (and Stripe on a new interval): the
  // renewal day of the old cycle means nothing to the new term.
  const sameLength = row.term === choice.term.count && row.termType === choice.term.unit;
  if (input.resetBillingAnchor === false && !sameLength) throw anchorNotKeptOnNewLength(row, choice);
  assertBilledUpTo(row, from);
  if (!input.resetBillingAnchor && sameLength) return keepAnchor(ctx, row, choice, from, day);
  return startNewTerm(ctx, row, choice, from, day, now);
}

/** Before anything was billed, the terms are replaced and the first period billed on them. */
async function replaceUnbilledTerms(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  choice: PriceChoice,
  day: PlainDate,
  now: string,
): Promise<ChangeResult> {
  const trialEnd = trialEndOf(row.startDate, choice.trialPeriod, choice.trialPeriodType);
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    ...priceChoiceFields(choice),
    trialEndDate: trialEnd,
    ...firstPeriodOf(row, choice.term, trialEnd),
    pendingChange: null,
    updatedAt: now,
  });
  return { credits: [], invoiceIds: await billSubscriptionInTransaction(ctx, row.id, day) };
}

/** At renewal: the new terms wait as the pending change the bill run applies at the next renewal. */
async function scheduleTermsAtRenewal(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  choice: PriceChoice,
  now: string,
): Promise<ChangeResult> {
  const pending: PendingChange = {
    effectiveDate: row.nextRenewDate ?? row.startDate,
    packageId: choice.packageId,
    packageVersionId: choice.packageVersionId,
    packageRateTermId: choice.packageRateTermId,
    label: choice.label,
    term: choice.term,
    chargePrice: choice.chargePrice,
    setupFee: choice.setupFee,
    trialFee: choice.trialFee,
  };
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    pendingChange: JSON.stringify(pending),
    updatedAt: now,
  });
  return { credits: [], invoiceIds: [] };
}

/**
 * Sent explicitly, false asks for what cannot be done; silently resetting would bill a whole new term the caller
 * said not to. Absent, the documented default applies (a new term).
 */
function anchorNotKeptOnNewLength(row: SubscriptionRecord, choice: PriceChoice): ValidationError {
  return ValidationError.field(
    'resetBillingAnchor',
    `cannot be false with a term of another length (${row.term} ${row.termType} to ` +
      `${choice.term.count} ${choice.term.unit}): a new length of term always starts a new term today; ` +
      'leave it out or send true',
  );
}

/**
 * A change made now that starts a new term: the billed time from the change day is credited pro rata and the new
 * terms are billed from that day, their cycle anchored on it; the credit pays the new invoice first.
 */
async function startNewTerm(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  choice: PriceChoice,
  from: PlainDate,
  day: PlainDate,
  now: string,
): Promise<ChangeResult> {
  const credits = await cutBilledTime(ctx, row, from, 'prorata', 'Changed');
  const cancelAtRenewal = row.cancelType === 'renewal' && row.cancelDate !== null && row.cancelDate > day;
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    ...priceChoiceFields(choice),
    // The trial, if running, ends with the change: the new terms are billed from today.
    ...(row.trialEndDate !== null && row.trialEndDate > from ? { trialEndDate: from } : {}),
    ...(row.firstProrataSyncDate !== null && row.firstProrataSyncDate > from
      ? { firstProrataSyncDate: from }
      : {}),
    anchorDate: from,
    offCycleStart: null,
    // The new cycle renews on the change day, not on a bill-cycle day (docs/pricing.md, "Bill-cycle day").
    billCycleDay: null,
    nextRenewDate: from,
    nextInvDate: day,
    pendingChange: null,
    // A cancellation at renewal still ahead ends the billed time: left at its date, the new term would be billed
    // in full past it (a year charged, a month served). It moves to the end of the time the change bills.
    ...(cancelAtRenewal ? { cancelDate: null } : {}),
    updatedAt: now,
  });
  const invoiceIds = await billSubscriptionInTransaction(ctx, row.id, day);
  if (cancelAtRenewal) await cancelAtEndOfBilledTime(ctx, row, day);
  await payChangeFromCredit(ctx, row, credits, invoiceIds);
  return { credits, invoiceIds };
}

/** The cancellation at renewal, cleared while the new term was billed, moves to the end of what it billed. */
async function cancelAtEndOfBilledTime(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  day: PlainDate,
): Promise<void> {
  const billed = await lockSubscription(ctx, row.id);
  const billedTo = billed.nextRenewDate;
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    cancelDate: billedTo !== null && billedTo > day ? billedTo : row.cancelDate,
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
  row: SubscriptionRecord,
  choice: PriceChoice,
  from: PlainDate,
  day: PlainDate,
): Promise<ChangeResult> {
  const trialRunning = row.trialEndDate !== null && row.trialEndDate > from;
  const cutDate = trialRunning ? row.trialEndDate! : from;
  const credits = await cutBilledTime(ctx, row, cutDate, 'prorata', 'Changed');
  await repo.updateSubscription(ctx.db, ctx.account.id, row.id, {
    // trial_end_date is left as it is, though the trial's length is now the new package's: it is the anchor.
    ...priceChoiceFields(choice),
    offCycleStart: cutDate,
    // As with a reset: the new terms are billed from the cut, whatever the bill run had not billed yet before it.
    nextRenewDate: cutDate,
    // The bill run dates the next invoice itself from here (numDaysBeforeToInv before the cut, or today).
    nextInvDate: day,
    pendingChange: null,
    updatedAt: nowInstant(ctx),
  });
  const invoiceIds = await billSubscriptionInTransaction(ctx, row.id, day);
  await payChangeFromCredit(ctx, row, credits, invoiceIds);
  return { credits, invoiceIds };
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
    if (row.cancelDate === null) {
      throw new ConflictError('subscription_not_cancelled', `Subscription ${row.id} is not cancelled`);
    }
    if (row.endDate !== null && row.endDate <= day) {
      throw new ConflictError('subscription_expired', `Subscription ${row.id} has expired`);
    }
    const timeline = timelineOf(row, '', ctx.account.timeZone);
    // Time already paid for that is still ahead (no refund was given) resumes where it ends.
    const paidAhead = row.nextRenewDate !== null && row.nextRenewDate > day;
    // One cancelled before anything was billed restarts too once its StartDate has passed: resuming from the
    // StartDate would bill the time it spent cancelled.
    const started = row.periodCount > 0 || row.startDate < day;
    const restart = row.cancelDate <= day && !paidAhead && started;
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      cancelType: null,
      cancelDate: null,
      cancelledAt: null,
      ...(restart
        ? {
            anchorDate: day,
            // A new cycle on the day of the reactivation, not on a bill-cycle day.
            billCycleDay: null,
            nextRenewDate: day,
            nextInvDate: day,
            ...(row.trialEndDate !== null && row.trialEndDate > day ? { trialEndDate: day } : {}),
          }
        : { nextInvDate: invoiceDateOf(row.nextRenewDate ?? row.startDate, timeline) }),
      updatedAt: nowInstant(ctx),
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
    const scheduledCancel = row.cancelDate !== null && row.cancelDate > day;
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
        if (error instanceof BillingInvariantError) return row.nextInvDate;
        throw error;
      }
    };
    await repo.updateSubscription(trx, ctx.account.id, row.id, {
      pendingChange: null,
      ...(scheduledCancel
        ? { cancelType: null, cancelDate: null, cancelledAt: null, nextInvDate: await nextInvDate() }
        : {}),
      updatedAt: nowInstant(ctx),
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
  if (row.nextInvDate === null || row.parkedReason !== null) return null;
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
    packageId: row.packageId,
    packageVersionId: row.packageVersionId,
    ...input,
  });
}

export async function subscriptionCurrency(ctx: ServiceContext, subscriptionId: number): Promise<string> {
  return (await findOrThrow(ctx, subscriptionId)).currencyCode;
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
    if (row.parkedReason === null) {
      throw new ConflictError('subscription_not_parked', `Subscription ${row.id} is not parked`);
    }
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      parkedReason: null,
      parkedAt: null,
      updatedAt: nowInstant(ctx),
    });
    return { credits: [], invoiceIds: await billSubscriptionInTransaction(tctx, row.id, day) };
  });
}
