import type { Db } from '../../storage/database.ts';

/**
 * What the usage module asks of subscriptions, which sit above it (docs/architecture.md, "Module order"): whose an
 * event's subscription is, checked as the event is recorded (`ctx.ports.usage`, filled by src/modulePorts.ts).
 */
export interface UsageUses {
  /** Of these subscription ids, those of the account, each with its customer's id. */
  subscriptionCustomers(
    db: Db,
    accountId: number,
    subscriptionIds: readonly number[],
  ): Promise<Map<number, number>>;
}

declare module '../../context.ts' {
  interface Ports {
    usage: UsageUses;
  }
}
