import type { Db } from '../../storage/database.ts';
import { STORAGE, writeRows } from './usageEventStatements.ts';
import type { UsageStorage } from './usageStorage.ts';

// What each account has stored of usage events (docs/usage.md, "Limits"): one row per account, kept by the insert.

interface StorageRow {
  account_id: number | string;
  event_count: number | string;
  stored_bytes: number | string;
}

const storageFromRow = (row: StorageRow): UsageStorage => ({
  accountId: Number(row.account_id),
  events: Number(row.event_count),
  bytes: Number(row.stored_bytes),
});

/**
 * Adds a batch's stored events to the account's totals, in the batch's transaction: the totals after it. NOTE: the
 * row stays locked on PostgreSQL until the transaction ends, so it is the batch's last write.
 */
export async function addStoredEvents(
  db: Db,
  accountId: number,
  added: { events: number; bytes: number },
): Promise<UsageStorage> {
  const [row] = await writeRows<Omit<StorageRow, 'account_id'>>(
    db,
    STORAGE,
    [accountId],
    [[added.events, added.bytes]],
  );
  return storageFromRow({ account_id: accountId, ...row! });
}

/** Each account's stored events, the largest first; of one account when `accountId` is given. */
export async function listUsageStorage(db: Db, accountId?: number): Promise<UsageStorage[]> {
  let query = db
    .selectFrom('usage_storage')
    .select(['account_id', 'event_count', 'stored_bytes'])
    .orderBy('stored_bytes', 'desc')
    .orderBy('account_id');
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return (await query.execute()).map(storageFromRow);
}
