import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Gateway } from './gateway.service.ts';
import { recordedCall } from './gatewayCalls.ts';
import type { BatchLineReport, BatchStatus, BatchSubmitResult, BatchToSubmit } from './gatewayContract.ts';
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

/** Hands a batch to the gateway's provider, recorded without the accounts' details. Idempotent by its key. */
export async function submitBatchToGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  batch: BatchToSubmit,
): Promise<BatchSubmitResult> {
  const submit = await operationOf(ctx, gateway, 'submitBatch');
  if (!submit) throw new Error(`gateway ${gateway.id} (${gateway.type}) takes no batches`);
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

/** The load report of a batch the gateway's provider received, by its file token. */
export async function readBatchStatus(
  ctx: ServiceContext,
  gateway: Gateway,
  providerRef: string,
): Promise<BatchStatus> {
  const read = await operationOf(ctx, gateway, 'batchStatus');
  if (!read) return { outcome: 'accepted' };
  return recordedCall(ctx, gateway.id, { operation: 'batch_status', request: { providerRef } }, () =>
    read(gateway, providerRef),
  );
}
