import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { changeBillCycle, honoursBillCycleDay } from './billCycleDay.ts';
import { boundary } from '../../core/periods.ts';
import type { Term } from '../../core/periods.ts';
import { trialEndOf } from './subscriptionStatus.ts';
import { BillingInvariantError } from '../invoicing/index.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import * as repo from './subscription.repository.ts';
import {
  billedPeriodNow,
  billIfDue,
  changeSubscription,
  scheduledInvoiceDate,
  timelineFor,
} from './subscriptionEditing.ts';
import { readDate } from './subscriptionInput.ts';
import { anchorDateOf } from './subscriptionTimeline.ts';
import type { SubscriptionRecord } from './subscription.ts';
import { usagePeriodAt } from './usagePeriods.ts';
import { hasMeteredComponents } from './meteredUsage.service.ts';
import { eventsUnbilledAtStop, finalCorrectionOn } from './meteredUsage.ts';

type DateColumns = Partial<
  Pick<SubscriptionRecord, 'startDate' | 'endDate' | 'trialEndDate' | 'anchorDate' | 'firstProrataSyncDate'>
> & { is_pro_rata?: boolean };

/**
 * Runs `change`, which checks the new dates and moves the usage they reshape, then saves the dates with the next
 * invoice date they lead to, and bills at once what became due once they have committed.
 */
async function changeDates(
  ctx: ServiceContext,
  subscriptionId: number,
  change: (tctx: ServiceContext, row: SubscriptionRecord, today: PlainDate) => Promise<DateColumns>,
): Promise<void> {
  const nextInvDate = await changeSubscription(ctx, subscriptionId, async (tctx, row, today) => {
    const dates = await change(tctx, row, today);
    const unbilled = await repo.listUnbilledUsageOf(tctx.db, ctx.account.id, row.id);
    const changed = { ...row, ...dates };
    const billsEvents = await hasMeteredComponents(tctx, row.id);
    const timeline = {
      ...timelineFor(ctx, changed),
      eventsUnbilledAtStop: eventsUnbilledAtStop(changed, billsEvents),
      finalCorrectionOn: finalCorrectionOn(
        changed,
        billsEvents,
        ctx.account.usageGraceHours,
        ctx.account.timeZone,
      ),
    };
    const next = scheduledInvoiceDate(timeline, unbilled, today);
    await repo.updateSubscription(tctx.db, ctx.account.id, row.id, {
      ...dates,
      nextInvDate: next,
      updatedAt: nowInstant(ctx),
    });
    return next;
  });
  await billIfDue(ctx, subscriptionId, nextInvDate);
}

/**
 * Public notes: changestartdate. Only while nothing has been billed (after that the periods billed are fixed):
 * the trial's end, the billing anchor and the next invoice date follow the new start, and usage recorded for the
 * first period moves with it.
 */
export async function changeStartDate(
  ctx: ServiceContext,
  subscriptionId: number,
  startText: string,
): Promise<void> {
  await changeDates(ctx, subscriptionId, async (tctx, row) => {
    if (row.periodCount > 0 || row.lastInvDate !== null || Boolean(row.setupBilled)) {
      throw new ConflictError(
        'subscription_billed',
        `Subscription ${row.id} has been billed; its StartDate can no longer change`,
      );
    }
    const problems: FieldProblem[] = [];
    const startDate = readDate(ctx, startText, 'StartDate', problems);
    if (startDate && row.endDate && row.endDate <= startDate) {
      problems.push({ field: 'StartDate', message: `must be before EndDate (${row.endDate})` });
    }
    const term = { count: row.term, unit: row.termType as Term['unit'] };
    // On a bill-cycle day, the first period is planned again from the new start (docs/pricing.md, "Bill-cycle day").
    const onDay = row.billCycleDay !== null && honoursBillCycleDay(term);
    if (startDate && row.isProRata && row.firstProrataSyncDate && !onDay) {
      const latest = boundary(startDate, term, 1);
      if (row.firstProrataSyncDate <= startDate || row.firstProrataSyncDate > latest) {
        problems.push({
          field: 'StartDate',
          message: `must leave firstProrataSyncDate (${row.firstProrataSyncDate}) after it and at most one term after it`,
        });
      }
    }
    if (problems.length > 0 || !startDate) throw new ValidationError(problems);

    const trialEndDate = trialEndOf(startDate, row.trialPeriod, row.trialPeriodType);
    const first =
      onDay &&
      changeBillCycle(
        { startDate, trialEndDate, isProRata: false, firstProrataSyncDate: null, nextRenewDate: null, term },
        row.billCycleDay!,
      );
    const dates = {
      startDate: startDate,
      trialEndDate: trialEndDate,
      anchorDate: anchorDateOf({ ...row, startDate: startDate }, trialEndDate),
      ...(first && first.kind === 'first'
        ? {
            isProRata: first.isProRata,
            firstProrataSyncDate: first.firstProrataSyncDate,
            anchorDate: first.anchorDate,
          }
        : {}),
    };
    const before = usagePeriodAt(timelineFor(ctx, row), null, row.startDate);
    const after = usagePeriodAt(timelineFor(ctx, { ...row, ...dates }), null, startDate);
    if (before && after) await repo.moveUnbilledUsage(tctx.db, ctx.account.id, row.id, before.start, after);
    return dates;
  });
}

/**
 * Public notes: changeenddate; null clears the EndDate. The new EndDate is not before today nor on or before the
 * StartDate. A period already billed past the new end stays billed as it was (no credit is made here). Once the
 * last period has been billed short to the old EndDate, the subscription cannot be lengthened: its next period
 * would not start on its billing cycle.
 */
export async function changeEndDate(
  ctx: ServiceContext,
  subscriptionId: number,
  endText: string | null,
): Promise<void> {
  await changeDates(ctx, subscriptionId, async (tctx, row, today) => {
    const problems: FieldProblem[] = [];
    const endDate = endText === null ? null : readDate(ctx, endText, 'EndDate', problems);
    if (endDate && endDate < today)
      problems.push({ field: 'EndDate', message: `must not be before today (${today})` });
    else if (endDate && endDate <= row.startDate) {
      problems.push({ field: 'EndDate', message: `must be after StartDate (${row.startDate})` });
    }
    if (problems.length > 0 || endDate === undefined) throw new ValidationError(problems);

    const before = timelineFor(ctx, row);
    const after = timelineFor(ctx, { ...row, endDate: endDate });
    if (row.nextRenewDate && (endDate === null || endDate > row.nextRenewDate)) {
      try {
        usagePeriodAt(after, null, row.nextRenewDate);
      } catch (error) {
        if (!(error instanceof BillingInvariantError)) throw error;
        throw new ConflictError(
          'subscription_billed_to_end',
          `Subscription ${row.id} was billed to its EndDate (${row.endDate}) with a short last period; ` +
            'it cannot be lengthened (subscribe the customer again instead)',
        );
      }
    }
    // Usage recorded in the current period moves with the period's new end (cut short, or lengthened again).
    const billed = await billedPeriodNow(tctx, row, today);
    const oldPeriod = usagePeriodAt(before, billed, today);
    const newPeriod = usagePeriodAt(after, billed, today);
    if (oldPeriod && newPeriod && oldPeriod.start === newPeriod.start && oldPeriod.end !== newPeriod.end) {
      await repo.moveUnbilledUsage(tctx.db, ctx.account.id, row.id, oldPeriod.start, newPeriod);
    }
    return { endDate: endDate };
  });
}
