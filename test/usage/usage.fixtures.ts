import type { BillableMetric, MetricAggregation, MetricFilter } from '../../src/modules/catalogue/index.ts';
import { metricsByCodes } from '../../src/modules/catalogue/index.ts';
import { subscriptionCustomers } from '../../src/modules/subscriptions/index.ts';
import { recordUsageEvents } from '../../src/modules/usage/index.ts';
import type { UsageAccount, UsageEventInput, UsageEventOutcome } from '../../src/modules/usage/index.ts';
import type { Db } from '../../src/storage/database.ts';

/**
 * A billable metric made straight in its table, as the catalogue's API would make it: the usage tests need metrics
 * of every reading, and the metrics' own API is tested with the catalogue.
 */
export async function defineMetric(
  db: Db,
  accountId: number,
  code: string,
  aggregation: MetricAggregation,
  options: { property?: string; filters?: MetricFilter[]; groupBy?: string } = {},
): Promise<BillableMetric> {
  await db
    .insertInto('billable_metrics')
    .values({
      account_id: accountId,
      code,
      name: code,
      descrip: null,
      aggregation,
      property: options.property ?? null,
      filters: JSON.stringify(options.filters ?? []),
      group_by: options.groupBy ?? null,
      archived_at: null,
      created_at: '2026-01-01T00:00:00.000Z',
    })
    .execute();
  return (await metricsByCodes(db, accountId, [code])).get(code)!;
}

export const usageAccount = (id: number, usageGraceHours = 72, timeZone = 'UTC'): UsageAccount => ({
  id,
  timeZone,
  usageGraceHours,
});

/**
 * Usage's recording as the flow calls it (src/flows/recordUsage.ts): the subscriptions the events name read with
 * their customers first, in the service's own query, then handed to recordUsageEvents.
 */
export async function recordEvents(
  db: Db,
  account: UsageAccount,
  now: Date | string,
  events: readonly UsageEventInput[],
): Promise<UsageEventOutcome[]> {
  const named = events.flatMap((e) => (e.subscriptionId === null ? [] : [e.subscriptionId]));
  return recordUsageEvents(db, account, now, events, await subscriptionCustomers(db, account.id, named));
}
