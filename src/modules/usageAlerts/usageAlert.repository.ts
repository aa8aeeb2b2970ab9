import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { UsageAlertFiringsTable, UsageAlertsTable } from './tables.ts';
import type { Measure, UsageAlert, UsageAlertFiring } from './usageAlert.ts';

const ALERT_COLUMNS = [
  'id',
  'subscription_id',
  'customer_id',
  'name',
  'kind',
  'metric_id',
  'usage_group',
  'threshold_quantity',
  'threshold_minor',
  'needs_check',
  'check_version',
  'created_at',
  'updated_at',
] as const;

type AlertRow = Pick<Selectable<UsageAlertsTable>, (typeof ALERT_COLUMNS)[number]>;

/** A measure from its pair of columns, by kind. */
function measureFrom(kind: string, quantity: string | null, minor: number | string | null): Measure {
  return kind === 'quantity'
    ? { kind: 'quantity', quantity: String(quantity) }
    : { kind: 'amount', amountMinor: Number(minor) };
}

function measureColumns(measure: Measure) {
  return measure.kind === 'quantity'
    ? { quantity: measure.quantity, minor: null }
    : { quantity: null, minor: measure.amountMinor };
}

function alertFromRow(row: AlertRow): UsageAlert {
  return {
    id: Number(row.id),
    subscriptionId: Number(row.subscription_id),
    customerId: Number(row.customer_id),
    name: row.name,
    metricId: row.metric_id === null ? null : Number(row.metric_id),
    group: row.usage_group,
    threshold: measureFrom(row.kind, row.threshold_quantity, row.threshold_minor),
    needsCheck: Boolean(row.needs_check),
    checkVersion: Number(row.check_version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** What an alert is made or replaced with. */
export interface AlertFields {
  name: string;
  metricId: number | null;
  group: string | null;
  threshold: Measure;
}

function fieldColumns(fields: AlertFields) {
  const threshold = measureColumns(fields.threshold);
  return {
    name: fields.name,
    kind: fields.threshold.kind,
    metric_id: fields.metricId,
    usage_group: fields.group,
    threshold_quantity: threshold.quantity,
    threshold_minor: threshold.minor,
  };
}

const live = (db: Db, accountId: number) =>
  db
    .selectFrom('usage_alerts')
    .select(ALERT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null);

export async function insertAlert(
  db: Db,
  accountId: number,
  owner: { subscriptionId: number; customerId: number },
  fields: AlertFields,
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('usage_alerts')
    .values({
      account_id: accountId,
      subscription_id: owner.subscriptionId,
      customer_id: owner.customerId,
      ...fieldColumns(fields),
      needs_check: true,
      check_version: 0,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Replaces an alert's fields; it is checked again at the next evaluation. */
export async function updateAlert(
  db: Db,
  accountId: number,
  alertId: number,
  fields: AlertFields,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('usage_alerts')
    .set((eb) => ({
      ...fieldColumns(fields),
      needs_check: true,
      check_version: eb('check_version', '+', 1),
      updated_at: at,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', alertId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deleted alerts are kept, with their firings, for the events that name them; no read shows them. */
export async function deleteAlert(db: Db, accountId: number, alertId: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('usage_alerts')
    .set({ deleted_at: at, updated_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', alertId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findAlerts(db: Db, accountId: number, ids: readonly number[]): Promise<UsageAlert[]> {
  if (ids.length === 0) return [];
  const rows = await live(db, accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map(alertFromRow);
}

export async function listAlertsOfSubscription(
  db: Db,
  accountId: number,
  subscriptionId: number,
  page: Page,
): Promise<UsageAlert[]> {
  const rows = await live(db, accountId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(alertFromRow);
}

/** How many alerts a subscription has: a bound keeps an evaluation's work per subscription small. */
export async function countAlertsOfSubscription(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<number> {
  const row = await db
    .selectFrom('usage_alerts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Customer ids one statement names at most: the customers whose events arrived in a round may be many more than a
 * statement can bind (SQLite takes 32,766 values, PostgreSQL 65,535).
 */
const CUSTOMERS_PER_READ = 1000;

/**
 * The alerts an evaluation reads: every one of the account's, or those of the customers given and those not
 * checked since they were made or edited. Of the customers given, only those with alerts are named in the reads:
 * most customers that send events have none.
 */
export async function listAlertsToCheck(
  db: Db,
  accountId: number,
  customerIds: readonly number[] | 'all',
): Promise<UsageAlert[]> {
  const ordered = (rows: AlertRow[]) =>
    rows.map(alertFromRow).sort((a, b) => a.subscriptionId - b.subscriptionId || a.id - b.id);
  if (customerIds === 'all') return ordered(await live(db, accountId).execute());
  const given = new Set(customerIds);
  const withAlerts =
    given.size === 0 ? [] : (await customersWithAlerts(db, accountId)).filter((id) => given.has(id));
  const rows = await live(db, accountId).where('needs_check', '=', true).execute();
  for (let start = 0; start < withAlerts.length; start += CUSTOMERS_PER_READ) {
    const chunk = withAlerts.slice(start, start + CUSTOMERS_PER_READ);
    rows.push(
      ...(await live(db, accountId)
        .where('needs_check', '=', false)
        .where('customer_id', 'in', chunk)
        .execute()),
    );
  }
  return ordered(rows);
}

/** The customers of the account with a live alert. */
async function customersWithAlerts(db: Db, accountId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('usage_alerts')
    .select('customer_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => Number(r.customer_id));
}

/** The accounts with alerts waiting for their first check, or any alert at all when `all`. */
export async function listAccountsWithAlerts(db: Db, onlyUnchecked: boolean): Promise<number[]> {
  let query = db.selectFrom('usage_alerts').select('account_id').distinct().where('deleted_at', 'is', null);
  if (onlyUnchecked) query = query.where('needs_check', '=', true);
  return (await query.execute()).map((r) => Number(r.account_id));
}

/**
 * Marks the alerts checked, unless edited since they were read (an edit asks for its own check): by the version
 * read, not the time of the edit, which a test account's frozen clock leaves the same.
 */
export async function markChecked(db: Db, accountId: number, alerts: readonly UsageAlert[]): Promise<void> {
  for (const alert of alerts.filter((a) => a.needsCheck)) {
    await db
      .updateTable('usage_alerts')
      .set({ needs_check: false })
      .where('account_id', '=', accountId)
      .where('id', '=', alert.id)
      .where('check_version', '=', alert.checkVersion)
      .execute();
  }
}

type FiringRow = Selectable<UsageAlertFiringsTable>;

function firingFromRow(row: FiringRow, kind: string): UsageAlertFiring {
  return {
    alertId: Number(row.alert_id),
    periodStart: row.period_start,
    periodEnd: row.period_end,
    threshold: measureFrom(kind, row.threshold_quantity, row.threshold_minor),
    value: measureFrom(kind, row.value_quantity, row.value_minor),
    firedAt: row.fired_at,
  };
}

/** Each alert's latest firing, by alert id. */
export async function latestFirings(
  db: Db,
  accountId: number,
  alertIds: readonly number[],
): Promise<Map<number, UsageAlertFiring>> {
  const latest = new Map<number, UsageAlertFiring>();
  if (alertIds.length === 0) return latest;
  const rows = await db
    .selectFrom('usage_alert_firings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('alert_id', 'in', [...new Set(alertIds)])
    .orderBy('alert_id')
    .orderBy('period_start')
    .execute();
  for (const row of rows) {
    const kind = row.value_quantity === null ? 'amount' : 'quantity';
    latest.set(Number(row.alert_id), firingFromRow(row, kind));
  }
  return latest;
}

/** The alerts among these that have fired in the period starting on this day. */
export async function firedIn(
  db: Db,
  accountId: number,
  alertIds: readonly number[],
  periodStart: PlainDate,
): Promise<Set<number>> {
  if (alertIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('usage_alert_firings')
    .select('alert_id')
    .where('account_id', '=', accountId)
    .where('alert_id', 'in', [...new Set(alertIds)])
    .where('period_start', '=', periodStart)
    .execute();
  return new Set(rows.map((r) => Number(r.alert_id)));
}

/**
 * Records the alert's firing in the period, once: true when this call inserted it, false when it had fired in the
 * period before (or a concurrent evaluation's insert committed first, which this one waited for).
 */
export async function insertFiring(db: Db, accountId: number, firing: UsageAlertFiring): Promise<boolean> {
  const threshold = measureColumns(firing.threshold);
  const value = measureColumns(firing.value);
  const inserted = await db
    .insertInto('usage_alert_firings')
    .values({
      account_id: accountId,
      alert_id: firing.alertId,
      period_start: firing.periodStart,
      period_end: firing.periodEnd,
      threshold_quantity: threshold.quantity,
      threshold_minor: threshold.minor,
      value_quantity: value.quantity,
      value_minor: value.minor,
      fired_at: firing.firedAt,
    })
    .onConflict((oc) => oc.columns(['alert_id', 'period_start', 'account_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
