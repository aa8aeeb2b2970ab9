import { performance } from 'node:perf_hooks';
import type { ServiceContext } from '../../context.ts';
import type { Insertable } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import type { GatewayCallsTable } from './tables.ts';
import { GatewayTimeoutError } from './gatewayContract.ts';

/** What is recorded of a call before it is made. The request summary is masked by the caller: no card number. */
export interface CallToRecord<T = unknown> {
  operation:
    | 'vault_card'
    | 'start_card_setup'
    | 'complete_card_setup'
    | 'charge'
    | 'find_charge'
    | 'check_settings'
    | 'batch_status'
    | 'refund'
    | 'validate_bank_account'
    | 'bank_validation_outcome'
    | 'submit_batch'
    | 'cancel_batch'
    | 'batch_reports'
    | 'request_statement'
    | 'retrieve_statement'
    | 'charge_events'
    | 'debicheck_authenticate'
    | 'debicheck_status'
    | 'debicheck_amend'
    | 'debicheck_cancel';
  idempotencyKey?: string;
  request: Record<string, unknown>;
  /** The day of a provider's daily report the call reads (charge_events), kept in a column of its own. */
  reportDate?: PlainDate;
  /** The operation that would undo this one (a charge is undone by a refund). */
  undoOperation?: string;
  /**
   * What of the answer is recorded, when the answer holds what only the customer's browser or the provider may
   * hold (a client secret, an access code, a card's reusable token); the whole answer otherwise.
   */
  answerRecorded?: (answer: T) => unknown;
}

async function insertCall(db: Db, row: Insertable<GatewayCallsTable>): Promise<void> {
  await db.insertInto('gateway_calls').values(row).execute();
}

/**
 * Makes a call to the outside world and records it, whatever happens (an answer, a timeout, an exception). NOTE:
 * never inside a transaction: the call happens whether or not the caller's transaction commits, so its record
 * must not roll back with it.
 */
export async function recordedCall<T extends { outcome: string }>(
  ctx: ServiceContext,
  gatewayId: number,
  call: CallToRecord<T>,
  work: () => Promise<T>,
): Promise<T> {
  if (ctx.db.isTransaction) throw new Error('gateway calls are made outside a transaction');
  // Wall time: when the call really started, beside its measured duration.
  const startedAt = ctx.wallClock.now().toISOString();
  const started = performance.now();
  const record = (outcome: string, result: unknown) =>
    insertCall(ctx.db, {
      account_id: ctx.account.id,
      gateway_id: gatewayId,
      operation: call.operation,
      idempotency_key: call.idempotencyKey ?? null,
      request: JSON.stringify(call.request),
      outcome,
      result: result === undefined ? null : JSON.stringify(result),
      undo_operation: call.undoOperation ?? null,
      report_date: call.reportDate ?? null,
      started_at: startedAt,
      duration_ms: Math.round(performance.now() - started),
    });
  let answer: T;
  try {
    answer = await work();
  } catch (error) {
    const timedOut = error instanceof GatewayTimeoutError;
    await record(timedOut ? 'timeout' : 'error', { message: (error as Error).message });
    throw error;
  }
  await record(answer.outcome, call.answerRecorded ? call.answerRecorded(answer) : answer);
  return answer;
}

/**
 * Whether the gateway's daily report of charge events for `day` was read already (a call that answered), so that a
 * day's report is read once (docs/gateways.md, "Late events and webhooks").
 */
export async function chargeEventsReadOn(
  ctx: ServiceContext,
  gatewayId: number,
  day: PlainDate,
): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('gateway_calls')
    .select('id')
    .where('account_id', '=', ctx.account.id)
    .where('gateway_id', '=', gatewayId)
    .where('report_date', '=', day)
    .where('operation', '=', 'charge_events')
    .where('outcome', '=', 'ok')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The last recorded call of an operation under our idempotency key: its outcome and its answer as recorded. For a
 * provider that knows no key of ours (a file upload), the record is what answers the same key again.
 */
export async function lastCallUnderKey(
  ctx: ServiceContext,
  gatewayId: number,
  operation: CallToRecord['operation'],
  idempotencyKey: string,
): Promise<{ outcome: string; result: unknown } | undefined> {
  const row = await ctx.db
    .selectFrom('gateway_calls')
    .select(['outcome', 'result'])
    .where('account_id', '=', ctx.account.id)
    .where('gateway_id', '=', gatewayId)
    .where('operation', '=', operation)
    .where('idempotency_key', '=', idempotencyKey)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { outcome: row.outcome, result: row.result === null ? null : JSON.parse(row.result) };
}
