import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { lastSubmitDate } from '../../core/bankingDays.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { queueStaffMail } from '../collections/index.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import { getGateway, readBatchStatus, submitBatchToGateway, takesBatchFiles } from '../gateways/index.ts';
import type { BatchStatus, Gateway } from '../gateways/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { batchRef } from './batch.service.ts';
import type { BatchState } from './batchRules.ts';
import { countTries } from './batchTries.service.ts';

/**
 * Batches whose file the gateway's provider takes itself (docs/gateways/netcash.md, "Uploading through NIWS_NIF"):
 * the build uploads the file it made (uploadBuiltFile), the run reads its load report until Netcash has loaded it
 * (followUploads). Loaded, the batch is at Netcash: its tries count, and the staff are told the one thing left to
 * do by hand, authorise it in Netcash's portal. Refused (at the upload or in the report), the batch goes back to
 * `open` with Netcash's reasons, each named by its payment where the report names the line, and the staff are told.
 */

/** Why the provider did not take the file: the BuildError's parts, and each line it named with its reason. */
export interface UploadRefusal {
  problems: string[];
  lineErrors: { lineRef: string; message: string }[];
}

/** The provider's words as the batch's BuildError names them: the whole file's first, then each payment's. */
function refusalOf(message: string, lineErrors: UploadRefusal['lineErrors']): UploadRefusal {
  return {
    problems: [
      `the gateway refused the file: ${message}`,
      ...lineErrors.map((error) => `payment ${error.lineRef}: ${error.message}`),
    ],
    lineErrors,
  };
}

/**
 * Hands the built file to the gateway's provider when it takes files itself: its upload token, or its refusal;
 * undefined for a gateway whose files a person takes. The file holds the accounts; the lines give the call's record
 * its count and total. One key per submission, as for a provider's batch: a build cut short after the upload is
 * answered from the record (submitBatchToGateway), never uploaded twice.
 */
export async function uploadBuiltFile(
  ctx: ServiceContext,
  gateway: Gateway,
  batch: BatchRecord,
  rail: Rail,
  lines: readonly BatchLine[],
  file: string,
): Promise<{ uploadToken: string } | { refused: UploadRefusal } | undefined> {
  if (!(await takesBatchFiles(ctx, gateway))) return undefined;
  const result = await submitBatchToGateway(ctx, gateway, {
    idempotencyKey: `batch_${batch.token}_${batch.submittedAt}`,
    rail,
    currencyCode: batch.currencyCode,
    actionDate: batch.actionDate,
    lines: lines.map((line) => ({
      lineRef: String(line.paymentId),
      amountMinor: line.amountMinor,
      accountHolder: '',
      accountNumber: null,
      branchCode: null,
      routingNumber: null,
      iban: null,
    })),
    file,
  });
  if (result.outcome === 'rejected') return { refused: refusalOf(result.message, result.lineErrors) };
  return { uploadToken: result.providerRef };
}

/** The run's step: the load report of each batch uploaded and not yet loaded; each batch on its own. */
export async function followUploads(ctx: ServiceContext, summary: { buildFailed: number }): Promise<void> {
  for (const batch of await repo.listBatchesInStates(ctx.db, ctx.account.id, ['submitted'])) {
    if (batch.uploadToken === null || batch.uploadAcceptedAt !== null) continue;
    try {
      const gateway = await getGateway(ctx, batch.gatewayId);
      const sealed = await repo.findBatchFile(ctx.db, ctx.account.id, batch.id);
      const file = sealed === null ? undefined : ctx.secrets.open(sealed);
      const status = await readBatchStatus(ctx, gateway, batch.uploadToken, file);
      if (status.outcome === 'accepted') await recordLoaded(ctx, batch);
      if (status.outcome === 'rejected' && (await recordRefused(ctx, batch, status)))
        summary.buildFailed += 1;
    } catch (error) {
      ctx.log.error({ err: error, batchId: batch.id }, 'reading a load report failed');
    }
  }
}

/** Runs `work` on the batch under its lock while it is still the upload that was read; whether it ran. */
async function whileUploaded(
  ctx: ServiceContext,
  read: BatchRecord,
  work: (ctx: ServiceContext, batch: BatchRecord) => Promise<void>,
): Promise<boolean> {
  const ran = await withTransaction(ctx, async (tctx) => {
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, read.id);
    const same = batch?.state === 'submitted' && batch.uploadToken === read.uploadToken;
    if (!batch || !same || batch.uploadAcceptedAt !== null) return false;
    await work(tctx, batch);
    return true;
  });
  if (ran) ctx.mailQueued();
  return ran;
}

/**
 * Netcash loaded the file: the batch is at Netcash (atTheBank), each invoice its lines pay counts its try, and the
 * staff are told to authorise it in Netcash's portal, with the batch, its name at Netcash and its dates.
 */
async function recordLoaded(ctx: ServiceContext, read: BatchRecord): Promise<void> {
  await whileUploaded(ctx, read, async (tctx, batch) => {
    const ref = batchRef(batch.token);
    const before = await snapshotResource(tctx, ref);
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      uploadAcceptedAt: nowInstant(tctx),
      updatedAt: nowInstant(tctx),
    });
    const lines = await repo.listLines(tctx.db, tctx.account.id, batch.id);
    const pending = lines.filter((line) => line.state === 'pending');
    const invoiceEvents = await countTries(tctx, pending, batch.actionDate);
    await emitEvents(tctx, [{ type: 'batch.updated', ref, before }, ...invoiceEvents]);
    await queueStaffMail(tctx, authoriseNotice(batch, pending));
  });
}

const amountText = (currencyCode: string, lines: readonly BatchLine[]) =>
  `${currencyCode} ${minorToDecimalText(
    lines.reduce((total, line) => total + line.amountMinor, 0),
    currencyCode,
  )}`;

/** What the staff do once Netcash loaded the file: authorise it, nothing else. */
function authoriseNotice(batch: BatchRecord, lines: readonly BatchLine[]) {
  const cutOff = lastSubmitDate(batch.rail as Rail, batch.actionDate);
  return {
    subject: `Authorise batch ${batch.providerRef} in Netcash by ${cutOff}: debit orders for ${batch.actionDate}`,
    blocks: [
      {
        paragraph: `Netcash has loaded batch ${batch.providerRef} (our batch ${batch.token}): ${lines.length} debit order(s) for ${amountText(batch.currencyCode, lines)}, to be collected on ${batch.actionDate}.`,
      },
      {
        paragraph: `One thing is left to do by hand: sign in to Netcash, open Debit orders, find batch ${batch.providerRef} among the batches waiting for authorisation, and authorise it by ${cutOff}. Netcash collects nothing until it is authorised.`,
        strong: true,
      },
      {
        paragraph:
          'Nothing else is needed: the file is already at Netcash (do not upload it again), and Netcash’s statement is fetched each business day to settle the debit orders and record the unpaids.',
      },
    ],
  };
}

/**
 * Netcash did not load the file: the batch is `open` again with Netcash's reasons as its BuildError
 * (`batch.build_failed`), its file gone (what Netcash refused is never handed out), and the staff told. Whether it
 * was recorded.
 */
async function recordRefused(
  ctx: ServiceContext,
  read: BatchRecord,
  status: Extract<BatchStatus, { outcome: 'rejected' }>,
): Promise<boolean> {
  const refusal = refusalOf(status.message, status.lineErrors);
  let lines: BatchLine[] = [];
  const recorded = await whileUploaded(ctx, read, async (tctx, batch) => {
    const ref = batchRef(batch.token);
    const before = await snapshotResource(tctx, ref);
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, {
      state: 'open' satisfies BatchState,
      buildError: refusal.problems.join('; '),
      providerRef: null,
      fileSealed: null,
      fileDownloadedAt: null,
      uploadToken: null,
      updatedAt: nowInstant(tctx),
    });
    await emitEvent(tctx, 'batch.build_failed', ref, { before });
    lines = await repo.listLines(tctx.db, tctx.account.id, batch.id);
  });
  if (recorded) await tellUploadRefused(ctx, read, lines, refusal);
  return recorded;
}

/** The staff's e-mail of a refused file: the whole file's reasons, each line named with its own, what to do. */
export async function tellUploadRefused(
  ctx: ServiceContext,
  batch: BatchRecord,
  lines: readonly BatchLine[],
  refusal: UploadRefusal,
): Promise<void> {
  const byRef = new Map(lines.map((line) => [String(line.paymentId), line]));
  const named = refusal.lineErrors.map(({ lineRef, message }): [string, string] => {
    const line = byRef.get(lineRef);
    const who = line
      ? `Payment ${lineRef}, customer ${line.customerId}${line.invoiceId === null ? '' : `, invoice ${line.invoiceId}`}, ${amountText(line.currencyCode, [line])}`
      : `Payment ${lineRef}`;
    return [who, message];
  });
  const mailed = await withTransaction(ctx, (tctx) =>
    queueStaffMail(tctx, {
      subject: `Netcash refused batch ${batch.token}: debit orders for ${batch.actionDate}`,
      blocks: [
        {
          paragraph: `Netcash did not take the file of batch ${batch.token} (${lines.length} debit order(s), to be collected on ${batch.actionDate}). The batch is open again and nothing will be collected until it is submitted again. Netcash said: ${refusal.problems[0]}`,
        },
        ...(named.length > 0 ? [{ figures: named }] : []),
        {
          paragraph:
            'Correct what Netcash names (the customer’s bank account, or take the debit order out of the batch), then submit the batch again; its BuildError keeps these reasons until then.',
        },
      ],
    }),
  );
  if (mailed) ctx.mailQueued();
}
