import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { CollectionAttemptsTable } from '../../storage/schema.ts';

export type AttemptRow = Selectable<CollectionAttemptsTable>;

export async function insertAttempt(db: Db, row: Insertable<CollectionAttemptsTable>): Promise<number> {
  return (await db.insertInto('collection_attempts').values(row).returning('id').executeTakeFirstOrThrow())
    .id;
}

/** The invoice's attempts, oldest first. */
export function listAttemptsOfInvoice(db: Db, accountId: number, invoiceId: number): Promise<AttemptRow[]> {
  return db
    .selectFrom('collection_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('attempt_no')
    .execute();
}

/** Attempts of the account still `started` whose lease began before `leasedBefore` (wall-clock time). */
export function listStaleAttempts(
  db: Db,
  accountId: number,
  leasedBefore: string,
  limit: number,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('collection_attempts')
    .selectAll()
    .where('state', '=', 'started')
    .where('leased_at', '<', leasedBefore)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Ends a started attempt; false when another process ended it first (then nothing is to be recorded). */
export async function finishAttempt(
  db: Db,
  accountId: number,
  attemptId: number,
  changes: {
    state: string;
    reason: string | null;
    raw_code: string | null;
    retry_class: string | null;
    finished_at: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('collection_attempts')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', attemptId)
    .where('state', '=', 'started')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setAttemptPayment(
  db: Db,
  accountId: number,
  attemptId: number,
  paymentId: number,
  chargeId: string | null = null,
): Promise<void> {
  await db
    .updateTable('collection_attempts')
    .set({ payment_id: paymentId, charge_id: chargeId })
    .where('account_id', '=', accountId)
    .where('id', '=', attemptId)
    .execute();
}

/** Those of the invoices with an attempt still waiting for its answer. */
export async function listInvoicesWithOpenAttempts(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<number[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('collection_attempts')
    .select('invoice_id')
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where('state', '=', 'started')
    .execute();
  return rows.map((row) => Number(row.invoice_id));
}

/** Attempts at a payment method still waiting for their answer. */
export async function countOpenAttemptsOfMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<number> {
  const row = await db
    .selectFrom('collection_attempts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('state', '=', 'started')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The gateway and charge that collected a payment, if a card attempt made it. */
export function findChargeOfPayment(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<{ gateway_id: number; charge_id: string | null } | undefined> {
  return db
    .selectFrom('collection_attempts')
    .select(['gateway_id', 'charge_id'])
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
}

/** The payment a charge made, by the provider's charge id. */
export async function findPaymentOfCharge(
  db: Db,
  accountId: number,
  gatewayId: number,
  chargeId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('collection_attempts')
    .select('payment_id')
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('charge_id', '=', chargeId)
    .executeTakeFirst();
  return row?.payment_id ?? undefined;
}

/** Whether the gateway was asked for its charge events as of `asOf` already (its calls are on record). */
export async function chargeEventsReadOn(
  db: Db,
  accountId: number,
  gatewayId: number,
  asOf: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('gateway_calls')
    .select('id')
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('operation', '=', 'charge_events')
    .where('outcome', '=', 'ok')
    .where('request', '=', JSON.stringify({ asOf }))
    .executeTakeFirst();
  return row !== undefined;
}
