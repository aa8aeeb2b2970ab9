import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { attemptFromRow, finishedAttemptToRow, newAttemptToRow } from './collectionAttempt.mapper.ts';
import type { CollectionAttempt, FinishedAttempt, NewCollectionAttempt } from './collectionAttempt.ts';

export async function insertAttempt(db: Db, attempt: NewCollectionAttempt): Promise<number> {
  return (
    await db
      .insertInto('collection_attempts')
      .values(newAttemptToRow(attempt))
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

/** Attempts of many invoices in one statement, each invoice's as inserted; the ids of their rows, by invoice. */
export async function insertAttempts(
  db: Db,
  attempts: readonly NewCollectionAttempt[],
): Promise<Map<number, number>> {
  if (attempts.length === 0) return new Map();
  const inserted = await db
    .insertInto('collection_attempts')
    .values(attempts.map(newAttemptToRow))
    .returning(['id', 'invoice_id'])
    .execute();
  return new Map(inserted.map((row) => [Number(row.invoice_id), row.id]));
}

/** The attempts of each of the invoices, oldest first, by invoice (an invoice never tried has none). */
export async function listAttemptsOfInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<Map<number, CollectionAttempt[]>> {
  const byInvoice = new Map<number, CollectionAttempt[]>();
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await db
    .selectFrom('collection_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('attempt_no')
    .execute();
  for (const row of rows) {
    const invoiceId = Number(row.invoice_id);
    const attempts = byInvoice.get(invoiceId) ?? [];
    attempts.push(attemptFromRow(row));
    byInvoice.set(invoiceId, attempts);
  }
  return byInvoice;
}

/** Attempts of the account still `started` whose lease began before `leasedBefore` (wall-clock time). */
export async function listStaleAttempts(
  db: Db,
  accountId: number,
  leasedBefore: string,
  limit: number,
): Promise<CollectionAttempt[]> {
  const rows = await db
    .selectFrom('collection_attempts')
    .selectAll()
    .where('state', '=', 'started')
    .where('leased_at', '<', leasedBefore)
    .where('account_id', '=', accountId)
    // A portal charge pays several invoices at once: payNow.service.ts finishes its rows together.
    .where('idempotency_key', 'not like', `${PORTAL_KEY_PREFIX}%`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(attemptFromRow);
}

/**
 * Ends those of the attempts still started with the same answer, in one statement; the ids of those it ended (not
 * those another process ended first).
 */
export async function finishAttempts(
  db: Db,
  accountId: number,
  attemptIds: readonly number[],
  changes: FinishedAttempt,
): Promise<number[]> {
  if (attemptIds.length === 0) return [];
  const rows = await db
    .updateTable('collection_attempts')
    .set(finishedAttemptToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', 'in', attemptIds)
    .where('state', '=', 'started')
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** An attempt's payment, and the provider's charge that made it. */
export interface AttemptPayment {
  attemptId: number;
  paymentId: number;
  chargeId: string | null;
}

/**
 * Points each attempt at its payment and charge, in one statement for a batch of them. NOTE: PostgreSQL cannot
 * type a CASE whose branches are all parameters; the payment ids are cast to bigint, which SQLite reads as an
 * integer.
 */
export async function setAttemptPayments(
  db: Db,
  accountId: number,
  payments: readonly AttemptPayment[],
): Promise<void> {
  if (payments.length === 0) return;
  const byAttempt = <T>(value: (payment: AttemptPayment) => RawBuilder<T>) =>
    sql<T>`case ${sql.ref('id')} ${sql.join(
      payments.map((payment) => sql`when ${payment.attemptId} then ${value(payment)}`),
      sql` `,
    )} end`;
  await db
    .updateTable('collection_attempts')
    .set({
      payment_id: byAttempt((payment) => sql<number>`cast(${payment.paymentId} as bigint)`),
      charge_id: byAttempt((payment) => sql<string | null>`${payment.chargeId}`),
    })
    .where('account_id', '=', accountId)
    .where(
      'id',
      'in',
      payments.map((payment) => payment.attemptId),
    )
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

/** The reason of the last finished attempt at a payment method (null for one that went through), if any. */
export async function findLastReasonOfMethod(
  db: Db,
  accountId: number,
  paymentMethodId: number,
): Promise<{ reason: string | null } | undefined> {
  return db
    .selectFrom('collection_attempts')
    .select('reason')
    .where('account_id', '=', accountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('state', '!=', 'started')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The gateway and charge that collected a payment, if a card attempt made it. */
export async function findChargeOfPayment(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<{ gatewayId: number; chargeId: string | null } | undefined> {
  const row = await db
    .selectFrom('collection_attempts')
    .select(['gateway_id', 'charge_id'])
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .executeTakeFirst();
  return row && { gatewayId: row.gateway_id, chargeId: row.charge_id };
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

/** The first characters of every portal charge's key: its `started` rows are the portal's to finish (payNow.service.ts). */
export const PORTAL_KEY_PREFIX = 'portal:';

/** The invoices' attempts still waiting for their answer, with the key each charge was made under. */
export async function listOpenAttemptsOfInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<Pick<CollectionAttempt, 'invoiceId' | 'idempotencyKey'>[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('collection_attempts')
    .select(['invoice_id', 'idempotency_key'])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where('state', '=', 'started')
    .execute();
  return rows.map((row) => ({ invoiceId: row.invoice_id, idempotencyKey: row.idempotency_key }));
}

/** The number of attempts made at each of the invoices (the next attempt's number is one more). */
export async function countAttemptsOfInvoices(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
): Promise<Map<number, number>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('collection_attempts')
    .select(['invoice_id', (eb) => eb.fn.max<number | string>('attempt_no').as('n')])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .groupBy('invoice_id')
    .execute();
  return new Map(rows.map((row) => [Number(row.invoice_id), Number(row.n)]));
}

/**
 * The key of each of a portal charge's rows (one per invoice it pays; the column is unique): the charge's key, `#`
 * and the invoice's id.
 */
export const portalRowKey = (chargeKey: string, invoiceId: number) => `${chargeKey}#${invoiceId}`;

/** The charge's key a portal row carries. */
export const chargeKeyOfRow = (rowKey: string) => rowKey.slice(0, rowKey.lastIndexOf('#'));

/** `text` as a LIKE pattern that matches itself only (then anything after it). */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A portal charge's `started` rows (one per invoice it pays), by the charge's key. */
export async function listStartedRowsOfKey(
  db: Db,
  accountId: number,
  chargeKey: string,
): Promise<CollectionAttempt[]> {
  const rows = await db
    .selectFrom('collection_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where(sql<boolean>`idempotency_key like ${likePrefix(`${chargeKey}#`)} escape '\\'`)
    .where('state', '=', 'started')
    .orderBy('id')
    .execute();
  // NOTE: SQLite's LIKE ignores the case of ASCII letters; the keys themselves are compared exactly here.
  return rows.filter((row) => chargeKeyOfRow(row.idempotency_key) === chargeKey).map(attemptFromRow);
}

/** Ends a portal charge: its rows go, so that an answered portal charge leaves no attempt of the invoice's own. */
export async function deleteStartedRowsOfKey(db: Db, accountId: number, chargeKey: string): Promise<void> {
  const ids = (await listStartedRowsOfKey(db, accountId, chargeKey)).map((row) => row.id);
  if (ids.length === 0) return;
  await db
    .deleteFrom('collection_attempts')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('state', '=', 'started')
    .execute();
}

/** Keys of portal charges still `started` whose lease began before `leasedBefore`. */
export async function listStalePortalKeys(
  db: Db,
  accountId: number,
  leasedBefore: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('collection_attempts')
    .select('idempotency_key')
    .where('account_id', '=', accountId)
    .where('state', '=', 'started')
    .where('leased_at', '<', leasedBefore)
    .where('idempotency_key', 'like', `${PORTAL_KEY_PREFIX}%`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return [...new Set(rows.map((row) => chargeKeyOfRow(row.idempotency_key)))];
}
