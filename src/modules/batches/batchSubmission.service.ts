import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { earliestActionDate, isRail, lastSubmitDate } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { queueStaffMail } from '../collections/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { withLockedCustomer } from '../ledger/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { batchRef, submitBatch, withLockedBatch } from './batch.service.ts';
import { deleteBatchLine } from './batchLine.service.ts';
import { planActionDate, reportLineProblem, showPlannedDate } from './batchPlan.service.ts';
import type { ActionDatePlan } from './batchPlan.service.ts';

/**
 * Batches that go out (docs/gateways.md, "Batches that go out"): an open automatic batch whose last safe day has
 * come (its rail's lead time before its action date) is submitted by the run when the account asks for it
 * (`AutoSubmitBatches`), as a person's submit would be; else `batch.submission_due` and an e-mail to the staff say
 * so, once. A batch submitted after its last safe day is re-dated rather than refused.
 */

/** The run's step: each open automatic batch whose last safe day has come; how many it submitted. */
export async function submitDueBatches(ctx: ServiceContext): Promise<number> {
  const on = today(ctx);
  let submitted = 0;
  for (const batch of await repo.listBatchesInStates(ctx.db, ctx.account.id, ['open'])) {
    if (!batch.isAuto || batch.rail === null || !isRail(batch.rail)) continue;
    if (on < lastSubmitDate(batch.rail, batch.actionDate)) continue;
    try {
      // A batch whose build failed waits for a person: submitting it again would fail the same way.
      if (ctx.account.collectionLoop.autoSubmitBatches && batch.buildError === null) {
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
 * first (redateLateBatch); an ActionDate sent is kept as sent, and refused when too early (submitBatch).
 */
export async function submitBatchAsked(
  ctx: ServiceContext,
  token: string,
  input: Parameters<typeof submitBatch>[2],
): Promise<void> {
  if (input.actionDate === undefined) await redateLateBatch(ctx, token);
  await submitBatch(ctx, token, input);
}

/** `batch.submission_due` and the staff's e-mail, once per batch and action date. */
async function announceSubmissionDue(ctx: ServiceContext, batch: BatchRecord): Promise<void> {
  const figures = (await repo.figuresOfBatches(ctx.db, ctx.account.id, [batch.id])).get(batch.id);
  if (!figures || figures.lines === 0) return;
  const mailed = await withTransaction(ctx, async (tctx) => {
    const emitted = await emitEvent(tctx, 'batch.submission_due', batchRef(batch.token), {
      onceKey: `batch.submission_due:${batch.token}:${batch.actionDate}`,
    });
    if (emitted.length === 0) return false;
    const total = `${batch.currencyCode} ${minorToDecimalText(figures.totalMinor, batch.currencyCode)}`;
    return queueStaffMail(tctx, {
      subject: `Submit batch ${batch.token} today: debit orders for ${batch.actionDate}`,
      blocks: [
        {
          paragraph: `Batch ${batch.token} holds ${figures.lines} debit order(s) for ${total}, to be presented on ${batch.actionDate}. Today is the last day it can be submitted for that date.`,
        },
        {
          paragraph:
            'Submit it today (PUT /v1/batches/submit). Submitted later, it is re-dated to the next date each mandate allows. AutoSubmitBatches on the account submits such batches by itself.',
        },
      ],
    });
  });
  if (mailed) ctx.mailQueued();
}

/**
 * A batch submitted after its last safe day, without an ActionDate (docs/spec-decisions.md, "Batches"): moved to
 * the earliest date its lines allow, each keeping its mandate's rule. A line whose mandate allows a later date only
 * leaves the batch, its invoice planned for that date (the run bundles it then); one whose mandate allows none
 * leaves with its problem (docs/gateways.md, "One customer never holds up a batch"). `batch.updated` shows the old
 * ActionDate and the new.
 */
export async function redateLateBatch(ctx: ServiceContext, token: string): Promise<void> {
  const batch = await repo.findBatchByToken(ctx.db, ctx.account.id, token);
  if (!batch || !batch.isAuto || batch.state !== 'open' || batch.rail === null || !isRail(batch.rail)) return;
  const rail: Rail = batch.rail;
  if (batch.actionDate >= earliestActionDate(rail, today(ctx))) return;
  const lines = await repo.listLines(ctx.db, ctx.account.id, batch.id);
  const plans = new Map<number, ActionDatePlan>();
  for (const line of lines) {
    plans.set(
      line.paymentId,
      await planActionDate(
        ctx,
        { nextTryDate: null, dueDate: batch.actionDate },
        line.paymentMethodId!,
        rail,
      ),
    );
  }
  const dates = [...plans.values()].flatMap((plan) => ('actionDate' in plan ? [plan.actionDate] : []));
  const actionDate = dates.sort()[0];
  for (const line of lines) {
    const plan = plans.get(line.paymentId)!;
    if ('actionDate' in plan && plan.actionDate === actionDate) await showNewDate(ctx, line, actionDate);
    else await leaveBatch(ctx, line, plan);
  }
  if (actionDate === undefined) return;
  await withLockedBatch(ctx, token, async (tctx, locked) => {
    if (locked.state !== 'open') return;
    const before = await snapshotResource(tctx, batchRef(token));
    await repo.updateBatch(tctx.db, tctx.account.id, locked.id, {
      actionDate,
      updatedAt: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.updated', batchRef(token), { before });
  });
}

/** A line that stays: its invoice's NextTryDate follows the batch to its new action date. */
async function showNewDate(ctx: ServiceContext, line: BatchLine, actionDate: string): Promise<void> {
  const invoiceId = line.invoiceId;
  if (invoiceId === null) return;
  await withLockedCustomer(ctx, line.customerId, (tctx) => showPlannedDate(tctx, invoiceId, actionDate));
}

/** A line leaves its batch: its payment deleted, its invoice planned for its own date, or told its problem. */
async function leaveBatch(ctx: ServiceContext, line: BatchLine, plan: ActionDatePlan): Promise<void> {
  await deleteBatchLine(ctx, line.paymentId);
  const invoiceId = line.invoiceId;
  if (invoiceId === null) return;
  const told = await withLockedCustomer(ctx, line.customerId, async (tctx) => {
    if ('actionDate' in plan) {
      await showPlannedDate(tctx, invoiceId, plan.actionDate);
      return false;
    }
    return reportLineProblem(tctx, {
      invoiceId,
      customerId: line.customerId,
      currencyCode: line.currencyCode,
      amountMinor: line.amountMinor,
      problem: plan.problem,
    });
  });
  if (told) ctx.mailQueued();
}
