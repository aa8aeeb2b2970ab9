import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';

/** What a progressive invoice billed of one component's group in a usage period. */
export interface ProgressiveUsage {
  subscriptionId: number;
  componentId: number;
  group: string;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  /** Exact decimal: the period's quantity so far when the invoice was made. */
  quantity: string;
  /** The usage this invoice added, before coupons. */
  amountMinor: number;
  /** What the invoice's coupons took off it. */
  discountMinor: number;
  invoiceId: number;
}

function progressiveFromRow(row: {
  subscription_id: number;
  component_id: number;
  group_value: string;
  period_start: PlainDate;
  period_end: PlainDate;
  quantity: string;
  amount_minor: number;
  discount_minor: number;
  invoice_id: number;
}): ProgressiveUsage {
  return {
    subscriptionId: row.subscription_id,
    componentId: row.component_id,
    group: row.group_value,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    quantity: row.quantity,
    amountMinor: Number(row.amount_minor),
    discountMinor: Number(row.discount_minor),
    invoiceId: row.invoice_id,
  };
}

const COLUMNS = [
  'subscription_id',
  'component_id',
  'group_value',
  'period_start',
  'period_end',
  'quantity',
  'amount_minor',
  'discount_minor',
  'invoice_id',
] as const;

/** The progressive usage billed of the subscriptions' periods ending on or after `since`. */
export async function listProgressiveUsage(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
  since: PlainDate,
): Promise<ProgressiveUsage[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscription_progressive_usage')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('subscription_id', 'in', [...new Set(subscriptionIds)])
    .where('period_end', '>=', since)
    .orderBy('id')
    .execute();
  return rows.map(progressiveFromRow);
}

/** The progressive usage billed of one period of a subscription. */
export async function listProgressiveUsageOfPeriod(
  db: Db,
  accountId: number,
  subscriptionId: number,
  periodStart: PlainDate,
): Promise<ProgressiveUsage[]> {
  const rows = await db
    .selectFrom('subscription_progressive_usage')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', periodStart)
    .orderBy('id')
    .execute();
  return rows.map(progressiveFromRow);
}

export async function insertProgressiveUsage(
  db: Db,
  accountId: number,
  rows: readonly ProgressiveUsage[],
  createdAt: string,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('subscription_progressive_usage')
    .values(
      rows.map((row) => ({
        account_id: accountId,
        subscription_id: row.subscriptionId,
        component_id: row.componentId,
        group_value: row.group,
        period_start: row.periodStart,
        period_end: row.periodEnd,
        quantity: row.quantity,
        amount_minor: row.amountMinor,
        discount_minor: row.discountMinor,
        invoice_id: row.invoiceId,
        created_at: createdAt,
      })),
    )
    .execute();
}

/** A subscription's threshold in minor units, or undefined when progressive billing is off. */
export async function findThreshold(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('subscription_progressive_thresholds')
    .select('threshold_minor')
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.threshold_minor);
}

/** Sets (or, with null, removes) a subscription's threshold. */
export async function saveThreshold(
  db: Db,
  accountId: number,
  subscriptionId: number,
  thresholdMinor: number | null,
  updatedAt: string,
): Promise<void> {
  await db
    .deleteFrom('subscription_progressive_thresholds')
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .execute();
  if (thresholdMinor === null) return;
  await db
    .insertInto('subscription_progressive_thresholds')
    .values({
      account_id: accountId,
      subscription_id: subscriptionId,
      threshold_minor: thresholdMinor,
      updated_at: updatedAt,
    })
    .execute();
}

/** The subscriptions with a threshold, of the account (all, or of these customers), with their thresholds. */
export async function listThresholds(
  db: Db,
  accountId: number,
  customerIds: readonly number[] | 'all',
): Promise<{ subscriptionId: number; thresholdMinor: number }[]> {
  if (customerIds !== 'all' && customerIds.length === 0) return [];
  let query = db
    .selectFrom('subscription_progressive_thresholds')
    .innerJoin('subscriptions', 'subscriptions.id', 'subscription_progressive_thresholds.subscription_id')
    .select([
      'subscription_progressive_thresholds.subscription_id',
      'subscription_progressive_thresholds.threshold_minor',
    ])
    .where('subscription_progressive_thresholds.account_id', '=', accountId);
  if (customerIds !== 'all')
    query = query.where('subscriptions.customer_id', 'in', [...new Set(customerIds)]);
  const rows = await query.orderBy('subscription_progressive_thresholds.subscription_id').execute();
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    thresholdMinor: Number(row.threshold_minor),
  }));
}

/** The accounts with at least one subscription billed progressively. */
export async function listAccountsWithThresholds(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription_progressive_thresholds')
    .select('account_id')
    .distinct()
    .orderBy('account_id')
    .execute();
  return rows.map((row) => row.account_id);
}
