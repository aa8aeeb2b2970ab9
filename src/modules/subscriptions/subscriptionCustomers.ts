import type { Db } from '../../storage/database.ts';

/**
 * Of these subscription ids, those of the account, each with its customer's id: how the usage module checks that
 * an event's subscription is its customer's, read by the flow that records events (src/flows/recordUsage.ts).
 */
export async function subscriptionCustomers(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
): Promise<Map<number, number>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('subscriptions')
    .select(['id', 'customer_id'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(subscriptionIds)])
    .execute();
  return new Map(rows.map((row) => [Number(row.id), Number(row.customer_id)]));
}
