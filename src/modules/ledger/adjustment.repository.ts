import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import { adjustmentChangesToRow, adjustmentFromRow, newAdjustmentToRow } from './adjustment.mapper.ts';
import type { AdjustmentChanges, AdjustmentRecord, NewAdjustment } from './adjustment.ts';

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

export async function findAdjustment(
  db: Db,
  accountId: number,
  adjustmentId: number,
): Promise<AdjustmentRecord | undefined> {
  const row = await db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', adjustmentId)
    .executeTakeFirst();
  return row && adjustmentFromRow(row);
}

export async function findAdjustments(
  db: Db,
  accountId: number,
  adjustmentIds: readonly number[],
): Promise<AdjustmentRecord[]> {
  if (adjustmentIds.length === 0) return [];
  const rows = await db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', adjustmentIds)
    .orderBy('id')
    .execute();
  return rows.map(adjustmentFromRow);
}

/** The account's adjustments (or one customer's), of one direction or both, in creation order. */
export async function listAdjustments(
  db: Db,
  accountId: number,
  page: Page,
  filter: { customerId?: number; direction?: 'positive' | 'negative' },
): Promise<AdjustmentRecord[]> {
  const rows = await db
    .selectFrom('adjustments')
    .select(ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .$if(filter.customerId !== undefined, (qb) => qb.where('customer_id', '=', filter.customerId!))
    .$if(filter.direction !== undefined, (qb) => qb.where('direction', '=', filter.direction!))
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(adjustmentFromRow);
}

export async function insertAdjustment(db: Db, adjustment: NewAdjustment): Promise<number> {
  return (
    await db
      .insertInto('adjustments')
      .values(newAdjustmentToRow(adjustment))
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

export async function updateAdjustment(
  db: Db,
  accountId: number,
  adjustmentId: number,
  changes: AdjustmentChanges,
): Promise<void> {
  await db
    .updateTable('adjustments')
    .set(adjustmentChangesToRow(changes))
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
