import type { Insertable } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import { updateRowsById } from '../../storage/bulkUpdate.ts';
import type { PgColumnType } from '../../storage/bulkUpdate.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { customerStates } from '../customers/index.ts';
import type { SubscriptionPeriodsTable } from './tables.ts';
import { SUBSCRIPTION_COLUMNS } from './subscription.repository.ts';
import { notWaitingForPayment } from './subscriptionActivation.repository.ts';
import { notAwaitingResumption } from './subscriptionResumePayment.repository.ts';
import { subscriptionChangesToRow, subscriptionFromRow } from './subscription.mapper.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';

/**
 * Subscriptions due by `today` (next_inv_date on or before it, not parked) whose customer is active and not
 * suspended (public notes: a suspended or archived customer's subscriptions stop billing), oldest first, with ids
 * above `afterId`. The customer's state is joined (the customers module's `customerStates`) so that held
 * subscriptions do not fill every page.
 */
function selectDue(db: Db, accountId: number, today: PlainDate, limit: number, afterId: number) {
  return db
    .selectFrom('subscriptions')
    .innerJoin(customerStates(db, accountId), 'customer_states.customer_id', 'subscriptions.customer_id')
    .where('subscriptions.account_id', '=', accountId)
    .where('subscriptions.next_inv_date', '<=', today)
    .where('subscriptions.parked_reason', 'is', null)
    .where('subscriptions.id', '>', afterId)
    .where('customer_states.customer_is_active', '=', true)
    .where('customer_states.customer_is_suspended', '=', false)
    .where(notWaitingForPayment)
    .where(notAwaitingResumption)
    .orderBy('subscriptions.id')
    .limit(limit);
}

/**
 * The due subscriptions (`selectDue`), held by the caller's transaction. NOTE: on PostgreSQL
 * `FOR UPDATE SKIP LOCKED` lets several processes take disjoint batches; on SQLite the transaction holds the
 * database's write lock (docs/architecture.md, "Locks"), so a second process's batch waits and then sees the
 * subscriptions this one billed as no longer due.
 */
export async function claimDueSubscriptions(
  db: Db,
  accountId: number,
  today: PlainDate,
  limit: number,
  afterId = 0,
): Promise<SubscriptionRecord[]> {
  const query = selectDue(db, accountId, today, limit, afterId).select(SUBSCRIPTION_COLUMNS);
  const rows = await (isPostgres(db)
    ? query.forUpdate('subscriptions').skipLocked().execute()
    : query.execute());
  return rows.map(subscriptionFromRow);
}

/** Usage rows not billed yet, with the component version that prices them. */
export async function listUnbilledUsage(
  db: Db,
  accountId: number,
  subscriptionIds: number[],
): Promise<UnbilledUsageRecord[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_usage')
    .innerJoin('subscription_components', (join) =>
      join
        .onRef('subscription_components.subscription_id', '=', 'subscription_usage.subscription_id')
        .onRef('subscription_components.component_id', '=', 'subscription_usage.component_id'),
    )
    .select([
      'subscription_usage.id',
      'subscription_usage.subscription_id',
      'subscription_usage.component_id',
      'subscription_usage.period_start',
      'subscription_usage.period_end',
      'subscription_usage.num_units',
      'subscription_components.component_version_id',
    ])
    .where('subscription_usage.account_id', '=', accountId)
    .where('subscription_usage.subscription_id', 'in', subscriptionIds)
    .where('subscription_usage.invoice_id', 'is', null)
    .orderBy('subscription_usage.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    numUnits: row.num_units,
    componentVersionId: row.component_version_id,
  }));
}

/** Usage not billed yet, with the component version that prices it. */
export interface UnbilledUsageRecord {
  id: number;
  subscriptionId: number;
  componentId: number;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  /** Exact decimal. */
  numUnits: string;
  componentVersionId: number;
}

// Rows per multi-row INSERT of periods (9 columns), so that parameters stay well below SQLite's 32 766 and
// PostgreSQL's 65 535 per statement: a pass that catches up daily subscriptions records thousands of periods, most
// of them free (no invoice), which the plan's cap on invoices does not bound.
const PERIOD_CHUNK = 2000;

/** A billed (or, free, recorded) period of a subscription. */
export interface NewSubscriptionPeriod {
  subscriptionId: number;
  periodNo: number;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  kind: string;
  /** Exact decimal. */
  chargePrice: string;
  amountMinor: number;
  invoiceId: number | null;
  isTaxInclusive: boolean;
}

export async function insertPeriods(
  db: Db,
  accountId: number,
  periods: readonly NewSubscriptionPeriod[],
): Promise<void> {
  const rows: Insertable<SubscriptionPeriodsTable>[] = periods.map((p) => ({
    account_id: accountId,
    subscription_id: p.subscriptionId,
    period_no: p.periodNo,
    period_start: p.periodStart,
    period_end: p.periodEnd,
    kind: p.kind,
    charge_price: p.chargePrice,
    amount_minor: p.amountMinor,
    invoice_id: p.invoiceId,
    is_tax_inclusive: p.isTaxInclusive,
  }));
  for (let at = 0; at < rows.length; at += PERIOD_CHUNK) {
    await db
      .insertInto('subscription_periods')
      .values(rows.slice(at, at + PERIOD_CHUNK))
      .execute();
  }
}

/** The subscription columns a bill run sets, with their PostgreSQL types (see updateRowsById). */
const BILLED_COLUMNS: Readonly<Record<string, PgColumnType>> = {
  period_count: 'integer',
  next_renew_date: 'date',
  last_renew_date: 'date',
  last_inv_date: 'date',
  next_inv_date: 'date',
  setup_billed: 'boolean',
  anchor_date: 'date',
  package_id: 'bigint',
  package_version_id: 'bigint',
  package_rate_term_id: 'bigint',
  term: 'integer',
  term_type: 'text',
  charge_price: 'numeric',
  setup_fee: 'numeric',
  trial_fee: 'numeric',
  pending_change: 'text',
  parked_reason: 'text',
  parked_at: 'timestamptz',
  updated_at: 'timestamptz',
};

/**
 * The bill run's new values of its subscriptions, a few statements per batch rather than one per subscription:
 * the subscriptions that set the same columns share one multi-row update.
 */
export async function updateBilledSubscriptions(
  db: Db,
  accountId: number,
  updates: readonly { id: number; changes: SubscriptionChanges }[],
): Promise<void> {
  const groups = new Map<string, { id: number; values: Record<string, unknown> }[]>();
  for (const { id, changes } of updates) {
    const values = subscriptionChangesToRow(changes);
    const key = Object.keys(values).join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push({ id, values });
  }
  for (const [key, rows] of groups) {
    const columns: Record<string, PgColumnType> = {};
    for (const name of key.split(',')) {
      const type = BILLED_COLUMNS[name];
      if (!type) throw new Error(`updateBilledSubscriptions: column ${name} is not one the bill run sets`);
      columns[name] = type;
    }
    await updateRowsById(db, 'subscriptions', accountId, columns, rows);
  }
}

/**
 * Marks each usage row billed on its invoice, in one statement per few thousand rows; only rows not billed yet, so
 * a row can never land on two invoices. Returns the ids of the rows that were billed already (none when all were
 * marked).
 */
export async function markUsageRowsBilled(
  db: Db,
  accountId: number,
  marks: readonly { usageId: number; invoiceId: number }[],
): Promise<number[]> {
  const marked = await updateRowsById(
    db,
    'subscription_usage',
    accountId,
    { invoice_id: 'bigint' },
    marks.map((m) => ({ id: m.usageId, values: { invoice_id: m.invoiceId } })),
    { onlyWhereNull: 'invoice_id' },
  );
  if (marked === marks.length) return [];
  // Which rows someone else billed: those that now carry another invoice than ours.
  const ours = new Map(marks.map((m) => [m.usageId, m.invoiceId]));
  const rows = await db
    .selectFrom('subscription_usage')
    .select(['id', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ours.keys()])
    .execute();
  const found = new Map(rows.map((row) => [row.id, row.invoice_id]));
  return [...ours].filter(([id, invoiceId]) => found.get(id) !== invoiceId).map(([id]) => id);
}

/** Ids of due subscriptions without holding them (to retry a failed batch one by one). */
export async function listDueSubscriptionIds(
  db: Db,
  accountId: number,
  today: PlainDate,
  limit: number,
  afterId: number,
): Promise<number[]> {
  const rows = await selectDue(db, accountId, today, limit, afterId).select('subscriptions.id').execute();
  return rows.map((row) => row.id);
}
