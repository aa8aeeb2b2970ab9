import type { Db } from '../storage/database.ts';

export interface StoredResponse {
  request_hash: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: string;
  lease: string | null;
  records_in_transaction: boolean | number;
}

/** Claims the key for one request; false when a row for it exists already. */
export async function reserveIdempotencyKey(
  db: Db,
  key: { accountId: number; key: string; requestHash: string; now: string; lease: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      account_id: key.accountId,
      idempotency_key: key.key,
      request_hash: key.requestHash,
      created_at: key.now,
      lease: key.lease,
    })
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
    .returning('created_at')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findIdempotencyKey(
  db: Db,
  accountId: number,
  key: string,
): Promise<StoredResponse | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select([
      'request_hash',
      'response_status',
      'response_type',
      'response_body',
      'created_at',
      'lease',
      'records_in_transaction',
    ])
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

interface Takeover {
  accountId: number;
  key: string;
  requestHash: string;
  now: string;
  lease: string;
}

function takeOver(db: Db, key: Takeover) {
  return db
    .updateTable('idempotency_keys')
    .set({
      request_hash: key.requestHash,
      response_status: null,
      response_type: null,
      response_body: null,
      created_at: key.now,
      lease: key.lease,
      records_in_transaction: false,
    })
    .where('account_id', '=', key.accountId)
    .where('idempotency_key', '=', key.key);
}

/**
 * Takes over a key whose row is older than `staleBefore` (expired, or abandoned by a request of unknown fate).
 * `unanswered`: only while it has no response, so that a response committed meanwhile is never overwritten.
 */
export async function retakeIdempotencyKey(
  db: Db,
  key: Takeover & { staleBefore: string; unanswered: boolean },
): Promise<boolean> {
  let update = takeOver(db, key).where('created_at', '<', key.staleBefore);
  if (key.unanswered) update = update.where('response_status', 'is', null);
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes over a key still without a response whose lease is `deadLease`, when its operation records its response
 * inside its own transaction (so the dead request committed nothing); of racing retries, one succeeds.
 */
export async function takeOverDeadLease(db: Db, key: Takeover & { deadLease: string }): Promise<boolean> {
  const result = await takeOver(db, key)
    .where('lease', '=', key.deadLease)
    .where('response_status', 'is', null)
    .where('records_in_transaction', '=', true)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A request's hold on its key: the lease it reserved the key under (nobody else's request has it). */
export interface HeldKey {
  accountId: number;
  key: string;
  lease: string;
}

function held(db: Db, key: HeldKey) {
  return db
    .updateTable('idempotency_keys')
    .where('account_id', '=', key.accountId)
    .where('idempotency_key', '=', key.key)
    .where('lease', '=', key.lease);
}

/**
 * Marks a held key as recording its response inside its operation's transaction, before that transaction starts:
 * from then on a dead lease on it means nothing was committed. False when the key is no longer held.
 */
export async function markRecordsInTransaction(db: Db, key: HeldKey): Promise<boolean> {
  const result = await held(db, key).set({ records_in_transaction: true }).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Records the response of a key still held under `lease`; false (nothing recorded) when another request took the
 * key over meanwhile. `keepLease` keeps the hold, for a record made inside a transaction that onSend records again.
 */
export async function storeIdempotentResponse(
  db: Db,
  key: HeldKey & { status: number; contentType: string | null; body: string | null; keepLease?: boolean },
): Promise<boolean> {
  const result = await held(db, key)
    .set({
      response_status: key.status,
      response_type: key.contentType,
      response_body: key.body,
      lease: key.keepLease ? key.lease : null,
    })
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Lets a held key go (its request failed): never another request's takeover of it. */
export async function releaseIdempotencyKey(db: Db, key: HeldKey): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', key.accountId)
    .where('idempotency_key', '=', key.key)
    .where('lease', '=', key.lease)
    .execute();
}

export async function purgeIdempotencyKeys(db: Db, createdBefore: string): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', createdBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
