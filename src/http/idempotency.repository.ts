import type { Db } from '../storage/database.ts';

export interface StoredResponse {
  request_hash: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: string;
  lease: string | null;
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
    .select(['request_hash', 'response_status', 'response_type', 'response_body', 'created_at', 'lease'])
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
    })
    .where('account_id', '=', key.accountId)
    .where('idempotency_key', '=', key.key);
}

/** Takes over a key whose row is older than `staleBefore` (expired, or abandoned by a request of unknown fate). */
export async function retakeIdempotencyKey(
  db: Db,
  key: Takeover & { staleBefore: string },
): Promise<boolean> {
  const result = await takeOver(db, key).where('created_at', '<', key.staleBefore).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Takes over a key still without a response whose lease is `deadLease`; of racing retries, one succeeds. */
export async function takeOverDeadLease(db: Db, key: Takeover & { deadLease: string }): Promise<boolean> {
  const result = await takeOver(db, key)
    .where('lease', '=', key.deadLease)
    .where('response_status', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function storeIdempotentResponse(
  db: Db,
  key: { accountId: number; key: string; status: number; contentType: string | null; body: string | null },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      response_status: key.status,
      response_type: key.contentType,
      response_body: key.body,
      lease: null,
    })
    .where('account_id', '=', key.accountId)
    .where('idempotency_key', '=', key.key)
    .execute();
}

export async function releaseIdempotencyKey(db: Db, accountId: number, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .execute();
}

export async function purgeIdempotencyKeys(db: Db, createdBefore: string): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', createdBefore)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
