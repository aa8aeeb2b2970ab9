/**
 * Usage benchmark (bench/README.md, "Usage"): usage events through the HTTP API in batches of 100 from several
 * connections, against the floor measured in the same run (the same rows written by bare multi-row inserts, no
 * checks; bench/usage/floor.ts); another account's GET /v1/customers/{id} p99 meanwhile; the same while one account
 * floods past its budget of events (bench/usage/flood.ts); and one subscription's period aggregate over
 * BENCH_USAGE_PERIOD_EVENTS events (bench/usage/period.ts).
 *
 *   npm run bench:usage                                   SQLite only (a fresh temporary file)
 *   TEST_DATABASE_URL=postgres://... npm run bench:usage  SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Checked before it is believed: every event sent answered `accepted`, the database holds exactly them, and their
 * hourly rollups add up to their raw values; the seeded period's aggregate equals its known sum.
 */
import crypto from 'node:crypto';
import { sql } from 'kysely';
import { parseDatabaseUrl } from '../src/config.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import { metricsByCodes } from '../src/modules/catalogue/index.ts';
import {
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
import { measureFloor, measureModule } from './usage/floor.ts';
import { FLOOD_LIMITS, checkFlood, measureFlood, seedOtherAccount } from './usage/flood.ts';
import type { FloodFigures } from './usage/flood.ts';
import { measureAggregate, seedPeriod } from './usage/period.ts';
import { METRIC, api, seedPopulation } from './usage/population.ts';
import { BATCH_PATH, acceptedIn, batchBody, newEvents } from './usage/wire.ts';
import type { Population } from './usage/population.ts';
import type { AggregateFigures } from './usage/period.ts';

const CUSTOMERS = Math.round(setting('BENCH_USAGE_CUSTOMERS', 100, 1, 10_000));
const PERIOD_EVENTS = Math.round(setting('BENCH_USAGE_PERIOD_EVENTS', 10_000_000, 1_000, 100_000_000));
const AGGREGATE_RUNS = Math.round(setting('BENCH_USAGE_AGGREGATE_RUNS', 200, 10, 10_000));
const READ_RATE = setting('BENCH_USAGE_READ_RATE', 20, 1, 1000);
const BATCH = 100;
/** BENCH_USAGE_PARTS: `ingestion`, `flood`, `period`, comma-separated (all three by default). */
const PARTS = new Set((process.env.BENCH_USAGE_PARTS ?? 'ingestion,flood,period').split(','));
for (const part of PARTS) {
  if (part !== 'ingestion' && part !== 'flood' && part !== 'period') {
    console.error(`BENCH_USAGE_PARTS: ${part} is none of ingestion, flood and period`);
    process.exit(2);
  }
}
/**
 * The ingestion part measures what the process can take, which one account's budget (docs/usage.md, "Limits")
 * would cap far below: its server runs with the budget at its largest. The flood's server runs with the service's.
 */
const UNBUDGETED = { USAGE_EVENTS_PER_SECOND: '10000000', USAGE_BYTES_PER_SECOND: '10000000000' };

/** The targets (docs/design/usage.md, "Speed (bench:usage)"). */
const TARGETS = {
  eventsPerSecond: { sqlite: 50_000, postgres: 20_000 },
  vsFloor: 0.5,
  aggregateP99Ms: 50,
  othersP99Ms: 100,
};

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
            const events = newEvents(prefix, next, BATCH, customerIds);
            next += BATCH;
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

type TargetName = 'eventsPerSecond' | 'vsFloor' | 'aggregateP99Ms' | 'othersP99Ms' | 'floodOthersP99Ms';

interface DialectResult {
  ingestion: IngestionPart | null;
  flood: FloodFigures | null;
  period: PeriodPart | null;
  checks: Check[];
  targets: Partial<Record<TargetName, Target>>;
  failed: boolean;
}

/**
 * The service on the dialect's database with another account beside the one `billing account create` made: `work`
 * gets both, and the database opened in this process.
 */
async function withTwoAccounts<R>(
  setup: DialectSetup,
  tempDir: string,
  env: NodeJS.ProcessEnv,
  work: (service: Service, db: Db, otherAuth: string) => Promise<R>,
): Promise<R> {
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
        return await work(service, storage.db, basicAuth(other));
      } finally {
        await storage.close().catch(() => {});
      }
    },
    { ENCRYPTION_KEY: encryptionKey, ...env },
  );
}

/** The flood first, on its own server with the service's budget; then ingestion and the period on another. */
async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  const checks: Check[] = [];
  let flood: FloodFigures | null = null;
  if (PARTS.has('flood')) {
    flood = await withTwoAccounts(setup, tempDir, {}, async (service, db, otherAuth) => {
      log(`${setup.dialect}: the flood, with ${FLOOD_LIMITS.eventsPerSecond} events/s an account`);
      const population = await seedPopulation(service);
      const otherCustomerId = await seedOtherAccount(service, otherAuth);
      const figures = await measureFlood(service, population.customerIds, {
        authorization: otherAuth,
        customerId: otherCustomerId,
      });
      checks.push(...(await checkFlood(db, service.credentials.accountID, figures)));
      return figures;
    });
  }
  const result =
    PARTS.has('ingestion') || PARTS.has('period')
      ? await withTwoAccounts(setup, tempDir, UNBUDGETED, (service, db, otherAuth) =>
          benchService(setup.dialect, service, db, otherAuth),
        )
      : undefined;
  const targets = { ...result?.targets };
  if (flood) targets.floodOthersP99Ms = target(flood.p99Ms, TARGETS.othersP99Ms, 'max');
  checks.push(...(result?.checks ?? []));
  return {
    ingestion: result?.ingestion ?? null,
    flood,
    period: result?.period ?? null,
    checks,
    targets,
    failed: checks.some((c) => !c.ok) || (result?.failed ?? false),
  };
}

async function benchService(
  dialect: Dialect,
  service: Service,
  db: Db,
  otherAuth: string,
): Promise<Omit<DialectResult, 'flood'>> {
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
  if (r.flood) rows.push(...floodRows(r.flood, t.floodOthersP99Ms));
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

function floodRows(f: FloodFigures, p99Target: Target | undefined): string[][] {
  const o = f.otherEvents;
  return [
    [
      "flood: the flooder's events accepted / batches refused 429",
      `${f.flooder.acceptedEvents} / ${f.flooder.refused} of ${f.flooder.requests}`,
      '',
    ],
    ["flood: the flooder's accepted events/s", String(f.flooder.acceptedEventsPerSecond), ''],
    ["flood: another account's GET p50 / p99 ms, quiet", `${f.quietP50Ms} / ${f.quietP99Ms}`, ''],
    ["flood: another account's GET p50 / p99 ms, during", `${f.p50Ms} / ${f.p99Ms}`, met(p99Target)],
    ["flood: another account's GET p99 vs quiet, max ms", `${f.p99VsQuiet}× / ${f.maxMs}`, ''],
    ["flood: another account's batches p50 / p99 ms", `${o.p50Ms} / ${o.p99Ms} (${o.accepted} events)`, ''],
  ];
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
    floodLimits: FLOOD_LIMITS,
    results,
  });
  return failed ? 1 : 0;
}

const dialectCount = PG_URL ? 2 : 1;
const budgetMs =
  dialectCount * (4 * (SECONDS + WARMUP_SECONDS) + 2 * SECONDS + 960 + PERIOD_EVENTS / 10_000) * 1000;
await runBenchmark(main, budgetMs);
