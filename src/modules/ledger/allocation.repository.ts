import { expressionBuilder, sql } from 'kysely';
import type { RawBuilder, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { AdjustmentsTable, AllocationsTable, Database } from '../../storage/schema.ts';
import type { CustomerOfRow } from '../customers/index.ts';
import type { TargetType } from '../../core/allocation.ts';

export type AllocationRow = Selectable<AllocationsTable>;
export type SourceType = 'payment' | 'credit_note' | 'adjustment';
export type { TargetType } from '../../core/allocation.ts';
/** The tables whose rows allocate money, by source type. */
export const SOURCE_TABLES = {
  payment: 'payments',
  credit_note: 'credit_notes',
  adjustment: 'adjustments',
} as const;

const ALLOCATION_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'source_type',
  'source_id',
  'target_type',
  'target_id',
  'amount_minor',
  'created_at',
  'updated_at',
] as const;

const allocationsOfSources = preparedQuery(
  (db, accountId: number, sourceType: SourceType, sourceIds: readonly number[]) =>
    db
      .selectFrom('allocations')
      .select(ALLOCATION_COLUMNS)
      .where('account_id', '=', accountId)
      .where('source_type', '=', sourceType)
      .where('source_id', 'in', sourceIds)
      .orderBy('id'),
);

export function listAllocationsOfSources(
  db: Db,
  accountId: number,
  sourceType: SourceType,
  sourceIds: readonly number[],
): Promise<AllocationRow[]> {
  if (sourceIds.length === 0) return Promise.resolve([]);
  return allocationsOfSources(db, accountId, sourceType, sourceIds);
}

const allocationsToTargets = preparedQuery(
  (db, accountId: number, targetType: TargetType, targetIds: readonly number[]) =>
    db
      .selectFrom('allocations')
      .select(ALLOCATION_COLUMNS)
      .where('account_id', '=', accountId)
      .where('target_type', '=', targetType)
      .where('target_id', 'in', targetIds)
      .orderBy('id'),
);

export function listAllocationsToTargets(
  db: Db,
  accountId: number,
  targetType: TargetType,
  targetIds: readonly number[],
): Promise<AllocationRow[]> {
  if (targetIds.length === 0) return Promise.resolve([]);
  return allocationsToTargets(db, accountId, targetType, targetIds);
}

export interface NewAllocationRow {
  account_id: number;
  customer_id: number;
  source_type: SourceType;
  source_id: number;
  target_type: TargetType;
  target_id: number;
  amount_minor: number;
  created_at: string;
  updated_at: string;
}

/** On PostgreSQL, a source's allocations inserted and its allocated total set in one statement (see below). */
function insertedWithTotal(table: (typeof SOURCE_TABLES)[SourceType]) {
  return preparedQuery(
    (
      db,
      accountId: number,
      sourceId: number,
      allocatedMinor: number,
      now: string,
      rows: NewAllocationRow[],
    ) =>
      db
        .with('source_total', (qb) =>
          qb
            .updateTable(table)
            .set({ allocated_minor: allocatedMinor, updated_at: now })
            .where('account_id', '=', accountId)
            .where('id', '=', sourceId),
        )
        .insertInto('allocations')
        .values(rows)
        .returning(ALLOCATION_COLUMNS),
  );
}
const insertWithTotal = {
  payment: insertedWithTotal(SOURCE_TABLES.payment),
  credit_note: insertedWithTotal(SOURCE_TABLES.credit_note),
  adjustment: insertedWithTotal(SOURCE_TABLES.adjustment),
};

/**
 * Inserts a source's allocations and sets its allocated total; returns the rows inserted, in allocation order (by
 * id). NOTE: on PostgreSQL, where every statement is a round trip (docs/benchmarks.md, "Payments"), one statement
 * (the total's UPDATE in WITH, run to completion whether read or not); SQLite's WITH takes no UPDATE, so two there.
 */
export async function insertAllocationsSettingTotal(
  db: Db,
  accountId: number,
  source: { type: SourceType; id: number },
  allocatedMinor: number,
  now: string,
  rows: NewAllocationRow[],
): Promise<AllocationRow[]> {
  let inserted: AllocationRow[];
  if (rows.length === 0) {
    await setSourceAllocated(db, accountId, source.type, source.id, allocatedMinor, now);
    return [];
  }
  if (isPostgres(db)) {
    inserted = await insertWithTotal[source.type](db, accountId, source.id, allocatedMinor, now, rows);
  } else {
    inserted = await db.insertInto('allocations').values(rows).returning(ALLOCATION_COLUMNS).execute();
    await setSourceAllocated(db, accountId, source.type, source.id, allocatedMinor, now);
  }
  // NOTE: the order of RETURNING's rows is not promised (SQLite says so); reads list allocations by id.
  return inserted.sort((a, b) => a.id - b.id);
}

export async function updateAllocation(
  db: Db,
  accountId: number,
  id: number,
  changes: { target_type: TargetType; target_id: number; amount_minor: number; updated_at: string },
): Promise<void> {
  await db
    .updateTable('allocations')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

export async function deleteAllocations(db: Db, accountId: number, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('allocations').where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

export async function setSourceAllocated(
  db: Db,
  accountId: number,
  sourceType: SourceType,
  sourceId: number,
  allocatedMinor: number,
  now: string,
): Promise<void> {
  await db
    .updateTable(SOURCE_TABLES[sourceType])
    .set({ allocated_minor: allocatedMinor, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', sourceId)
    .execute();
}

// Positive adjustments as allocation targets.

export type TargetAdjustmentRow = Pick<
  Selectable<AdjustmentsTable>,
  | 'id'
  | 'customer_id'
  | 'direction'
  | 'currency_code'
  | 'amount_minor'
  | 'allocated_minor'
  | 'adjustment_date'
>;
const TARGET_ADJUSTMENT_COLUMNS = [
  'id',
  'customer_id',
  'direction',
  'currency_code',
  'amount_minor',
  'allocated_minor',
  'adjustment_date',
] as const;

/** Adjustments by id, locked until the transaction ends (FOR UPDATE on PostgreSQL; see lockInvoicesByIdOrNum). */
export function lockAdjustments(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<TargetAdjustmentRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const query = db
    .selectFrom('adjustments')
    .select(TARGET_ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id');
  return isPostgres(db) ? query.forUpdate().execute() : query.execute();
}

/** The customer's positive adjustments in a currency with something still open, earliest first, locked. */
export function lockOpenPositiveAdjustments(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<TargetAdjustmentRow[]> {
  const query = db
    .selectFrom('adjustments')
    .select(TARGET_ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('direction', '=', 'positive')
    .where('currency_code', '=', currencyCode)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .orderBy('adjustment_date')
    .orderBy('id');
  return isPostgres(db) ? query.forUpdate().execute() : query.execute();
}

export async function addToAdjustmentAllocated(
  db: Db,
  accountId: number,
  adjustmentId: number,
  deltaMinor: number,
  now: string,
): Promise<void> {
  await db
    .updateTable('adjustments')
    .set((eb) => ({ allocated_minor: eb('allocated_minor', '+', deltaMinor), updated_at: now }))
    .where('account_id', '=', accountId)
    .where('id', '=', adjustmentId)
    .execute();
}

// Balances.

/**
 * What the customer's money in its currency leaves open, in one scalar expression correlated with its row: still
 * owed on positive adjustments, less what is unallocated on payments that have not failed (a failed payment
 * settles nothing; its allocations are removed when it fails), credit notes and negative adjustments.
 * NOTE: PostgreSQL's sum(bigint) is numeric (read as text); SQLite's is an integer.
 */
export function openMoneyOf(customer: CustomerOfRow): RawBuilder<number | string> {
  const eb = expressionBuilder<Database, never>();
  const unallocated = (table: 'payments' | 'credit_notes') =>
    eb
      .selectFrom(table)
      .select((eb) =>
        eb.fn.sum<number | string | null>(eb('amount_minor', '-', eb.ref('allocated_minor'))).as('open'),
      )
      .where('account_id', '=', customer.accountId)
      .where('customer_id', '=', customer.id)
      .where('currency_code', '=', customer.currencyCode);
  const adjustments = eb
    .selectFrom('adjustments')
    .select(
      sql<
        number | string | null
      >`sum(case when direction = 'positive' then amount_minor - allocated_minor else allocated_minor - amount_minor end)`.as(
        'open',
      ),
    )
    .where('account_id', '=', customer.accountId)
    .where('customer_id', '=', customer.id)
    .where('currency_code', '=', customer.currencyCode);
  const payments = unallocated('payments').where('state', '!=', 'failed');
  return sql<
    number | string
  >`coalesce(${adjustments}, 0) - coalesce(${payments}, 0) - coalesce(${unallocated('credit_notes')}, 0)`;
}

/** Whether the customer has any payment, credit note or adjustment (records that keep it from being deleted). */
export async function hasMoneyRecords(db: Db, accountId: number, customerId: number): Promise<boolean> {
  for (const table of Object.values(SOURCE_TABLES)) {
    const row = await db
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', accountId)
      .where('customer_id', '=', customerId)
      .limit(1)
      .executeTakeFirst();
    if (row) return true;
  }
  return false;
}
