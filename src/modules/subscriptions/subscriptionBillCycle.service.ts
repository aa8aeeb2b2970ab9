import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { billCycleDayProblem, changeBillCycle, honoursBillCycleDay } from '../../core/billCycleDay.ts';
import type { Term } from '../../core/periods.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import * as repo from './subscriptionChanges.repository.ts';
import { billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';
import { changeSubscription, lockSubscription } from './subscriptionEditing.ts';
import { parsePendingChange } from './subscriptionTimeline.ts';
import type { SubscriptionRow } from './subscriptionTimeline.ts';

/**
 * Moves a subscription to another bill-cycle day (PUT /v1/subscriptions/{id}/changebillcycleday; docs/pricing.md,
 * "Bill-cycle day"). Time already billed stays as billed: nothing is credited. The move takes effect where the
 * billed time ends: the next period is a stub from there to the first new-day date, priced over the new cycle's
 * period holding its start, then whole terms renew on the new day. Before the first whole term is billed, the
 * first period is planned again as a new subscription's would be. The same day changes nothing.
 */
export async function changeBillCycleDay(
  ctx: ServiceContext,
  subscriptionId: number,
  day: number,
): Promise<ChangeResult> {
  const problem = billCycleDayProblem(day, false);
  if (problem) throw ValidationError.field('BillCycleDay', problem);
  return changeSubscription(ctx, subscriptionId, async (tctx, held, on) => {
    const term: Term = { count: held.term, unit: held.term_type as Term['unit'] };
    assertMovable(held, term, day);
    if (held.bill_cycle_day === day) return { credits: [], invoiceIds: [] };
    // What is due is billed first on the cycle in force, as before any change: the move starts where it ends.
    const billedFirst = await billSubscriptionInTransaction(tctx, held.id, on);
    const row = await lockSubscription(tctx, held.id);
    const change = changeBillCycle(
      {
        startDate: row.start_date,
        trialEndDate: row.trial_end_date,
        isProRata: Boolean(row.is_pro_rata),
        firstProrataSyncDate: row.first_prorata_sync_date,
        nextRenewDate: row.next_renew_date,
        term,
      },
      day,
    );
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      bill_cycle_day: day,
      anchor_date: change.anchorDate,
      ...(change.kind === 'first'
        ? { is_pro_rata: change.isProRata, first_prorata_sync_date: change.firstProrataSyncDate }
        : // A period starting there off the new cycle is its stub (the core's offCycleStart).
          { off_cycle_start: change.from }),
      updated_at: nowInstant(ctx),
    });
    // The next period still starts where it did, so its invoice date stands; one already due is billed now.
    const billedNow = await billSubscriptionInTransaction(tctx, row.id, on);
    return { credits: [], invoiceIds: [...billedFirst, ...billedNow] };
  });
}

/** The refusals of a move, each saying why (cancelled and expired ones are refused by changeSubscription). */
function assertMovable(row: SubscriptionRow, term: Term, day: number): void {
  if (!honoursBillCycleDay(term)) {
    throw new ConflictError(
      'bill_cycle_day_not_applicable',
      `Subscription ${row.id} renews every ${row.term} ${row.term_type}: a bill-cycle day applies to terms of ` +
        'months only',
    );
  }
  if (row.cancel_date !== null) {
    throw new ConflictError(
      'subscription_cancelled',
      `Subscription ${row.id} is cancelled from ${row.cancel_date}; reactivate it before moving its bill-cycle day`,
    );
  }
  if (row.bill_cycle_day === day) return;
  const pending = parsePendingChange(row.pending_change);
  if (pending && (pending.term.count !== term.count || pending.term.unit !== term.unit)) {
    // A new length of term starts a new cycle on its own day, which would undo the move at once.
    throw new ConflictError(
      'subscription_change_pending',
      `Subscription ${row.id} changes to a term of ${pending.term.count} ${pending.term.unit} on ` +
        `${pending.effectiveDate}, which starts a new cycle that day; remove that change (DELETE ` +
        '.../futurechanges) or move the bill-cycle day after it',
    );
  }
}
