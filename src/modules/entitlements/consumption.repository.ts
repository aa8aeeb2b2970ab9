import type { Db } from '../../storage/database.ts';

/** An accepted check-and-record, as its first answer gave it (docs/usage.md, "Entitlements"). */
export interface Consumption {
  transactionId: string;
  customerId: number;
  featureId: number;
  subscriptionId: number;
  quantity: string;
  limit: string | null;
  usedAfter: string;
  periodStart: string;
  periodEnd: string;
}

export async function findConsumption(
  db: Db,
  accountId: number,
  transactionId: string,
): Promise<Consumption | undefined> {
  const row = await db
    .selectFrom('entitlement_consumptions')
    .select([
      'transaction_id',
      'customer_id',
      'feature_id',
      'subscription_id',
      'quantity',
      'limit_quantity',
      'used_after',
      'period_start',
      'period_end',
    ])
    .where('account_id', '=', accountId)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  return (
    row && {
      transactionId: row.transaction_id,
      customerId: Number(row.customer_id),
      featureId: Number(row.feature_id),
      subscriptionId: Number(row.subscription_id),
      quantity: row.quantity,
      limit: row.limit_quantity,
      usedAfter: row.used_after,
      periodStart: row.period_start,
      periodEnd: row.period_end,
    }
  );
}

export async function insertConsumption(
  db: Db,
  accountId: number,
  c: Consumption,
  at: string,
): Promise<void> {
  await db
    .insertInto('entitlement_consumptions')
    .values({
      account_id: accountId,
      transaction_id: c.transactionId,
      customer_id: c.customerId,
      feature_id: c.featureId,
      subscription_id: c.subscriptionId,
      quantity: c.quantity,
      limit_quantity: c.limit,
      used_after: c.usedAfter,
      period_start: c.periodStart,
      period_end: c.periodEnd,
      created_at: at,
    })
    .execute();
}
