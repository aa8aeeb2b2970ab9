import type { ServiceContext } from '../../context.ts';
import { NotAllowedError, ValidationError } from '../../errors.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { assertTestAccount } from '../auth/index.ts';
import { SIMULATION_IS_FOR } from '../collections/index.ts';
import { getGateway } from '../gateways/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRecord } from './batch.ts';
import { getBatchRecord } from './batch.service.ts';
import { recordLineResult } from './batchReturns.service.ts';

/**
 * POST /v1/test/simulate on a batch line, or on a whole batch (docs/design/collections.md, "Late events"): what a
 * test-mode gateway's bank would report, now, taking the path a real report takes (the line's result: a return fails
 * it, invalidates the account when the code says so and schedules the next presentation). `paid` settles,
 * `unpaid:<code>` returns with the rail's code, `dispute` and `refund` return with the rail's code for them. Test
 * accounts only, as for a card payment.
 */

/** The rail's code for a debtor's dispute or refund of an authorised debit. */
const DISPUTE_CODES: Readonly<Record<Rail, string>> = { debit_order: '30', ach: 'R10', sepa: 'MD06' };

const UNPAID = /^unpaid:([A-Za-z0-9]{1,8})$/;

function resultOf(scenario: string, rail: Rail): { status: 'paid' | 'unpaid'; reasonCode?: string } {
  if (scenario === 'paid') return { status: 'paid' };
  if (scenario === 'dispute' || scenario === 'refund')
    return { status: 'unpaid', reasonCode: DISPUTE_CODES[rail] };
  const unpaid = UNPAID.exec(scenario);
  if (unpaid) return { status: 'unpaid', reasonCode: unpaid[1]! };
  throw ValidationError.field('scenario', 'must be one of paid, dispute, refund, unpaid:<code>');
}

async function assertTestMode(ctx: ServiceContext, batch: BatchRecord): Promise<void> {
  const gateway = await getGateway(ctx, batch.gatewayId);
  if (!gateway.isTestMode) {
    throw new NotAllowedError(
      'gateway_not_test_mode',
      `Gateway ${gateway.id} is not in test mode: only a test-mode gateway's events can be simulated`,
    );
  }
}

/** Whether the payment is a batch line (the simulation of its report is then this module's). */
export async function isBatchLine(ctx: ServiceContext, paymentId: number): Promise<boolean> {
  return (await repo.findLine(ctx.db, ctx.account.id, paymentId)) !== undefined;
}

/** A report on one line; answers as recordLineResult refuses (a line final already, a batch not processing). */
export async function simulateLineReport(
  ctx: ServiceContext,
  paymentId: number,
  scenario: string,
): Promise<void> {
  assertTestAccount(ctx.account, SIMULATION_IS_FOR);
  const line = await repo.findLine(ctx.db, ctx.account.id, paymentId);
  const [batch] = line ? await repo.findBatches(ctx.db, ctx.account.id, [line.batchId]) : [];
  if (!batch) throw ValidationError.field('paymentID', `payment ${paymentId} is not a batch line`);
  await assertTestMode(ctx, batch);
  await recordLineResult(ctx, paymentId, resultOf(scenario.trim(), batch.rail as Rail));
}

/** The same report on every line of the batch that can still take it (pending ones for paid; any not failed). */
export async function simulateBatchReport(
  ctx: ServiceContext,
  token: string,
  scenario: string,
): Promise<void> {
  assertTestAccount(ctx.account, SIMULATION_IS_FOR);
  const batch = await getBatchRecord(ctx, token);
  await assertTestMode(ctx, batch);
  const result = resultOf(scenario.trim(), batch.rail as Rail);
  for (const line of await repo.listLines(ctx.db, ctx.account.id, batch.id)) {
    const takes = result.status === 'paid' ? line.state === 'pending' : line.state !== 'failed';
    if (takes) await recordLineResult(ctx, line.paymentId, result);
  }
}
