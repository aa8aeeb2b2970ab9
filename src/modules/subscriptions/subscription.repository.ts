import { expressionBuilder } from 'kysely';
import type { Selectable } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import { preparedQuery } from '../../storage/prepared.ts';
import type { CustomerOfRow } from '../customers/index.ts';
import { customerStates } from '../customers/index.ts';
import { componentVersionNumbers, packageVersionNames } from '../catalogue/index.ts';
import type { Database } from '../../storage/schema.ts';
import type { SubscriptionsTable } from './tables.ts';
import { paidOrNotWaiting } from './subscriptionActivation.repository.ts';
import type {
  ComponentOnSubscription,
  NewSubscription,
  SubscriptionChanges,
  SubscriptionRecord,
  SubscriptionUsage,
  SubscriptionView,
} from './subscription.ts';
import {
  newSubscriptionToRow,
  subscriptionChangesToRow,
  subscriptionFromRow,
  usageFromRow,
} from './subscription.mapper.ts';

export const SUBSCRIPTION_COLUMNS = [
  'subscriptions.id',
  'subscriptions.account_id',
  'subscriptions.customer_id',
  'subscriptions.package_id',
  'subscriptions.package_version_id',
  'subscriptions.package_rate_term_id',
  'subscriptions.currency_code',
  'subscriptions.term',
  'subscriptions.term_type',
  'subscriptions.charge_price',
  'subscriptions.setup_fee',
  'subscriptions.trial_fee',
  'subscriptions.trial_period',
  'subscriptions.trial_period_type',
  'subscriptions.start_date',
  'subscriptions.end_date',
  'subscriptions.trial_end_date',
  'subscriptions.is_pro_rata',
  'subscriptions.first_prorata_sync_date',
  'subscriptions.anchor_date',
  'subscriptions.off_cycle_start',
  'subscriptions.bill_cycle_day',
  'subscriptions.num_days_before_to_inv',
  'subscriptions.cancel_type',
  'subscriptions.cancel_date',
  'subscriptions.cancelled_at',
  'subscriptions.cancel_reason',
  'subscriptions.pause_date',
  'subscriptions.resume_date',
  'subscriptions.pause_credit',
  'subscriptions.resume_billing_anchor',
  'subscriptions.last_inv_date',
  'subscriptions.last_renew_date',
  'subscriptions.next_renew_date',
  'subscriptions.next_inv_date',
  'subscriptions.period_count',
  'subscriptions.setup_billed',
  'subscriptions.pending_change',
  'subscriptions.parked_reason',
  'subscriptions.parked_at',
  'subscriptions.lease_until',
  'subscriptions.collection_method',
  'subscriptions.gateway_id',
  'subscriptions.customer_payment_method_id',
  'subscriptions.created_at',
  'subscriptions.updated_at',
  'subscriptions.incomplete_until',
  'subscriptions.activated_on',
  'subscriptions.incomplete_expired_on',
  'subscriptions.resume_pay_by',
  'subscriptions.resume_paid_on',
] as const;

/** A subscription's row with the names the wire shows beside it (the join in `selectViews`). */
type SubscriptionViewRow = Selectable<SubscriptionsTable> & {
  customer_name: string;
  customer_last_name: string | null;
  package_name: string;
  package_version_no: number;
};

function viewFromRow(row: SubscriptionViewRow): SubscriptionView {
  const view = subscriptionFromRow(row) as SubscriptionView;
  view.customerName = [row.customer_name, row.customer_last_name].filter(Boolean).join(' ');
  view.packageName = row.package_name;
  view.packageVersionNumber = row.package_version_no;
  return view;
}

const USAGE_COLUMNS = [
  'id',
  'account_id',
  'subscription_id',
  'component_id',
  'period_start',
  'period_end',
  'num_units',
  'memo',
  'is_set_units',
  'invoice_id',
  'updated_at',
] as const;

/**
 * The subscription joined to the names it shows, from what the customers and catalogue modules publish for joins
 * (`customerStates`, `packageVersionNames`): one statement per list page rather than one per module.
 */
function selectViews(db: Db, accountId: number) {
  return db
    .selectFrom('subscriptions')
    .innerJoin(customerStates(db, accountId), 'customer_states.customer_id', 'subscriptions.customer_id')
    .innerJoin(
      packageVersionNames(db, accountId),
      'package_version_names.package_version_id',
      'subscriptions.package_version_id',
    )
    .select(SUBSCRIPTION_COLUMNS)
    .select([
      'customer_states.customer_name',
      'customer_states.customer_last_name',
      'package_version_names.package_name',
      'package_version_names.package_version_no',
    ])
    .where('subscriptions.account_id', '=', accountId);
}

const viewsByIds = preparedQuery((db, accountId: number, subscriptionIds: readonly number[]) =>
  selectViews(db, accountId).where('subscriptions.id', 'in', subscriptionIds).orderBy('subscriptions.id'),
);

export async function findSubscriptionView(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionView | undefined> {
  const row = (await viewsByIds(db, accountId, [subscriptionId]))[0];
  return row && viewFromRow(row);
}

export function findSubscriptionViews(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
): Promise<SubscriptionView[]> {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return viewsByIds(db, accountId, subscriptionIds).then((rows) => rows.map(viewFromRow));
}

/** A page of the account's subscriptions (or one customer's), in creation order. */
export function listSubscriptionViews(
  db: Db,
  accountId: number,
  page: Page,
  customerId?: number,
): Promise<SubscriptionView[]> {
  return selectViews(db, accountId)
    .$if(customerId !== undefined, (qb) => qb.where('subscriptions.customer_id', '=', customerId!))
    .orderBy('subscriptions.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
    .then((rows) => rows.map(viewFromRow));
}

function selectRow(db: Db, accountId: number, subscriptionId: number) {
  return db
    .selectFrom('subscriptions')
    .select(SUBSCRIPTION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId);
}

export async function findSubscriptionRecord(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionRecord | undefined> {
  const row = await selectRow(db, accountId, subscriptionId).executeTakeFirst();
  return row && subscriptionFromRow(row);
}

/**
 * Reads the subscription and holds it until the transaction ends, so that changes to it (its dates, components,
 * usage) are made one at a time. NOTE: PostgreSQL takes the row lock with `FOR UPDATE`; an SQLite transaction
 * holds the database's write lock already (docs/architecture.md, "Locks").
 */
export async function lockSubscriptionRecord(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionRecord | undefined> {
  const row = await selectRow(db, accountId, subscriptionId)
    .$if(isPostgres(db), (qb) => qb.forUpdate())
    .executeTakeFirst();
  return row && subscriptionFromRow(row);
}

export async function insertSubscription(db: Db, subscription: NewSubscription): Promise<number> {
  const inserted = await db
    .insertInto('subscriptions')
    .values(newSubscriptionToRow(subscription))
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

export async function updateSubscription(
  db: Db,
  accountId: number,
  subscriptionId: number,
  changes: SubscriptionChanges,
): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set(subscriptionChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .execute();
}

/** The billed period holding `date`, if any (periods are half-open: [start, end)). */
export async function findBilledPeriod(
  db: Db,
  accountId: number,
  subscriptionId: number,
  date: PlainDate,
): Promise<{ start: PlainDate; end: PlainDate } | undefined> {
  const row = await db
    .selectFrom('subscription_periods')
    .select(['period_start', 'period_end'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '<=', date)
    .where('period_end', '>', date)
    .orderBy('period_no', 'desc')
    .executeTakeFirst();
  return row && { start: row.period_start, end: row.period_end };
}

/** The components of the subscriptions, with their versions' numbers, in one statement. */
export async function listComponents(
  db: Db,
  accountId: number,
  subscriptionIds: number[],
): Promise<ComponentOnSubscription[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await componentsOf(db, accountId, subscriptionIds);
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    componentVersionId: row.component_version_id,
    versionNo: row.version_no,
  }));
}

const componentsOf = preparedQuery((db, accountId: number, subscriptionIds: readonly number[]) =>
  db
    .selectFrom('subscription_components')
    .innerJoin(
      componentVersionNumbers(db, accountId),
      'component_version_numbers.component_version_id',
      'subscription_components.component_version_id',
    )
    .select([
      'subscription_components.id',
      'subscription_components.subscription_id',
      'subscription_components.component_id',
      'subscription_components.component_version_id',
      'component_version_numbers.version_no',
    ])
    .where('subscription_components.account_id', '=', accountId)
    .where('subscription_components.subscription_id', 'in', subscriptionIds)
    .orderBy('subscription_components.id'),
);

/** Puts components (each at a version) on a subscription. */
export async function insertComponents(
  db: Db,
  accountId: number,
  subscriptionId: number,
  components: readonly { componentId: number; versionId: number }[],
  createdAt: string,
): Promise<void> {
  if (components.length === 0) return;
  await db
    .insertInto('subscription_components')
    .values(
      components.map((c) => ({
        account_id: accountId,
        subscription_id: subscriptionId,
        component_id: c.componentId,
        component_version_id: c.versionId,
        created_at: createdAt,
      })),
    )
    .execute();
}

export async function updateComponentVersion(
  db: Db,
  accountId: number,
  rowId: number,
  componentVersionId: number,
): Promise<void> {
  await db
    .updateTable('subscription_components')
    .set({ component_version_id: componentVersionId })
    .where('account_id', '=', accountId)
    .where('id', '=', rowId)
    .execute();
}

export async function deleteComponents(db: Db, accountId: number, rowIds: number[]): Promise<void> {
  if (rowIds.length === 0) return;
  await db
    .deleteFrom('subscription_components')
    .where('account_id', '=', accountId)
    .where('id', 'in', rowIds)
    .execute();
}

/**
 * Usage rows of the subscriptions whose period ends after `date` (the current period's, and the first period's of
 * a subscription not started yet: recording never targets a later period), and those not billed yet (which date
 * the next invoice): what reading a subscription shows, in one statement.
 */
export async function listUsageEndingAfterOrUnbilled(
  db: Db,
  accountId: number,
  subscriptionIds: number[],
  date: PlainDate,
): Promise<SubscriptionUsage[]> {
  if (subscriptionIds.length === 0) return [];
  return (await usageEndingAfterOrUnbilled(db, accountId, subscriptionIds, date)).map(usageFromRow);
}

const usageEndingAfterOrUnbilled = preparedQuery(
  (db, accountId: number, subscriptionIds: readonly number[], date: string) =>
    db
      .selectFrom('subscription_usage')
      .select(USAGE_COLUMNS)
      .where('account_id', '=', accountId)
      .where('subscription_id', 'in', subscriptionIds)
      .where((eb) => eb.or([eb('period_end', '>', date), eb('invoice_id', 'is', null)]))
      .orderBy('id'),
);

export async function listUnbilledUsageOf(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionUsage[]> {
  const rows = await db
    .selectFrom('subscription_usage')
    .select(USAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('invoice_id', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(usageFromRow);
}

export async function findUsage(
  db: Db,
  accountId: number,
  subscriptionId: number,
  componentId: number,
  periodStart: PlainDate,
): Promise<SubscriptionUsage | undefined> {
  const row = await db
    .selectFrom('subscription_usage')
    .select(USAGE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('component_id', '=', componentId)
    .where('period_start', '=', periodStart)
    .executeTakeFirst();
  return row && usageFromRow(row);
}

/** A new usage record: its units, memo and whether they set (rather than add to) the period's. */
export type NewSubscriptionUsage = Omit<SubscriptionUsage, 'id' | 'invoiceId'>;

export async function insertUsage(db: Db, accountId: number, usage: NewSubscriptionUsage): Promise<void> {
  await db
    .insertInto('subscription_usage')
    .values({
      account_id: accountId,
      subscription_id: usage.subscriptionId,
      component_id: usage.componentId,
      period_start: usage.periodStart,
      period_end: usage.periodEnd,
      num_units: usage.numUnits,
      memo: usage.memo,
      is_set_units: usage.isSetUnits,
      updated_at: usage.updatedAt,
    })
    .execute();
}

export async function updateUsage(
  db: Db,
  accountId: number,
  usageId: number,
  changes: Partial<Pick<SubscriptionUsage, 'numUnits' | 'memo' | 'isSetUnits' | 'periodEnd' | 'updatedAt'>>,
): Promise<void> {
  await db
    .updateTable('subscription_usage')
    .set({
      num_units: changes.numUnits,
      memo: changes.memo,
      is_set_units: changes.isSetUnits,
      period_end: changes.periodEnd,
      updated_at: changes.updatedAt,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', usageId)
    .execute();
}

/** Moves unbilled usage rows of one period to another (a changed start or end reshapes the period). */
export async function moveUnbilledUsage(
  db: Db,
  accountId: number,
  subscriptionId: number,
  fromStart: PlainDate,
  to: { start: PlainDate; end: PlainDate },
): Promise<void> {
  await db
    .updateTable('subscription_usage')
    .set({ period_start: to.start, period_end: to.end })
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', fromStart)
    .where('invoice_id', 'is', null)
    .execute();
}

export async function deleteUnbilledUsage(
  db: Db,
  accountId: number,
  subscriptionId: number,
  componentIds: number[],
): Promise<void> {
  if (componentIds.length === 0) return;
  await db
    .deleteFrom('subscription_usage')
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('component_id', 'in', componentIds)
    .where('invoice_id', 'is', null)
    .execute();
}

/**
 * Subscriptions counted per value of `column` among `ids`: every one, ended ones included (what refers to those
 * rows), or with `liveOn`, those in force that day (not cancelled, not expired: future, trial and active ones).
 */
export async function countBy(
  db: Db,
  accountId: number,
  column: 'package_version_id' | 'customer_id',
  ids: number[],
  liveOn?: PlainDate,
): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await countQuery(column, liveOn !== undefined)(db, accountId, ids, liveOn ?? '');
  return new Map(rows.map((row) => [Number(row.key), Number(row.n)]));
}

/** How many of the customer's subscriptions are live on its day (see liveOn above): a scalar subquery. */
export function liveSubscriptionCountOf(customer: CustomerOfRow) {
  return expressionBuilder<Database, never>()
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', customer.accountId)
    .where('customer_id', '=', customer.id)
    .where((eb) => eb.or([eb('cancel_date', 'is', null), eb('cancel_date', '>', customer.asOf)]))
    .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>', customer.asOf)]));
}

const countQueries = new Map<string, ReturnType<typeof prepareCount>>();

function prepareCount(column: 'package_version_id' | 'customer_id', live: boolean) {
  return preparedQuery((db, accountId: number, ids: readonly number[], liveOn: string) =>
    db
      .selectFrom('subscriptions')
      .select((eb) => [eb.ref(column).as('key'), eb.fn.countAll<number | string>().as('n')])
      .where('account_id', '=', accountId)
      .where(column, 'in', ids)
      .$if(live, (qb) =>
        qb
          .where((eb) => eb.or([eb('cancel_date', 'is', null), eb('cancel_date', '>', liveOn)]))
          .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>', liveOn)])),
      )
      .groupBy(column),
  );
}

/** The prepared count of each column, all subscriptions or live ones (the query's shape differs). */
function countQuery(column: 'package_version_id' | 'customer_id', live: boolean) {
  const key = `${column}:${live}`;
  let query = countQueries.get(key);
  if (!query) {
    query = prepareCount(column, live);
    countQueries.set(key, query);
  }
  return query;
}

/** Subscriptions carrying the component (or one of its versions), ended ones included. */
export async function countWithComponent(
  db: Db,
  accountId: number,
  by: { componentId: number } | { componentVersionId: number },
): Promise<number> {
  const row = await db
    .selectFrom('subscription_components')
    .select((eb) => eb.fn.count<number | string>('subscription_id').distinct().as('n'))
    .where('account_id', '=', accountId)
    .$if('componentId' in by, (qb) =>
      qb.where('component_id', '=', (by as { componentId: number }).componentId),
    )
    .$if('componentVersionId' in by, (qb) =>
      qb.where('component_version_id', '=', (by as { componentVersionId: number }).componentVersionId),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The customer's subscriptions not cancelled or ended by `liveOn`, by id. */
export async function listLiveSubscriptionIdsOfCustomer(
  db: Db,
  accountId: number,
  customerId: number,
  liveOn: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where((eb) => eb.or([eb('cancel_date', 'is', null), eb('cancel_date', '>', liveOn)]))
    .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>', liveOn)]))
    .where(paidOrNotWaiting)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
