import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { maxDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Term } from '../../core/periods.ts';
import { changeBillCycle, honoursBillCycleDay } from './billCycleDay.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import * as repo from './subscriptionChanges.repository.ts';
import { billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';
import { lockSubscription, withSubscriptionHeld } from './subscriptionEditing.ts';
import { assertNoOpenPause } from './subscriptionPause.ts';
import { priceChoiceFields, resolvePriceChoice } from './subscriptionInput.ts';
import type { PriceChoice, PriceChoiceInput } from './subscriptionInput.ts';
import { anchorDateOf } from './subscriptionTimeline.ts';
import type { PendingChange } from './subscriptionTimeline.ts';
import {
  assertNotEnded,
  cutBilledTime,
  findOrThrow,
  payChangeFromCredit,
} from './subscriptionChanges.service.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';

/**
 * A subscription's terms changed (docs/pricing.md, "Changes and their credits"): now, with a pro-rated credit for the unused time
 * and a charge for the new terms, or at its next renewal. Cancellation, reactivation and the other changes are in
 * subscriptionChanges.service.ts, whose steps for cutting billed time this shares.
 */
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
    assertNoOpenPause(held, day);
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
