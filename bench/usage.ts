/**
 * Usage benchmark (bench/README.md, "Usage"): usage events through the HTTP API in batches of 100 from several
 * connections, against the floor measured in the same run (the same rows written by bare multi-row inserts, no
 * checks); another account's GET /v1/customers/{id} p99 meanwhile; and one subscription's period aggregate over
 * BENCH_USAGE_PERIOD_EVENTS events (bench/usage/period.ts).
 *
 *   npm run bench:usage                                   SQLite only (a fresh temporary file)
 *   TEST_DATABASE_URL=postgres://... npm run bench:usage  SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Checked before it is believed: every event sent answered `accepted`, the database holds exactly them, and their
 * hourly rollups add up to their raw values; the seeded period's aggregate equals its known sum.
 */
import crypto from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import { metricsByCodes } from '../src/modules/catalogue/index.ts';
import { recordUsageEvents } from '../src/modules/usage/index.ts';
import {
  BenchError,
  PG_URL,
  forEachDialect,
  formatTable,
  log,
  round,
  runBenchmark,
  setting,
  loadAverage,
  printJsonLine,
} from './common.ts';
import type { Dialect } from './common.ts';
import {
  CONNECTIONS,
  SECONDS,
  WARMUP_SECONDS,
  basicAuth,
  createAccount,
  fire,
  percentile,
  postgresSetup,
  processCpuSeconds,
  serviceEnv,
  sqliteSetup,
  withService,
} from './harness.ts';
import type { DialectSetup, LoadSpec, Run, Service } from './harness.ts';
import { measureAggregate, seedPeriod } from './usage/period.ts';
import { METRIC, api, seedPopulation } from './usage/population.ts';
import type { Population } from './usage/population.ts';
import type { AggregateFigures } from './usage/period.ts';

const CUSTOMERS = Math.round(setting('BENCH_USAGE_CUSTOMERS', 100, 1, 10_000));
const PERIOD_EVENTS = Math.round(setting('BENCH_USAGE_PERIOD_EVENTS', 10_000_000, 1_000, 100_000_000));
const AGGREGATE_RUNS = Math.round(setting('BENCH_USAGE_AGGREGATE_RUNS', 200, 10, 10_000));
const READ_RATE = setting('BENCH_USAGE_READ_RATE', 20, 1, 1000);
const BATCH = 100;
/** BENCH_USAGE_PARTS: `ingestion`, `period` or both (the default), comma-separated. */
const PARTS = new Set((process.env.BENCH_USAGE_PARTS ?? 'ingestion,period').split(','));
for (const part of PARTS) {
  if (part !== 'ingestion' && part !== 'period') {
    console.error(`BENCH_USAGE_PARTS: ${part} is neither ingestion nor period`);
    process.exit(2);
  }
}

/** The targets (docs/design/usage.md, "Speed (bench:usage)"). */
const TARGETS = {
  eventsPerSecond: { sqlite: 50_000, postgres: 20_000 },
  vsFloor: 0.5,
  aggregateP99Ms: 50,
  othersP99Ms: 100,
};

/** The wire of the batch endpoint (docs/usage.md, "Sending events"). */
const BATCH_PATH = '/v1/usage-events/batch';
const batchBody = (events: object[]) => JSON.stringify({ events });
const wireEvent = (
  transactionId: string,
  customerId: number,
  at: string,
  tokens: number,
  region: string,
) => ({
  transaction_id: transactionId,
  customerID: customerId,
  code: METRIC,
  timestamp: at,
  properties: { tokens, region },
});
/** How many events of a batch's answer were accepted: each outcome's status is written `"accepted"`. */
const acceptedIn = (body: string) => body.match(/"accepted"/g)?.length ?? 0;

const REGIONS = ['eu-west', 'us-east', 'ap-south'];

// ---------------------------------------------------------------------------------------------------------------
// Ingestion through the API, and another account's reads meanwhile

interface Ledger {
  sent: number;
  accepted: number;
  failures: string[];
}

/** Batches of 100 new events (transaction ids `<prefix>-<n>`), customers in turn, times within the last hour. */
function ingestionLoad(service: Service, customerIds: number[], prefix: string, ledger: Ledger): LoadSpec {
  let next = 0;
  return {
    label: `POST ${BATCH_PATH} (${BATCH} events)`,
    options: {
      url: `${service.base}${BATCH_PATH}`,
      method: 'POST',
      headers: { authorization: service.authorization, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            const now = Date.now();
            const events = Array.from({ length: BATCH }, () => {
              const n = next++;
              const at = new Date(now - (n % 3_600) * 1000).toISOString();
              return wireEvent(
                `${prefix}-${n}`,
                customerIds[n % customerIds.length]!,
                at,
                (n % 9) + 1,
                REGIONS[n % 3]!,
              );
            });
            ledger.sent += BATCH;
            return { ...request, body: batchBody(events) };
          },
          onResponse: (status, body) => {
            const accepted = status < 300 ? acceptedIn(body) : 0;
            ledger.accepted += accepted;
            if ((status >= 300 || accepted !== BATCH) && ledger.failures.length < 5)
              ledger.failures.push(`${status}: ${body.slice(0, 300)}`);
          },
        },
      ],
    },
  };
}

interface IngestionFigures {
  eventsPerSecond: number;
  requestsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
  non2xx: number;
  serverCpuUsPerEvent: number | null;
  othersQuietP99Ms: number;
  othersP99Ms: number;
  othersP50Ms: number;
  othersNon2xx: number;
}

async function measureIngestion(
  service: Service,
  customerIds: number[],
  reader: { authorization: string; customerId: number },
  ledger: Ledger,
): Promise<IngestionFigures> {
  const reads: LoadSpec = {
    label: `another account's GET /v1/customers/{id} at ${READ_RATE}/s`,
    options: {
      url: `${service.base}/v1/customers/${reader.customerId}`,
      headers: { authorization: reader.authorization },
    },
    perSecond: READ_RATE,
  };
  log(`another account's reads on the quiet server, ${SECONDS} s`);
  const quiet = await fire(reads, { seconds: SECONDS, connections: 1, phase: 'quiet' });
  if (WARMUP_SECONDS > 0) {
    log(`ingestion: warming up ${WARMUP_SECONDS} s`);
    const warm = ingestionLoad(service, customerIds, 'warm', { sent: 0, accepted: 0, failures: [] });
    await fire(warm, {
      seconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      phase: 'warm-up',
      tolerateFailures: true,
    });
  }
  log(`ingestion: measuring ${SECONDS} s with ${CONNECTIONS} connections, and the other account's reads`);
  const pid = service.server.child.pid;
  const cpuBefore = processCpuSeconds(pid);
  const [ingested, during] = await Promise.all([
    fire(ingestionLoad(service, customerIds, 'ing', ledger), {
      seconds: SECONDS,
      connections: CONNECTIONS,
      phase: 'measured',
      tolerateFailures: true,
    }),
    fire(reads, { seconds: SECONDS, connections: 1, phase: 'during ingestion', tolerateFailures: true }),
  ]);
  const cpu = cpuBefore === undefined ? undefined : (processCpuSeconds(pid) ?? cpuBefore) - cpuBefore;
  const events = ingested.result['2xx'] * BATCH;
  return {
    eventsPerSecond: round(ingested.result.requests.mean * BATCH, 0),
    requestsPerSecond: round(ingested.result.requests.mean, 1),
    batchP50Ms: round(percentile(ingested.latencies, 50), 2),
    batchP99Ms: round(percentile(ingested.latencies, 99), 2),
    non2xx: ingested.result.non2xx + ingested.result.errors + ingested.result.timeouts,
    serverCpuUsPerEvent: cpu === undefined || events === 0 ? null : round((cpu * 1e6) / events, 1),
    othersQuietP99Ms: p99(quiet),
    othersP99Ms: p99(during),
    othersP50Ms: round(percentile(during.latencies, 50), 2),
    othersNon2xx: during.result.non2xx + during.result.errors + during.result.timeouts,
  };
}

const p99 = (run: Run) => round(percentile(run.latencies, 99), 2);

// ---------------------------------------------------------------------------------------------------------------
// The floor, and the module without HTTP

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
async function measureFloor(
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
async function measureModule(db: Db, service: Service, customerIds: number[]): Promise<number> {
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
    const outcomes = await recordUsageEvents(db, account, now, batch);
    if (outcomes.some((o) => o.status !== 'accepted'))
      throw new BenchError(
        `recordUsageEvents refused: ${JSON.stringify(outcomes.find((o) => o.status !== 'accepted'))}`,
      );
    events += BATCH;
  }
  return round(events / ((performance.now() - started) / 1000), 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Waits until the stored events stop growing (requests still in flight when autocannon stopped). */
async function settledCount(db: Db, accountId: number): Promise<number> {
  let last = -1;
  for (;;) {
    const { n } = await sql<{ n: string | number }>`
      select count(*) as n from usage_events where account_id = ${accountId} and transaction_id like 'ing-%'`
      .execute(db)
      .then((r) => r.rows[0]!);
    if (Number(n) === last) return last;
    last = Number(n);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function checkIngestion(db: Db, accountId: number, metricId: number, ledger: Ledger): Promise<Check[]> {
  const stored = await settledCount(db, accountId);
  const sums = await sql<{ raw: string | number | null; rolled: string | number | null }>`
    select
      (select sum(value) from usage_events where account_id = ${accountId} and metric_id = ${metricId}
        and counted and id < 1000000000000) as raw,
      (select sum(value_sum) from usage_rollups where account_id = ${accountId} and metric_id = ${metricId}
        and subscription_id = 0) as rolled`.execute(db);
  const { raw, rolled } = sums.rows[0]!;
  return [
    {
      name: 'every event sent was accepted',
      ok: ledger.failures.length === 0,
      detail: ledger.failures.length === 0 ? `${ledger.accepted} accepted` : ledger.failures.join(' | '),
    },
    {
      name: 'the measured events are stored once each',
      // autocannon stops with up to one request per connection in flight: stored, but its answer not counted.
      ok: stored >= ledger.accepted && stored <= ledger.accepted + CONNECTIONS * BATCH && stored > 0,
      detail: `${stored} stored, ${ledger.accepted} answered accepted`,
    },
    {
      name: 'rollups add up to the raw events',
      ok: String(raw) === String(rolled),
      detail: `raw ${String(raw)}, rollups ${String(rolled)} (ten-thousandths)`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

interface IngestionPart {
  figures: IngestionFigures;
  floorEventsPerSecond: number;
  vsFloor: number;
  moduleEventsPerSecond: number;
}

type PeriodPart = AggregateFigures & { eventsSeconds: number; rollupsSeconds: number };

interface DialectResult {
  ingestion: IngestionPart | null;
  period: PeriodPart | null;
  checks: Check[];
  targets: Partial<Record<'eventsPerSecond' | 'vsFloor' | 'aggregateP99Ms' | 'othersP99Ms', Target>>;
  failed: boolean;
}

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  return withService(
    setup,
    tempDir,
    'Bench usage',
    async (service) => {
      const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, service.dataDir));
      try {
        const other = await createAccount(
          { ...serviceEnv(setup.databaseUrl, service.dataDir, 0), ENCRYPTION_KEY: encryptionKey },
          'Bench reader',
        );
        return await benchService(setup.dialect, service, storage.db, basicAuth(other));
      } finally {
        await storage.close().catch(() => {});
      }
    },
    { ENCRYPTION_KEY: encryptionKey },
  );
}

async function benchService(
  dialect: Dialect,
  service: Service,
  db: Db,
  otherAuth: string,
): Promise<DialectResult> {
  log(`${dialect}: seeding ${CUSTOMERS} customers, the metric, its component and a subscription`);
  const population = await seedPopulation(service);
  const checks: Check[] = [];
  const ingestion = PARTS.has('ingestion')
    ? await benchIngestion(dialect, service, db, otherAuth, population, checks)
    : null;
  const period = PARTS.has('period') ? await benchPeriod(dialect, service, db, population, checks) : null;
  const targets: DialectResult['targets'] = {};
  if (ingestion) {
    targets.eventsPerSecond = target(
      ingestion.figures.eventsPerSecond,
      TARGETS.eventsPerSecond[dialect],
      'min',
    );
    targets.vsFloor = target(ingestion.vsFloor, TARGETS.vsFloor, 'min');
    targets.othersP99Ms = target(ingestion.figures.othersP99Ms, TARGETS.othersP99Ms, 'max');
  }
  if (period) targets.aggregateP99Ms = target(period.p99Ms, TARGETS.aggregateP99Ms, 'max');
  return {
    ingestion,
    period,
    checks,
    targets,
    failed: checks.some((c) => !c.ok) || (ingestion?.figures.othersNon2xx ?? 0) > 0,
  };
}

async function benchIngestion(
  dialect: Dialect,
  service: Service,
  db: Db,
  otherAuth: string,
  population: Population,
  checks: Check[],
): Promise<IngestionPart> {
  const reader = await api(service, 'POST', '/v1/customers', { Name: 'Reader' }, otherAuth);
  const ledger: Ledger = { sent: 0, accepted: 0, failures: [] };
  const figures = await measureIngestion(
    service,
    population.customerIds,
    { authorization: otherAuth, customerId: reader.customerID },
    ledger,
  );
  checks.push(
    ...(await checkIngestion(db, service.credentials.accountID, population.owner.metricId, ledger)),
  );
  log(`${dialect}: the floor, ${SECONDS} s`);
  const floorEventsPerSecond = await measureFloor(
    dialect,
    db,
    service.credentials.accountID,
    population.customerIds,
  );
  log(`${dialect}: recordUsageEvents in this process`);
  const moduleEventsPerSecond = await measureModule(db, service, population.customerIds);
  const vsFloor = floorEventsPerSecond > 0 ? round(figures.eventsPerSecond / floorEventsPerSecond, 3) : 0;
  return { figures, floorEventsPerSecond, vsFloor, moduleEventsPerSecond };
}

async function benchPeriod(
  dialect: Dialect,
  service: Service,
  db: Db,
  population: Population,
  checks: Check[],
): Promise<PeriodPart> {
  log(`${dialect}: seeding a period of ${PERIOD_EVENTS} events for one subscription`);
  const seeded = await seedPeriod(db, dialect, population.owner, PERIOD_EVENTS);
  const metric = (await metricsByCodes(db, service.credentials.accountID, [METRIC])).get(METRIC)!;
  log(`${dialect}: reading the period's aggregate ${AGGREGATE_RUNS} times`);
  const figures = await measureAggregate(db, population.owner, metric, PERIOD_EVENTS, AGGREGATE_RUNS);
  checks.push({
    name: "the period's aggregate is its known sum",
    ok: figures.quantity === figures.expected,
    detail: `${figures.quantity}, expected ${figures.expected}`,
  });
  return { ...figures, ...seeded };
}

interface Target {
  value: number;
  target: number;
  met: boolean;
}

function target(value: number, goal: number, kind: 'min' | 'max'): Target {
  return { value, target: goal, met: kind === 'min' ? value >= goal : value <= goal };
}

// ---------------------------------------------------------------------------------------------------------------
// Output and main

function printResult(dialect: Dialect, r: DialectResult): void {
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const rows: string[][] = [];
  const t = r.targets;
  if (r.ingestion) {
    const i = r.ingestion.figures;
    rows.push(
      ['events/s through HTTP (batches of 100)', String(i.eventsPerSecond), met(t.eventsPerSecond)],
      ['floor: bare multi-row inserts, events/s', String(r.ingestion.floorEventsPerSecond), ''],
      ['vs floor', `${(r.ingestion.vsFloor * 100).toFixed(1)}%`, met(t.vsFloor)],
      ['recordUsageEvents in-process, events/s', String(r.ingestion.moduleEventsPerSecond), ''],
      ['batch p50 / p99 ms', `${i.batchP50Ms} / ${i.batchP99Ms}`, ''],
      ['server CPU µs/event', i.serverCpuUsPerEvent === null ? 'n/a' : String(i.serverCpuUsPerEvent), ''],
      ["another account's GET p99 ms, quiet", String(i.othersQuietP99Ms), ''],
      [
        "another account's GET p50 / p99 ms, during",
        `${i.othersP50Ms} / ${i.othersP99Ms}`,
        met(t.othersP99Ms),
      ],
    );
  }
  if (r.period) {
    const p = r.period;
    rows.push(
      [
        `period aggregate, ${p.events} events: p50 / p99 ms`,
        `${p.p50Ms} / ${p.p99Ms}`,
        met(t.aggregateP99Ms),
      ],
      ['period aggregate, bounds at :30: p50 / p99 ms', `${p.offHourP50Ms} / ${p.offHourP99Ms}`, ''],
      ['period seeded: events s / rollups s', `${p.eventsSeconds} / ${p.rollupsSeconds}`, ''],
    );
  }
  console.log(
    formatTable(`${name}: ${SECONDS} s, ${CONNECTIONS} connections`, ['figure', 'value', 'target'], rows),
  );
  for (const check of r.checks) console.log(`${check.ok ? 'ok' : 'FAILED'}: ${check.name} (${check.detail})`);
}

const met = (t: Target | undefined) => (t ? `${t.target}: ${t.met ? 'met' : 'NOT MET'}` : '');

async function main(): Promise<number> {
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-usage-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
    print: printResult,
  });
  const failed = Object.values(results).some((r) => r.failed);
  console.log(failed ? 'FAILED: a check above' : 'All checks passed');
  printJsonLine('billing-usage', {
    loadAverage: loadAverage(),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    customers: CUSTOMERS,
    periodEvents: PERIOD_EVENTS,
    readRate: READ_RATE,
    results,
  });
  return failed ? 1 : 0;
}

const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (4 * (SECONDS + WARMUP_SECONDS) + 900 + PERIOD_EVENTS / 10_000) * 1000;
await runBenchmark(main, budgetMs);
