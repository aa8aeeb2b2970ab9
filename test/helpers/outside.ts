import type { TestService } from './service.ts';

// What the service has handed to the world outside it, read the way a test means it: the mail it queued for an
// account and what the built-in test gateway was asked to charge. Tests of behaviour read these here, so that a
// renamed column changes this file, not them; a test that checks storage itself (a sealed body, a stored digest)
// queries its table and says so.

/** A message of an account's outbox (the mail module's mail_outbox). */
export interface QueuedMail {
  recipient: string;
  subject: string;
  status: 'pending' | 'sent' | 'skipped' | 'failed';
  lastError: string | null;
  createdAt: string;
}

/** The mail the service queued for `account`, oldest first; `subjectLike` narrows it (an SQL `like` pattern). */
export async function queuedMail(
  t: TestService,
  account: { accountId: number },
  options: { subjectLike?: string } = {},
): Promise<QueuedMail[]> {
  let query = t.service.storage.db
    .selectFrom('mail_outbox')
    .select(['recipient', 'subject', 'status', 'last_error', 'created_at'])
    .where('account_id', '=', account.accountId);
  if (options.subjectLike !== undefined) query = query.where('subject', 'like', options.subjectLike);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => ({
    recipient: row.recipient,
    subject: row.subject,
    status: row.status,
    lastError: row.last_error,
    createdAt: String(row.created_at),
  }));
}

/** A charge, or a refund, that the built-in test gateway made. */
export interface TestGatewayCharge {
  gatewayId: number;
  idempotencyKey: string;
  chargeId: string;
  token: string;
  amountMinor: number;
  outcome: string;
  reason: string | null;
  /** A refund's: the charge it refunds. */
  refundsChargeId: string | null;
}

/** Which of the test gateway's charges to read; all of them unless narrowed. */
export interface ChargesWhere {
  gatewayId?: number;
  /** An SQL `like` pattern of the idempotency key. */
  idempotencyKeyLike?: string;
  idempotencyKeys?: string[];
  amountMinor?: number;
  /** The refunds of this charge. */
  refundsChargeId?: string;
}

/** What the test gateway of `t` charged and refunded, oldest first (then by idempotency key). */
export async function testGatewayCharges(
  t: TestService,
  where: ChargesWhere = {},
): Promise<TestGatewayCharge[]> {
  let query = t.service.storage.db
    .selectFrom('test_gateway_charges')
    .select([
      'gateway_id',
      'idempotency_key',
      'charge_id',
      'token',
      'amount_minor',
      'outcome',
      'reason',
      'refunds_charge_id',
    ]);
  if (where.gatewayId !== undefined) query = query.where('gateway_id', '=', where.gatewayId);
  if (where.idempotencyKeyLike !== undefined)
    query = query.where('idempotency_key', 'like', where.idempotencyKeyLike);
  if (where.idempotencyKeys !== undefined) {
    if (where.idempotencyKeys.length === 0) return [];
    query = query.where('idempotency_key', 'in', where.idempotencyKeys);
  }
  if (where.amountMinor !== undefined) query = query.where('amount_minor', '=', where.amountMinor);
  if (where.refundsChargeId !== undefined)
    query = query.where('refunds_charge_id', '=', where.refundsChargeId);
  const rows = await query.orderBy('created_at').orderBy('idempotency_key').execute();
  return rows.map((row) => ({
    gatewayId: row.gateway_id,
    idempotencyKey: row.idempotency_key,
    chargeId: row.charge_id,
    token: row.token,
    amountMinor: Number(row.amount_minor),
    outcome: row.outcome,
    reason: row.reason,
    refundsChargeId: row.refunds_charge_id,
  }));
}
