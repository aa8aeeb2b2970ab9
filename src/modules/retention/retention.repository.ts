import type { Db } from '../../storage/database.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { CancelReason, RecordKind, RetentionOffer, RetentionRecord } from './retention.ts';

/** The account's reasons as stored, or undefined: it never set any. */
export async function findRules(
  db: Db,
  accountId: number,
): Promise<{ reasons: CancelReason[]; updatedAt: string } | undefined> {
  const row = await db
    .selectFrom('retention_rules')
    .select(['rules', 'updated_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row && { reasons: JSON.parse(row.rules) as CancelReason[], updatedAt: row.updated_at };
}

export async function saveRules(
  db: Db,
  accountId: number,
  reasons: CancelReason[],
  at: string,
): Promise<void> {
  const rules = JSON.stringify(reasons);
  await db
    .insertInto('retention_rules')
    .values({ account_id: accountId, rules, updated_at: at })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ rules, updated_at: at }))
    .execute();
}

export interface NewRecord {
  subscriptionId: number;
  customerId: number;
  kind: RecordKind;
  reason: string;
  offer: RetentionOffer | null;
  madeOn: PlainDate;
}

export async function insertRecord(
  db: Db,
  accountId: number,
  record: NewRecord,
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('retention_records')
    .values({
      account_id: accountId,
      subscription_id: record.subscriptionId,
      customer_id: record.customerId,
      kind: record.kind,
      reason: record.reason,
      offer_kind: record.offer?.kind ?? null,
      offer: record.offer ? JSON.stringify(record.offer) : null,
      made_on: record.madeOn,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

const RECORD_COLUMNS = [
  'id',
  'subscription_id',
  'customer_id',
  'kind',
  'reason',
  'offer',
  'made_on',
  'created_at',
] as const;

type RecordRow = {
  id: number | string | bigint;
  subscription_id: number | string;
  customer_id: number | string;
  kind: string;
  reason: string;
  offer: string | null;
  made_on: string;
  created_at: string;
};

function recordFromRow(row: RecordRow): RetentionRecord {
  return {
    id: Number(row.id),
    subscriptionId: Number(row.subscription_id),
    customerId: Number(row.customer_id),
    kind: row.kind as RecordKind,
    reason: row.reason,
    offer: row.offer === null ? null : (JSON.parse(row.offer) as RetentionOffer),
    madeOn: row.made_on,
    createdAt: row.created_at,
  };
}

/** The records made from `from` to `to` (the account's days, inclusive), oldest first. */
export async function listRecords(
  db: Db,
  accountId: number,
  from: PlainDate,
  to: PlainDate,
): Promise<RetentionRecord[]> {
  const rows = await db
    .selectFrom('retention_records')
    .select(RECORD_COLUMNS)
    .where('account_id', '=', accountId)
    .where('made_on', '>=', from)
    .where('made_on', '<=', to)
    .orderBy('id')
    .execute();
  return rows.map(recordFromRow);
}

export async function recordsByIds(
  db: Db,
  accountId: number,
  ids: readonly (number | string)[],
): Promise<RetentionRecord[]> {
  const wanted = ids.map(Number).filter(Number.isSafeInteger);
  if (wanted.length === 0) return [];
  const rows = await db
    .selectFrom('retention_records')
    .select(RECORD_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', wanted)
    .execute();
  return rows.map(recordFromRow);
}
