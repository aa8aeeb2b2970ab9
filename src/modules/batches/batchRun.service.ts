import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { letLoopTurnInside } from '../../storage/database.ts';
import { lateWindowEnd, oldestActionDateWithLateReturns, returnWindowEnd } from '../../core/bankingDays.ts';
import { MAX_BATCH_LINES } from './batchRules.ts';
import type { BatchState } from './batchRules.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import {
  cancelBatchAtGateway,
  getGateway,
  isGatewayUsable,
  makesBankFiles,
  readBatchReports,
  submitBatchToGateway,
} from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { followBankAccountVerifications, openedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { atTheBank, batchRef, failLinesOfCancelledBatch } from './batch.service.ts';
import { makeBankFile } from './batchFile.service.ts';
import { badLines, leavingText, removeBadLines } from './batchBuildLines.service.ts';
import { bundleDueDebitOrders } from './batchBundling.service.ts';
import { submitDueBatches } from './batchSubmission.service.ts';
import { applyReport } from './batchReturns.service.ts';
import { sendDueReceipts } from './batchReceipts.service.ts';
import { countTries } from './batchTries.service.ts';
import { followUploads, tellUploadRefused, uploadBuiltFile } from './batchUpload.service.ts';
import { tellUploadToDelete } from './batchUploadNotices.ts';
import type { UploadRefusal } from './batchUpload.service.ts';
import { remindFilesWaiting } from './batchFileReminders.service.ts';
import { readNetcashStatements } from './netcashStatements.service.ts';

/**
 * What the collection run does with batches, for each account (src/billing/billRun.ts), in this order:
 * 0. asks again about bank accounts whose verification with the debtor's bank is pending (paymentMethods'
 *    followBankAccountVerifications), so that an account the bank answered for today is bundled (or held) today;
 * 1. bundles due debit-order invoices into open automatic batches (batchBundling.service.ts), and submits those
 *    whose last safe day has come, or tells the staff (batchSubmission.service.ts);
 * 2. builds the submitted batches: a line that cannot be made leaves with its reason (batchBuildLines.service.ts),
 *    the others go to the gateway (or into its bank file): `submitted`; a problem of the whole batch (its gateway,
 *    the provider refusing it) sends it back to `open` with BuildError (docs/gateways.md, "Debit orders and payment
 *    batches");
 * 3. follows batches in flight: `processing` from the action date, the gateway's reports applied (an unpaid fails
 *    its line, batchReturns.service.ts), lines nobody returned within the rail's window settled, and `processed`
 *    once every line is final;
 * 4. asks for late reversals on processed batches within the rail's late window;
 * 5. sends the receipts of debits settled before their return window, once it has passed (batchReceipts.service.ts);
 * 6. fails the lines a cancel cut short left pending.
 * Each batch is its own unit: one that fails is logged and tried again by the next run.
 */

export interface BatchRunSummary {
  /** Lines the run added to automatic batches. */
  bundled: number;
  /** Open automatic batches the run submitted on their last safe day (AutoSubmitBatches). */
  autoSubmitted: number;
  built: number;
  buildFailed: number;
  /** Lines that left their batch at the build, each with its reason (docs/gateways.md). */
  linesLeft: number;
  /** Lines paid (settled) and returned unpaid in this run. */
  settled: number;
  returned: number;
  processed: number;
  /** Receipts of debits settled before their return window passed, sent once it had (batchReceipts.service.ts). */
  receipted: number;
}

export const emptyBatchRunSummary = (): BatchRunSummary => ({
  bundled: 0,
  autoSubmitted: 0,
  built: 0,
  buildFailed: 0,
  linesLeft: 0,
  settled: 0,
  returned: 0,
  processed: 0,
  receipted: 0,
});

async function eachBatch(
  ctx: ServiceContext,
  batches: readonly BatchRecord[],
  work: (batch: BatchRecord) => Promise<void>,
): Promise<void> {
  for (const batch of batches) {
    try {
      await work(batch);
    } catch (error) {
      ctx.log.error({ err: error, batchId: batch.id }, 'batch run step failed');
    }
  }
}

export async function runBatches(ctx: ServiceContext): Promise<BatchRunSummary> {
  const summary = emptyBatchRunSummary();
  try {
    await followBankAccountVerifications(ctx);
  } catch (error) {
    ctx.log.error({ err: error }, 'following bank account verifications failed');
  }
  summary.bundled = await bundleDueDebitOrders(ctx);
  const processedSince = oldestActionDateWithLateReturns(today(ctx));
  // Most accounts on most days have no batch under way: one read instead of the seven the steps make (a test
  // clock's advance runs them for every day it passes; docs/benchmarks.md, "A day with nothing due").
  if (await repo.hasBatchesUnderWay(ctx.db, ctx.account.id, processedSince)) {
    await followBatchesUnderWay(ctx, processedSince, summary);
  }
  summary.receipted = await sendDueReceipts(ctx);
  for (const batchId of await repo.listCancelledWithPendingLines(ctx.db, ctx.account.id)) {
    try {
      await failLinesOfCancelledBatch(ctx, batchId);
    } catch (error) {
      ctx.log.error({ err: error, batchId }, 'failing the lines of a cancelled batch failed');
    }
  }
  if (Object.values(summary).some((count) => count > 0)) ctx.log.info({ batches: summary }, 'batch run');
  return summary;
}

/** Steps 1 (the submission) to 4 of the run, for an account with a batch under way. */
async function followBatchesUnderWay(
  ctx: ServiceContext,
  processedSince: string,
  summary: BatchRunSummary,
): Promise<void> {
  summary.autoSubmitted = await submitDueBatches(ctx);
  const { id: accountId } = ctx.account;
  await eachBatch(ctx, await repo.listBatchesInStates(ctx.db, accountId, ['build']), (batch) =>
    buildBatch(ctx, batch, summary),
  );
  // Netcash's side of its files (docs/gateways/netcash.md): load reports, the staff told of files that wait, and
  // the day's statements applied before the return windows are read.
  await followUploads(ctx, summary);
  await remindFilesWaiting(ctx);
  await readNetcashStatements(ctx, summary);
  await eachBatch(
    ctx,
    await repo.listBatchesInStates(ctx.db, accountId, ['submitted', 'processing']),
    (batch) => followBatch(ctx, batch, summary),
  );
  await eachBatch(ctx, await repo.listProcessedSince(ctx.db, accountId, processedSince), (batch) =>
    readReports(ctx, batch, summary),
  );
}

/**
 * What keeps the whole batch from its gateway: the build fails, the batch goes back to `open` with BuildError and
 * `batch.build_failed` (docs/gateways.md, "Debit orders and payment batches").
 */
function wholeBatchProblems(
  ctx: ServiceContext,
  batch: BatchRecord,
  gateway: Gateway,
  lines: readonly BatchLine[],
): string[] {
  const problems: string[] = [];
  if (!isGatewayUsable(gateway)) problems.push(`gateway ${gateway.id} is disabled or no longer active`);
  if (lines.length === 0) problems.push('the batch has no payments');
  if (lines.length > MAX_BATCH_LINES) problems.push(`the batch holds more than ${MAX_BATCH_LINES} payments`);
  // The lead time was checked at submit; a build that comes after the action date (a stalled worker) is too late.
  if (batch.actionDate < today(ctx)) {
    problems.push(`its action date ${batch.actionDate} has passed: submit it again with a later ActionDate`);
  }
  return problems;
}

/**
 * Every line of the batch left it at the build: nothing goes to the gateway, and the batch is cancelled as a person
 * cancelling an open batch would (`batch.cancelled`); its BuildError says why each line left. Its invoices were each
 * marked with their problem.
 */
async function cancelEmptiedBatch(ctx: ServiceContext, built: BatchRecord, leaving: string): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, built.id);
    if (!batch || batch.state !== 'build' || batch.submittedAt !== built.submittedAt) return;
    const ref = batchRef(batch.token);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: 'cancelled' satisfies BatchState,
      buildError: leaving || 'no payment of the batch was still pending',
      cancelledAt: now,
      updatedAt: now,
    });
    await emitEvent(tctx, 'batch.cancelled', ref, { before });
  });
}

/**
 * The gateway took the batch (its reference), or its bank file was made (the file, sealed when it is stored) and,
 * for a provider that takes files itself, uploaded under `uploadToken` (its load report still to come).
 */
interface Accepted {
  providerRef: string;
  file: string | null;
  uploadToken?: string;
}

async function buildBatch(ctx: ServiceContext, batch: BatchRecord, summary: BatchRunSummary): Promise<void> {
  const gateway = await getGateway(ctx, batch.gatewayId);
  const all = await repo.listLines(ctx.db, ctx.account.id, batch.id);
  const rail = batch.rail as Rail;
  const methods = await openedPaymentMethodsByIds(ctx, [
    ...new Set(all.map((line) => line.paymentMethodId!)),
  ]);
  const problems = wholeBatchProblems(ctx, batch, gateway, all);
  if (problems.length > 0) {
    await finishBuild(ctx, batch, gateway, all, problems, undefined, summary);
    return;
  }
  // One customer never holds up a batch (docs/gateways.md): a line that cannot be made leaves, the others go on.
  const bad = await badLines(ctx, batch, gateway, rail, all, methods);
  if (bad.size > 0) summary.linesLeft += await removeBadLines(ctx, batch, all, bad);
  const lines = all.filter((line) => line.state === 'pending' && !bad.has(line.paymentId));
  if (lines.length === 0) {
    await cancelEmptiedBatch(ctx, batch, leavingText(all, bad));
    return;
  }
  let accepted: Accepted | undefined;
  let refusal: UploadRefusal | undefined;
  if (problems.length === 0 && makesBankFiles(gateway)) {
    // The file is made once, here, and kept as it is: what the business downloads is what was checked.
    const file = await makeBankFile(ctx, gateway, batch, rail, lines, methods);
    if ('problems' in file) problems.push(...file.problems);
    else {
      accepted = { providerRef: file.messageId, file: file.body };
      // A provider that takes the file itself (Netcash's web service) has it now; its refusal keeps the batch here.
      const upload = await uploadBuiltFile(ctx, gateway, batch, rail, lines, file.body);
      if (upload && 'refused' in upload) {
        refusal = upload.refused;
        problems.push(...refusal.problems);
      } else if (upload) accepted.uploadToken = upload.uploadToken;
    }
  } else if (problems.length === 0) {
    const result = await submitBatchToGateway(ctx, gateway, {
      // One key per submission: a build cut short after the call is answered with the first acceptance.
      idempotencyKey: `batch_${batch.token}_${batch.submittedAt}`,
      rail,
      currencyCode: batch.currencyCode,
      actionDate: batch.actionDate,
      lines: lines.map((line) => {
        const account = methods.get(line.paymentMethodId!)!.bankAccount!;
        return {
          lineRef: String(line.paymentId),
          amountMinor: line.amountMinor,
          accountHolder: account.accountHolder,
          accountNumber: account.secrets?.accountNumber ?? null,
          branchCode: account.branchCode,
          routingNumber: account.routingNumber,
          iban: account.secrets?.iban ?? null,
          // What SA debit orders need beside the account (docs/gateways/netcash.md, "The debtor's ID number").
          accountType: account.accountType,
          idNumber: account.secrets?.idNumber ?? null,
        };
      }),
    });
    if (result.outcome !== 'rejected') accepted = { providerRef: result.providerRef, file: null };
    else {
      problems.push(
        `the gateway refused the batch: ${result.message}`,
        ...result.lineErrors.map((error) => `payment ${error.lineRef}: ${error.message}`),
      );
    }
  }
  const recorded = await finishBuild(ctx, batch, gateway, lines, problems, accepted, summary);
  if (recorded && refusal) await tellUploadRefused(ctx, batch, lines, refusal);
  if (!recorded && accepted?.uploadToken)
    await tellUploadToDelete(ctx, batch, accepted.providerRef, 'changed');
  // The provider took a batch that was cancelled (or submitted again) meanwhile: it must not collect it.
  if (!recorded && accepted && accepted.file === null) {
    await cancelBatchAtGateway(ctx, gateway, accepted.providerRef);
  }
}

/** Records the build's verdict, unless the batch changed meanwhile (cancelled, or submitted again); whether it did. */
async function finishBuild(
  ctx: ServiceContext,
  built: BatchRecord,
  gateway: Gateway,
  lines: readonly BatchLine[],
  problems: readonly string[],
  accepted: Accepted | undefined,
  summary: BatchRunSummary,
): Promise<boolean> {
  return withTransaction(ctx, async (tctx) => {
    // The batch's state and every invoice's try at once, so one transaction however many lines: on SQLite it lets
    // the event loop turn between its statements rather than hold it to the commit (docs/architecture.md, "Storage").
    await letLoopTurnInside(tctx.db);
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, built.id);
    if (!batch || batch.state !== 'build' || batch.submittedAt !== built.submittedAt) {
      tctx.log.warn(
        { batchId: built.id, gatewayId: gateway.id },
        'batch changed while it was built; build dropped',
      );
      return false;
    }
    const ref = batchRef(batch.token);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    if (problems.length > 0 || !accepted) {
      await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
        state: 'open' satisfies BatchState,
        buildError: problems.join('; '),
        updatedAt: now,
      });
      await emitEvent(tctx, 'batch.build_failed', ref, { before });
      summary.buildFailed += 1;
      return true;
    }
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: 'submitted' satisfies BatchState,
      providerRef: accepted.providerRef,
      // Sealed here, where it is stored, rather than right after it was made: the two are each a stretch of
      // synchronous work (10-25 ms on a cold process), and the loop turns between them (docs/benchmarks.md,
      // "Batches").
      fileSealed: accepted.file === null ? null : tctx.secrets.seal(accepted.file),
      uploadToken: accepted.uploadToken ?? null,
      uploadAcceptedAt: null,
      updatedAt: now,
    });
    // An uploaded file counts its tries once its load report says Netcash loaded it (batchUpload.service.ts).
    const invoiceEvents = accepted.uploadToken ? [] : await countTries(tctx, lines, batch.actionDate);
    await emitEvents(tctx, [{ type: 'batch.updated', ref, before }, ...invoiceEvents]);
    summary.built += 1;
    return true;
  });
}

/** A batch in flight: processing from its action date, reports applied, the return window closed, processed. */
async function followBatch(ctx: ServiceContext, batch: BatchRecord, summary: BatchRunSummary): Promise<void> {
  const on = today(ctx);
  let state = batch.state;
  // A bank file must have been taken to the bank (downloaded) before the bank can be processing it.
  if (state === 'submitted' && on >= batch.actionDate && atTheBank(batch)) {
    await moveState(ctx, batch, 'submitted', 'processing');
    state = 'processing';
  }
  if (state !== 'processing') return;
  await readReports(ctx, batch, summary);
  const rail = batch.rail as Rail;
  let pending = 0;
  const windowClosed = on > returnWindowEnd(rail, batch.actionDate);
  for (const line of await repo.listLines(ctx.db, ctx.account.id, batch.id)) {
    if (line.state !== 'pending') continue;
    // Nobody returned it within the rail's window: the money is in.
    if (windowClosed) await applyReport(ctx, batch, line, { outcome: 'paid', code: null }, summary);
    else pending += 1;
  }
  if (pending === 0 && (await moveState(ctx, batch, 'processing', 'processed'))) summary.processed += 1;
}

/** Moves the batch from `from` to `to` with its event, unless it left `from` meanwhile; whether it moved. */
async function moveState(
  ctx: ServiceContext,
  batch: BatchRecord,
  from: BatchState,
  to: BatchState,
): Promise<boolean> {
  return withTransaction(ctx, async (tctx) => {
    const locked = await repo.lockBatch(tctx.db, tctx.account.id, batch.id);
    if (locked?.state !== from) return false;
    const ref = batchRef(batch.token);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: to,
      ...(to === 'processed' ? { processedAt: now } : {}),
      updatedAt: now,
    });
    await emitEvent(tctx, to === 'processed' ? 'batch.processed' : 'batch.updated', ref, { before });
    return true;
  });
}

/**
 * The gateway's reports on the batch, read once a business day while they may still come (to the end of the rail's
 * late window): an unpaid fails its line, whether it is still pending or was settled (a late return); a paid report
 * settles a pending line. A line already failed is left alone, so each report is applied once.
 */
async function readReports(ctx: ServiceContext, batch: BatchRecord, summary: BatchRunSummary): Promise<void> {
  const on = today(ctx);
  const rail = batch.rail as Rail;
  // A bank file's reports come as files the business uploads, not from a provider.
  if (batch.providerRef === null || batch.hasFile) return;
  if (batch.reportsReadOn !== null && batch.reportsReadOn >= on) return;
  if (batch.state === 'processed' && on > lateWindowEnd(rail, batch.actionDate)) return;
  const gateway = await getGateway(ctx, batch.gatewayId);
  const reports = await readBatchReports(ctx, gateway, batch.providerRef, on);
  const lines = new Map(
    (await repo.listLines(ctx.db, ctx.account.id, batch.id)).map((line) => [String(line.paymentId), line]),
  );
  for (const report of reports) {
    const line = lines.get(report.lineRef);
    if (!line || line.state === 'failed') continue;
    await applyReport(ctx, batch, line, report, summary);
  }
  await repo.updateBatch(ctx.db, ctx.account.id, batch.id, { reportsReadOn: on });
}
