import { updateRowsById } from '../../storage/bulkUpdate.ts';
import type { Db } from '../../storage/database.ts';

export async function eventExists(db: Db, accountId: number, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A delivery due at once (next_attempt_at null), its retry schedule not yet begun. */
export async function insertDelivery(
  db: Db,
  row: { accountId: number; endpointId: number; eventId: string; createdAt: string },
): Promise<number> {
  const inserted = await db
    .insertInto('webhook_deliveries')
    .values({
      account_id: row.accountId,
      endpoint_id: row.endpointId,
      event_id: row.eventId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: null,
      created_at: row.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** Failed deliveries of the endpoint created in [from, to), oldest first. */
export async function failedDeliveryIds(
  db: Db,
  accountId: number,
  endpointId: number,
  from: string,
  to: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Makes failed deliveries pending again, each due at its own instant, with a fresh retry schedule (attempts
 * counts the delivery worker's place in it; the attempts made stay in webhook_attempts).
 */
export async function requeueDeliveries(
  db: Db,
  accountId: number,
  deliveries: readonly { id: number; dueAt: string }[],
): Promise<void> {
  await updateRowsById(
    db,
    'webhook_deliveries',
    accountId,
    { status: 'text', attempts: 'integer', next_attempt_at: 'timestamptz', lease_until: 'timestamptz' },
    deliveries.map((delivery) => ({
      id: delivery.id,
      values: { status: 'pending', attempts: 0, next_attempt_at: delivery.dueAt, lease_until: null },
    })),
  );
}
