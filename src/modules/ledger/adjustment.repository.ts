import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { AdjustmentsTable } from './tables.ts';

export type AdjustmentRow = Selectable<AdjustmentsTable>;
export type NewAdjustmentRow = Insertable<AdjustmentsTable>;
export type AdjustmentChanges = Updateable<
  Omit<AdjustmentsTable, 'id' | 'account_id' | 'customer_id' | 'direction' | 'allocated_minor' | 'created_at'>
>;

const ADJUSTMENT_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'direction',
  'adjustment_type',
  'currency_code',
  'amount_minor',
  'allocated_minor',
  'adjustment_date',
  'due_date',
  'ref',
  'memo',
  'subscription_id',
  'created_at',
  'updated_at',
] as const;

export function findAdjustment(
  db: Db,
  accountId: number,
  adjustmentId: number,
): Promise<AdjustmentRow | undefined> {
  return db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', adjustmentId)
    .executeTakeFirst();
}

export function findAdjustments(
  db: Db,
  accountId: number,
  adjustmentIds: readonly number[],
): Promise<AdjustmentRow[]> {
  if (adjustmentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', adjustmentIds)
    .orderBy('id')
    .execute();
}

/** The account's adjustments (or one customer's), of one direction or both, in creation order. */
export function listAdjustments(
  db: Db,
  accountId: number,
  page: Page,
  filter: { customerId?: number; direction?: 'positive' | 'negative' },
): Promise<AdjustmentRow[]> {
  return db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.customerId !== undefined, (qb) => qb.where('customer_id', '=', filter.customerId!))
    .$if(filter.direction !== undefined, (qb) => qb.where('direction', '=', filter.direction!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function insertAdjustment(db: Db, row: NewAdjustmentRow): Promise<number> {
  return (await db.insertInto('adjustments').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

export async function updateAdjustment(
  db: Db,
  accountId: number,
  adjustmentId: number,
  changes: AdjustmentChanges,
): Promise<void> {
  await db
    .updateTable('adjustments')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', adjustmentId)
    .execute();
}

export async function deleteAdjustment(db: Db, accountId: number, adjustmentId: number): Promise<void> {
  await db
    .deleteFrom('adjustments')
    .where('account_id', '=', accountId)
    .where('id', '=', adjustmentId)
    .execute();
}
