/**
 * Fairness benchmark (bench/README.md, "Fairness"): while tenant A floods `POST /v1/payments` (AutoApply) for ONE
 * customer with many connections, how long does tenant B wait for `GET /v1/customers/{id}`, against what it waits
 * on a quiet server (the floor, measured in the same run)?
 *
 *   npm run bench:fairness                                      SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:fairness    SQLite, then PostgreSQL in a fresh schema
 *
 * B reads at a steady rate whatever the answers (open loop), each read timed from the moment it was due to be sent,
 * so that a server that makes B wait cannot hide it by slowing B's sends. A's answers are counted by status: 503
 * (the service shedding A's surplus) is allowed, a 500 or any other failure fails the run. Afterwards the money is
 * checked with the payments benchmark's checks: one payment per 201 and none for a 503, allocations adding up,
 * the customer's Balance through the API.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { parseDatabaseUrl } from '../src/config.ts';
import { openStorage } from '../src/storage/database.ts';
import type { Db } from '../src/storage/database.ts';
import {
  PG_URL,
  dialectName,
  forEachDialect,
  formatTable,
  log,
  round,
  runBenchmark,
  setting,
  sleep,
  loadAverage,
  printJsonLine,
} from './common.ts';
import type { Dialect } from './common.ts';
import {
  SECONDS,
  WARMUP_SECONDS,
  basicAuth,
  createAccount,
  fire,
  percentile,
  postgresSetup,
  serviceEnv,
  sqliteSetup,
  withService,
} from './harness.ts';
import type { DialectSetup, RunResult, Service } from './harness.ts';
import { apiBalanceReader, checkDatabase, printChecks, settle } from './payments/checks.ts';
import type { Check } from './payments/settings.ts';
import { newLedger, paymentLoad } from './payments/loads.ts';
import type { Ledger } from './payments/loads.ts';
import { createCustomers, seedInvoices, seedingContext } from './payments/population.ts';

/** Tenant A's connections, each sending its next payment as soon as the last is answered. */
const FLOOD_CONNECTIONS = Math.round(setting('BENCH_FLOOD_CONNECTIONS', 50, 1, 1000));
/** Tenant B's reads: one every so many milliseconds, whatever the answers. */
const READ_INTERVAL_MS = setting('BENCH_READ_INTERVAL_MS', 10, 1, 1000);
/** B's p99 during the flood may be at most this many times its quiet p99. */
const TARGET_RATIO = 2;
const STRICT = process.env.BENCH_STRICT === '1';
/** The flood starts this long before B's measured reads and ends this long after them. */
const LEAD_SECONDS = 1;

// ---------------------------------------------------------------------------------------------------------------
// Tenant B's reads

interface Reads {
  sent: number;
  ok: number;
  /** Responses by status code. */
  statusCodes: Record<string, number>;
  errors: number;
  /** Each 200's time from when it was due to be sent to the end of its answer, ms, sorted. */
  latencies: Float64Array;
  /** How late the sends left against their schedule (this process's own delay), p99 ms. */
  sendLagP99Ms: number;
}

/**
 * `GET /v1/customers/{id}` every READ_INTERVAL_MS for `seconds`, open loop: each read is sent at its time whether
 * or not earlier ones were answered, and timed from that time.
 */
async function pacedReads(
  base: string,
  authorization: string,
  customerId: number,
  seconds: number,
): Promise<Reads> {
  const agent = new http.Agent({ keepAlive: true });
  const url = `${base}/v1/customers/${customerId}`;
  const latencies: number[] = [];
  const lags: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let ok = 0;
  const read = (due: number) =>
    new Promise<void>((resolve) => {
      lags.push(performance.now() - due);
      const request = http.get(url, { agent, headers: { authorization }, timeout: 10_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
          const body = Buffer.concat(chunks).toString('utf8');
          if (status === 200 && (JSON.parse(body) as { customerID?: number }).customerID === customerId) {
            ok += 1;
            latencies.push(performance.now() - due);
          }
          resolve();
        });
      });
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', () => {
        errors += 1;
        resolve();
      });
    });
  const total = Math.floor((seconds * 1000) / READ_INTERVAL_MS);
  const started = performance.now();
  const reads: Promise<void>[] = [];
  for (let n = 0; n < total; n += 1) {
    const due = started + n * READ_INTERVAL_MS;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    reads.push(read(due));
  }
  await Promise.all(reads);
  agent.destroy();
  return {
    sent: total,
    ok,
    statusCodes,
    errors,
    latencies: Float64Array.from(latencies).sort(),
    sendLagP99Ms: round(percentile(Float64Array.from(lags).sort(), 99), 3),
  };
}

interface ReadFigures {
  sent: number;
  ok: number;
  statusCodes: Record<string, number>;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  sendLagP99Ms: number;
}

function readFigures(reads: Reads): ReadFigures {
  return {
    sent: reads.sent,
    ok: reads.ok,
    statusCodes: reads.statusCodes,
    errors: reads.errors,
    p50Ms: round(percentile(reads.latencies, 50), 3),
    p99Ms: round(percentile(reads.latencies, 99), 3),
    maxMs: round(reads.latencies.at(-1) ?? 0, 3),
    sendLagP99Ms: reads.sendLagP99Ms,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Tenant A's flood

interface FloodFigures {
  connections: number;
  seconds: number;
  /** 201s per second of the flood. */
  paymentsPerSecond: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
}

function statusCounts(result: RunResult): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

/** A's payments for its one customer, FLOOD_CONNECTIONS at a time, for `seconds`; 503s are counted, not failures. */
async function flood(
  base: string,
  authorization: string,
  customerId: number,
  refPrefix: string,
  ledger: Ledger,
  seconds: number,
): Promise<FloodFigures> {
  const spec = paymentLoad(
    'tenant A floods one customer',
    base,
    authorization,
    [customerId],
    refPrefix,
    ledger,
  );
  const { result } = await fire(spec, {
    seconds,
    connections: FLOOD_CONNECTIONS,
    phase: refPrefix,
    tolerateFailures: true,
  });
  const statusCodes = statusCounts(result);
  return {
    connections: FLOOD_CONNECTIONS,
    seconds,
    paymentsPerSecond: round((statusCodes['201'] ?? 0) / seconds, 1),
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

interface DialectResult {
  quiet: ReadFigures;
  flooded: ReadFigures;
  /** B's p99 during the flood over its quiet p99. */
  p99Ratio: number;
  met: boolean;
  warmup: FloodFigures;
  flood: FloodFigures;
  checks: Check[];
  failures: string[];
}

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  // One key for the server and the second account's creation, which must seal with the same key.
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  return withService(
    setup,
    tempDir,
    'Tenant A',
    async (service) => {
      const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, service.dataDir));
      try {
        return await benchService(setup, service, storage.db, encryptionKey);
      } finally {
        await storage.close().catch(() => {});
      }
    },
    { ENCRYPTION_KEY: encryptionKey },
  );
}

async function benchService(
  setup: DialectSetup,
  service: Service,
  db: Db,
  encryptionKey: string,
): Promise<DialectResult> {
  const { dialect } = setup;
  const { base, authorization, credentials } = service;
  log(`${dialect}: creating tenant B`);
  const tenantB = await createAccount(
    { ...serviceEnv(setup.databaseUrl, service.dataDir, 0), ENCRYPTION_KEY: encryptionKey },
    'Tenant B',
  );
  const authorizationB = basicAuth(tenantB);
  const [readCustomerId] = await createCustomers(base, authorizationB, 1);
  const [floodCustomerId] = await createCustomers(base, authorization, 1);
  // The one customer's invoices are large (the payments benchmark's one customer): they never run out.
  await seedInvoices(await seedingContext(db, credentials.accountID), [floodCustomerId!], floodCustomerId!);

  const ledger = newLedger();
  log(`${dialect}: warming up ${WARMUP_SECONDS} s (A's flood and B's reads together, not counted)`);
  const [warmup] = await Promise.all([
    flood(base, authorization, floodCustomerId!, 'floodw', ledger, Math.max(1, WARMUP_SECONDS)),
    pacedReads(base, authorizationB, readCustomerId!, Math.max(1, WARMUP_SECONDS)),
  ]);
  await settle(db, credentials.accountID);

  log(`${dialect}: B reads on a quiet server, ${SECONDS} s`);
  const quiet = readFigures(await pacedReads(base, authorizationB, readCustomerId!, SECONDS));

  log(`${dialect}: B reads while A floods one customer with ${FLOOD_CONNECTIONS} connections, ${SECONDS} s`);
  const flooding = flood(base, authorization, floodCustomerId!, 'flood', ledger, SECONDS + 2 * LEAD_SECONDS);
  await sleep(LEAD_SECONDS * 1000);
  const flooded = readFigures(await pacedReads(base, authorizationB, readCustomerId!, SECONDS));
  const floodFigures = await flooding;
  await settle(db, credentials.accountID);

  log(`${dialect}: checking A's payments, allocations and invoices`);
  const { checks } = await checkDatabase(
    db,
    credentials.accountID,
    ledger,
    ['floodw-m', 'flood-m'],
    apiBalanceReader(base, authorization),
    [floodCustomerId!],
    FLOOD_CONNECTIONS,
  );

  const failures: string[] = [];
  for (const [phase, figures] of [
    ['warm-up', warmup],
    ['flood', floodFigures],
  ] as const) {
    const refused = Object.entries(figures.statusCodes).filter(([code]) => code !== '201' && code !== '503');
    if (refused.length > 0 || figures.errors + figures.timeouts > 0)
      failures.push(
        `A's ${phase}: ${JSON.stringify(figures.statusCodes)}, ${figures.errors} errors, ${figures.timeouts} timeouts`,
      );
  }
  for (const [phase, reads] of [
    ['quiet', quiet],
    ['flood', flooded],
  ] as const) {
    if (reads.ok !== reads.sent)
      failures.push(
        `B's reads (${phase}): ${reads.ok} of ${reads.sent} answered 200; ${JSON.stringify(reads.statusCodes)}, ` +
          `${reads.errors} errors`,
      );
  }
  if (ledger.failureSamples.length > 0)
    log(`A's non-201 answers, e.g.:\n  ${ledger.failureSamples.join('\n  ')}`);
  failures.push(...checks.filter((c) => !c.ok).map((c) => `check failed: ${c.name} — ${c.detail}`));

  const p99Ratio = quiet.p99Ms > 0 ? round(flooded.p99Ms / quiet.p99Ms, 2) : 0;
  return {
    quiet,
    flooded,
    p99Ratio,
    met: p99Ratio > 0 && p99Ratio <= TARGET_RATIO,
    warmup,
    flood: floodFigures,
    checks,
    failures,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printResult(dialect: Dialect, result: DialectResult): void {
  const name = dialectName(dialect);
  const title =
    `${name}: B reads every ${READ_INTERVAL_MS} ms for ${SECONDS} s, quiet then while A floods one customer ` +
    `with ${FLOOD_CONNECTIONS} connections`;
  const row = (label: string, r: ReadFigures) => [
    label,
    String(r.ok),
    r.p50Ms.toFixed(2),
    r.p99Ms.toFixed(2),
    r.maxMs.toFixed(2),
    r.sendLagP99Ms.toFixed(2),
  ];
  console.log(
    formatTable(
      title,
      ['B: GET /v1/customers/{id}', 'answered', 'p50 ms', 'p99 ms', 'max ms', 'send lag p99 ms'],
      [row('quiet (floor)', result.quiet), row('during the flood', result.flooded)],
    ),
  );
  console.log(
    `B's p99 during the flood: ${result.p99Ratio}× its quiet p99 (target ≤ ${TARGET_RATIO}×): ` +
      `${result.met ? 'met' : 'NOT MET'}`,
  );
  const f = result.flood;
  console.log(
    `A: ${f.paymentsPerSecond} payments/s over ${f.seconds} s; answers ${JSON.stringify(f.statusCodes)}, ` +
      `${f.errors} errors, ${f.timeouts} timeouts`,
  );
  printChecks(name, result.checks, result.failures);
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-fairness-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
    print: printResult,
  });
  const failed = Object.values(results).some((r) => r.failures.length > 0);
  const missed = Object.values(results).some((r) => !r.met);
  console.log(
    failed
      ? 'FAILED: a failed answer or check above'
      : 'A answered 201 or 503 only; B answered 200 only; all checks passed',
  );
  printJsonLine('billing-fairness', {
    loadAverage: loadAverage(),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    floodConnections: FLOOD_CONNECTIONS,
    readIntervalMs: READ_INTERVAL_MS,
    targetRatio: TARGET_RATIO,
    results,
  });
  if (failed) return 1;
  return STRICT && missed ? 1 : 0;
}

// Stop by itself: a run longer than its planned length plus generous slack is aborted.
const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (3 * (SECONDS + WARMUP_SECONDS) + 300) * 1000;
await runBenchmark(main, budgetMs);
