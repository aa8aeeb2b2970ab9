import { Temporal } from 'temporal-polyfill';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { earliestActionDate, isRail, lastSubmitDate } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { longDate, queueStaffMail } from '../collections/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { paymentsByIds, withLockedCustomer } from '../ledger/index.ts';
import type { Payment } from '../ledger/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { batchRef, cancelBatch, submitBatch, withLockedBatch } from './batch.service.ts';
import { deleteBatchLine } from './batchLine.service.ts';
import { submissionNoticeDate } from './batchRules.ts';
import { planActionDate, reportLineProblem } from './batchPlan.service.ts';
import { carryDebit, staysInPeriod } from './carriedDebits.ts';
import type { CarriedDebit } from './carriedDebits.ts';
import { carryMissedDebit, fromSubscription, mandateTermsOf } from './carriedDebits.service.ts';

/**
 * Batches that go out (docs/gateways.md, "Batches that go out"): an open automatic batch whose last safe day has
 * come (its rail's lead time before its action date) is submitted by the run when the account asks for it
 * (`AutoSubmitBatches`), as a person's submit would be; else, two business days before that day,
 * `batch.submission_due` and an e-mail to the staff say so, once. A batch submitted after its last safe day is
 * re-dated within its period rather than refused, and its debits that cannot keep their period are carried
 * (docs/gateways.md, "Months that stay in step").
 */

/** The run's step: each open automatic batch whose last safe day (or notice day) has come; how many it submitted. */
export async function submitDueBatches(ctx: ServiceContext): Promise<number> {
  const on = today(ctx);
  let submitted = 0;
  for (const batch of await repo.listBatchesInStates(ctx.db, ctx.account.id, ['open'])) {
    if (!batch.isAuto || batch.rail === null || !isRail(batch.rail)) continue;
    // A batch whose build failed waits for a person: submitting it again would fail the same way.
    const runSubmits = ctx.account.collectionLoop.autoSubmitBatches && batch.buildError === null;
    const from = runSubmits
      ? lastSubmitDate(batch.rail, batch.actionDate)
      : submissionNoticeDate(batch.rail, batch.actionDate);
    if (on < from) continue;
    try {
      if (runSubmits) {
        await submitBatchAsked(ctx, batch.token, {});
        submitted += 1;
      } else {
        await announceSubmissionDue(ctx, batch);
      }
    } catch (error) {
      ctx.log.warn({ err: error, batchId: batch.id }, 'submitting a due batch failed');
    }
  }
  return submitted;
}

/**
 * Spec: PUT /v1/batches/submit, as a person or the run asks it: a batch late for its own action date is re-dated
 * first (redateLateBatch); an ActionDate sent is kept as sent, and refused when too early (submitBatch). A late
 * batch every line of which left (each carried past its period, or with its problem) is cancelled, and the submit
 * answers 409 `batch_too_late` saying so: nothing is left to send.
 */
export async function submitBatchAsked(
  ctx: ServiceContext,
  token: string,
  input: Parameters<typeof submitBatch>[2],
): Promise<void> {
  if (input.actionDate === undefined) {
    const late = await redateLateBatch(ctx, token);
    if (late && late.actionDate === undefined) {
      await cancelBatch(ctx, token);
      throw new ConflictError(
        'batch_too_late',
        `Batch ${token} was submitted after its last safe day (${late.lastSafeDay}): each of its debit orders ` +
          'moved to the next date its mandate allows, with that date’s own debit, or to its customer to pay, and ' +
          'the customers were told; nothing was left to submit, so the batch was cancelled',
      );
    }
  }
  await submitBatch(ctx, token, input);
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** A date as a person reads it in a notice: "Thursday 6 May 2027". */
function dayText(date: PlainDate): string {
  return `${WEEKDAYS[Temporal.PlainDate.from(date).dayOfWeek - 1]} ${longDate(date)}`;
}

/**
 * `batch.submission_due` and the staff's e-mail, once per batch and action date, from two business days before its
 * last safe day: what the batch holds, the day it must be submitted by, and the command that submits it (the
 * service has no staff pages to link to; the command is what a finance person with the service's host runs).
 */
async function announceSubmissionDue(ctx: ServiceContext, batch: BatchRecord): Promise<void> {
  const figures = (await repo.figuresOfBatches(ctx.db, ctx.account.id, [batch.id])).get(batch.id);
  if (!figures || figures.lines === 0) return;
  const lastSafe = lastSubmitDate(batch.rail as Rail, batch.actionDate);
  const mailed = await withTransaction(ctx, async (tctx) => {
    const emitted = await emitEvent(tctx, 'batch.submission_due', batchRef(batch.token), {
      onceKey: `batch.submission_due:${batch.token}:${batch.actionDate}`,
    });
    if (emitted.length === 0) return false;
    const total = `${batch.currencyCode} ${minorToDecimalText(figures.totalMinor, batch.currencyCode)}`;
    return queueStaffMail(tctx, {
      subject: `Submit batch ${batch.token} by ${dayText(lastSafe)}: debit orders for ${dayText(batch.actionDate)}`,
      blocks: [
        {
          paragraph: `Batch ${batch.token} holds ${figures.lines} debit order(s) for ${total}, to be collected on ${dayText(batch.actionDate)}. Submit it by ${dayText(lastSafe)}: that is the last day that keeps this date.`,
          strong: true,
        },
        { paragraph: 'To see the open batches and submit this one, run on the service’s host:' },
        { paragraph: `billing batch list --account ${ctx.account.id}` },
        { paragraph: `billing batch submit --account ${ctx.account.id} ${batch.token}` },
        {
          paragraph:
            'Debit orders may still join the batch until it is submitted. Submitted after that day, each debit order moves to the next date its mandate allows (a month later under a monthly mandate), together with that date’s own debit or to its customer to pay, and its customer is told. With the account’s AutoSubmitBatches setting on, the daily run submits batches on their last safe day by itself.',
        },
      ],
    });
  });
  if (mailed) ctx.mailQueued();
}

/** Where a line of a batch submitted after its last safe day goes (docs/gateways.md, "Months that stay in step"). */
type LatePlacement =
  /** Re-dated within its mandate's period: the earliest such date of the lines moves the batch. */
  | { stays: PlainDate }
  /** Its mandate's next date is in a later period: carried past it, never in the way of that period's invoice. */
  | { carried: CarriedDebit }
  /** Its mandate allows no date at all. */
  | { problem: string };

/** What a late submission did: the batch's new action date, or undefined when every line left it. */
export interface LateBatch {
  actionDate: PlainDate | undefined;
  /** The day it should have been submitted by. */
  lastSafeDay: PlainDate;
}

/** What a customer whose debit order moves because its batch was late is told. */
const LATE_WHY = 'Our debit order batch reached the bank too late for that date.';

/**
 * A batch submitted after its last safe day, without an ActionDate (docs/spec-decisions.md, "Batches";
 * docs/gateways.md, "Months that stay in step"): re-dated only within the period of its mandates. Each line is
 * placed at the earliest date its mandate allows from now: within the period of the batch's date, the earliest such
 * date of the lines is the batch's new one, and a line that allows only a later date in its period leaves with it;
 * past its period, the line leaves and its debit is carried (carryDebit: with that date's own debit, or to its
 * customer), never in the way of the next invoice; a line whose mandate allows none leaves with its problem
 * (docs/gateways.md, "One customer never holds up a batch"). Each customer whose date changes is told, before the
 * date it was told of. `batch.updated` shows the old ActionDate and the new. Undefined when it was not late.
 */
export async function redateLateBatch(ctx: ServiceContext, token: string): Promise<LateBatch | undefined> {
  const batch = await repo.findBatchByToken(ctx.db, ctx.account.id, token);
  if (!batch || !batch.isAuto || batch.state !== 'open' || batch.rail === null || !isRail(batch.rail)) return;
  const rail: Rail = batch.rail;
  if (batch.actionDate >= earliestActionDate(rail, today(ctx))) return;
  const lines = await repo.listLines(ctx.db, ctx.account.id, batch.id);
  const placements = new Map<number, LatePlacement>();
  for (const line of lines) placements.set(line.paymentId, await placeLateLine(ctx, batch, rail, line));
  const dates = [...placements.values()].flatMap((placement) =>
    'stays' in placement ? [placement.stays] : [],
  );
  const actionDate = dates.sort()[0];
  for (const line of lines) {
    await moveLateLine(ctx, batch, line, placements.get(line.paymentId)!, actionDate);
  }
  const late = { actionDate, lastSafeDay: lastSubmitDate(rail, batch.actionDate) };
  if (actionDate === undefined) return late;
  await withLockedBatch(ctx, token, async (tctx, locked) => {
    if (locked.state !== 'open') return;
    const before = await snapshotResource(tctx, batchRef(token));
    await repo.updateBatch(tctx.db, tctx.account.id, locked.id, {
      actionDate,
      updatedAt: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(token), { before });
  });
  return late;
}

/** Where the line goes: the earliest date its mandate allows from now, within its period or past it. */
async function placeLateLine(
  ctx: ServiceContext,
  batch: BatchRecord,
  rail: Rail,
  line: BatchLine,
): Promise<LatePlacement> {
  const plan = await planActionDate(
    ctx,
    { nextTryDate: null, dueDate: batch.actionDate },
    line.paymentMethodId!,
    rail,
  );
  if ('problem' in plan) return plan;
  const terms = rail === 'debit_order' ? await mandateTermsOf(ctx, line.paymentMethodId!) : undefined;
  if (staysInPeriod(terms, batch.actionDate, plan.actionDate)) return { stays: plan.actionDate };
  const recurs = await fromSubscription(ctx, line.paymentId);
  return { carried: carryDebit(terms, plan.actionDate, line.amountMinor, recurs) };
}

/**
 * The line as placed: kept in the batch at its new date, or out of it (its payment deleted) with its debit on its
 * own later date or carried; each of its invoices follows, and its customer is told.
 */
async function moveLateLine(
  ctx: ServiceContext,
  batch: BatchRecord,
  line: BatchLine,
  placement: LatePlacement,
  actionDate: PlainDate | undefined,
): Promise<void> {
  if ('problem' in placement) {
    await leaveBatch(ctx, line, placement.problem);
    return;
  }
  // Read before the line goes: a line that joined two debits pays two invoices.
  const shares = invoiceShares((await paymentsByIds(ctx, [line.paymentId])).get(line.paymentId));
  if (!('stays' in placement && placement.stays === actionDate)) await deleteBatchLine(ctx, line.paymentId);
  const plan: CarriedDebit =
    'stays' in placement ? { way: 'alone', actionDate: placement.stays } : placement.carried;
  let mailed = false;
  await withLockedCustomer(ctx, line.customerId, async (tctx) => {
    for (const share of shares) {
      const debit = {
        ...share,
        customerId: line.customerId,
        currencyCode: line.currencyCode,
        paymentMethodId: line.paymentMethodId!,
        from: batch.actionDate,
      };
      if (await carryMissedDebit(tctx, debit, plan, LATE_WHY)) mailed = true;
    }
  });
  if (mailed) ctx.mailQueued();
}
/** The invoices a line's payment pays, and how much of it each. */
const invoiceShares = (payment: Payment | undefined) =>
  (payment?.allocations ?? [])
    .filter((allocation) => allocation.targetType === 'invoice')
    .map((allocation) => ({ invoiceId: allocation.targetId, amountMinor: allocation.amountMinor }));

/** A line whose mandate allows no date leaves its batch: its payment deleted, its invoice told its problem. */
async function leaveBatch(ctx: ServiceContext, line: BatchLine, problem: string): Promise<void> {
  await deleteBatchLine(ctx, line.paymentId);
  const invoiceId = line.invoiceId;
  if (invoiceId === null) return;
  const told = await withLockedCustomer(ctx, line.customerId, (tctx) =>
    reportLineProblem(tctx, {
      invoiceId,
      customerId: line.customerId,
      currencyCode: line.currencyCode,
      amountMinor: line.amountMinor,
      problem,
    }),
  );
  if (told) ctx.mailQueued();
}
