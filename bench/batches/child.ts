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
 *   with their payments and bank accounts, one of the invoice numbers they pay, one of the mandates collected
 *   before (FRST or RCUR), the IBANs opened, and `buildPain008` on them; cold, then warm. Then
 *   `buildPain008` alone on the same in-memory input (no database), warm.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import type { ServiceContext } from '../../src/context.ts';
import { serviceMemory } from '../../src/context.ts';
import { buildPain008, invoicesRemittance } from '../../src/modules/batches/index.ts';
import type { SepaDirectDebitBatch } from '../../src/modules/batches/index.ts';
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
import { BenchError, median } from '../common.ts';
import {
  MB,
  MeasuredProcess,
  StatementCounter,
  peakRssMb,
  timed,
  watchEventLoopStalls,
} from '../measuredProcess.ts';
import type { StatementTotals, Timed } from '../measuredProcess.ts';
import { BUILD_AT, CREDITOR } from './shared.ts';
import { modulePorts } from '../../src/modulePorts.ts';

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

/** The measured processes: the benchmark's entry point, which calls `child` when BENCH_BATCHES_CHILD is set. */
export const batchProcesses = new MeasuredProcess<ChildInput>(
  new URL('../batches.ts', import.meta.url),
  'BENCH_BATCHES_CHILD',
);

/** One batch built by `runBatches` and exported by its first download. */
export interface BuiltBatch {
  summary: BatchRunSummary;
  build: Timed;
  export: Timed;
  exportStatus: number;
  exportBytes: number;
  /** The longest the event loop ran no 10 ms timer during the build and the export (a server would not answer). */
  longestStallMs: number;
  /** The most CPU time the process spent within one of those stalls. */
  longestStallCpuMs: number;
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
  statements?: Record<'build' | 'export', StatementTotals>;
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
      'payment_methods.mandate_reference',
      'payment_methods.mandate_signed_on',
      'payment_methods.created_at',
    ])
    .where('batch_lines.account_id', '=', accountId)
    .where('batch_lines.batch_id', '=', batchId)
    .orderBy('batch_lines.payment_id')
    .execute();
}
type LineRow = Awaited<ReturnType<typeof selectLines>>[number];

/** The numbers of the invoices each line's payment pays, in the order they were allocated (the remittance lines). */
function selectInvoiceNumbers(db: Db, accountId: number, batchId: number) {
  return db
    .selectFrom('batch_lines')
    .innerJoin('allocations', (join) =>
      join
        .onRef('allocations.source_id', '=', 'batch_lines.payment_id')
        .on('allocations.source_type', '=', 'payment')
        .on('allocations.target_type', '=', 'invoice'),
    )
    .innerJoin('invoices', 'invoices.id', 'allocations.target_id')
    .select(['batch_lines.payment_id', 'invoices.invoice_num'])
    .where('batch_lines.account_id', '=', accountId)
    .where('batch_lines.batch_id', '=', batchId)
    .where('allocations.account_id', '=', accountId)
    .orderBy('allocations.id')
    .execute();
}

/**
 * The mandates (their reference, else their bank account) of the batch's lines that an earlier SEPA batch handed to
 * the bank collected a payment under, which did not fail: their lines here are RCUR, the others' first line FRST.
 */
async function mandatesCollectedBefore(db: Db, accountId: number, batchId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('batch_lines')
    .innerJoin('payments', 'payments.id', 'batch_lines.payment_id')
    .innerJoin('batches', 'batches.id', 'batch_lines.batch_id')
    .innerJoin('payment_methods', 'payment_methods.id', 'payments.payment_method_id')
    .select(['payments.payment_method_id', 'payment_methods.mandate_reference'])
    .where('batch_lines.account_id', '=', accountId)
    .where('batches.rail', '=', 'sepa')
    // Before this one: the floor runs after the build, which hands a later batch to the bank too.
    .where('batches.id', '<', batchId)
    .where('batches.state', 'in', ['submitted', 'processing', 'processed'])
    .where('payments.state', '!=', 'failed')
    .where('payments.payment_method_id', 'in', (eb) =>
      eb
        .selectFrom('batch_lines as these')
        .innerJoin('payments as paid', 'paid.id', 'these.payment_id')
        .select('paid.payment_method_id')
        .where('these.account_id', '=', accountId)
        .where('these.batch_id', '=', batchId),
    )
    .execute();
  return new Set(rows.map((row) => row.mandate_reference ?? `method:${row.payment_method_id}`));
}

/**
 * The pain.008 input of the rows, as the service makes it from the same data (batchFile.service.ts): FRST for a
 * mandate's first collection and RCUR after, the mandate as its reference or PM<method id> signed the day the
 * account was added, the payment as its end-to-end id, and the invoices it pays as its remittance text.
 */
function pain008Input(
  batchId: number,
  rows: readonly LineRow[],
  ibans: readonly string[],
  invoiceNumbers: ReadonlyMap<number, string[]>,
  collectedBefore: Set<string>,
  timeZone: string,
): SepaDirectDebitBatch {
  const first = rows[0]!;
  const createdAt = first.submitted_at ?? first.batch_created_at;
  return {
    messageId: `B${batchId}S${Math.floor(Date.parse(createdAt) / 1000)}`,
    createdAt,
    initiatingPartyName: CREDITOR.creditorName,
    creditor: {
      name: CREDITOR.creditorName,
      iban: CREDITOR.creditorIban,
      schemeId: CREDITOR.creditorSchemeId,
    },
    requestedCollectionDate: first.action_date,
    lines: rows.map((row, i) => {
      const mandate = row.mandate_reference ?? `method:${row.payment_method_id}`;
      const sequenceType = collectedBefore.has(mandate) ? 'RCUR' : 'FRST';
      collectedBefore.add(mandate);
      return {
        endToEndId: String(row.payment_id),
        amountMinor: row.amount_minor,
        currency: row.currency_code,
        sequenceType,
        mandateId: row.mandate_reference ?? `PM${row.payment_method_id}`,
        mandateSignatureDate: row.mandate_signed_on ?? dateAt(row.created_at, timeZone),
        debtorName: row.account_holder ?? '',
        debtorIban: ibans[i]!,
        ...(row.bic ? { debtorBic: row.bic } : {}),
        remittanceText:
          invoicesRemittance(invoiceNumbers.get(row.payment_id) ?? []) ?? `Payment ${row.payment_id}`,
      };
    }),
  };
}

async function floorOnce(db: Db, secrets: SecretBox, input: ChildInput, timeZone: string) {
  const started = performance.now();
  const rows = await selectLines(db, input.accountId, input.batchId);
  const invoiceNumbers = new Map<number, string[]>();
  for (const row of await selectInvoiceNumbers(db, input.accountId, input.batchId)) {
    if (row.invoice_num === null) continue;
    const numbers = invoiceNumbers.get(row.payment_id) ?? [];
    numbers.push(String(row.invoice_num));
    invoiceNumbers.set(row.payment_id, numbers);
  }
  const collectedBefore = await mandatesCollectedBefore(db, input.accountId, input.batchId);
  const selected = performance.now();
  const ibans = rows.map((row) => (row.iban_sealed === null ? '' : secrets.open(row.iban_sealed)));
  const opened = performance.now();
  const batch = pain008Input(input.batchId, rows, ibans, invoiceNumbers, collectedBefore, timeZone);
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
  const peakRss = peakRssMb();
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
    peakRssMb: peakRss,
    rssBeforeMb: rssBefore / MB,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The build and the export

/** BENCH_STATEMENTS=1: the statements run in each phase, by SQL text. */
const statements = new StatementCounter<'build' | 'export'>();

/** Builds (`runBatches`) and exports (the first download) one batch, timed apart; writes the file to `outFile`. */
async function buildAndExport(
  ctx: ServiceContext,
  download: () => Promise<{ status: number; body: string }>,
  outFile: string,
): Promise<BuiltBatch & { body: string }> {
  const stalls = watchEventLoopStalls();
  statements.phase = 'build';
  const built = await timed(() => runBatches(ctx));
  statements.phase = 'export';
  const exported = await timed(download);
  statements.phase = undefined;
  const longestStallMs = stalls.stop();
  const longestStallCpuMs = stalls.longestCpuMs();
  writeFileSync(outFile, exported.value.body);
  return {
    summary: built.value,
    build: built.time,
    export: exported.time,
    exportStatus: exported.value.status,
    exportBytes: Buffer.byteLength(exported.value.body),
    longestStallMs,
    longestStallCpuMs,
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
  const peakRss = peakRssMb();
  const statementTotals = statements.enabled
    ? { build: statements.totals('build'), export: statements.totals('export') }
    : undefined;
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
    peakRssMb: peakRss,
    endPeakRssMb: peakRssMb(),
    rssBeforeMb: rssBefore / MB,
    ...(warm ? { warm } : {}),
    ...(statementTotals ? { statements: statementTotals } : {}),
  };
}

/** The build or the floor, measured: what the process prints as its result. */
export async function child(input: ChildInput): Promise<ChildResult> {
  const config = loadConfig({
    DATABASE_URL: input.target.dialect === 'sqlite' ? `sqlite:${input.target.file}` : input.target.url,
    ENCRYPTION_KEY: input.encryptionKey,
    LOG_LEVEL: 'warn',
  });
  const storage = openStorage(input.target, statements.storageOptions());
  const db = storage.db;
  const clock = fixedClock(BUILD_AT);
  const secrets = createSecretBox(Buffer.from(input.encryptionKey, 'base64'));
  const logger = createLogger('warn', pino.destination(2));
  const account = await getAccount(db, input.accountId);
  const ctx: ServiceContext = {
    ports: modulePorts(),
    account,
    db,
    clock,
    wallClock: systemClock,
    log: logger as unknown as FastifyBaseLogger,
    secrets,
    mailQueued: () => {},
    memory: serviceMemory(),
  };
  // The service's app, as the server builds it (buildApp connects the modules' ports), without its workers.
  const idempotencyLease = await takeIdempotencyLease(input.target, db);
  const app = await buildApp({
    storage,
    clock,
    wallClock: systemClock,
    secrets,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    timeouts: config,
    authFailuresPerMinute: config.authFailuresPerMinute,
    idempotencyLease,
    inflight: new InFlight(),
    mailQueued: () => {},
  });
  await app.ready();
  // NOTE: Fastify loads light-my-request on its first `inject`, which stands in for the socket here: loaded now, so
  // that the cold export does not count (nor hold the loop for) a module load that a server never does.
  createRequire(import.meta.url)('light-my-request');
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
  try {
    return input.mode === 'build'
      ? await build(ctx, api, input, rssBefore)
      : await floor(db, secrets, input, account.timeZone, rssBefore);
  } finally {
    await app.close();
    await idempotencyLease.close();
    await storage.close();
  }
}

export function runChild<R extends ChildResult>(input: ChildInput): Promise<R> {
  return batchProcesses.run(input, input.mode);
}
