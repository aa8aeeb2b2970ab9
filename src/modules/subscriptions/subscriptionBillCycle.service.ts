import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { changeBillCycle, honoursBillCycleDay } from './billCycleDay.ts';
import { billCycleDayProblem } from '../../core/billCycleDayInput.ts';
import type { Term } from '../../core/periods.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import * as repo from './subscriptionChanges.repository.ts';
import { billSubscriptionInTransaction } from './subscriptionBilling.service.ts';
import type { ChangeResult } from './subscriptionChanges.service.ts';
import { changeSubscription, lockSubscription } from './subscriptionEditing.ts';
import { parsePendingChange } from './subscriptionTimeline.ts';
import type { SubscriptionRecord } from './subscription.ts';

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
    const term: Term = { count: held.term, unit: held.termType as Term['unit'] };
    assertMovable(held, term, day);
    if (held.billCycleDay === day) return { credits: [], invoiceIds: [] };
    // What is due is billed first on the cycle in force, as before any change: the move starts where it ends.
    const billedFirst = await billSubscriptionInTransaction(tctx, held.id, on);
    const row = await lockSubscription(tctx, held.id);
    const change = changeBillCycle(
      {
        startDate: row.startDate,
        trialEndDate: row.trialEndDate,
        isProRata: Boolean(row.isProRata),
        firstProrataSyncDate: row.firstProrataSyncDate,
        nextRenewDate: row.nextRenewDate,
        term,
      },
      day,
    );
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      billCycleDay: day,
      anchorDate: change.anchorDate,
      ...(change.kind === 'first'
        ? { isProRata: change.isProRata, firstProrataSyncDate: change.firstProrataSyncDate }
        : // A period starting there off the new cycle is its stub (the core's offCycleStart).
          { offCycleStart: change.from }),
      updatedAt: nowInstant(ctx),
    });
    // The next period still starts where it did, so its invoice date stands; one already due is billed now.
    const billedNow = await billSubscriptionInTransaction(tctx, row.id, on);
    return { credits: [], invoiceIds: [...billedFirst, ...billedNow] };
  });
}

/** The refusals of a move, each saying why (cancelled and expired ones are refused by changeSubscription). */
function assertMovable(row: SubscriptionRecord, term: Term, day: number): void {
  if (!honoursBillCycleDay(term)) {
    throw new ConflictError(
      'bill_cycle_day_not_applicable',
      `Subscription ${row.id} renews every ${row.term} ${row.termType}: a bill-cycle day applies to terms of ` +
        'months only',
    );
  }
  if (row.cancelDate !== null) {
    throw new ConflictError(
      'subscription_cancelled',
      `Subscription ${row.id} is cancelled from ${row.cancelDate}; reactivate it before moving its bill-cycle day`,
    );
  }
  if (row.billCycleDay === day) return;
  const pending = parsePendingChange(row.pendingChange);
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
