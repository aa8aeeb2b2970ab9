/**
 * The usage benchmark's floor (bench/README.md, "Usage"): the rows each event makes of its own, written by bare
 * multi-row inserts with no checks, no rollups and no HTTP; and the module's insert path called in this process.
 */
import { CompiledQuery } from 'kysely';
import type { Db } from '../../src/storage/database.ts';
import { recordUsageEvents } from '../../src/modules/usage/index.ts';
import { BenchError, round } from '../common.ts';
import type { Dialect } from '../common.ts';
import { CONNECTIONS, SECONDS } from '../harness.ts';
import type { Service } from '../harness.ts';
import { METRIC } from './population.ts';
import { REGIONS } from './wire.ts';

const BATCH = 100;

/** The rows one event makes that are its own (its transaction id and the event), as the insert path writes them. */
function floorRows(accountId: number, customerId: number, id: number, at: string, now: string) {
  return {
    transaction: {
      id,
      account_id: accountId,
      customer_id: customerId,
      transaction_id: `floor-${id}`,
      occurred_at: at,
    },
    event: {
      id,
      account_id: accountId,
      customer_id: customerId,
      subscription_id: null,
      metric_id: 0,
      transaction_id: `floor-${id}`,
      occurred_at: at,
      properties: JSON.stringify({ tokens: (id % 9) + 1, region: REGIONS[id % 3] }),
      counted: true,
      value: BigInt(((id % 9) + 1) * 10_000),
      unique_value: '',
      group_value: REGIONS[id % 3]!,
      received_at: now,
    },
  };
}

const TRANSACTION_COLUMNS = ['id', 'account_id', 'customer_id', 'transaction_id', 'occurred_at'] as const;
const EVENT_COLUMNS = [
  'id',
  'account_id',
  'customer_id',
  'subscription_id',
  'metric_id',
  'transaction_id',
  'occurred_at',
  'properties',
  'counted',
  'value',
  'unique_value',
  'group_value',
  'received_at',
] as const;
const PG_TYPES: Record<string, string> = {
  transaction_id: 'text',
  occurred_at: 'timestamptz',
  received_at: 'timestamptz',
  properties: 'text',
  counted: 'boolean',
  unique_value: 'text',
  group_value: 'text',
};

/**
 * A bare multi-row insert of BATCH rows into `table`, compiled once: on SQLite a values list (one prepared
 * statement), on PostgreSQL arrays unnested (one named statement), as the insert path builds its own
 * (src/modules/usage/usageEventStatements.ts). Returns the statement's text and how to lay out its parameters.
 */
function floorInsert(dialect: Dialect, table: string, columns: readonly string[]) {
  const names = columns.map((c) => `"${c}"`).join(', ');
  if (dialect === 'postgres') {
    const arrays = columns.map((c, i) => `$${i + 1}::${PG_TYPES[c] ?? 'bigint'}[]`).join(', ');
    return {
      text: `insert into "${table}" (${names}) select ${names} from unnest(${arrays}) as u(${names})`,
      parameters: (rows: Record<string, unknown>[]) => columns.map((c) => rows.map((row) => row[c])),
    };
  }
  const row = `(${columns.map(() => '?').join(', ')})`;
  return {
    text: `insert into "${table}" (${names}) values ${Array.from({ length: BATCH }, () => row).join(', ')}`,
    parameters: (rows: Record<string, unknown>[]) =>
      rows.flatMap((r) => columns.map((c) => (typeof r[c] === 'boolean' ? Number(r[c]) : r[c]))),
  };
}

/**
 * The floor: for SECONDS, CONNECTIONS writers each insert batches of 100 events' rows (usage_transactions and
 * usage_events, one multi-row statement each, compiled once, in one transaction), with no checks, no rollups, no
 * HTTP. NOTE: built by Kysely for every batch, as it was, the floor paid the compilation the insert path no longer
 * pays (docs/benchmarks.md, "Usage"), and would have flattered the ratio.
 */
export async function measureFloor(
  dialect: Dialect,
  db: Db,
  accountId: number,
  customerIds: number[],
): Promise<number> {
  const transactions = floorInsert(dialect, 'usage_transactions', TRANSACTION_COLUMNS);
  const events = floorInsert(dialect, 'usage_events', EVENT_COLUMNS);
  let nextId = 2_000_000_000_000;
  let rows = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const writer = async () => {
    while (performance.now() < deadline) {
      const now = new Date().toISOString();
      const batch = Array.from({ length: BATCH }, () => {
        const id = nextId++;
        return floorRows(accountId, customerIds[id % customerIds.length]!, id, now, now);
      });
      await db.transaction().execute(async (trx) => {
        const t = batch.map((b) => b.transaction);
        await trx.executeQuery(CompiledQuery.raw(transactions.text, transactions.parameters(t)));
        const e = batch.map((b) => b.event);
        await trx.executeQuery(CompiledQuery.raw(events.text, events.parameters(e)));
      });
      rows += BATCH;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, writer));
  return round(rows / ((performance.now() - started) / 1000), 0);
}

/** recordUsageEvents called in this process, one batch after another: the insert path without HTTP. */
export async function measureModule(db: Db, service: Service, customerIds: number[]): Promise<number> {
  const account = { id: service.credentials.accountID, timeZone: 'UTC', usageGraceHours: 72 };
  let n = 0;
  let events = 0;
  const deadline = performance.now() + Math.min(SECONDS, 5) * 1000;
  const started = performance.now();
  while (performance.now() < deadline) {
    const now = new Date();
    const batch = Array.from({ length: BATCH }, () => {
      const i = n++;
      return {
        transactionId: `mod-${i}`,
        customerId: customerIds[i % customerIds.length]!,
        subscriptionId: null,
        code: METRIC,
        timestamp: now.toISOString(),
        properties: { tokens: (i % 9) + 1, region: REGIONS[i % 3] },
      };
    });
    // No event names a subscription: none to read with its customer (src/flows/recordUsage.ts).
    const outcomes = await recordUsageEvents(db, account, now, batch, new Map());
    if (outcomes.some((o) => o.status !== 'accepted'))
      throw new BenchError(
        `recordUsageEvents refused: ${JSON.stringify(outcomes.find((o) => o.status !== 'accepted'))}`,
      );
    events += BATCH;
  }
  return round(events / ((performance.now() - started) / 1000), 0);
}
