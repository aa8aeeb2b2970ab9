/**
 * The measured processes of the batch benchmark, each started fresh for one batch (so that its CPU, peak RSS and
 * cold start are its own), loading the same code and readying the same things before any timing: the database
 * opened, the account's context, and the service's Fastify app (not listening: requests are injected).
 *
 * - `build`: the collection run (`runBatches`), which finds the submitted batch, checks its 500 lines and makes its
 *   file (`build` → `submitted`), then the export, `GET /v1/batches/{BatchToken}/file` (the first download, which
 *   records that the file went to the bank); both timed apart, cold (the process's first build and download); then
 *   the same download again, warm. Then, warm, the same for a second batch, which this process submits through
 *   the API first (`PUT /v1/batches/submit`, not timed): what a server that has built batches before spends.
 * - `floor`: the least any export of the batch must do, with no use case: one SELECT of the batch and of its lines
 *   with their payments and bank accounts, the IBANs opened, and `buildPain008` on them; cold, then warm. Then
 *   `buildPain008` alone on the same in-memory input (no database), warm.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { fixedClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import type { ServiceContext } from '../../src/context.ts';
import { buildPain008 } from '../../src/core/bankFiles/sepaDirectDebit.ts';
import type { SepaDirectDebitBatch } from '../../src/core/bankFiles/sepaDirectDebit.ts';
import { dateAt } from '../../src/core/calendar.ts';
import { InFlight } from '../../src/http/inflight.ts';
import { takeIdempotencyLease } from '../../src/http/idempotencyLease.ts';
import { createLogger } from '../../src/logger.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { runBatches } from '../../src/modules/batches/index.ts';
import type { BatchRunSummary } from '../../src/modules/batches/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import type { SecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Db } from '../../src/storage/database.ts';
import { BenchError, active } from '../common.ts';
import { BUILD_AT, CREDITOR } from './shared.ts';

/** What the measured processes run: the benchmark's entry point, which calls `child` when BENCH_BATCHES_CHILD is set. */
const ENTRY = fileURLToPath(new URL('../batches.ts', import.meta.url));
const MB = 1024 * 1024;

export interface ChildInput {
  mode: 'build' | 'floor';
  target: DatabaseTarget;
  accountId: number;
  apiKey: string;
  batchId: number;
  batchToken: string;
  /** `build`: the batch built second (warm), still open: the process submits it with this action date. */
  warmBatch?: { token: string; outFile: string; actionDate: string };
  encryptionKey: string;
  /** Where the process writes the file it got (the export's, or the floor's). */
  outFile: string;
  /** Warm repetitions after the cold one (their median is reported). */
  warmRepeats: number;
}

export interface Timed {
  ms: number;
  cpuMs: number;
}

/** One batch built by `runBatches` and exported by its first download. */
export interface BuiltBatch {
  summary: BatchRunSummary;
  build: Timed;
  export: Timed;
  exportStatus: number;
  exportBytes: number;
  /** The longest the event loop ran no 10 ms timer during the build and the export (a server would not answer). */
  longestStallMs: number;
}

export interface BuildResult extends BuiltBatch {
  mode: 'build';
  /** The same download again, warm: the median of `warmRepeats`, and whether each gave the same file. */
  exportWarmMs: number;
  exportWarmSame: boolean;
  /** VmHWM right after the cold build and export, and at the end (after the warm one). */
  peakRssMb: number;
  endPeakRssMb: number;
  rssBeforeMb: number;
  /** The second batch, built and exported by the same process once warm. */
  warm?: BuiltBatch;
  /**
   * BENCH_STATEMENTS=1 only (the storage's query hook, which the service runs without): the statements the build
   * and the cold export ran, and how many of each SQL text, most frequent first.
   */
  statements?: Record<'build' | 'export', { total: number; bySql: [string, number][] }>;
}

export interface FloorResult {
  mode: 'floor';
  lines: number;
  /** Cold: the whole floor, and its parts. */
  floor: Timed;
  selectMs: number;
  openMs: number;
  fileMs: number;
  /** Warm medians: the whole floor again and its parts, and buildPain008 alone on the in-memory input. */
  floorWarmMs: number;
  selectWarmMs: number;
  openWarmMs: number;
  /** The pain.008 input made from the rows, and the file. */
  fileInputWarmMs: number;
  fileWarmMs: number;
  peakRssMb: number;
  rssBeforeMb: number;
}

export type ChildResult = BuildResult | FloorResult;

/** A request injected into the process's app. */
type Api = (
  method: 'GET' | 'PUT',
  url: string,
  body?: Record<string, unknown>,
) => Promise<{ status: number; body: string }>;

function vmHwmMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Times `work` (wall and CPU of this process). */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; time: Timed }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { value, time: { ms, cpuMs: (cpu.user + cpu.system) / 1000 } };
}

// ---------------------------------------------------------------------------------------------------------------
// The floor

/** The batch and its lines with what the file needs, in one statement (the lines in payment order, as the file). */
function selectLines(db: Db, accountId: number, batchId: number) {
  return db
    .selectFrom('batch_lines')
    .innerJoin('batches', 'batches.id', 'batch_lines.batch_id')
    .innerJoin('payments', 'payments.id', 'batch_lines.payment_id')
    .innerJoin('payment_methods', 'payment_methods.id', 'payments.payment_method_id')
    .select([
      'batches.provider_ref',
      'batches.submitted_at',
      'batches.created_at as batch_created_at',
      'batches.action_date',
      'batches.currency_code',
      'batch_lines.payment_id',
      'payments.amount_minor',
      'payments.payment_method_id',
      'payment_methods.account_holder',
      'payment_methods.iban_sealed',
      'payment_methods.bic',
      'payment_methods.emandate_token',
      'payment_methods.created_at',
    ])
    .where('batch_lines.account_id', '=', accountId)
    .where('batch_lines.batch_id', '=', batchId)
    .orderBy('batch_lines.payment_id')
    .execute();
}
type LineRow = Awaited<ReturnType<typeof selectLines>>[number];

/**
 * The pain.008 input of the rows, as the service makes it from the same data (batchFile.service.ts): RCUR lines,
 * the mandate as the e-mandate or PM<method id>, signed the day the account was added, the payment as its
 * end-to-end id and remittance text.
 */
function pain008Input(
  rows: readonly LineRow[],
  ibans: readonly string[],
  timeZone: string,
): SepaDirectDebitBatch {
  const first = rows[0]!;
  const createdAt = first.submitted_at ?? first.batch_created_at;
  return {
    messageId: first.provider_ref ?? `B0S${Math.floor(Date.parse(createdAt) / 1000)}`,
    createdAt,
    initiatingPartyName: CREDITOR.creditorName,
    creditor: {
      name: CREDITOR.creditorName,
      iban: CREDITOR.creditorIban,
      schemeId: CREDITOR.creditorSchemeId,
    },
    requestedCollectionDate: first.action_date,
    lines: rows.map((row, i) => ({
      endToEndId: String(row.payment_id),
      amountMinor: row.amount_minor,
      currency: row.currency_code,
      sequenceType: 'RCUR',
      mandateId: row.emandate_token ?? `PM${row.payment_method_id}`,
      mandateSignatureDate: dateAt(row.created_at, timeZone),
      debtorName: row.account_holder ?? '',
      debtorIban: ibans[i]!,
      ...(row.bic ? { debtorBic: row.bic } : {}),
      remittanceText: `Payment ${row.payment_id}`,
    })),
  };
}

async function floorOnce(db: Db, secrets: SecretBox, input: ChildInput, timeZone: string) {
  const started = performance.now();
  const rows = await selectLines(db, input.accountId, input.batchId);
  const selected = performance.now();
  const ibans = rows.map((row) => (row.iban_sealed === null ? '' : secrets.open(row.iban_sealed)));
  const opened = performance.now();
  const batch = pain008Input(rows, ibans, timeZone);
  const body = buildPain008(batch);
  const built = performance.now();
  return {
    body,
    batch,
    lines: rows.length,
    selectMs: selected - started,
    openMs: opened - selected,
    fileMs: built - opened,
  };
}

async function floor(
  db: Db,
  secrets: SecretBox,
  input: ChildInput,
  timeZone: string,
  rssBefore: number,
): Promise<FloorResult> {
  const { value: cold, time } = await timed(() => floorOnce(db, secrets, input, timeZone));
  const peakRssMb = vmHwmMb() ?? process.memoryUsage.rss() / MB;
  writeFileSync(input.outFile, cold.body);
  const warm: number[] = [];
  const warmParts = { selectMs: [] as number[], openMs: [] as number[], fileMs: [] as number[] };
  for (let k = 0; k < input.warmRepeats; k += 1) {
    const again = await timed(() => floorOnce(db, secrets, input, timeZone));
    warm.push(again.time.ms);
    warmParts.selectMs.push(again.value.selectMs);
    warmParts.openMs.push(again.value.openMs);
    warmParts.fileMs.push(again.value.fileMs);
  }
  const fileWarm: number[] = [];
  for (let k = 0; k < input.warmRepeats; k += 1) {
    const started = performance.now();
    buildPain008(cold.batch);
    fileWarm.push(performance.now() - started);
  }
  return {
    mode: 'floor',
    lines: cold.lines,
    floor: time,
    selectMs: cold.selectMs,
    openMs: cold.openMs,
    fileMs: cold.fileMs,
    floorWarmMs: warm.length ? median(warm) : 0,
    selectWarmMs: warm.length ? median(warmParts.selectMs) : 0,
    openWarmMs: warm.length ? median(warmParts.openMs) : 0,
    fileInputWarmMs: warm.length ? median(warmParts.fileMs) : 0,
    fileWarmMs: fileWarm.length ? median(fileWarm) : 0,
    peakRssMb,
    rssBeforeMb: rssBefore / MB,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The build and the export

/** BENCH_STATEMENTS=1: the statements run in each phase, by SQL text. */
const statementCounts =
  process.env.BENCH_STATEMENTS === '1'
    ? { build: new Map<string, number>(), export: new Map<string, number>() }
    : undefined;
let countingPhase: 'build' | 'export' | undefined;

function onQuery(sql: string): void {
  const counts = countingPhase && statementCounts?.[countingPhase];
  if (counts) counts.set(sql, (counts.get(sql) ?? 0) + 1);
}

function statementsOf(counts: Map<string, number>) {
  return {
    total: [...counts.values()].reduce((a, b) => a + b, 0),
    bySql: [...counts].sort((a, b) => b[1] - a[1]),
  };
}

/** Builds (`runBatches`) and exports (the first download) one batch, timed apart; writes the file to `outFile`. */
async function buildAndExport(
  ctx: ServiceContext,
  download: () => Promise<{ status: number; body: string }>,
  outFile: string,
): Promise<BuiltBatch & { body: string }> {
  // A timer every 10 ms: the longest gap between its runs is the longest the event loop was held.
  let lastTick = performance.now();
  let longestStallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - lastTick);
    lastTick = now;
  }, 10);
  lastTick = performance.now();
  countingPhase = 'build';
  const built = await timed(() => runBatches(ctx));
  countingPhase = 'export';
  const exported = await timed(download);
  countingPhase = undefined;
  longestStallMs = Math.max(longestStallMs, performance.now() - lastTick);
  clearInterval(ticker);
  writeFileSync(outFile, exported.value.body);
  return {
    summary: built.value,
    build: built.time,
    export: exported.time,
    exportStatus: exported.value.status,
    exportBytes: Buffer.byteLength(exported.value.body),
    longestStallMs,
    body: exported.value.body,
  };
}

async function build(
  ctx: ServiceContext,
  api: Api,
  input: ChildInput,
  rssBefore: number,
): Promise<BuildResult> {
  const download = (token: string) => async () => {
    const response = await api('GET', `/v1/batches/${token}/file`);
    return { status: response.status, body: response.body };
  };
  const { body, ...cold } = await buildAndExport(ctx, download(input.batchToken), input.outFile);
  const peakRssMb = vmHwmMb() ?? process.memoryUsage.rss() / MB;
  const statements = statementCounts && {
    build: statementsOf(statementCounts.build),
    export: statementsOf(statementCounts.export),
  };
  const warmExports: number[] = [];
  let same = true;
  for (let k = 0; k < input.warmRepeats; k += 1) {
    const again = await timed(download(input.batchToken));
    warmExports.push(again.time.ms);
    if (again.value.status !== 200 || again.value.body !== body) same = false;
  }
  let warm: BuiltBatch | undefined;
  if (input.warmBatch) {
    const { token, outFile, actionDate } = input.warmBatch;
    const submitted = await api('PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    if (submitted.status !== 204) {
      throw new BenchError(`submitting batch ${token} answered ${submitted.status}: ${submitted.body}`);
    }
    const { body: _warmBody, ...second } = await buildAndExport(ctx, download(token), outFile);
    warm = second;
  }
  return {
    mode: 'build',
    ...cold,
    exportWarmMs: warmExports.length ? median(warmExports) : 0,
    exportWarmSame: same,
    peakRssMb,
    endPeakRssMb: vmHwmMb() ?? process.memoryUsage.rss() / MB,
    rssBeforeMb: rssBefore / MB,
    ...(warm ? { warm } : {}),
    ...(statements ? { statements } : {}),
  };
}

export async function child(input: ChildInput): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: input.target.dialect === 'sqlite' ? `sqlite:${input.target.file}` : input.target.url,
    ENCRYPTION_KEY: input.encryptionKey,
    LOG_LEVEL: 'warn',
  });
  const storage = openStorage(input.target, statementCounts ? { onQuery } : {});
  const db = storage.db;
  const clock = fixedClock(BUILD_AT);
  const secrets = createSecretBox(Buffer.from(input.encryptionKey, 'base64'));
  const logger = createLogger('warn', pino.destination(2));
  const account = await getAccount(db, input.accountId);
  const ctx: ServiceContext = {
    account,
    db,
    clock,
    log: logger as unknown as FastifyBaseLogger,
    secrets,
    mailQueued: () => {},
    deliveriesQueued: () => {},
  };
  // The service's app, as the server builds it (buildApp connects the modules' ports), without its workers.
  const idempotencyLease = await takeIdempotencyLease(input.target, db);
  const app = await buildApp({
    storage,
    clock,
    secrets,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    timeouts: config,
    authFailuresPerMinute: config.authFailuresPerMinute,
    idempotencyLease,
    inflight: new InFlight(),
    mailQueued: () => {},
    deliveriesQueued: () => {},
  });
  await app.ready();
  const authorization = `Basic ${Buffer.from(`${input.accountId}:${input.apiKey}`).toString('base64')}`;
  const api: Api = async (method, url, body) => {
    const response = await app.inject({
      method,
      url,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      payload: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.statusCode, body: response.body };
  };
  const rssBefore = process.memoryUsage.rss();
  let result: ChildResult;
  try {
    result =
      input.mode === 'build'
        ? await build(ctx, api, input, rssBefore)
        : await floor(db, secrets, input, account.timeZone, rssBefore);
  } finally {
    await app.close();
    await idempotencyLease.close();
    await storage.close();
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function runChild<R extends ChildResult>(input: ChildInput): Promise<R> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROFILE_DIR: each measured process writes a V8 CPU profile there (node --cpu-prof).
    const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
    const flags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const proc = spawn(process.execPath, [...flags, '--import', 'tsx', ENTRY], {
      env: { ...process.env, BENCH_BATCHES_CHILD: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    active.child = proc;
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      active.child = undefined;
      if (code !== 0) {
        reject(
          new BenchError(`the ${input.mode} process exited with code ${code} (signal ${signal}): ${out}`),
        );
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as R);
      } catch {
        reject(new BenchError(`the ${input.mode} process printed no result: ${out}`));
      }
    });
  });
}
