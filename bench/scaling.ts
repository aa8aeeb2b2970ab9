/**
 * Scaling benchmark (bench/README.md, "Scaling"): the same loads against `billing serve` run as 1 process and as 2
 * (`WORKERS=2`: a primary and two workers on one port, src/cluster.ts), on one database, with autocannon in this
 * process. The load generator shares the machine's cores with the server's processes (and PostgreSQL): on a 2-core
 * machine two processes cannot double anything, and the figures say how much of the second core they win.
 *
 *   npm run bench:scaling                                   SQLite only (a fresh temporary file)
 *   TEST_DATABASE_URL=postgres://... npm run bench:scaling  SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Loads, each against its floor (GET /healthz) measured with the same process count: an authenticated
 * GET /v1/customers/{id} over the customers in turn (each answer checked to be the customer asked for), and
 * POST /v1/payments with AutoApply over the customers in turn (the payments benchmark's load and checks: one payment
 * per 201, allocations adding up, balances as the API shows them). BENCH_ROUNDS repeats 1 then 2 processes; each
 * figure is the median of its rounds.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import type { BillRunSummary } from '../src/billing/billRun.ts';
import { parseDatabaseUrl } from '../src/config.ts';
import { openStorage } from '../src/storage/database.ts';
import { verify } from './billRun/checks.ts';
import { AS_OF, seed } from './billRun/population.ts';
import {
  BenchError,
  PG_URL,
  active,
  createSchemas,
  forEachDialect,
  formatTable,
  log,
  median,
  printJsonLine,
  round,
  runBenchmark,
  setting,
  sleep,
} from './common.ts';
import type { Dialect } from './common.ts';
import {
  CLI,
  CONNECTIONS,
  HOST,
  ROOT,
  SECONDS,
  WARMUP_SECONDS,
  basicAuth,
  createAccount,
  freePort,
  httpFigures,
  postgresSetup,
  processCpuSeconds,
  serviceEnv,
  sqliteSetup,
  startServer,
  stopServer,
  waitForHealth,
  warmUpAndMeasure,
} from './harness.ts';
import type { DialectSetup, HttpFigures, LoadSpec, Service } from './harness.ts';
import { apiBalanceReader, balanceSample, checkDatabase, printChecks, settle } from './payments/checks.ts';
import { newLedger, paymentLoad, tagPaymentPhase } from './payments/loads.ts';
import type { Ledger } from './payments/loads.ts';
import { seedPopulation } from './payments/population.ts';
import type { Check } from './payments/settings.ts';

const PROCESS_COUNTS = [1, 2] as const;
type Processes = (typeof PROCESS_COUNTS)[number];
const ROUNDS = Math.round(setting('BENCH_ROUNDS', 1, 1, 5));
/** Subscriptions due in the shared bill run; 0 leaves it out. */
const BILL_RUN_SUBSCRIPTIONS = Math.round(setting('BENCH_BILLRUN_SUBSCRIPTIONS', 5000, 0, 200_000));

type LoadKey = 'floor' | 'getCustomer' | 'payments';
const LOAD_KEYS: LoadKey[] = ['floor', 'getCustomer', 'payments'];

interface Figures extends HttpFigures {
  /** CPU of every server process (the primary and its workers) per request, in ms. */
  serverCpuMsPerRequest: number | null;
}

interface DialectResult {
  /** By process count, by load: the median of the rounds. */
  byProcesses: Record<`${Processes}`, Record<LoadKey, Figures>>;
  /** Requests per second with 2 processes over 1, by load. */
  twoOverOne: Record<LoadKey, number>;
  checks: Check[];
  /** Answers of GET /v1/customers/{id} that were not the customer asked for. */
  wrongCustomers: number;
  /** The bill run by 1, then 2 `billing run` processes at once over the same due population (fresh each). */
  billRun?: BillRunFigures;
  failed: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// The server's processes

/** The pids of `pid`'s children (Linux: /proc/PID/task/PID/children); none elsewhere. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds the server has used: the process, and its workers when it is a cluster's primary. */
function serverCpuSeconds(pid: number): number | undefined {
  let total = 0;
  for (const each of [pid, ...childPids(pid)]) {
    const seconds = processCpuSeconds(each);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

/**
 * Waits until the primary `pid` has `workers` children (it forks the others once the first listens) and each has
 * finished starting: its CPU time stands still for half a second. A worker still loading gets no connection yet, and
 * would take CPU from the one measured.
 */
async function waitForWorkers(pid: number, workers: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  const timedOut = () => {
    if (performance.now() > deadline)
      throw new BenchError(`the server did not start ${workers} workers in 60 s`);
  };
  while (childPids(pid).length < workers) {
    timedOut();
    await sleep(100);
  }
  for (;;) {
    timedOut();
    const children = childPids(pid);
    const before = children.map((child) => processCpuSeconds(child) ?? 0);
    await sleep(500);
    const busy = children.some((child, i) => (processCpuSeconds(child) ?? 0) - before[i]! > 0.02);
    if (!busy) return;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Loads

/** GET /v1/customers/{id} over `customerIds` in turn; an answer for another customer is counted in `wrong`. */
function customerLoad(
  base: string,
  authorization: string,
  customerIds: readonly number[],
  wrong: { count: number },
) {
  let sequence = 0;
  const request: autocannon.Request = {
    setupRequest: (req, context) => {
      const id = customerIds[sequence++ % customerIds.length]!;
      (context as { id?: number }).id = id;
      return { ...req, path: `/v1/customers/${id}` };
    },
    onResponse: (status, body, context) => {
      if (status !== 200) return;
      const id = (context as { id?: number }).id;
      try {
        if ((JSON.parse(body) as { customerID?: unknown }).customerID !== id) wrong.count += 1;
      } catch {
        wrong.count += 1;
      }
    },
  };
  return {
    label: 'GET /v1/customers/{id}',
    options: {
      url: `${base}/v1/customers/${customerIds[0]!}`,
      headers: { authorization },
      requests: [request],
    },
  } satisfies LoadSpec;
}

async function measureLoads(
  specs: Record<LoadKey, LoadSpec>,
  serverPid: number,
): Promise<Record<LoadKey, Figures>> {
  const measured = new Map<LoadKey, { run: Awaited<ReturnType<typeof warmUpAndMeasure>>; cpu?: number }>();
  for (const key of LOAD_KEYS) {
    let cpuBefore: number | undefined;
    const run = await warmUpAndMeasure(specs[key], {
      onPhase: (phase) => {
        tagPaymentPhase(phase);
        if (phase === 'measured') cpuBefore = serverCpuSeconds(serverPid);
      },
    });
    const cpuAfter = serverCpuSeconds(serverPid);
    measured.set(key, {
      run,
      cpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore,
    });
  }
  const floorRps = measured.get('floor')!.run.measured.result.requests.mean;
  const figures = {} as Record<LoadKey, Figures>;
  for (const key of LOAD_KEYS) {
    const { run, cpu } = measured.get(key)!;
    const total = run.measured.result.requests.total;
    figures[key] = {
      ...httpFigures(specs[key].label, run.measured, floorRps, {}),
      serverCpuMsPerRequest: cpu === undefined || total === 0 ? null : round((cpu * 1000) / total, 3),
    };
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// The bill run shared by processes

interface BillRunFigures {
  subscriptions: number;
  /** Invoices a second, from the processes' start to the last one's exit (their start-up included). */
  invoicesPerSecond: Record<`${Processes}`, number>;
  /** The invoices each process made, with 2. */
  invoicesByProcess: number[];
  /** The subscriptions the 2 processes' summaries counted, added up (see sharedBillRun). */
  subscriptionsVisitedByTwo: number;
  twoOverOne: number;
}

const execFileAsync = promisify(execFile);

/** `billing run --as-of AS_OF --json` for the account: its summary. */
async function billingRun(env: NodeJS.ProcessEnv, accountId: number): Promise<BillRunSummary> {
  const args = [CLI, 'run', '--as-of', AS_OF, '--account', String(accountId), '--json'];
  try {
    const { stdout } = await execFileAsync(process.execPath, args, { cwd: ROOT, env, maxBuffer: 1 << 24 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as BillRunSummary;
  } catch (error) {
    const failure = error as Error & { stdout?: string; stderr?: string };
    throw new BenchError(`billing run failed: ${failure.message}\n${failure.stderr ?? ''}`);
  }
}

/**
 * One fresh database per process count, seeded as the bill-run benchmark seeds (bench/billRun/population.ts), then
 * billed by that many `billing run` processes started together; each database checked as that benchmark checks
 * (bench/billRun/checks.ts: every subscription billed once, invoice numbers 1..n without a gap or a repeat, lines,
 * taxes, e-mails) against the processes' summaries added up.
 */
async function sharedBillRun(setup: DialectSetup, tempDir: string, dataDir: string): Promise<BillRunFigures> {
  const invoicesPerSecond = {} as Record<`${Processes}`, number>;
  let invoicesByProcess: number[] = [];
  let subscriptionsVisited = 0;
  for (const processes of PROCESS_COUNTS) {
    let databaseUrl: string;
    let drop = async () => {};
    if (setup.dialect === 'sqlite') {
      databaseUrl = `sqlite:${path.join(tempDir, `billrun-${processes}.sqlite`)}`;
    } else {
      const schema = `bench_${Math.random().toString(16).slice(2, 10)}_billrun${processes}`;
      const created = await createSchemas(PG_URL!, [schema]);
      databaseUrl = created.urls[0]!;
      drop = created.drop;
    }
    const storage = openStorage(parseDatabaseUrl(databaseUrl, dataDir));
    try {
      log(
        `${setup.dialect}: seeding ${BILL_RUN_SUBSCRIPTIONS} due subscriptions for ${processes} process(es)`,
      );
      const seeded = await seed(storage.db, BILL_RUN_SUBSCRIPTIONS, 10);
      const env = { ...serviceEnv(databaseUrl, dataDir, 0), LOG_LEVEL: 'error' };
      log(`${setup.dialect}: ${processes} \`billing run\` process(es) at once`);
      const started = performance.now();
      const summaries = await Promise.all(
        Array.from({ length: processes }, () => billingRun(env, seeded.accountId)),
      );
      const seconds = (performance.now() - started) / 1000;
      const total = summaries.reduce(
        (sum, s) =>
          Object.fromEntries(
            Object.entries(sum).map(([k, v]) => [
              k,
              (v as number) + (s[k as keyof BillRunSummary] as number),
            ]),
          ) as unknown as BillRunSummary,
      );
      // NOTE: a summary's `subscriptions` counts those its stretches went through, and two processes at once may
      // both go through one (on SQLite 10 250 for 10 000): it is reported, and the check counts in the database
      // instead (every subscription billed: a period recorded for each, none still due).
      if (processes === 2) subscriptionsVisited = total.subscriptions;
      await verify(storage.db, seeded, { ...total, subscriptions: seeded.subscriptions });
      invoicesPerSecond[`${processes}`] = round(total.invoices / seconds, 1);
      if (processes === 2) invoicesByProcess = summaries.map((s) => s.invoices);
    } finally {
      await storage.close().catch(() => {});
      await drop();
    }
  }
  return {
    subscriptions: BILL_RUN_SUBSCRIPTIONS,
    invoicesPerSecond,
    invoicesByProcess,
    subscriptionsVisitedByTwo: subscriptionsVisited,
    twoOverOne: round(invoicesPerSecond['2'] / invoicesPerSecond['1'], 3),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

/** The median figures of the rounds: each number its own median, the route as it is. */
function medianFigures(rounds: Figures[]): Figures {
  const first = rounds[0]!;
  const out = { ...first } as Record<string, unknown>;
  for (const [name, value] of Object.entries(first)) {
    if (typeof value !== 'number') continue;
    out[name] = round(median(rounds.map((r) => (r as unknown as Record<string, number>)[name]!)), 3);
  }
  if (rounds.some((r) => r.serverCpuMsPerRequest === null)) out.serverCpuMsPerRequest = null;
  return out as unknown as Figures;
}

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  const dataDir = path.join(tempDir, `data-${setup.dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const env = serviceEnv(setup.databaseUrl, dataDir, port);
  log(`${setup.dialect}: creating the account`);
  const credentials = await createAccount(env, 'Bench scaling');
  const authorization = basicAuth(credentials);
  const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, dataDir));
  const ledger: Ledger = newLedger();
  const wrong = { count: 0 };
  const rounds: Record<`${Processes}`, Record<LoadKey, Figures>[]> = { '1': [], '2': [] };
  const phases: string[] = [];
  let population: Awaited<ReturnType<typeof seedPopulation>> | undefined;
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const processes of PROCESS_COUNTS) {
        log(`${setup.dialect}: round ${r + 1} of ${ROUNDS}, ${processes} process(es)`);
        const server = startServer({ ...env, WORKERS: String(processes) });
        active.child = server.child;
        try {
          await waitForHealth(base, server);
          const pid = server.child.pid!;
          if (processes > 1) await waitForWorkers(pid, processes);
          const service: Service = { base, dataDir, credentials, authorization, server };
          population ??= await seedPopulation(setup.dialect, service, storage.db);
          const prefix = `p${processes}r${r}`;
          phases.push(`${prefix}-w`, `${prefix}-m`);
          const specs: Record<LoadKey, LoadSpec> = {
            floor: { label: 'GET /healthz (floor)', options: { url: `${base}/healthz` } },
            getCustomer: customerLoad(base, authorization, population.spreadCustomerIds, wrong),
            payments: paymentLoad(
              'POST /v1/payments, AutoApply, customers in turn',
              base,
              authorization,
              population.spreadCustomerIds,
              prefix,
              ledger,
            ),
          };
          rounds[`${processes}`].push(await measureLoads(specs, pid));
          // autocannon leaves requests in flight when it stops: they finish before this server does.
          await settle(storage.db, credentials.accountID);
        } finally {
          await stopServer(server);
          active.child = undefined;
        }
      }
    }
    log(`${setup.dialect}: checking the payments, allocations and invoices`);
    const balanceServer = startServer({ ...env, WORKERS: '1' });
    active.child = balanceServer.child;
    let checks: Check[];
    try {
      await waitForHealth(base, balanceServer);
      ({ checks } = await checkDatabase(
        storage.db,
        credentials.accountID,
        ledger,
        phases,
        apiBalanceReader(base, authorization),
        balanceSample(population!.hotCustomerId, population!.spreadCustomerIds),
      ));
    } finally {
      await stopServer(balanceServer);
      active.child = undefined;
    }
    checks.push({
      name: 'every GET /v1/customers/{id} answered the customer asked for',
      ok: wrong.count === 0,
      detail: wrong.count === 0 ? '' : `${wrong.count} answers for another customer`,
    });
    const byProcesses = {
      '1': Object.fromEntries(LOAD_KEYS.map((k) => [k, medianFigures(rounds['1'].map((f) => f[k]))])),
      '2': Object.fromEntries(LOAD_KEYS.map((k) => [k, medianFigures(rounds['2'].map((f) => f[k]))])),
    } as DialectResult['byProcesses'];
    const twoOverOne = Object.fromEntries(
      LOAD_KEYS.map((k) => {
        const one = byProcesses['1'][k].requestsPerSecond;
        return [k, one > 0 ? round(byProcesses['2'][k].requestsPerSecond / one, 3) : 0];
      }),
    ) as Record<LoadKey, number>;
    const httpFailures = PROCESS_COUNTS.some((p) =>
      LOAD_KEYS.some((k) => {
        const f = byProcesses[`${p}`][k];
        return f.non2xx + f.errors + f.timeouts > 0;
      }),
    );
    const billRun = BILL_RUN_SUBSCRIPTIONS > 0 ? await sharedBillRun(setup, tempDir, dataDir) : undefined;
    if (billRun) {
      checks.push({
        name: 'the bill run by 1 and by 2 processes: every subscription billed once (bench/billRun/checks.ts)',
        ok: true,
        detail: `${billRun.subscriptions} subscriptions; with 2, ${billRun.invoicesByProcess.join(' + ')} invoices`,
      });
    }
    return {
      byProcesses,
      twoOverOne,
      checks,
      wrongCustomers: wrong.count,
      billRun,
      failed: httpFailures || checks.some((c) => !c.ok),
    };
  } finally {
    await storage.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output and main

function printResult(dialect: Dialect, result: DialectResult): void {
  const header = ['route', 'processes', 'req/s', 'p50 ms', 'p99 ms', 'vs floor', 'CPU ms/req', '2 / 1'];
  const rows = LOAD_KEYS.flatMap((key) =>
    PROCESS_COUNTS.map((p) => {
      const f = result.byProcesses[`${p}`][key];
      return [
        f.route,
        String(p),
        f.requestsPerSecond.toFixed(1),
        f.latencyP50Ms.toFixed(2),
        f.latencyP99Ms.toFixed(2),
        `${(f.vsFloor * 100).toFixed(1)}%`,
        f.serverCpuMsPerRequest === null ? 'n/a' : f.serverCpuMsPerRequest.toFixed(3),
        p === 2 ? result.twoOverOne[key].toFixed(2) : '',
      ];
    }),
  );
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  console.log(
    formatTable(
      `${name}: ${SECONDS} s per load after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections, ` +
        `median of ${ROUNDS} round(s); the load generator shares the ${os.cpus().length} cores`,
      header,
      rows,
    ),
  );
  if (result.billRun) {
    const b = result.billRun;
    console.log(
      `Bill run of ${b.subscriptions} subscriptions (start-up included): 1 process ${b.invoicesPerSecond['1']} ` +
        `invoices/s, 2 processes ${b.invoicesPerSecond['2']} invoices/s (${b.invoicesByProcess.join(' + ')}); ` +
        `2 / 1 = ${b.twoOverOne.toFixed(2)}`,
    );
  }
  printChecks(name, result.checks);
}

async function main(): Promise<number> {
  const loadBefore = os.loadavg().map((l) => round(l, 2));
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-scaling-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
    print: printResult,
  });
  const failed = Object.values(results).some((r) => r.failed);
  console.log(
    failed
      ? 'FAILED: non-2xx responses, connection errors or a failed check above'
      : 'All responses 2xx; all checks passed',
  );
  printJsonLine('billing-scaling', {
    loadAverageBefore: loadBefore,
    loadAverageAfter: os.loadavg().map((l) => round(l, 2)),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    processCounts: PROCESS_COUNTS,
    results,
  });
  return failed ? 1 : 0;
}

const dialectCount = PG_URL ? 2 : 1;
const budgetMs =
  dialectCount *
  (ROUNDS * 2 * 3 * (SECONDS + WARMUP_SECONDS + 10) + 900 + BILL_RUN_SUBSCRIPTIONS * 0.1) *
  1000;
await runBenchmark(main, budgetMs);
