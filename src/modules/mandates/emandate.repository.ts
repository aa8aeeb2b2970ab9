import type { Db } from '../../storage/database.ts';
import type { EmandateChanges, EmandateRecord, NewEmandate } from './emandate.ts';
import { emandateChangesToRow, emandateFromRow, newEmandateToRow } from './emandate.mapper.ts';

// Every query filters on the account, but for the one the signing page starts with: the token is all it has.
// A mandate is found by the SHA-256 of its token, the only form of it stored (emandateToken.ts).

export async function findEmandateByTokenDigest(
  db: Db,
  accountId: number,
  digest: string,
): Promise<EmandateRecord | undefined> {
  const row = await db
    .selectFrom('emandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('token_sha256', '=', digest)
    .executeTakeFirst();
  return row && emandateFromRow(row);
}

/** The account whose mandate's token has this digest, for the hosted pages, which have no API key to name it. */
export async function findAccountIdOfTokenDigest(db: Db, digest: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('emandates')
    .select('account_id')
    .where('token_sha256', '=', digest)
    .executeTakeFirst();
  return row?.account_id;
}

export async function listEmandatesByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<EmandateRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('emandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map(emandateFromRow);
}

export function findEmandateByContractRef(
  db: Db,
  accountId: number,
  contractRef: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('emandates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('debit_contract_ref', '=', contractRef)
    .executeTakeFirst();
}

export async function insertEmandate(db: Db, mandate: NewEmandate): Promise<number> {
  const inserted = await db
    .insertInto('emandates')
    .values(newEmandateToRow(mandate))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** Changes a mandate only while it is in `status`: false when another request moved it first. */
export async function updateEmandateInStatus(
  db: Db,
  accountId: number,
  id: number,
  status: string,
  changes: EmandateChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('emandates')
    .set(emandateChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', status)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Unsigned mandates whose token has lapsed by `now`, oldest first. */
export async function listLapsedEmandateIds(
  db: Db,
  accountId: number,
  now: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('emandates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'pending_signature')
    .where('expires_at', '<=', now)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Links the mandate to a bank account unless it is linked to another; false when it is. */
export async function linkPaymentMethod(
  db: Db,
  accountId: number,
  id: number,
  paymentMethodId: number,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('emandates')
    .set({ payment_method_id: paymentMethodId, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('payment_method_id', 'is', null), eb('payment_method_id', '=', paymentMethodId)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The mandates linked to these payment methods, but for the one whose token has the digest `keepDigest`. */
export function listEmandateIdsLinkedTo(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
  keepDigest: string | null,
): Promise<{ id: number }[]> {
  if (paymentMethodIds.length === 0) return Promise.resolve([]);
  let query = db
    .selectFrom('emandates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('payment_method_id', 'in', paymentMethodIds);
  if (keepDigest !== null) query = query.where('token_sha256', '!=', keepDigest);
  return query.orderBy('id').execute();
}

export async function clearPaymentMethod(db: Db, accountId: number, id: number, now: string): Promise<void> {
  await db
    .updateTable('emandates')
    .set({ payment_method_id: null, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** The mandates linked to these payment methods (one each at most: a mandate links one, a method names one). */
export async function listEmandatesLinkedTo(
  db: Db,
  accountId: number,
  paymentMethodIds: readonly number[],
): Promise<EmandateRecord[]> {
  if (paymentMethodIds.length === 0) return [];
  const rows = await db
    .selectFrom('emandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('payment_method_id', 'in', paymentMethodIds)
    .orderBy('id')
    .execute();
  return rows.map(emandateFromRow);
}

/** A customer's mandates, newest first. */
export async function listEmandatesOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
): Promise<EmandateRecord[]> {
  const rows = await db
    .selectFrom('emandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map(emandateFromRow);
}

/** The account's DebiCheck mandates whose authentication is in `status`, oldest first. */
export async function listEmandatesInDebiCheckStatus(
  db: Db,
  accountId: number,
  status: string,
  limit: number,
): Promise<EmandateRecord[]> {
  const rows = await db
    .selectFrom('emandates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('debicheck_status', '=', status)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(emandateFromRow);
}

/**
 * Changes a DebiCheck mandate's authentication only while it is in `debiCheckStatus` (null: never asked) and the
 * mandate is signed: false when another request moved it first.
 */
export async function updateDebiCheckInStatus(
  db: Db,
  accountId: number,
  id: number,
  debiCheckStatus: string | null,
  changes: EmandateChanges,
): Promise<boolean> {
  let query = db
    .updateTable('emandates')
    .set(emandateChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'signed');
  query =
    debiCheckStatus === null
      ? query.where('debicheck_status', 'is', null)
      : query.where('debicheck_status', '=', debiCheckStatus);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
