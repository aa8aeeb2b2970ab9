import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { earliestActionDate, isRail, onBusinessDay, returnWindowEnd } from '../../core/bankingDays.ts';
import type { FieldProblem } from '../../errors.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * Subscriptions that start when paid (docs/subscriptions.md, "Subscriptions that start when paid"; the plan in
 * docs/design/subscription-lifecycle.md): the pure rules. A subscription created with ActivateOnPayment carries the
 * day it expires unpaid (`incompleteUntil`); it is Incomplete until its first invoice is paid (`activatedOn`) or the
 * bill run expires it (`incompleteExpiredOn`). Its status is read from those fields, never from the dates, so that a
 * payment and an expiry each move it once, whichever comes first.
 */

/** Days an unpaid card or pay-link subscription stays incomplete (Stripe's incomplete lasts 23 hours). */
export const INCOMPLETE_EXPIRES_AFTER_DAYS = 1;

/** Incomplete or IncompleteExpired while its first invoice is unpaid; undefined once paid, or when not gated. */
export function activationStatusOf(
  row: Pick<SubscriptionRecord, 'incompleteUntil' | 'activatedOn' | 'incompleteExpiredOn'>,
): 'Incomplete' | 'IncompleteExpired' | undefined {
  if (row.incompleteUntil === null || row.activatedOn !== null) return undefined;
  return row.incompleteExpiredOn === null ? 'Incomplete' : 'IncompleteExpired';
}

/** Waiting for its first invoice to be paid: the bill run bills nothing more of it, and it may be activated. */
export const isAwaitingPayment = (
  row: Pick<SubscriptionRecord, 'incompleteUntil' | 'activatedOn' | 'incompleteExpiredOn'>,
): boolean => activationStatusOf(row) === 'Incomplete';

/**
 * Where a usage period's events are counted from: a subscription that started when paid counts none before the day
 * it was paid (docs/subscriptions.md, "Subscriptions that start when paid"); the period is billed as it stands.
 */
export function usageFrom(row: Pick<SubscriptionRecord, 'activatedOn'>, periodStart: PlainDate): PlainDate {
  return row.activatedOn !== null && row.activatedOn > periodStart ? row.activatedOn : periodStart;
}

/**
 * The day an unpaid subscription created on `on` expires: the day after INCOMPLETE_EXPIRES_AFTER_DAYS for a card, a
 * pay link or any method paid by the customer; for a debit order, the day after the return window of a debit on the
 * earliest action date a batch bundled today could have, since the money is not settled sooner
 * (docs/gateways.md, "From the customer's settings to the money").
 */
export function incompleteUntilOf(collectionMethod: string | null, on: PlainDate): PlainDate {
  if (collectionMethod !== null && isRail(collectionMethod)) {
    const actionDate = onBusinessDay(earliestActionDate(collectionMethod, on), collectionMethod);
    return addDays(returnWindowEnd(collectionMethod, actionDate), 1);
  }
  return addDays(on, INCOMPLETE_EXPIRES_AFTER_DAYS);
}

/**
 * What ActivateOnPayment asks of a new subscription: its first invoice issued on the day it is created (a start
 * from today to numDaysBeforeToInv days ahead; a backdated start would bill periods already past) and a first
 * period that is paid for (a trial starts without payment).
 */
export function checkActivateOnPayment(
  problems: FieldProblem[],
  given: {
    on: PlainDate;
    startDate: PlainDate | undefined;
    numDaysBeforeToInv: number;
    trialPeriod: number | undefined;
  },
): void {
  const { on, startDate, numDaysBeforeToInv, trialPeriod } = given;
  if (startDate !== undefined && startDate < on) {
    problems.push({
      field: 'StartDate',
      message: `must be today (${on}) or later with ActivateOnPayment: a backdated start is billed as it is made`,
    });
  }
  const latest = addDays(on, numDaysBeforeToInv);
  if (startDate !== undefined && startDate > latest) {
    problems.push({
      field: 'StartDate',
      message:
        `must be at most numDaysBeforeToInv days ahead (${latest}) with ActivateOnPayment, so that its first ` +
        'invoice is issued at once',
    });
  }
  if (trialPeriod !== undefined && trialPeriod > 0) {
    problems.push({
      field: 'ActivateOnPayment',
      message: 'cannot be true for a rate term with a trial: a trial starts without payment',
    });
  }
}
