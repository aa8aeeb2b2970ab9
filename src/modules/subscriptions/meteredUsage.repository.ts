import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import type { UsagePeriod } from './meteredUsage.ts';

/** A subscription as claims and metering read it. */
export interface MeteringRecord {
  id: number;
  customerId: number;
  startDate: PlainDate;
  cancelDate: PlainDate | null;
  endDate: PlainDate | null;
}

/** Every subscription of the customers, oldest first: which of them claims an event depends on all of them. */
export async function listCustomersSubscriptions(
  db: Db,
  accountId: number,
  customerIds: readonly number[],
): Promise<MeteringRecord[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscriptions')
    .select(['id', 'customer_id', 'start_date', 'cancel_date', 'end_date'])
    .where('account_id', '=', accountId)
    .where('customer_id', 'in', [...new Set(customerIds)])
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    customerId: row.customer_id,
    startDate: row.start_date,
    cancelDate: row.cancel_date,
    endDate: row.end_date,
  }));
}

/** The subscriptions' components (any version), as pairs. */
export async function listSubscriptionComponents(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
): Promise<{ subscriptionId: number; componentId: number; componentVersionId: number }[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_components')
    .select(['subscription_id', 'component_id', 'component_version_id'])
    .where('account_id', '=', accountId)
    .where('subscription_id', 'in', [...new Set(subscriptionIds)])
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    componentVersionId: row.component_version_id,
  }));
}

/** The subscriptions' billed (or, free, recorded) periods that end on or after `since`, in order. */
export async function listPeriodsEndingFrom(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
  since: PlainDate,
): Promise<(UsagePeriod & { subscriptionId: number })[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_periods')
    .select(['subscription_id', 'period_start', 'period_end'])
    .where('account_id', '=', accountId)
    .where('subscription_id', 'in', [...new Set(subscriptionIds)])
    .where('period_end', '>=', since)
    .orderBy('subscription_id')
    .orderBy('period_no')
    .execute();
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    start: row.period_start,
    end: row.period_end,
  }));
}

/** Metered usage billed: a period's quantity of one group (correction 0) or what a correction added. */
export interface BilledMeteredUsage {
  subscriptionId: number;
  componentId: number;
  metricId: number;
  group: string;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  correctionNo: number;
  /** Exact decimal. */
  quantity: string;
  invoiceId: number;
}

/** The metered usage billed for periods that end on or after `since`. */
export async function listBilledMeteredUsage(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
  since: PlainDate,
): Promise<BilledMeteredUsage[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_metered_usage')
    .select([
      'subscription_id',
      'component_id',
      'metric_id',
      'group_value',
      'period_start',
      'period_end',
      'correction_no',
      'quantity',
      'invoice_id',
    ])
    .where('account_id', '=', accountId)
    .where('subscription_id', 'in', [...new Set(subscriptionIds)])
    .where('period_end', '>=', since)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    metricId: row.metric_id,
    group: row.group_value,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    correctionNo: row.correction_no,
    quantity: row.quantity,
    invoiceId: row.invoice_id,
  }));
}

// Rows per multi-row INSERT (12 columns): parameters stay well below SQLite's 32 766 per statement.
const METERED_CHUNK = 2000;

/**
 * Records the metered usage an invoice billed. The unique (subscription, component, period, group, correction)
 * refuses a second billing of the same quantity by another process: the stretch then fails and is billed again.
 */
export async function insertBilledMeteredUsage(
  db: Db,
  accountId: number,
  rows: readonly BilledMeteredUsage[],
  createdAt: string,
): Promise<void> {
  const values = rows.map((row) => ({
    account_id: accountId,
    subscription_id: row.subscriptionId,
    component_id: row.componentId,
    metric_id: row.metricId,
    group_value: row.group,
    period_start: row.periodStart,
    period_end: row.periodEnd,
    correction_no: row.correctionNo,
    quantity: row.quantity,
    invoice_id: row.invoiceId,
    created_at: createdAt,
  }));
  for (let at = 0; at < values.length; at += METERED_CHUNK) {
    await db
      .insertInto('subscription_metered_usage')
      .values(values.slice(at, at + METERED_CHUNK))
      .execute();
  }
}
