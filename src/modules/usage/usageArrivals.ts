import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';

/** The customers that received usage events after an event id, and the highest id seen. */
export interface UsageArrivals {
  customers: { accountId: number; customerId: number }[];
  /** The highest event id read; the `afterId` given when none arrived. */
  lastId: number;
}

/**
 * The customers whose usage events arrived after `afterId` (optionally of one account): what a reader of usage so
 * far, such as the usage alerts' evaluator (docs/design/usage.md, "Alerts"), needs to read again. Event ids grow with
 * each insert (usage_transactions' identity), so the read is a range of the primary key, as long as what arrived.
 * NOTE: on PostgreSQL an id is taken before its transaction commits, so an event may become visible after a read
 * that saw a higher id: a caller reads from an id some time back, not from the last one it saw.
 */
export async function usageArrivalsAfter(
  db: Db,
  afterId: number,
  accountId?: number,
): Promise<UsageArrivals> {
  let query = db
    .selectFrom('usage_transactions')
    .select(['account_id', 'customer_id', sql<number | string>`max(id)`.as('last_id')])
    .where('id', '>', afterId)
    .groupBy(['account_id', 'customer_id']);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const rows = await query.execute();
  return {
    customers: rows.map((r) => ({ accountId: Number(r.account_id), customerId: Number(r.customer_id) })),
    lastId: rows.reduce((last, r) => Math.max(last, Number(r.last_id)), afterId),
  };
}

/** The highest usage event id so far (0 when none): where a reader of arrivals starts. */
export async function lastUsageEventId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('usage_transactions')
    .select(sql<number | string | null>`max(id)`.as('last_id'))
    .executeTakeFirst();
  return Number(row?.last_id ?? 0);
}
