import type { Db } from '../../storage/database.ts';
import { metricsByIds } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { mergeRollups, rollUp } from './aggregation.ts';
import type { HourRollup } from './aggregation.ts';
import * as repo from './usageEvent.repository.ts';
import type { RollupKey, RollupToStore } from './usageEvent.repository.ts';
import { meteredEvent } from './usageEvent.service.ts';
import * as reconcileRepo from './usageReconcile.repository.ts';

/** One hour's rollup that differs from what its raw events add up to; each side as text, null when missing. */
export interface RollupDifference extends RollupKey {
  accountId: number;
  hour: string;
  stored: string | null;
  expected: string | null;
}

export interface ReconcileReport {
  accounts: number;
  events: number;
  differences: RollupDifference[];
  /** Whether the rollups of accounts with differences were written anew from their events. */
  fixed: boolean;
}

/** Events read per statement: what the command holds of them at once (the rollups it builds are held whole). */
const CHUNK = 5_000;

/**
 * Recomputes every rollup and unique value of an account (or of every account with events) from its raw events
 * and reports each hour that differs (docs/usage.md, "Sending events"); with `fix`, writes the account's rollups
 * anew from its events in one transaction that holds the inserts of events meanwhile, so it is safe while events
 * are being sent. Rollups are kept by the insert itself, so a difference means a bug or a
 * hand-made change.
 */
export async function reconcileUsage(
  db: Db,
  options: { accountId?: number; fix: boolean },
): Promise<ReconcileReport> {
  const accounts =
    options.accountId === undefined ? await reconcileRepo.accountsWithUsage(db) : [options.accountId];
  const report: ReconcileReport = { accounts: accounts.length, events: 0, differences: [], fixed: false };
  for (const accountId of accounts) {
    const { expected, events } = await expectedRollups(db, accountId);
    report.events += events;
    const differences = await compareWithStored(db, accountId, expected);
    report.differences.push(...differences);
    if (options.fix && differences.length > 0) {
      // Events may be arriving: the rollups are written from the events read again while no insert can run, so an
      // event stored after the read above is neither lost nor counted twice.
      await db.transaction().execute(async (trx) => {
        await reconcileRepo.holdUsageInserts(trx);
        const current = await expectedRollups(trx, accountId);
        await reconcileRepo.deleteRollups(trx, accountId);
        await writeRollups(trx, accountId, [...current.expected.values()]);
      });
      report.fixed = true;
    }
  }
  return report;
}

type Expected = Map<string, RollupToStore & { aggregation: BillableMetric['aggregation'] }>;

const keyText = (k: RollupKey, hour: number) =>
  `${k.customerId}/${k.subscriptionId}/${k.metricId}/${hour}/${k.group}`;

/** Every rollup the account's counted events make, keyed by its key and hour. */
async function expectedRollups(db: Db, accountId: number): Promise<{ expected: Expected; events: number }> {
  const expected: Expected = new Map();
  const metrics = new Map<number, BillableMetric>();
  let events = 0;
  let after: { customerId: number; occurredAt: string; id: number } | null = null;
  for (;;) {
    const chunk = await reconcileRepo.countedEventsAfter(db, accountId, after, CHUNK);
    if (chunk.length === 0) break;
    events += chunk.length;
    const unknown = chunk.map((e) => e.metricId).filter((id) => !metrics.has(id));
    for (const [id, metric] of await metricsByIds(db, accountId, unknown)) metrics.set(id, metric);
    for (const e of chunk) {
      const aggregation = metrics.get(e.metricId)?.aggregation ?? 'sum';
      const [rollup] = rollUp([meteredEvent(aggregation, e.id, Date.parse(e.occurredAt), e.value, e.unique)]);
      const key = {
        customerId: e.customerId,
        subscriptionId: e.subscriptionId,
        metricId: e.metricId,
        group: e.group,
      };
      const text = keyText(key, rollup!.hour);
      const held = expected.get(text);
      expected.set(text, {
        ...key,
        aggregation,
        rollup: held ? mergeRollups(held.rollup, rollup!) : rollup!,
      });
    }
    const last = chunk.at(-1)!;
    after = { customerId: last.customerId, occurredAt: last.occurredAt, id: last.id };
    if (chunk.length < CHUNK) break;
  }
  return { expected, events };
}

/**
 * A rollup as the report shows it: unique values only where the metric counts them, and the weighted offsets only
 * where it weighs them (other metrics' events are not cut to the second, so the stored seconds mean nothing there).
 */
function describe(rollup: HourRollup, aggregation: BillableMetric['aggregation'] | undefined): string {
  const latest = rollup.latest
    ? `${rollup.latest.value}@${new Date(rollup.latest.at).toISOString()}#${rollup.latest.id}`
    : '-';
  const uniques = aggregation === 'unique_count' ? ` uniques=[${[...rollup.uniques].sort().join(',')}]` : '';
  const weighted = aggregation === 'weighted_sum' ? ` weighted=${rollup.weightedOffsets}` : '';
  return `count=${rollup.count} sum=${rollup.sum} max=${rollup.max ?? '-'} latest=${latest}${weighted}${uniques}`;
}

async function compareWithStored(db: Db, accountId: number, expected: Expected): Promise<RollupDifference[]> {
  const stored = new Map<string, RollupToStore>();
  for (const row of await reconcileRepo.allRollups(db, accountId))
    stored.set(keyText(row, row.rollup.hour), row);
  for (const u of await reconcileRepo.allUniqueValues(db, accountId)) {
    const row = stored.get(keyText(u, u.hour));
    if (row) (row.rollup.uniques as Set<string>).add(u.value);
  }
  const differences: RollupDifference[] = [];
  for (const text of new Set([...expected.keys(), ...stored.keys()])) {
    const want = expected.get(text);
    const have = stored.get(text);
    const expectedText = want ? describe(want.rollup, want.aggregation) : null;
    const storedText = have ? describe(have.rollup, want?.aggregation) : null;
    if (expectedText === storedText) continue;
    const { customerId, subscriptionId, metricId, group, rollup } = (want ?? have)!;
    const hour = new Date(rollup.hour).toISOString();
    differences.push({
      accountId,
      customerId,
      subscriptionId,
      metricId,
      group,
      hour,
      stored: storedText,
      expected: expectedText,
    });
  }
  return differences;
}

async function writeRollups(
  db: Db,
  accountId: number,
  rollups: readonly (RollupToStore & { aggregation: BillableMetric['aggregation'] })[],
): Promise<void> {
  // As the insert keeps them: weighted offsets for weighted_sum alone (usageEvent.service.ts, rollupsOf).
  await repo.addRollups(
    db,
    accountId,
    rollups.map((r) =>
      r.aggregation === 'weighted_sum' ? r : { ...r, rollup: { ...r.rollup, weightedOffsets: 0n } },
    ),
  );
  const uniques = rollups
    .filter((r) => r.aggregation === 'unique_count')
    .flatMap((r) => [...r.rollup.uniques].map((value) => ({ ...r, hour: r.rollup.hour, value })));
  await repo.addUniqueValues(db, accountId, uniques);
}
