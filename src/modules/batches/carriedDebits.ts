import type { PlainDate } from '../../core/calendar.ts';
import {
  instalmentOn,
  mandatedActionDate,
  mayCollectTogether,
  periodOfActionDate,
} from '../mandates/index.ts';
import type { MandateTerms } from '../mandates/index.ts';

/**
 * Months that stay in step (docs/gateways.md, "Months that stay in step"): under a mandate that allows one
 * collection a period, each invoice is presented on its own date, and a debit that missed its own date (a retryable
 * return, a line of a batch submitted too late) never takes the period of a later invoice. Pure: the callers pass
 * the mandate's terms (undefined: the bank account has no mandate) and the dates.
 */

/**
 * Whether a debit planned for `planned` is carried past the period of its own date, the first date the mandate
 * allows on or after its due date: it would take the period of a later invoice. Never without a mandate, or under
 * an ad hoc one: nothing there counts periods.
 */
export function isCarried(terms: MandateTerms | undefined, dueDate: PlainDate, planned: PlainDate): boolean {
  if (terms === undefined) return false;
  const own = mandatedActionDate(terms, dueDate);
  const ownPeriod = own === undefined ? undefined : periodOfActionDate(terms, own);
  const period = periodOfActionDate(terms, planned);
  return ownPeriod !== undefined && period !== undefined && period > ownPeriod;
}

/**
 * How a debit that missed its own date is collected, `next` being the next date its mandate (or without one, the
 * rail's gap) allows, and `ownDebitThere` whether that date's period is expected to have a debit of its own (the
 * debit is a subscription's, whose next invoice will want it):
 * - `alone` on that date when nothing there counts periods (no mandate, or an ad hoc one), or no debit of its own is
 *   expected in that period: it takes no invoice's place (and should one come after all, the run's bundling makes
 *   them meet: meetInPeriod);
 * - `together` with that date's own debit, as one debit, when the mandate takes variable amounts and its
 *   instalment there and the amount carried stay within its maximum (the arrears added to the next instalment);
 * - else handed to the `customer` to pay (a pay link, the seller's EFT details): a second debit in the period is
 *   what the mandate refuses, and Netcash lets an unpaid be presented again only on the next mandated date.
 */
export type CarriedDebit =
  | { way: 'alone'; actionDate: PlainDate }
  | { way: 'together'; actionDate: PlainDate }
  | { way: 'customer'; actionDate: PlainDate };

export function carryDebit(
  terms: MandateTerms | undefined,
  next: PlainDate,
  owedMinor: number,
  ownDebitThere: boolean,
): CarriedDebit {
  if (terms === undefined || periodOfActionDate(terms, next) === undefined || !ownDebitThere) {
    return { way: 'alone', actionDate: next };
  }
  const together = mayCollectTogether(terms, next, instalmentOn(terms, next) + owedMinor);
  return { way: together ? 'together' : 'customer', actionDate: next };
}

/**
 * Whether a line of a batch submitted after its last safe day may be re-dated to `planned`, the earliest date its
 * mandate allows from now: only within the period of the batch's own date. Without a mandate, or under an ad hoc
 * one, nothing counts periods and any date will do.
 */
export function staysInPeriod(
  terms: MandateTerms | undefined,
  batchDate: PlainDate,
  planned: PlainDate,
): boolean {
  if (terms === undefined) return true;
  const period = periodOfActionDate(terms, batchDate);
  return period === undefined || periodOfActionDate(terms, planned) === period;
}

/** One of two debits of one bank account that meet in a period of its mandate: its amount, and whether carried. */
export interface MeetingDebit {
  amountMinor: number;
  carried: boolean;
}

/**
 * What becomes of two debits of one bank account that meet in one period of its mandate (the one already in the
 * batch, and the one coming): one debit of both when the mandate allows the total; else the carried one gives way
 * (the coming one first), so that an invoice's own date is never taken; two invoices each on their own date both
 * stay, and the build refuses the second as it always did.
 */
export type Meeting = 'together' | 'incoming_leaves' | 'existing_leaves' | 'both_stay';

export function meetInPeriod(
  terms: MandateTerms,
  actionDate: PlainDate,
  existing: MeetingDebit,
  incoming: MeetingDebit,
): Meeting {
  if (mayCollectTogether(terms, actionDate, existing.amountMinor + incoming.amountMinor)) return 'together';
  if (incoming.carried) return 'incoming_leaves';
  if (existing.carried) return 'existing_leaves';
  return 'both_stay';
}
