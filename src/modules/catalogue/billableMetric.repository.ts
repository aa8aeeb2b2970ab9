import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Selectable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import type { BillableMetricsTable } from './tables.ts';
import type { BillableMetric, MetricAggregation, MetricFilter, NewBillableMetric } from './billableMetric.ts';

const METRIC_COLUMNS = [
  'id',
  'code',
  'name',
  'descrip',
  'aggregation',
  'property',
  'filters',
  'group_by',
  'archived_at',
  'created_at',
] as const;

type MetricRow = Pick<Selectable<BillableMetricsTable>, (typeof METRIC_COLUMNS)[number]>;

export function metricFromRow(row: MetricRow): BillableMetric {
  return {
    id: Number(row.id),
    code: row.code,
    name: row.name,
    descrip: row.descrip,
    aggregation: row.aggregation as MetricAggregation,
    property: row.property,
    filters: JSON.parse(row.filters) as MetricFilter[],
    groupBy: row.group_by,
    archivedAt: row.archived_at,
    createdAt: row.created_at,
  };
}

/** The account's metrics with these codes, archived ones included, keyed by code. */
export async function metricsByCodes(
  db: Db,
  accountId: number,
  codes: readonly string[],
): Promise<Map<string, BillableMetric>> {
  if (codes.length === 0) return new Map();
  const rows = await db
    .selectFrom('billable_metrics')
    .select(METRIC_COLUMNS)
    .where('account_id', '=', accountId)
    .where('code', 'in', [...new Set(codes)])
    .execute();
  return new Map(rows.map((row) => [row.code, metricFromRow(row)]));
}

/** The account's metrics with these ids, keyed by id. */
export async function metricsByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<Map<number, BillableMetric>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('billable_metrics')
    .select(METRIC_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [Number(row.id), metricFromRow(row)]));
}

export async function findMetric(db: Db, accountId: number, id: number): Promise<BillableMetric | undefined> {
  return (await metricsByIds(db, accountId, [id])).get(id);
}

export async function listMetrics(db: Db, accountId: number, page: Page): Promise<BillableMetric[]> {
  const rows = await db
    .selectFrom('billable_metrics')
    .select(METRIC_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(metricFromRow);
}

export async function insertMetric(db: Db, metric: NewBillableMetric): Promise<number> {
  const inserted = await db
    .insertInto('billable_metrics')
    .values({
      account_id: metric.accountId,
      code: metric.code,
      name: metric.name,
      descrip: metric.descrip,
      aggregation: metric.aggregation,
      property: metric.property,
      filters: JSON.stringify(metric.filters),
      group_by: metric.groupBy,
      created_at: metric.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function updateMetricNames(
  db: Db,
  accountId: number,
  id: number,
  names: { name: string; descrip: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('billable_metrics')
    .set({ name: names.name, descrip: names.descrip })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Sets archived_at on a metric not yet archived; false when there is none such. */
export async function archiveMetric(db: Db, accountId: number, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('billable_metrics')
    .set({ archived_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The metric, its row locked for the rest of the transaction, so that archiving it and linking a component to it
 * take turns. NOTE: SQLite has no FOR UPDATE; its one writer at a time serialises them already.
 */
export async function lockMetric(db: Db, accountId: number, id: number): Promise<BillableMetric | undefined> {
  const row = await db
    .selectFrom('billable_metrics')
    .select(METRIC_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .$if(isPostgres(db), (query) => query.forUpdate())
    .executeTakeFirst();
  return row && metricFromRow(row);
}

/** The ids of the account's components linked to the metric, with whether each is active. */
export async function componentsLinkedTo(
  db: Db,
  accountId: number,
  metricId: number,
): Promise<{ id: number; isActive: boolean }[]> {
  const rows = await db
    .selectFrom('components')
    .select(['id', 'is_active'])
    .where('account_id', '=', accountId)
    .where('metric_id', '=', metricId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: Number(row.id), isActive: Boolean(row.is_active) }));
}
