import { expressionBuilder, sql } from 'kysely';
import type { RawBuilder, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { Database } from '../../storage/schema.ts';
import type { AdjustmentsTable, AllocationsTable } from './tables.ts';
import type { CustomerOfRow } from '../customers/index.ts';
import type { TargetRef, TargetType } from './allocation.ts';

type AllocationRow = Selectable<AllocationsTable>;
/** The sources whose rows, and their allocated totals, the ledger keeps. */
export type LedgerSourceType = 'payment' | 'credit_note' | 'adjustment';
/**
 * Every source of allocations: the ledger's own, and a credit grant, kept by the credits module, whose remaining
 * amount is summed from its journal there (docs/credits.md, "Consumption order"): the ledger stores no total of it.
 */
export type SourceType = LedgerSourceType | 'credit_grant';
export type { TargetType } from './allocation.ts';
/** The tables whose rows allocate money, by source type. */
export const SOURCE_TABLES: Record<LedgerSourceType, 'payments' | 'credit_notes' | 'adjustments'> = {
  payment: 'payments',
  credit_note: 'credit_notes',
  adjustment: 'adjustments',
};

/** Money of one source (a payment, a credit note, a negative adjustment) allocated to one target. */
export interface Allocation {
  id: number;
  sourceType: SourceType;
  sourceId: number;
  targetType: TargetType;
  targetId: number;
  amountMinor: number;
}

/** An allocation to insert: the source's money given to a target of its customer. */
export interface NewAllocation {
  customerId: number;
  source: { type: SourceType; id: number };
  target: TargetRef;
  amountMinor: number;
}

const ALLOCATION_COLUMNS = [
  'id',
  'source_type',
  'source_id',
  'target_type',
  'target_id',
  'amount_minor',
] as const;

function allocationFromRow(row: Pick<AllocationRow, (typeof ALLOCATION_COLUMNS)[number]>): Allocation {
  return {
    id: row.id,
    sourceType: row.source_type as SourceType,
    sourceId: row.source_id,
    targetType: row.target_type as TargetType,
    targetId: row.target_id,
    amountMinor: row.amount_minor,
  };
}

function allocationRowOf(accountId: number, allocation: NewAllocation, now: string): NewAllocationRow {
  return {
    account_id: accountId,
    customer_id: allocation.customerId,
    source_type: allocation.source.type,
    source_id: allocation.source.id,
    target_type: allocation.target.type,
    target_id: allocation.target.id,
    amount_minor: allocation.amountMinor,
    created_at: now,
    updated_at: now,
  };
}

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

export async function listAllocationsOfSources(
  db: Db,
  accountId: number,
  sourceType: SourceType,
  sourceIds: readonly number[],
): Promise<Allocation[]> {
  if (sourceIds.length === 0) return [];
  return (await allocationsOfSources(db, accountId, sourceType, sourceIds)).map(allocationFromRow);
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

export async function listAllocationsToTargets(
  db: Db,
  accountId: number,
  targetType: TargetType,
  targetIds: readonly number[],
): Promise<Allocation[]> {
  if (targetIds.length === 0) return [];
  return (await allocationsToTargets(db, accountId, targetType, targetIds)).map(allocationFromRow);
}

interface NewAllocationRow {
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
function insertedWithTotal(table: (typeof SOURCE_TABLES)[LedgerSourceType]) {
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
 * Inserts a source's allocations and sets its allocated total; returns the allocations inserted, in allocation
 * order (by id). NOTE: on PostgreSQL, where every statement is a round trip (docs/benchmarks.md, "Payments"), one
 * statement (the total's UPDATE in WITH, run to completion whether read or not); SQLite's WITH takes no UPDATE, so
 * two there.
 */
export async function insertAllocationsSettingTotal(
  db: Db,
  accountId: number,
  source: { type: SourceType; id: number },
  allocatedMinor: number,
  now: string,
  allocations: readonly NewAllocation[],
): Promise<Allocation[]> {
  let inserted: Pick<AllocationRow, (typeof ALLOCATION_COLUMNS)[number]>[];
  if (allocations.length === 0) {
    await setSourceAllocated(db, accountId, source.type, source.id, allocatedMinor, now);
    return [];
  }
  const rows = allocations.map((allocation) => allocationRowOf(accountId, allocation, now));
  if (source.type === 'credit_grant') {
    inserted = await db.insertInto('allocations').values(rows).returning(ALLOCATION_COLUMNS).execute();
  } else if (isPostgres(db)) {
    inserted = await insertWithTotal[source.type](db, accountId, source.id, allocatedMinor, now, rows);
  } else {
    inserted = await db.insertInto('allocations').values(rows).returning(ALLOCATION_COLUMNS).execute();
    await setSourceAllocated(db, accountId, source.type, source.id, allocatedMinor, now);
  }
  // NOTE: the order of RETURNING's rows is not promised (SQLite says so); reads list allocations by id.
  return inserted.sort((a, b) => a.id - b.id).map(allocationFromRow);
}

const insertedAllocations = preparedQuery((db, rows: NewAllocationRow[]) =>
  db.insertInto('allocations').values(rows),
);

/**
 * Inserts allocations of many sources in one statement, compiled once per number of rows (a collection batch has
 * at most 25), since building it anew for every batch costs as much as running it (docs/benchmarks.md,
 * "Collections"). The sources' allocated totals are the caller's (written with the sources).
 */
export async function insertAllocations(
  db: Db,
  accountId: number,
  allocations: readonly NewAllocation[],
  now: string,
): Promise<void> {
  if (allocations.length === 0) return;
  await insertedAllocations(
    db,
    allocations.map((allocation) => allocationRowOf(accountId, allocation, now)),
  );
}

/** Gives an allocation another target or amount. */
export async function updateAllocation(
  db: Db,
  accountId: number,
  change: { id: number; target: TargetRef; amountMinor: number },
  now: string,
): Promise<void> {
  await db
    .updateTable('allocations')
    .set({
      target_type: change.target.type,
      target_id: change.target.id,
      amount_minor: change.amountMinor,
      updated_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', change.id)
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
  // A grant's total is the credits module's journal, not a column here.
  if (sourceType === 'credit_grant') return;
  await db
    .updateTable(SOURCE_TABLES[sourceType])
    .set({ allocated_minor: allocatedMinor, updated_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', sourceId)
    .execute();
}

// Positive adjustments as allocation targets.

/** An adjustment as a target of money: only a positive one of the source's customer takes it. */
export interface TargetAdjustment {
  id: number;
  customerId: number;
  direction: string;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: string;
}

const TARGET_ADJUSTMENT_COLUMNS = [
  'id',
  'customer_id',
  'direction',
  'currency_code',
  'amount_minor',
  'allocated_minor',
  'adjustment_date',
] as const;

function targetAdjustmentFromRow(
  row: Pick<Selectable<AdjustmentsTable>, (typeof TARGET_ADJUSTMENT_COLUMNS)[number]>,
): TargetAdjustment {
  return {
    id: row.id,
    customerId: row.customer_id,
    direction: row.direction,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.adjustment_date,
  };
}

/** Adjustments by id, locked until the transaction ends (FOR UPDATE on PostgreSQL; see lockInvoicesByIdOrNum). */
export async function lockAdjustments(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<TargetAdjustment[]> {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom('adjustments')
    .select(TARGET_ADJUSTMENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id');
  const rows = await (isPostgres(db) ? query.forUpdate().execute() : query.execute());
  return rows.map(targetAdjustmentFromRow);
}

/** The customer's positive adjustments in a currency with something still open, earliest first, locked. */
export async function lockOpenPositiveAdjustments(
  db: Db,
  accountId: number,
  customerId: number,
  currencyCode: string,
): Promise<TargetAdjustment[]> {
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
  const rows = await (isPostgres(db) ? query.forUpdate().execute() : query.execute());
  return rows.map(targetAdjustmentFromRow);
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
 * settles nothing; its allocations are removed when it fails), credit notes and negative adjustments. Only rows with
 * something open are read, through the partial indexes of migration 0082 (`payments_open`, `credit_notes_open`,
 * `adjustments_open`), whose predicates these repeat word for word: the others add nothing.
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
      .where('currency_code', '=', customer.currencyCode)
      .where(sql<boolean>`amount_minor <> allocated_minor`);
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
    .where('currency_code', '=', customer.currencyCode)
    .where(sql<boolean>`amount_minor <> allocated_minor`);
  const payments = unallocated('payments').where(sql<boolean>`state <> 'failed'`);
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

/** Money received on invoices, as the VAT report's payments basis reads it (moneyReceivedBetween). */
export interface MoneyOnInvoiceRow {
  allocationId: number;
  invoiceId: number;
  customerId: number;
  sourceType: 'payment' | 'credit_grant';
  sourceId: number;
  amountMinor: number;
  /** A payment's date; for credit, the instant it was applied. */
  paymentDate: string | null;
  createdAt: string;
}

/**
 * The allocations to invoices of settled payments dated within [from, to], and of credit grants made within
 * [fromInstant, toInstant), by date then id.
 */
export async function listMoneyOnInvoicesBetween(
  db: Db,
  accountId: number,
  dates: { from: string; to: string; fromInstant: string; toInstant: string },
): Promise<MoneyOnInvoiceRow[]> {
  const paid = await db
    .selectFrom('allocations')
    .innerJoin('payments', 'payments.id', 'allocations.source_id')
    .select([
      'allocations.id as id',
      'allocations.target_id as target_id',
      'allocations.customer_id as customer_id',
      'allocations.source_id as source_id',
      'allocations.amount_minor as amount_minor',
      'allocations.created_at as created_at',
      'payments.payment_date as payment_date',
    ])
    .where('allocations.account_id', '=', accountId)
    .where('allocations.source_type', '=', 'payment')
    .where('allocations.target_type', '=', 'invoice')
    .where('payments.account_id', '=', accountId)
    .where('payments.state', '=', 'settled')
    .where('payments.payment_date', '>=', dates.from)
    .where('payments.payment_date', '<=', dates.to)
    .execute();
  const credited = await db
    .selectFrom('allocations')
    .select(['id', 'target_id', 'customer_id', 'source_id', 'amount_minor', 'created_at'])
    .where('account_id', '=', accountId)
    .where('source_type', '=', 'credit_grant')
    .where('target_type', '=', 'invoice')
    .where('created_at', '>=', dates.fromInstant)
    .where('created_at', '<', dates.toInstant)
    .execute();
  return [
    ...paid.map((row) => ({
      allocationId: Number(row.id),
      invoiceId: Number(row.target_id),
      customerId: Number(row.customer_id),
      sourceType: 'payment' as const,
      sourceId: Number(row.source_id),
      amountMinor: Number(row.amount_minor),
      paymentDate: row.payment_date,
      createdAt: row.created_at,
    })),
    ...credited.map((row) => ({
      allocationId: Number(row.id),
      invoiceId: Number(row.target_id),
      customerId: Number(row.customer_id),
      sourceType: 'credit_grant' as const,
      sourceId: Number(row.source_id),
      amountMinor: Number(row.amount_minor),
      paymentDate: null,
      createdAt: row.created_at,
    })),
  ].sort((a, b) => a.allocationId - b.allocationId);
}
