import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Gateway } from './gateway.service.ts';
import { lastCallUnderKey, recordedCall } from './gatewayCalls.ts';
import type {
  BatchLineReport,
  BatchStatus,
  BatchSubmitResult,
  BatchToSubmit,
  StatementRequest,
  StatementRetrieval,
} from './gatewayContract.ts';
import { operationOf } from './gatewayDrivers.ts';
import { gatewayTypeInfo } from './gatewayTypes.ts';

/** Batches of debits through a gateway: a provider that takes them, or bank files (docs/gateways.md, "Debit orders and payment batches"). */

/** Whether the gateway's batches become bank files (the bankfile type) rather than go to a provider. */
export function makesBankFiles(gateway: Gateway): boolean {
  return gatewayTypeInfo(gateway.type)?.makesBankFiles ?? false;
}

/** Whether batches can be collected through the gateway: a provider that takes them, or bank files. */
export function collectsBatches(gateway: Gateway): boolean {
  return makesBankFiles(gateway) || gatewayTypeInfo(gateway.type)?.takesBatches === true;
}

/**
 * Whether the gateway's batches become files that its provider takes itself (a netcash gateway uploading through
 * Netcash's web service), rather than files the business takes by hand.
 */
export async function takesBatchFiles(ctx: ServiceContext, gateway: Gateway): Promise<boolean> {
  return makesBankFiles(gateway) && (await operationOf(ctx, gateway, 'submitBatch')) !== undefined;
}

/**
 * A file upload under a key used before: the provider knows no key of ours, so the record answers. An answer
 * recorded is given again; a call whose answer was lost (a timeout) may have reached the provider, so the batch is
 * refused rather than uploaded twice, and a person checks the provider's portal (docs/gateways/netcash.md,
 * "Uploading through NIWS_NIF"). Undefined when nothing was asked under the key, or it failed without reaching it.
 */
async function earlierUpload(
  ctx: ServiceContext,
  gateway: Gateway,
  idempotencyKey: string,
): Promise<BatchSubmitResult | undefined> {
  const earlier = await lastCallUnderKey(ctx, gateway.id, 'submit_batch', idempotencyKey);
  if (earlier?.outcome === 'submitted' || earlier?.outcome === 'accepted') {
    return earlier.result as BatchSubmitResult;
  }
  if (earlier?.outcome !== 'timeout') return undefined;
  return {
    outcome: 'rejected',
    message:
      'an earlier upload of this file got no answer in time and may have reached the provider: look for the batch in its portal and delete it there before submitting again',
    lineErrors: [],
  };
}

/**
 * Hands a batch to the gateway's provider, recorded without the accounts' details (nor the file). Idempotent by its
 * key: the provider's own, or the record of a file uploaded (earlierUpload).
 */
export async function submitBatchToGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  batch: BatchToSubmit,
): Promise<BatchSubmitResult> {
  const submit = await operationOf(ctx, gateway, 'submitBatch');
  if (!submit) throw new Error(`gateway ${gateway.id} (${gateway.type}) takes no batches`);
  if (batch.file !== undefined) {
    const answered = await earlierUpload(ctx, gateway, batch.idempotencyKey);
    if (answered) return answered;
  }
  const totalMinor = batch.lines.reduce((total, line) => total + line.amountMinor, 0);
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'submit_batch',
      idempotencyKey: batch.idempotencyKey,
      undoOperation: 'cancel_batch',
      request: {
        rail: batch.rail,
        currencyCode: batch.currencyCode,
        actionDate: batch.actionDate,
        lines: batch.lines.length,
        totalMinor,
      },
    },
    () => submit(gateway, batch, nowInstant(ctx)),
  );
}

/**
 * Withdraws a batch the gateway's provider accepted, recorded. A gateway without the operation cannot withdraw:
 * answered `too_late`.
 */
export async function cancelBatchAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  providerRef: string,
): Promise<{ outcome: 'cancelled' } | { outcome: 'too_late'; message: string }> {
  const cancel = await operationOf(ctx, gateway, 'cancelBatch');
  if (!cancel) return { outcome: 'too_late', message: `gateway ${gateway.id} cannot withdraw a batch` };
  return recordedCall(ctx, gateway.id, { operation: 'cancel_batch', request: { providerRef } }, () =>
    cancel(gateway, providerRef, nowInstant(ctx)),
  );
}

/** What the gateway's provider has reported on a batch by `asOf`; nothing for a gateway whose returns come as files. */
export async function readBatchReports(
  ctx: ServiceContext,
  gateway: Gateway,
  providerRef: string,
  asOf: PlainDate,
): Promise<BatchLineReport[]> {
  const read = await operationOf(ctx, gateway, 'batchReports');
  if (!read) return [];
  const answer = await recordedCall(
    ctx,
    gateway.id,
    { operation: 'batch_reports', request: { providerRef, asOf } },
    async () => ({ outcome: 'ok', reports: await read(gateway, providerRef, asOf) }),
  );
  return answer.reports;
}

/**
 * The load report of a batch the gateway's provider received, by its file token; `file`, the file uploaded, for a
 * provider whose report names lines by their place in it.
 */
export async function readBatchStatus(
  ctx: ServiceContext,
  gateway: Gateway,
  providerRef: string,
  file?: string,
): Promise<BatchStatus> {
  const read = await operationOf(ctx, gateway, 'batchStatus');
  if (!read) return { outcome: 'accepted' };
  return recordedCall(ctx, gateway.id, { operation: 'batch_status', request: { providerRef } }, () =>
    read(gateway, providerRef, file),
  );
}

/** Whether the gateway's provider hands out its statements (requestStatement and retrieveStatement). */
export async function readsStatements(ctx: ServiceContext, gateway: Gateway): Promise<boolean> {
  return (await operationOf(ctx, gateway, 'requestStatement')) !== undefined;
}

/** Asks the gateway's provider for its statement of `day`, recorded (reportDate: the day). */
export async function requestStatementAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  day: PlainDate,
): Promise<StatementRequest> {
  const request = await operationOf(ctx, gateway, 'requestStatement');
  if (!request) throw new Error(`gateway ${gateway.id} (${gateway.type}) hands out no statements`);
  return recordedCall(
    ctx,
    gateway.id,
    { operation: 'request_statement', request: { day }, reportDate: day },
    () => request(gateway, day),
  );
}

/**
 * The statement of `day` asked for under `pollingId`, recorded without the document (it names the account's
 * customers): its size only.
 */
export async function retrieveStatementAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  pollingId: string,
  day: PlainDate,
): Promise<StatementRetrieval> {
  const retrieve = await operationOf(ctx, gateway, 'retrieveStatement');
  if (!retrieve) throw new Error(`gateway ${gateway.id} (${gateway.type}) hands out no statements`);
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'retrieve_statement',
      request: { pollingId, day },
      reportDate: day,
      answerRecorded: (answer) =>
        answer.outcome === 'ready' ? { outcome: 'ready', characters: answer.document.length } : answer,
    },
    () => retrieve(gateway, pollingId),
  );
}
