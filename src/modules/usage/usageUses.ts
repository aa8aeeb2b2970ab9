import type { Db } from '../../storage/database.ts';

/**
 * What the usage module asks of subscriptions, which sit above it (docs/architecture.md, "Module order"): whose an
 * event's subscription is. Connected once at start (src/connectModules.ts).
 */
export interface UsageUses {
  /** Of these subscription ids, those of the account, each with its customer's id. */
  subscriptionCustomers(
    db: Db,
    accountId: number,
    subscriptionIds: readonly number[],
  ): Promise<Map<number, number>>;
}

let connected: UsageUses | undefined;

export function registerUsageUses(uses: UsageUses): void {
  connected = uses;
}

export function subscriptionsOfCustomers(
  db: Db,
  accountId: number,
  subscriptionIds: readonly number[],
): Promise<Map<number, number>> {
  if (!connected) throw new Error('usage uses are not registered: call connectModules() at start');
  return connected.subscriptionCustomers(db, accountId, subscriptionIds);
}
