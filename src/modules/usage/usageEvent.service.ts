import { parseWireDate } from '../../core/wireDates.ts';
import { ValidationError } from '../../errors.ts';
import { serviceMemory } from '../../context.ts';
import type { ServiceMemory, UsageStorageCap } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { sentTogether } from '../../storage/sentTogether.ts';
import { metricsByCodes } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { hourOf, rollUp } from './aggregation.ts';
import type { MeteredEvent } from './aggregation.ts';
import { readEvent } from './eventReading.ts';
import * as repo from './usageEvent.repository.ts';
import type { EventToStore, RollupToStore } from './usageEvent.repository.ts';
import { ensureMonthPartitions } from './usagePartitions.ts';
import type { UsageAccount, UsageEventInput, UsageEventOutcome } from './usageEvent.ts';
import { propertiesProblem } from './usageProperties.ts';
import { addStoredEvents } from './usageStorage.repository.ts';
import { storedEventBytes } from './usageStorage.ts';
import { usageStorageCap } from './usageStorage.service.ts';

/** How far ahead of now an event may be dated (docs/usage.md, "Grace and late events"): clocks drift, not days. */
export const FUTURE_HOURS = 24;
const HOUR_MS = 3_600_000;

/** An input that passed every check, its metric's reading done. */
type Checked = Omit<EventToStore, 'id'> & {
  aggregation: BillableMetric['aggregation'];
};
type Refusal = Extract<UsageEventOutcome, { status: 'refused' }>;

/**
 * Of the subscriptions the events name, each with its customer's id. An event naming a subscription must be its
 * customer's; subscriptions sit above usage (docs/architecture.md, "Module order"), so the caller reads it
 * (subscriptionCustomers of subscriptions' index.ts, in the recording transaction: src/flows/recordUsage.ts) or
 * knows it (entitlements' check-and-record, whose governing subscription is the customer's). A subscription left
 * out is no subscription of the account.
 */
export type SubscriptionOwners = ReadonlyMap<number, number>;

/**
 * Records usage events (docs/design/usage.md, "Storage: summed fast, exact"): each checked, claimed once per
 * transaction id, stored, and added to its hour's rollup, in one transaction (the caller's when `db` is one, so that
 * a check and the record it allows commit together). One outcome per input, in order.
 */
export async function recordUsageEvents(
  db: Db,
  account: UsageAccount,
  now: Date | string,
  events: readonly UsageEventInput[],
  owners: SubscriptionOwners,
  // The service's (ServiceContext.usageStorage); a caller outside a service (a test, the benchmark's floor) gets the
  // default cap of its own.
  storage: UsageStorageCap = usageStorageCap(),
  // The service's (ServiceContext.memory), where the months found partitioned are kept; likewise one of its own.
  memory: ServiceMemory = serviceMemory(),
): Promise<UsageEventOutcome[]> {
  if (events.length === 0) return [];
  storage.refuseWhenKnownFull(account.id);
  const nowMs = typeof now === 'string' ? Date.parse(now) : now.getTime();
  if (!db.isTransaction) {
    return db
      .transaction()
      .execute((trx) => recordUsageEvents(trx, account, now, events, owners, storage, memory));
  }
  const checked = await checkEvents(db, account, nowMs, events, owners);
  const outcomes: (UsageEventOutcome | undefined)[] = checked.map((c) => ('status' in c ? c : undefined));
  const fresh = firstOfEachTransaction(checked);
  const claimed = await repo.claimTransactions(
    db,
    account.id,
    fresh.map((i) => checked[i] as Checked),
  );
  const accepted = fresh.filter((i) => claimed.has((checked[i] as Checked).transactionId));
  await storeAccepted(
    db,
    { storage, memory },
    account.id,
    new Date(nowMs).toISOString(),
    accepted.map((i) => ({
      ...(checked[i] as Checked),
      id: claimed.get((checked[i] as Checked).transactionId)!,
    })),
  );
  for (const i of accepted)
    outcomes[i] = { status: 'accepted', eventId: claimed.get((checked[i] as Checked).transactionId)! };
  await answerDuplicates(db, account.id, checked, outcomes);
  return outcomes as UsageEventOutcome[];
}

const UTC_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * A timestamp as a UTC instant (ISO, ms). NOTE: most clients send UTC instants, which Date.parse reads ten times
 * faster than the wire-date reader; the round trip refuses what it would roll over (2026-02-30).
 */
function readInstant(text: string, timeZone: string): string | undefined {
  if (UTC_INSTANT.test(text)) {
    const ms = Date.parse(text);
    const iso = Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
    if (iso !== undefined && iso.slice(0, 19) === text.slice(0, 19)) return iso;
  }
  return parseWireDate(text, timeZone);
}

/** The index of each checked input whose transaction id no earlier input of the batch carries. */
function firstOfEachTransaction(checked: readonly (Checked | Refusal)[]): number[] {
  const seen = new Set<string>();
  const first: number[] = [];
  checked.forEach((c, i) => {
    if ('status' in c || seen.has(c.transactionId)) return;
    seen.add(c.transactionId);
    first.push(i);
  });
  return first;
}

/** Every checked input without an outcome yet names a transaction id claimed before: a duplicate of that event. */
async function answerDuplicates(
  db: Db,
  accountId: number,
  checked: readonly (Checked | Refusal)[],
  outcomes: (UsageEventOutcome | undefined)[],
): Promise<void> {
  const pending = checked.flatMap((c, i) => (outcomes[i] === undefined ? [{ c: c as Checked, i }] : []));
  if (pending.length === 0) return;
  const found = await repo.claimedTransactions(
    db,
    accountId,
    pending.map(({ c }) => c.transactionId),
  );
  for (const { c, i } of pending) outcomes[i] = { status: 'duplicate', eventId: found.get(c.transactionId)! };
}

/** Each input checked and read by its metric, or refused naming the field (docs/usage.md, "Sending events"). */
async function checkEvents(
  db: Db,
  account: UsageAccount,
  nowMs: number,
  events: readonly UsageEventInput[],
  owners: SubscriptionOwners,
): Promise<(Checked | Refusal)[]> {
  const [metrics, customers] = await sentTogether(
    db,
    (d) =>
      metricsByCodes(
        d,
        account.id,
        events.map((e) => e.code),
      ),
    (d) =>
      repo.existingCustomers(
        d,
        account.id,
        events.map((e) => e.customerId),
      ),
  );
  const earliest = nowMs - account.usageGraceHours * HOUR_MS;
  const latest = nowMs + FUTURE_HOURS * HOUR_MS;
  return events.map((event): Checked | Refusal => {
    const refuse = (field: string, detail: string): Refusal => ({ status: 'refused', field, detail });
    if (!customers.has(event.customerId)) return refuse('customerID', 'no such customer in this account');
    if (event.subscriptionId !== null && owners.get(event.subscriptionId) !== event.customerId) {
      return refuse('subscriptionID', "no such subscription of this event's customer");
    }
    const metric = metrics.get(event.code);
    if (!metric || metric.archivedAt !== null)
      return refuse('code', 'names no active billable metric of this account');
    const occurredAt = readInstant(event.timestamp, account.timeZone);
    if (occurredAt === undefined) return refuse('timestamp', 'must be an ISO 8601 date-time');
    const at = Date.parse(occurredAt);
    if (at < earliest) {
      return refuse(
        'timestamp',
        `is older than the account's grace window of ${account.usageGraceHours} hours`,
      );
    }
    if (at > latest) return refuse('timestamp', `is more than ${FUTURE_HOURS} hours after now`);
    const bounds = propertiesProblem(event.properties);
    if (bounds) return refuse(bounds.field, bounds.problem);
    const reading = readEvent(metric, event.properties);
    if ('problem' in reading) return refuse(reading.field, reading.problem);
    return {
      transactionId: event.transactionId,
      customerId: event.customerId,
      subscriptionId: event.subscriptionId,
      metricId: metric.id,
      aggregation: metric.aggregation,
      occurredAt,
      properties: event.properties,
      counted: reading.counts,
      value: reading.counts ? reading.value : 0n,
      unique: reading.counts ? reading.unique : '',
      group: reading.counts ? reading.group : '',
    };
  });
}

/**
 * The accepted events stored, the counted ones added to their hours' rollups (and unique values), and their size
 * to the account's stored events, refused whole when the account had reached its cap (docs/usage.md, "Limits").
 */
async function storeAccepted(
  db: Db,
  { storage, memory }: { storage: UsageStorageCap; memory: ServiceMemory },
  accountId: number,
  receivedAt: string,
  accepted: readonly (Checked & { id: number })[],
): Promise<void> {
  if (accepted.length === 0) return;
  await ensureMonthPartitions(
    db,
    memory,
    accepted.map((e) => e.occurredAt),
  );
  const stored = accepted.map((e) => ({ ...e, propertiesJson: JSON.stringify(e.properties) }));
  let bytes = 0;
  for (const e of stored) bytes += storedEventBytes(e.propertiesJson, e.transactionId);
  const counted = accepted.filter((e) => e.counted);
  const uniques = counted
    .filter((e) => e.aggregation === 'unique_count')
    .map((e) => ({ ...keyOf(e), hour: hourOf(Date.parse(e.occurredAt)), value: e.unique }));
  // One round trip on PostgreSQL: none of the four needs another's answer. NOTE: the cap is checked on the totals
  // the last one returns rather than read first, so that a batch costs one statement more, not two.
  const [, , , after] = await sentTogether(
    db,
    (d) => repo.insertEvents(d, accountId, receivedAt, stored),
    (d) => addRollupsWithin64Bits(d, accountId, rollupsOf(counted)),
    (d) => repo.addUniqueValues(d, accountId, uniques),
    (d) => addStoredEvents(d, accountId, { events: stored.length, bytes }),
  );
  storage.assertRoomForEvents({ accountId, bytes: after.bytes - bytes });
}

/**
 * An hour's sums are 64-bit integers (docs/design/usage.md, "Storage: summed fast, exact"): a batch that would pass
 * them is refused whole, as the database refuses it (PostgreSQL's bigint out of range, 22003; SQLite's CHECK that
 * the sum is still an integer), and nothing of it is kept.
 */
async function addRollupsWithin64Bits(db: Db, accountId: number, rollups: RollupToStore[]): Promise<void> {
  try {
    await repo.addRollups(db, accountId, rollups);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== '22003' && code !== 'SQLITE_CONSTRAINT_CHECK') throw error;
    throw ValidationError.field(
      'properties',
      "would take an hour's total of a metric past what 64 bits hold: send smaller values",
      'usage_total_too_large',
    );
  }
}

const keyOf = (e: Checked) => ({
  customerId: e.customerId,
  subscriptionId: e.subscriptionId ?? 0,
  metricId: e.metricId,
  group: e.group,
});

/**
 * The batch's events pre-summed per rollup key and hour: one row per key and hour for the upsert. Only weighted_sum
 * keeps its weighted offsets: another metric's values may be 1,000 times larger, and their Σ value × seconds would
 * pass 64 bits for nothing.
 */
function rollupsOf(events: readonly (Checked & { id: number })[]): RollupToStore[] {
  const byKey = new Map<
    string,
    { key: ReturnType<typeof keyOf>; weighted: boolean; events: MeteredEvent[] }
  >();
  for (const e of events) {
    const key = keyOf(e);
    const text = `${key.customerId}/${key.subscriptionId}/${key.metricId}/${key.group}`;
    let entry = byKey.get(text);
    if (!entry) byKey.set(text, (entry = { key, weighted: e.aggregation === 'weighted_sum', events: [] }));
    entry.events.push(meteredEvent(e.aggregation, e.id, Date.parse(e.occurredAt), e.value, e.unique));
  }
  return [...byKey.values()].flatMap(({ key, weighted, events: metered }) =>
    rollUp(metered).map((rollup) => ({
      ...key,
      rollup: weighted ? rollup : { ...rollup, weightedOffsets: 0n },
    })),
  );
}

/**
 * An event as its metric aggregates it. weighted_sum weighs values by the whole second (docs/design/usage.md,
 * "Storage: summed fast, exact"): its events' times are cut to the second, so an hour's Σ value × offset is
 * stored in seconds and stays inside 64 bits.
 */
export function meteredEvent(
  aggregation: BillableMetric['aggregation'],
  id: number,
  at: number,
  value: bigint,
  unique: string,
): MeteredEvent {
  return { id, at: aggregation === 'weighted_sum' ? Math.floor(at / 1000) * 1000 : at, value, unique };
}
