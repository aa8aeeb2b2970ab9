/**
 * No-freeze benchmark: while one account's long job runs in the server (a bill run of many subscriptions, a
 * test-clock advance over a month of renewals, a 500-line debit-order batch build, four PDFs of a 1 000-line invoice
 * asked for at once, a customer asking for that invoice's PDF in a loop through its pay link while the other account
 * also fetches a small invoice's PDF: bench/noFreeze/pdfFlood.ts), another account's
 * `GET /v1/customers/{id}` is sent at a steady rate, open loop, and its latency measured from each request's
 * scheduled send time; the same load on the quiet server is the floor. Target: p99 under 100 ms during each job.
 *
 *   npm run bench:nofreeze                                   SQLite only
 *   TEST_DATABASE_URL=postgres://... npm run bench:nofreeze  SQLite, then PostgreSQL, for comparison
 *
 * Settings (environment): BENCH_SUBSCRIPTIONS (default 20000), BENCH_RATE (GETs a second, default 100),
 * BENCH_QUIET_SECONDS (default 3), BENCH_BATCH_LINES (default 500), BENCH_PDF_LINES (default 1000), BENCH_PDFS
 * (default 4), BENCH_PDF_FLOOD_SECONDS (default 10), BENCH_PDF_FLOOD_PARALLEL (default 8), BENCH_SMALL_PDF_RATE
 * (default 5), BENCH_SERVER_CLI, BENCH_BUDGET_SECONDS. See bench/README.md.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { billingContext } from '../src/billing/billRun.ts';
import type { BillRunSummary, BillingDeps } from '../src/billing/billRun.ts';
import { fixedClock, systemClock } from '../src/clock.ts';
import { createAccount, createApiKey, getAccount } from '../src/modules/auth/index.ts';
import { createCustomer } from '../src/modules/customers/index.ts';
import { createSecretBox } from '../src/security/secretBox.ts';
import { openStorage } from '../src/storage/database.ts';
import type { Db } from '../src/storage/database.ts';
import { seed as seedBatches, ACTION_DATE } from './batches/population.ts';
import { BUILD_AT } from './batches/shared.ts';
import { verify as verifyBillRun } from './billRun/checks.ts';
import { AS_OF, seed as seedSubscriptions } from './billRun/population.ts';
import { loose } from './billRun/rows.ts';
import {
  BenchError,
  active,
  cpuProfileFlags,
  forEachDialect,
  freshDatabases,
  log,
  printJsonLine,
  printResultsTable,
  round,
  runBenchmark,
  setting,
  settlesWithin,
  sleep,
} from './common.ts';
import type { Dialect } from './common.ts';
import { CLI, HOST, ROOT, basicAuth, freePort, serviceEnv, waitForHealth } from './harness.ts';
import type { ServerProcess } from './harness.ts';
import { PDF_FLOOD_PARALLEL, PDF_FLOOD_SECONDS, SMALL_PDF_RATE, pdfFloodJob } from './noFreeze/pdfFlood.ts';
import { steadyGets } from './noFreeze/steadyGets.ts';
import type { Latencies } from './noFreeze/steadyGets.ts';
import { modulePorts } from '../src/modulePorts.ts';

const SUBSCRIPTIONS = Math.round(setting('BENCH_SUBSCRIPTIONS', 20_000, 40, 100_000));
const RATE = setting('BENCH_RATE', 100, 1, 1000);
const QUIET_SECONDS = setting('BENCH_QUIET_SECONDS', 3, 1, 600);
const BATCH_LINES = Math.round(setting('BENCH_BATCH_LINES', 500, 1, 500));
const BUDGET_SECONDS = setting('BENCH_BUDGET_SECONDS', 1800, 10, 86_400);
const PDF_LINES = Math.round(setting('BENCH_PDF_LINES', 1000, 1, 1000));
const PDFS = Math.round(setting('BENCH_PDFS', 4, 1, 64));
/** The `billing` command the server runs: this checkout's, or another's to compare with (BENCH_SERVER_CLI). */
const SERVER_CLI = process.env.BENCH_SERVER_CLI || CLI;

/** The target: another account's GET p99 during each job. */
const TARGET_P99_MS = 100;
/** The bill run's account is a test account whose clock stands the day before its subscriptions are due. */
const BEFORE_DUE = '2026-02-28T09:00:00.000Z';
const DUE_AT = `${AS_OF}T09:00:00.000Z`;
/** The test-clock advance: from the bill run's day to a month later (trials end on Mar 15, terms renew Apr 1). */
const ADVANCE_TO = '2026-04-01T09:00:00.000Z';

// ---------------------------------------------------------------------------------------------------------------
// The server, its log lines read for the jobs' ends

interface Server extends ServerProcess {
  /** The next log line whose `msg` is `message` (from now on), parsed. */
  nextLogLine(
    message: string,
    accept?: (line: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>;
}

function startServer(env: NodeJS.ProcessEnv): Server {
  const child = spawn(process.execPath, [...cpuProfileFlags(), SERVER_CLI, 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  active.child = child;
  let output = '';
  let pending = '';
  const waiters: {
    message: string;
    accept: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  const onLine = (text: string) => {
    if (!text.startsWith('{')) return;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof line.level === 'number' && line.level >= 40) process.stderr.write(`[server] ${text}\n`);
    for (const waiter of [...waiters]) {
      if (line.msg === waiter.message && waiter.accept(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    const lines = text.split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
    output = (output + chunk.toString('utf8')).slice(-20_000);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
    process.stderr.write(`[server] ${chunk.toString('utf8')}`);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    exited,
    output: () => output,
    nextLogLine: (message, accept = () => true) =>
      new Promise((resolve) => waiters.push({ message, accept, resolve })),
  };
}

async function stopServer(server: Server): Promise<number | null> {
  server.child.kill('SIGTERM');
  const stopped = await settlesWithin(server.exited, 30_000);
  if (!stopped) {
    server.child.kill('SIGKILL');
    throw new BenchError('the server did not exit within 30 s of SIGTERM');
  }
  active.child = undefined;
  return server.child.exitCode;
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

interface Job {
  job: string;
  seconds: number;
  /** What the job made: invoices, the batch's lines, PDFs. */
  made: number;
  during: Latencies;
  met: boolean;
  /** The PDF flood's: the customer's requests refused, and the other account's small PDF quiet and during it. */
  refused?: number;
  smallPdfQuiet?: Latencies;
  smallPdf?: Latencies;
}

interface Figures {
  quiet: Latencies;
  jobs: Job[];
  serverExitCode: number | null;
  seedSeconds: number;
}

interface Population {
  billed: Awaited<ReturnType<typeof seedSubscriptions>>;
  billedKey: string;
  reader: { accountID: number; apiKey: string; customerId: number };
  /** The account whose PDFs are asked for, with a customer to invoice. */
  documents: { accountID: number; apiKey: string; customerId: number };
  batch: { accountID: number; apiKey: string; token: string; id: number; totalMinor: number };
  encryptionKey: string;
}

const makeTest = (db: Db, accountId: number, at: string) =>
  db.updateTable('accounts').set({ is_test: true, test_clock_at: at }).where('id', '=', accountId).execute();

async function populate(databaseUrl: string, dataDir: string): Promise<Population> {
  const target = databaseUrl.startsWith('sqlite:')
    ? ({ dialect: 'sqlite', file: databaseUrl.slice('sqlite:'.length) } as const)
    : ({ dialect: 'postgres', url: databaseUrl } as const);
  const storage = openStorage(target);
  try {
    log(`seeding ${SUBSCRIPTIONS} subscriptions due on ${AS_OF}`);
    const billed = await seedSubscriptions(storage.db, SUBSCRIPTIONS, 10);
    const deps: BillingDeps = {
      ports: modulePorts(),
      db: storage.db,
      clock: fixedClock(BEFORE_DUE),
      wallClock: systemClock,
      log: pino({ level: 'warn' }, pino.destination(2)),
      secrets: createSecretBox(crypto.randomBytes(32)),
      mailQueued: () => {},
    };
    // The billed account becomes a test account standing before its due day: the server's billing worker bills it
    // once its clock is moved (the job's start), and the test-clock advance moves it further.
    await makeTest(storage.db, billed.accountId, BEFORE_DUE);
    const billedAccount = await getAccount(storage.db, billed.accountId);
    const billedKey = await createApiKey(billingContext(deps, billedAccount, BEFORE_DUE));
    const { account, apiKey } = await createAccount(
      storage.db,
      deps,
      { name: 'Bench reader' },
      { testGatewayOnLiveAccounts: true },
    );
    const customer = await createCustomer(billingContext(deps, account, BEFORE_DUE), {
      name: 'Reader',
      email: 'reader@example.com',
    });
    const documents = await createAccount(
      storage.db,
      deps,
      { name: 'Bench documents' },
      { testGatewayOnLiveAccounts: true },
    );
    const invoiced = await createCustomer(billingContext(deps, documents.account, BEFORE_DUE), {
      name: 'Invoiced',
      email: 'invoiced@example.com',
    });
    log(`seeding a ${BATCH_LINES}-line debit-order batch`);
    const batches = await seedBatches(target, dataDir, BATCH_LINES, 1);
    await batches.service.close();
    await makeTest(storage.db, batches.accountId, BUILD_AT);
    const batch = batches.batches[0]!;
    return {
      billed,
      billedKey: billedKey.apiKey,
      reader: { accountID: account.id, apiKey, customerId: customer.id },
      documents: { accountID: documents.account.id, apiKey: documents.apiKey, customerId: invoiced.id },
      batch: {
        accountID: batches.accountId,
        apiKey: batches.apiKey,
        token: batch.token,
        id: batch.id,
        totalMinor: batch.totalMinor,
      },
      encryptionKey: batches.encryptionKey,
    };
  } finally {
    await storage.close();
  }
}

/**
 * Moves a test account's clock as the job's trigger. NOTE: on SQLite from a process of its own: this one's
 * better-sqlite3 would wait for the server's write lock synchronously, and hold back the GETs it measures.
 */
async function moveTestClock(databaseUrl: string, accountId: number, at: string): Promise<void> {
  if (!databaseUrl.startsWith('sqlite:')) {
    const storage = openStorage({ dialect: 'postgres', url: databaseUrl });
    try {
      await makeTest(storage.db, accountId, at);
    } finally {
      await storage.close();
    }
    return;
  }
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.pragma('busy_timeout = 60000');
    db.prepare('update accounts set test_clock_at = ? where id = ?').run(process.argv[2], Number(process.argv[3]));`;
  const child = spawn(
    process.execPath,
    ['-e', script, databaseUrl.slice('sqlite:'.length), at, String(accountId)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new BenchError(`moving the test clock failed (exit status ${String(code)})`);
}

const summaryOf = (line: Record<string, unknown>) => line as unknown as BillRunSummary;

/**
 * One JSON request, waited for up to BUDGET_SECONDS. NOTE: through node:http, not fetch: fetch (undici) gives up on
 * an answer whose headers take over 300 s, and a test-clock advance over 20,000 subscriptions on PostgreSQL may.
 */
function request(
  base: string,
  authorization: string,
  method: 'POST' | 'PUT',
  url: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const sent = http.request(
      `${base}${url}`,
      {
        method,
        headers: { authorization, 'content-type': 'application/json' },
        timeout: BUDGET_SECONDS * 1000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          });
        });
      },
    );
    sent.on('timeout', () =>
      sent.destroy(new BenchError(`${method} ${url}: no answer in ${BUDGET_SECONDS} s`)),
    );
    sent.on('error', reject);
    sent.end(JSON.stringify(body));
  });
}

/** Runs `job` while the reader's GETs go on; its duration, what it made, and the GETs' latencies meanwhile. */
async function during(
  name: string,
  getUrl: string,
  authorization: string,
  /** Runs the job to its end; resolves with its check (run once the GETs have stopped), which counts what it made. */
  job: () => Promise<() => Promise<number>>,
): Promise<Job> {
  log(`${name}: running, with GETs at ${RATE}/s`);
  const gets = await steadyGets(getUrl, authorization, RATE);
  const started = performance.now();
  const outcome = await job().then(
    (check) => ({ check }),
    (error: unknown) => ({ error }),
  );
  const seconds = round((performance.now() - started) / 1000, 2);
  const latencies = await gets.stop();
  if ('error' in outcome) throw outcome.error;
  // NOTE: checked after the GETs, in this process: better-sqlite3's reads are synchronous and would delay them.
  const made = await outcome.check();
  log(
    `${name}: ${seconds} s; GET p50 ${latencies.p50Ms} ms, p99 ${latencies.p99Ms} ms, max ${latencies.maxMs} ms`,
  );
  return {
    job: name,
    seconds,
    made,
    during: latencies,
    met: latencies.p99Ms < TARGET_P99_MS && latencies.failures === 0,
  };
}

/**
 * One account asks for PDFS PDFs of one PDF_LINES-line invoice at once (made through the API first, before the GETs
 * start): each must be answered 200 with a PDF.
 */
async function pdfJob(
  base: string,
  getUrl: string,
  readerAuth: string,
  documents: Population['documents'],
): Promise<Job> {
  const auth = basicAuth(documents);
  const created = await request(base, auth, 'POST', '/v1/invoices', {
    customerID: documents.customerId,
    Charges: Array.from({ length: PDF_LINES }, (_, i) => ({
      Descrip: `Line ${i + 1}`,
      Qty: 1,
      UnitCostEx: 1,
    })),
  });
  if (created.status !== 201)
    throw new BenchError(`the invoice answered ${created.status}: ${JSON.stringify(created.body)}`);
  const url = `${base}/v1/invoices/${String(created.body.invoiceID)}/pdf`;
  return during(`${PDFS} PDFs of ${PDF_LINES} lines`, getUrl, readerAuth, async () => {
    const answers = await Promise.all(
      Array.from({ length: PDFS }, async () => {
        const response = await fetch(url, {
          headers: { authorization: auth },
          signal: AbortSignal.timeout(BUDGET_SECONDS * 1000),
        });
        return { status: response.status, body: Buffer.from(await response.arrayBuffer()) };
      }),
    );
    for (const answer of answers) {
      if (answer.status !== 200 || answer.body.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new BenchError(
          `a PDF answered ${answer.status}: ${answer.body.subarray(0, 200).toString('utf8')}`,
        );
    }
    return async () => answers.length;
  });
}

/** A customer's loop of a long invoice's PDFs through its pay link, beside the other account's reads and small PDF. */
async function pdfFlood(base: string, getUrl: string, population: Population, dataDir: string): Promise<Job> {
  const figures = await pdfFloodJob({
    base,
    getUrl,
    getRate: RATE,
    quietSeconds: QUIET_SECONDS,
    lines: PDF_LINES,
    reader: population.reader,
    documents: population.documents,
    encryptionKey: population.encryptionKey,
    dataDir,
  });
  return {
    job: `a customer's PDFs of ${PDF_LINES} lines in a loop`,
    seconds: figures.seconds,
    made: figures.flood.drawn,
    during: figures.gets,
    met: figures.gets.p99Ms < TARGET_P99_MS && figures.gets.failures === 0 && figures.smallPdf.failures === 0,
    refused: figures.flood.refused,
    smallPdfQuiet: figures.smallPdfQuiet,
    smallPdf: figures.smallPdf,
  };
}

async function benchDialect(dialect: Dialect, databaseUrl: string, tempDir: string): Promise<Figures> {
  const dataDir = path.join(tempDir, `data-${dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const seedStarted = performance.now();
  const population = await populate(databaseUrl, dataDir);
  const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const server = startServer({
    ...serviceEnv(databaseUrl, dataDir, port),
    ENCRYPTION_KEY: population.encryptionKey,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    BILLING_INTERVAL_MS: '200',
  });
  const target = databaseUrl.startsWith('sqlite:')
    ? ({ dialect: 'sqlite', file: databaseUrl.slice('sqlite:'.length) } as const)
    : ({ dialect: 'postgres', url: databaseUrl } as const);
  const storage = openStorage(target);
  try {
    await waitForHealth(base, server);
    const readerAuth = basicAuth(population.reader);
    const getUrl = `${base}/v1/customers/${population.reader.customerId}`;
    const jobs: Job[] = [];
    const { billed } = population;

    jobs.push(
      await during('bill run', getUrl, readerAuth, async () => {
        const ran = server.nextLogLine('bill run', (line) => Number(line.invoices) > 0);
        // The account's clock reaches the due day: the worker's next round bills every subscription.
        await moveTestClock(databaseUrl, billed.accountId, DUE_AT);
        const summary = summaryOf(await ran);
        return async () => {
          await verifyBillRun(storage.db, billed, { ...summary, accounts: 0 });
          return summary.invoices;
        };
      }),
    );

    jobs.push(
      await during('test-clock advance', getUrl, readerAuth, async () => {
        const billedAuth = basicAuth({ accountID: billed.accountId, apiKey: population.billedKey });
        const answer = await request(base, billedAuth, 'POST', '/v1/test-clock/advance', { To: ADVANCE_TO });
        if (answer.status !== 200)
          throw new BenchError(`the advance answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        const made = (answer.body.Billed as Record<string, number>).invoices!;
        // Every subscription renews once in the month: the trials on Mar 15, the monthly terms on Apr 1.
        if (made !== billed.subscriptions)
          throw new BenchError(`the advance made ${made} invoices, not ${billed.subscriptions}`);
        return async () => {
          const due = await loose(storage.db)
            .selectFrom('subscriptions')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', billed.accountId)
            .where('next_inv_date', '<=', ADVANCE_TO.slice(0, 10))
            .executeTakeFirstOrThrow();
          if (Number((due as { n: unknown }).n) !== 0)
            throw new BenchError(
              `${String((due as { n: unknown }).n)} subscriptions still due after the advance`,
            );
          return made;
        };
      }),
    );

    jobs.push(
      await during('batch build', getUrl, readerAuth, async () => {
        const { batch } = population;
        const built = server.nextLogLine(
          'batch run',
          (line) => (line.batches as { built?: number } | undefined)?.built === 1,
        );
        const submitted = await request(base, basicAuth(batch), 'PUT', '/v1/batches/submit', {
          BatchToken: batch.token,
          ActionDate: ACTION_DATE,
        });
        if (submitted.status !== 204)
          throw new BenchError(`the submit answered ${submitted.status}: ${JSON.stringify(submitted.body)}`);
        await built;
        return async () => {
          const row = await storage.db
            .selectFrom('batches')
            .select(['state', 'provider_ref'])
            .where('id', '=', batch.id)
            .executeTakeFirstOrThrow();
          const lines = (await loose(storage.db)
            .selectFrom('batch_lines')
            .innerJoin('payments', 'payments.id', 'batch_lines.payment_id')
            .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('payments.amount_minor').as('total')])
            .where('batch_lines.batch_id', '=', batch.id)
            .executeTakeFirstOrThrow()) as { n: unknown; total: unknown };
          if (row.state !== 'submitted' || !row.provider_ref)
            throw new BenchError(`the batch is ${row.state}, not submitted with its file`);
          if (Number(lines.n) !== BATCH_LINES || Number(lines.total) !== batch.totalMinor)
            throw new BenchError(
              `the batch holds ${String(lines.n)} lines of ${String(lines.total)}, not ${BATCH_LINES} of ${batch.totalMinor}`,
            );
          return Number(lines.n);
        };
      }),
    );

    jobs.push(await pdfJob(base, getUrl, readerAuth, population.documents));
    jobs.push(await pdfFlood(base, getUrl, population, dataDir));

    // The floor, once the jobs are done: the worker's rounds find nothing due, the other workers nothing to send.
    await sleep(1000);
    log(`quiet: GETs at ${RATE}/s for ${QUIET_SECONDS} s`);
    const quietGets = await steadyGets(getUrl, readerAuth, RATE);
    await sleep(QUIET_SECONDS * 1000);
    const quiet = await quietGets.stop();
    log(`quiet: GET p50 ${quiet.p50Ms} ms, p99 ${quiet.p99Ms} ms, max ${quiet.maxMs} ms`);
    const serverExitCode = await stopServer(server);
    if (serverExitCode !== 0)
      throw new BenchError(`the server exited with ${String(serverExitCode)} after SIGTERM`);
    for (const job of [quiet, ...jobs.map((j) => j.during)]) {
      if (job.failures > 0) throw new BenchError(`${job.failures} GETs were not answered 200`);
    }
    return { quiet, jobs, serverExitCode, seedSeconds };
  } catch (error) {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    throw error;
  } finally {
    await storage.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------

/** The PDF flood's rows of the other account's small PDF (no target of its own): quiet, then during the flood. */
function smallPdfRows(database: string, job: Job, cells: (l: Latencies) => string[]): string[][] {
  if (!job.smallPdf || !job.smallPdfQuiet) return [];
  return [
    [database, "  the other account's small PDF, quiet", '', '', ...cells(job.smallPdfQuiet), ''],
    [database, "  the other account's small PDF, during", '', '', ...cells(job.smallPdf), ''],
  ];
}

async function main(): Promise<number> {
  const databases = freshDatabases(['service']);
  const results = await forEachDialect({
    tempPrefix: 'bench-nofreeze-',
    sqlite: databases.sqlite,
    postgres: databases.postgres,
    bench: async ({ dialect, targets }, tempDir) => {
      const target = targets.service;
      return benchDialect(
        dialect,
        target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url,
        tempDir,
      );
    },
  });
  const cells = (l: Latencies) => [
    String(l.requests),
    l.p50Ms.toFixed(1),
    l.p99Ms.toFixed(1),
    l.maxMs.toFixed(1),
  ];
  printResultsTable(
    `Another account's GET at ${RATE}/s during each job (target: p99 < ${TARGET_P99_MS} ms); ${SUBSCRIPTIONS} subscriptions`,
    ['database', 'job', 'seconds', 'made', 'GETs', 'p50 ms', 'p99 ms', 'max ms', 'target'],
    results,
    (database, figures) => [
      [database, 'quiet (floor)', '', '', ...cells(figures.quiet), ''],
      ...figures.jobs.flatMap((job) => [
        [
          database,
          job.job,
          job.seconds.toFixed(2),
          job.refused === undefined ? String(job.made) : `${job.made} (${job.refused} refused)`,
          ...cells(job.during),
          job.met ? 'met' : 'NOT MET',
        ],
        ...smallPdfRows(database, job, cells),
      ]),
    ],
  );
  const sqlite = results.sqlite;
  const met = sqlite ? sqlite.jobs.every((job) => job.met) : false;
  printJsonLine('nofreeze', {
    settings: {
      subscriptions: SUBSCRIPTIONS,
      ratePerSecond: RATE,
      quietSeconds: QUIET_SECONDS,
      batchLines: BATCH_LINES,
      pdfLines: PDF_LINES,
      pdfs: PDFS,
      pdfFloodSeconds: PDF_FLOOD_SECONDS,
      pdfFloodParallel: PDF_FLOOD_PARALLEL,
      smallPdfRate: SMALL_PDF_RATE,
    },
    targetP99Ms: TARGET_P99_MS,
    met,
    loadAverage: os.loadavg().map((value) => round(value, 2)),
    ...results,
  });
  return 0;
}

await runBenchmark(main, BUDGET_SECONDS * 1000);
