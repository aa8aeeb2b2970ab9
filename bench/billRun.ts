/**
 * Bill-run benchmark: one bill run over BENCH_SUBSCRIPTIONS monthly subscriptions due on the same day, measured in
 * a child process of its own (invoices per second, peak RSS), beside the raw insert rate of the same rows.
 *
 *   npm run bench:billing                    SQLite only (fresh temporary files)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:billing   SQLite, then PostgreSQL in fresh, dropped-after schemas
 *
 * Settings (environment): BENCH_SUBSCRIPTIONS (default 100000), BENCH_AUTO_SEND_PERCENT (customers with
 * autoSendInvoice on, default 10), BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL), BENCH_STRICT=1 (exit 1
 * when a target is missed). See bench/README.md.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { BATCH_SIZE, billingContext, runBilling } from '../src/billing/billRun.ts';
import type { BillingDeps, BillRunSummary } from '../src/billing/billRun.ts';
import { fixedClock } from '../src/clock.ts';
import type { DatabaseTarget } from '../src/config.ts';
import type { ServiceContext } from '../src/context.ts';
import { createAccount } from '../src/modules/auth/index.ts';
import { createComponent } from '../src/modules/catalogue/component.service.ts';
import { createPackage } from '../src/modules/catalogue/package.service.ts';
import type { Package } from '../src/modules/catalogue/package.service.ts';
import { createPackageGroup } from '../src/modules/catalogue/packageGroup.service.ts';
import { createTaxSetting } from '../src/modules/catalogue/tax.service.ts';
import { createCustomer } from '../src/modules/customers/customer.service.ts';
import { createSubscription } from '../src/modules/subscriptions/subscription.service.ts';
import type { ComponentChoice } from '../src/modules/subscriptions/subscription.service.ts';
import { createSecretBox } from '../src/security/secretBox.ts';
import { isPostgres } from '../src/storage/columns.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import { migrateToLatest } from '../src/storage/migrate.ts';

const SELF = fileURLToPath(import.meta.url);
/** Targets on SQLite (issue 4, point 10). */
const TARGET_INVOICES_PER_SECOND = 2000;
const TARGET_PEAK_RSS_MB = 300;

/** The due day of every subscription, and the instants the population was made at (UTC account). */
const AS_OF = '2026-03-01';
const AT_SETUP = '2026-01-15T09:00:00.000Z';
/** The usage cohort started on Feb 1 with a month's free trial; its first paid invoice (with usage) is due Mar 1. */
const AT_USAGE_COHORT = '2026-02-01T09:00:00.000Z';
const USAGE_COHORT_START = '2026-02-01';
/** The other cohorts were signed up on Feb 20 to start on Mar 1. */
const AT_NEW_COHORTS = '2026-02-20T09:00:00.000Z';

class BenchError extends Error {}

function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    process.stderr.write(`[bench] ${name} must be a number from ${min} to ${max}; got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const round = (value: number, digits: number) => Number(value.toFixed(digits));
const MB = 1024 * 1024;

// Rows are copied between tables of any name here; the benchmark reads and writes them loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseDb = Kysely<any>;
type Row = Record<string, unknown>;
const loose = (db: Db) => db as unknown as LooseDb;

/** Rows per multi-row statement, so that parameters stay below SQLite's 32 766 (and PostgreSQL's 65 535). */
function rowsPerStatement(row: Row | undefined): number {
  return Math.max(1, Math.floor(30_000 / Math.max(1, Object.keys(row ?? {}).length)));
}

async function insertRows(db: Db, table: string, rows: Row[]): Promise<void> {
  const size = rowsPerStatement(rows[0]);
  for (let at = 0; at < rows.length; at += size) {
    await loose(db)
      .insertInto(table)
      .values(rows.slice(at, at + size))
      .execute();
  }
}

/** Inserts rows without ids and returns their ids in the rows' order (identity values follow a VALUES list). */
async function insertReturningIds(db: Db, table: string, rows: Row[]): Promise<number[]> {
  const ids: number[] = [];
  const size = rowsPerStatement(rows[0]);
  for (let at = 0; at < rows.length; at += size) {
    const inserted = (await loose(db)
      .insertInto(table)
      .values(rows.slice(at, at + size))
      .returning('id')
      .execute()) as { id: number }[];
    ids.push(...inserted.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
  return ids;
}

const withoutId = ({ id: _id, ...rest }: Row): Row => rest;

/**
 * The copies are made through the day after their template (n seconds later, within 10 hours: the same day in UTC),
 * as sign-ups are, so that nothing per subscription (e.g. the day it was created on) is the same for all of them.
 */
function later(instant: unknown, n: number): string {
  return new Date(Date.parse(String(instant)) + (n % 36_000) * 1000).toISOString();
}

// ---------------------------------------------------------------------------------------------------------------
// The child: runs the bill run and nothing else, so that its peak RSS is the bill run's.

interface ChildInput {
  target: DatabaseTarget;
  accountId: number;
}

interface ChildResult {
  seconds: number;
  summary: BillRunSummary;
  /** VmHWM of the process (Linux): the peak resident set, start-up included. */
  peakRssMb: number;
  /** The highest of the RSS samples taken every 20 ms during the run (when the event loop let the timer run). */
  sampledPeakRssMb: number;
  rssBeforeMb: number;
  /** CPU seconds (user + system) of the process during the run; steadier than wall time on a busy machine. */
  cpuSeconds: number;
}

function vmHwmMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function child(input: ChildInput): Promise<void> {
  const storage = openStorage(input.target);
  const deps: BillingDeps = {
    db: storage.db,
    clock: fixedClock(`${AS_OF}T00:00:00.000Z`),
    log: pino({ level: 'warn' }, pino.destination(2)),
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
  };
  await storage.ping();
  const rssBefore = process.memoryUsage.rss();
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 20);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const summary = await runBilling(deps, { accountId: input.accountId, asOf: { date: AS_OF } });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  if (process.env.BENCH_MEMORY_TRACE === '1') {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    const mb = (n: number) => (n / MB).toFixed(1);
    process.stderr.write(
      `[bench child] after the run: rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)} MB, ` +
        `external ${mb(m.external)} MB, array buffers ${mb(m.arrayBuffers)} MB\n`,
    );
  }
  sampled = Math.max(sampled, process.memoryUsage.rss());
  await storage.close();
  const result: ChildResult = {
    seconds,
    summary,
    peakRssMb: vmHwmMb() ?? sampled / MB,
    sampledPeakRssMb: sampled / MB,
    rssBeforeMb: rssBefore / MB,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(input: ChildInput): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROFILE_DIR: a V8 CPU profile of the bill run's process is written there (node --cpu-prof).
    const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
    const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    // BENCH_MEMORY_TRACE=1: the bill run's process reports its memory after the run and a full collection.
    if (process.env.BENCH_MEMORY_TRACE === '1') profile.push('--expose-gc');
    // BENCH_CHILD_NODE_FLAGS: more node flags for that process (diagnostics, e.g. --max-semi-space-size=4).
    profile.push(...(process.env.BENCH_CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean));
    const proc = spawn(process.execPath, [...profile, '--import', 'tsx', SELF], {
      env: { ...process.env, BENCH_BILLRUN_CHILD: JSON.stringify(input) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    activeChild = proc;
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      activeChild = undefined;
      if (code !== 0) {
        reject(new BenchError(`the bill run process exited with code ${code} (signal ${signal}): ${out}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult);
      } catch {
        reject(new BenchError(`the bill run process printed no result: ${out}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The population

interface Cohort {
  key: string;
  /** Out of 20 subscriptions. */
  weight: number;
  packageKey: 'basic' | 'pro' | 'team' | 'starter' | 'metered';
  createdAt: string;
  startDate: string;
  withComponents: boolean;
  /** Invoices and invoice lines the bill run makes on AS_OF per subscription. */
  invoices: number;
  lines: number;
}

const COHORTS: Cohort[] = [
  // 9.99 a month: one line.
  {
    key: 'basic',
    weight: 8,
    packageKey: 'basic',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1,
  },
  // 29.00 a month and a 10.00 setup fee: two lines.
  {
    key: 'setupFee',
    weight: 3,
    packageKey: 'pro',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1 + 1,
  },
  // A 14-day trial at 1.00: the trial line now, the first term on Mar 15.
  {
    key: 'paidTrial',
    weight: 2,
    packageKey: 'team',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 1,
    lines: 1,
  },
  // A free 14-day trial: the period is recorded, no invoice is made.
  {
    key: 'freeTrial',
    weight: 2,
    packageKey: 'starter',
    createdAt: AT_NEW_COHORTS,
    startDate: AS_OF,
    withComponents: false,
    invoices: 0,
    lines: 0,
  },
  // A free month's trial from Feb 1 (billed then: a period, no invoice) with two components whose usage was
  // recorded in February: on Mar 1 the first term and the usage of both components, priced by brackets.
  {
    key: 'usage',
    weight: 5,
    packageKey: 'metered',
    createdAt: AT_USAGE_COHORT,
    startDate: USAGE_COHORT_START,
    withComponents: true,
    invoices: 1,
    lines: 1 + 2,
  },
];
const COHORT_CYCLE = COHORTS.flatMap((cohort) => Array.from({ length: cohort.weight }, () => cohort));

/** Which cohort, and whether the customer has autoSendInvoice on, for the i-th subscription. */
function shapeOf(i: number, autoSendPercent: number): { cohort: Cohort; autoSend: boolean } {
  const cohort = COHORT_CYCLE[i % COHORT_CYCLE.length]!;
  // Spread over every cohort: the share of whole cycles of 20 that falls under the percentage.
  const cycle = Math.floor(i / COHORT_CYCLE.length);
  const autoSend = cycle % 100 < autoSendPercent;
  return { cohort, autoSend };
}

interface Template {
  customer: Row;
  subscription: Row;
  components: Row[];
  usage: Row[];
  periods: Row[];
}

interface Seeded {
  accountId: number;
  subscriptions: number;
  expectedInvoices: number;
  expectedLines: number;
  expectedMails: number;
  /** Largest ids before the bill run: what lies above them, the run wrote. */
  before: { periodId: number; mailId: number };
}

async function maxId(db: Db, table: string): Promise<number> {
  const row = (await loose(db)
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('m'))
    .executeTakeFirst()) as { m: number | string | null } | undefined;
  return Number(row?.m ?? 0);
}

/**
 * A fresh account with a tax, a catalogue and `count` subscriptions due on AS_OF. The account, the tax setting, the
 * catalogue, and one customer and subscription per cohort (and autoSendInvoice value) are made by the service's own
 * use cases; the rest are copies of those rows (customer, subscription, its components, usage and periods), written
 * with multi-row inserts: rows exactly as createSubscription (and, for the usage cohort, its first billing) made them.
 */
async function seed(db: Db, count: number, autoSendPercent: number): Promise<Seeded> {
  await migrateToLatest(db);
  const deps: BillingDeps = {
    db,
    clock: fixedClock(AT_SETUP),
    log: pino({ level: 'warn' }, pino.destination(2)),
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
  };
  const { account } = await createAccount(db, deps.clock, { name: 'Bench billing' });
  const at = (instant: string): ServiceContext => billingContext(deps, account, instant);
  const setup = at(AT_SETUP);

  await createTaxSetting(setup, { name: 'VAT', rules: [{ perc: 0.15 }] });
  const group = await createPackageGroup(setup, 'Plans');
  const makePackage = (
    code: string,
    chargePrice: number,
    rate: { setupFee?: number; trialFee?: number; trialPeriod?: number; trialPeriodType?: string } = {},
  ) =>
    createPackage(
      setup,
      { packageGroupId: group.id, packageCode: code, name: code, isActive: true },
      {
        versionName: 'Standard',
        isActive: true,
        isDefault: true,
        rates: [
          {
            currencyCode: 'USD',
            setupFee: rate.setupFee ?? 0,
            trialFee: rate.trialFee ?? 0,
            trialPeriod: rate.trialPeriod ?? 0,
            trialPeriodType: rate.trialPeriodType ?? 'days',
            terms: [
              { chargePrice, chargeTerm: 1, chargeTermType: 'months' },
              { chargePrice: chargePrice * 10, chargeTerm: 12, chargeTermType: 'months' },
            ],
          },
        ],
      },
    );
  const packages: Record<Cohort['packageKey'], Package> = {
    basic: await makePackage('Basic', 9.99),
    pro: await makePackage('Pro', 29, { setupFee: 10 }),
    team: await makePackage('Team', 99, { trialFee: 1, trialPeriod: 14 }),
    starter: await makePackage('Starter', 19, { trialPeriod: 14 }),
    metered: await makePackage('Metered', 5, { trialPeriod: 1, trialPeriodType: 'months' }),
  };
  const sms = await createComponent(
    setup,
    {
      componentCode: 'SMS',
      name: 'SMS',
      type: 'quantity',
      scheme: 'unit',
      unitName: 'messages',
      packageGroupId: group.id,
      term: 1,
      termType: 'months',
    },
    {
      versionName: 'Launch',
      currencies: [
        {
          currencyCode: 'USD',
          brackets: [
            { price: '0.10', qtyFrom: 1, qtyTill: 1000 },
            { price: '0.05', qtyFrom: 1001, qtyTill: null },
          ],
        },
      ],
    },
  );
  const storage = await createComponent(
    setup,
    {
      componentCode: 'STORAGE',
      name: 'Storage',
      type: 'metered',
      scheme: 'volume',
      unitName: 'GB',
      packageGroupId: group.id,
      term: 1,
      termType: 'months',
    },
    {
      versionName: 'Launch',
      currencies: [
        {
          currencyCode: 'USD',
          brackets: [
            { price: '2.00', qtyFrom: 1, qtyTill: 10 },
            { price: '1.50', qtyFrom: 11, qtyTill: 100 },
            { price: '1.00', qtyFrom: 101, qtyTill: null },
          ],
        },
      ],
    },
  );
  const components: ComponentChoice[] = [
    { componentId: sms.row.id, numUnits: 1234 },
    { componentId: storage.row.id, numUnits: '37.5' },
  ];

  // One customer and subscription per cohort and autoSendInvoice value, through the use cases.
  const templates = new Map<string, Template>();
  for (const cohort of COHORTS) {
    for (const autoSend of [false, true]) {
      const customer = await createCustomer(setup, {
        name: `Template ${cohort.key}${autoSend ? ' (auto-send)' : ''}`,
        email: 'billing@example.com',
        autoSendInvoice: autoSend,
      });
      const pkg = packages[cohort.packageKey];
      const version = pkg.versions[0]!;
      const subscription = await createSubscription(at(cohort.createdAt), {
        customerId: customer.row.id,
        packageId: pkg.id,
        packageRateTermId: version.rates[0]!.terms[0]!.id,
        startDate: cohort.startDate,
        components: cohort.withComponents ? components : [],
      });
      const read = (table: string) =>
        loose(db)
          .selectFrom(table)
          .selectAll()
          .where('subscription_id', '=', subscription.view.id)
          .orderBy('id')
          .execute() as Promise<Row[]>;
      templates.set(`${cohort.key}/${autoSend}`, {
        customer: withoutId(
          (await loose(db)
            .selectFrom('customers')
            .selectAll()
            .where('id', '=', customer.row.id)
            .executeTakeFirstOrThrow()) as Row,
        ),
        subscription: withoutId(
          (await loose(db)
            .selectFrom('subscriptions')
            .selectAll()
            .where('id', '=', subscription.view.id)
            .executeTakeFirstOrThrow()) as Row,
        ),
        components: (await read('subscription_components')).map(withoutId),
        usage: (await read('subscription_usage')).map(withoutId),
        periods: (await read('subscription_periods')).map(withoutId),
      });
      const due = templates.get(`${cohort.key}/${autoSend}`)!.subscription.next_inv_date;
      if (due !== AS_OF)
        throw new BenchError(`cohort ${cohort.key}: next_inv_date ${String(due)}, not ${AS_OF}`);
    }
  }
  const templateInvoices = Number(
    (
      (await loose(db)
        .selectFrom('invoices')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()) as { n: number | string }
    ).n,
  );
  if (templateInvoices !== 0) throw new BenchError(`setup made ${templateInvoices} invoices; expected none`);

  // The rest, copied in chunks of 500 subscriptions, one transaction each.
  let expectedInvoices = 0;
  let expectedLines = 0;
  let expectedMails = 0;
  const shapes: { cohort: Cohort; autoSend: boolean }[] = [];
  for (const cohort of COHORTS) for (const autoSend of [false, true]) shapes.push({ cohort, autoSend });
  const copies = count - shapes.length;
  if (copies < 0) throw new BenchError(`BENCH_SUBSCRIPTIONS must be at least ${shapes.length}`);
  const tally = (shape: { cohort: Cohort; autoSend: boolean }) => {
    expectedInvoices += shape.cohort.invoices;
    expectedLines += shape.cohort.lines;
    if (shape.autoSend) expectedMails += shape.cohort.invoices;
  };
  shapes.forEach(tally);
  const CHUNK = 500;
  for (let from = 0; from < copies; from += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, copies - from) }, (_, k) => {
      const shape = shapeOf(from + k, autoSendPercent);
      tally(shape);
      return { n: from + k, template: templates.get(`${shape.cohort.key}/${shape.autoSend}`)! };
    });
    await db.transaction().execute(async (trx) => {
      const customerIds = await insertReturningIds(
        trx,
        'customers',
        batch.map(({ n, template }) => ({
          ...template.customer,
          name: `Customer ${n + 1}`,
          created_at: later(template.customer.created_at, n),
          updated_at: later(template.customer.updated_at, n),
        })),
      );
      const subscriptionIds = await insertReturningIds(
        trx,
        'subscriptions',
        batch.map(({ n, template }, k) => ({
          ...template.subscription,
          customer_id: customerIds[k],
          created_at: later(template.subscription.created_at, n),
          updated_at: later(template.subscription.updated_at, n),
        })),
      );
      const children = (key: 'components' | 'usage' | 'periods') =>
        batch.flatMap(({ template }, k) =>
          template[key].map((row) => ({ ...row, subscription_id: subscriptionIds[k] })),
        );
      await insertRows(trx, 'subscription_components', children('components'));
      await insertRows(trx, 'subscription_usage', children('usage'));
      await insertRows(trx, 'subscription_periods', children('periods'));
    });
  }
  // NOTE: a PostgreSQL database in service has statistics on its tables (autovacuum); freshly filled ones have
  // none until autovacuum comes by, which would make the measured run depend on its timing.
  if (isPostgres(db)) await sql`analyze`.execute(db);
  return {
    accountId: account.id,
    subscriptions: count,
    expectedInvoices,
    expectedLines,
    expectedMails,
    before: { periodId: await maxId(db, 'subscription_periods'), mailId: await maxId(db, 'mail_outbox') },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Checking what the run made

async function countOf(db: Db, table: string, accountId: number): Promise<number> {
  const row = (await loose(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()) as { n: number | string };
  return Number(row.n);
}

async function verify(db: Db, seeded: Seeded, summary: BillRunSummary): Promise<void> {
  const problems: string[] = [];
  const expect = (what: string, actual: unknown, expected: unknown) => {
    if (actual !== expected) problems.push(`${what}: ${String(actual)}, expected ${String(expected)}`);
  };
  expect('summary.invoices', summary.invoices, seeded.expectedInvoices);
  expect('summary.subscriptions', summary.subscriptions, seeded.subscriptions);
  expect('summary.parked', summary.parked, 0);
  expect('summary.failures', summary.failures, 0);
  const nums = (await loose(db)
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.countAll().as('n'),
      eb.fn.count('invoice_num').distinct().as('distinct_nums'),
      eb.fn.min('invoice_num').as('min_num'),
      eb.fn.max('invoice_num').as('max_num'),
    ])
    .where('account_id', '=', seeded.accountId)
    .executeTakeFirstOrThrow()) as Record<string, number | string | null>;
  const n = seeded.expectedInvoices;
  expect('invoices', Number(nums.n), n);
  expect('distinct invoice numbers', Number(nums.distinct_nums), n);
  expect('lowest invoice number', Number(nums.min_num), 1);
  expect('highest invoice number', Number(nums.max_num), n);
  expect('invoice lines', await countOf(db, 'invoice_charges', seeded.accountId), seeded.expectedLines);
  expect('invoice taxes (one VAT per invoice)', await countOf(db, 'invoice_taxes', seeded.accountId), n);
  expect('e-mails queued', await countOf(db, 'mail_outbox', seeded.accountId), seeded.expectedMails);
  const stillDue = (await loose(db)
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', seeded.accountId)
    .where('next_inv_date', '<=', AS_OF)
    .executeTakeFirstOrThrow()) as { n: number | string };
  expect(`subscriptions still due on ${AS_OF}`, Number(stillDue.n), 0);
  const unbilled = (await loose(db)
    .selectFrom('subscription_usage')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', seeded.accountId)
    .where('invoice_id', 'is', null)
    .executeTakeFirstOrThrow()) as { n: number | string };
  expect('usage rows left unbilled', Number(unbilled.n), 0);
  const newPeriods = (await loose(db)
    .selectFrom('subscription_periods')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('id', '>', seeded.before.periodId)
    .executeTakeFirstOrThrow()) as { n: number | string };
  expect('periods recorded by the run', Number(newPeriods.n), seeded.subscriptions);
  if (problems.length > 0) throw new BenchError(`the bill run billed wrong:\n  ${problems.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The floor: the rows the run wrote, written again with plain multi-row inserts into a copy of the seeded database

interface Floor {
  rows: number;
  seconds: number;
}

/**
 * For each stretch of BATCH_SIZE subscriptions (in id order, as the run takes them): the invoices, their lines and
 * taxes, the new periods, the queued e-mails (inserted with their ids), the subscriptions' and usage rows' new
 * values (multi-row upserts on the id) and the invoice counter, in one transaction. Only the writes are timed.
 */
async function measureFloor(source: Db, target: Db, seeded: Seeded): Promise<Floor> {
  const accountId = seeded.accountId;
  let rows = 0;
  let seconds = 0;
  let afterId = 0;
  const upsert = async (db: Db, table: string, list: Row[], columns: string[]) => {
    const size = rowsPerStatement(list[0]);
    for (let at = 0; at < list.length; at += size) {
      await loose(db)
        .insertInto(table)
        .values(list.slice(at, at + size))
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)]))),
        )
        .execute();
    }
  };
  for (;;) {
    const subscriptions = (await loose(source)
      .selectFrom('subscriptions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(BATCH_SIZE)
      .execute()) as Row[];
    if (subscriptions.length === 0) break;
    const ids = subscriptions.map((s) => Number(s.id));
    afterId = ids.at(-1)!;
    const invoices = (await loose(source)
      .selectFrom('invoices')
      .selectAll()
      .where('subscription_id', 'in', ids)
      .orderBy('id')
      .execute()) as Row[];
    const invoiceIds = invoices.map((i) => Number(i.id));
    const byInvoice = (table: string) =>
      invoiceIds.length === 0
        ? Promise.resolve([] as Row[])
        : (loose(source)
            .selectFrom(table)
            .selectAll()
            .where('invoice_id', 'in', invoiceIds)
            .orderBy('id')
            .execute() as Promise<Row[]>);
    const charges = await byInvoice('invoice_charges');
    const taxes = await byInvoice('invoice_taxes');
    const usage = await byInvoice('subscription_usage');
    const periods = (await loose(source)
      .selectFrom('subscription_periods')
      .selectAll()
      .where('subscription_id', 'in', ids)
      .where('id', '>', seeded.before.periodId)
      .orderBy('id')
      .execute()) as Row[];
    const mails =
      invoiceIds.length === 0
        ? []
        : ((await loose(source)
            .selectFrom('mail_outbox')
            .selectAll()
            .where('attachment_ref', 'in', invoiceIds.map(String))
            .where('id', '>', seeded.before.mailId)
            .orderBy('id')
            .execute()) as Row[]);
    const subscriptionColumns = Object.keys(subscriptions[0]!).filter((c) => c !== 'id');
    const started = performance.now();
    await target.transaction().execute(async (trx) => {
      if (invoices.length > 0) {
        await trx
          .updateTable('accounts')
          .set({ last_invoice_num: invoices.length })
          .where('id', '=', accountId)
          .execute();
      }
      await insertRows(trx, 'invoices', invoices);
      await insertRows(trx, 'invoice_charges', charges);
      await insertRows(trx, 'invoice_taxes', taxes);
      await upsert(trx, 'subscription_usage', usage, ['invoice_id']);
      await insertRows(trx, 'subscription_periods', periods);
      await upsert(trx, 'subscriptions', subscriptions, subscriptionColumns);
      await insertRows(trx, 'mail_outbox', mails);
    });
    seconds += (performance.now() - started) / 1000;
    rows += invoices.length + charges.length + taxes.length + usage.length + periods.length;
    rows += subscriptions.length + mails.length;
  }
  const check = await countOf(target, 'invoices', accountId);
  if (check !== seeded.expectedInvoices) {
    throw new BenchError(`the floor wrote ${check} invoices; expected ${seeded.expectedInvoices}`);
  }
  return { rows, seconds };
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

type Dialect = 'sqlite' | 'postgres';

interface Figures {
  subscriptions: number;
  invoices: number;
  seconds: number;
  invoicesPerSecond: number;
  subscriptionsPerSecond: number;
  peakRssMb: number;
  sampledPeakRssMb: number;
  rssBeforeMb: number;
  cpuSeconds: number;
  floorRows: number;
  floorSeconds: number;
  floorRowsPerSecond: number;
  floorInvoicesPerSecond: number;
  /** The bill run's invoices per second over the floor's (its seconds over the run's). */
  vsFloor: number;
  seedSeconds: number;
}

interface Databases {
  dialect: Dialect;
  run: DatabaseTarget;
  floor: DatabaseTarget;
  cleanup(): Promise<void>;
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

let activeSchemas: string[] = [];
let activeTempDir: string | undefined;
let activeChild: ReturnType<typeof spawn> | undefined;

async function postgresDatabases(baseUrl: string): Promise<Databases> {
  const suffix = crypto.randomBytes(6).toString('hex');
  const schemas = [`bench_${suffix}`, `bench_${suffix}_floor`];
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    for (const schema of schemas) {
      await admin.query(`create schema "${schema}"`);
      activeSchemas.push(schema);
    }
  } catch (error) {
    await admin.end().catch(() => {});
    throw new BenchError(`could not create schemas on ${redact(baseUrl)}: ${(error as Error).message}`);
  }
  const urlFor = (schema: string) => {
    const url = new URL(baseUrl);
    const existing = url.searchParams.get('options');
    url.searchParams.set('options', `${existing ? `${existing} ` : ''}-c search_path=${schema}`);
    return url.toString();
  };
  log(`PostgreSQL: schemas ${schemas.join(', ')} on ${redact(baseUrl)}`);
  return {
    dialect: 'postgres',
    run: { dialect: 'postgres', url: urlFor(schemas[0]!) },
    floor: { dialect: 'postgres', url: urlFor(schemas[1]!) },
    cleanup: async () => {
      try {
        for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
        activeSchemas = [];
        log(`PostgreSQL: schemas dropped`);
      } catch (error) {
        log(`PostgreSQL: could not drop schemas ${schemas.join(', ')}: ${(error as Error).message}`);
      } finally {
        await admin.end().catch(() => {});
      }
    },
  };
}

async function benchDialect(databases: Databases, count: number, autoSendPercent: number): Promise<Figures> {
  const { dialect } = databases;
  const runStorage = openStorage(databases.run);
  const floorStorage = openStorage(databases.floor);
  try {
    log(`${dialect}: seeding ${count} subscriptions (and the floor's copy)`);
    const seedStarted = performance.now();
    const seeded = await seed(runStorage.db, count, autoSendPercent);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const floorSeeded = await seed(floorStorage.db, count, autoSendPercent);
    if (
      floorSeeded.accountId !== seeded.accountId ||
      floorSeeded.before.periodId !== seeded.before.periodId
    ) {
      throw new BenchError('the floor database was not seeded the same way');
    }
    log(
      `${dialect}: seeded in ${seedSeconds.toFixed(1)} s; ${seeded.expectedInvoices} invoices expected; running the bill run`,
    );
    const result = await runChild({ target: databases.run, accountId: seeded.accountId });
    log(`${dialect}: bill run took ${result.seconds.toFixed(1)} s; checking it`);
    await verify(runStorage.db, seeded, result.summary);
    log(`${dialect}: measuring the floor`);
    const floor = await measureFloor(runStorage.db, floorStorage.db, seeded);
    const invoicesPerSecond = result.summary.invoices / result.seconds;
    const floorInvoicesPerSecond = result.summary.invoices / floor.seconds;
    return {
      subscriptions: result.summary.subscriptions,
      invoices: result.summary.invoices,
      seconds: round(result.seconds, 2),
      invoicesPerSecond: round(invoicesPerSecond, 1),
      subscriptionsPerSecond: round(result.summary.subscriptions / result.seconds, 1),
      peakRssMb: round(result.peakRssMb, 1),
      sampledPeakRssMb: round(result.sampledPeakRssMb, 1),
      rssBeforeMb: round(result.rssBeforeMb, 1),
      cpuSeconds: round(result.cpuSeconds, 2),
      floorRows: floor.rows,
      floorSeconds: round(floor.seconds, 2),
      floorRowsPerSecond: round(floor.rows / floor.seconds, 1),
      floorInvoicesPerSecond: round(floorInvoicesPerSecond, 1),
      vsFloor: round(invoicesPerSecond / floorInvoicesPerSecond, 3),
      seedSeconds: round(seedSeconds, 1),
    };
  } finally {
    await runStorage.close();
    await floorStorage.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printTable(results: Partial<Record<Dialect, Figures>>): void {
  const header = [
    'database',
    'subscriptions',
    'invoices',
    'seconds',
    'invoices/s',
    'peak RSS MB',
    'floor rows',
    'floor s',
    'floor rows/s',
    'floor inv/s',
    'vs floor',
  ];
  const rows = (Object.entries(results) as [Dialect, Figures][]).map(([dialect, f]) => [
    dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    String(f.subscriptions),
    String(f.invoices),
    f.seconds.toFixed(2),
    f.invoicesPerSecond.toFixed(1),
    f.peakRssMb.toFixed(1),
    String(f.floorRows),
    f.floorSeconds.toFixed(2),
    f.floorRowsPerSecond.toFixed(1),
    f.floorInvoicesPerSecond.toFixed(1),
    `${(f.vsFloor * 100).toFixed(1)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(
    [
      '',
      `Bill run as of ${AS_OF}, batches of ${BATCH_SIZE}, in a process of its own`,
      line(header),
      widths.map((w) => '-'.repeat(w)).join('  '),
      ...rows.map(line),
      '',
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const count = Math.round(setting('BENCH_SUBSCRIPTIONS', 100_000, 20, 2_000_000));
  const autoSendPercent = Math.round(setting('BENCH_AUTO_SEND_PERCENT', 10, 0, 100));
  const strict = process.env.BENCH_STRICT === '1';
  const pgUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'billing-bench-billrun-'));
  activeTempDir = tempDir;
  const results: Partial<Record<Dialect, Figures>> = {};
  try {
    const prepare: Array<() => Promise<Databases>> = [
      async () => ({
        dialect: 'sqlite',
        run: { dialect: 'sqlite', file: path.join(tempDir, 'run.sqlite') },
        floor: { dialect: 'sqlite', file: path.join(tempDir, 'floor.sqlite') },
        cleanup: async () => {},
      }),
    ];
    if (pgUrl) prepare.push(() => postgresDatabases(pgUrl));
    else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to include it');
    for (const make of prepare) {
      const databases = await make();
      try {
        results[databases.dialect] = await benchDialect(databases, count, autoSendPercent);
      } finally {
        await databases.cleanup();
      }
    }
  } finally {
    await fs.rm(tempDir, { recursive: true, force: true });
    activeTempDir = undefined;
  }
  printTable(results);

  const sqlite = results.sqlite!;
  const rateMet = sqlite.invoicesPerSecond >= TARGET_INVOICES_PER_SECOND;
  const memoryMet = sqlite.peakRssMb < TARGET_PEAK_RSS_MB;
  console.log(
    `Targets on SQLite: >= ${TARGET_INVOICES_PER_SECOND} invoices/s: ${sqlite.invoicesPerSecond.toFixed(1)} — ` +
      `${rateMet ? 'met' : 'NOT MET'}; peak RSS < ${TARGET_PEAK_RSS_MB} MB: ${sqlite.peakRssMb.toFixed(1)} MB — ` +
      `${memoryMet ? 'met' : 'NOT MET'}`,
  );
  console.log(
    JSON.stringify({
      benchmark: 'billing-billrun',
      node: process.version,
      cpus: os.cpus().length,
      subscriptions: count,
      autoSendPercent,
      batchSize: BATCH_SIZE,
      asOf: AS_OF,
      results,
      targets: {
        invoicesPerSecond: {
          metric: 'sqlite.invoicesPerSecond',
          min: TARGET_INVOICES_PER_SECOND,
          value: sqlite.invoicesPerSecond,
          met: rateMet,
        },
        peakRssMb: {
          metric: 'sqlite.peakRssMb',
          max: TARGET_PEAK_RSS_MB,
          value: sqlite.peakRssMb,
          met: memoryMet,
        },
      },
    }),
  );
  return strict && !(rateMet && memoryMet) ? 1 : 0;
}

function abandon(): void {
  activeChild?.kill('SIGKILL');
  if (activeTempDir) rmSync(activeTempDir, { recursive: true, force: true });
  for (const schema of activeSchemas)
    log(`PostgreSQL schema ${schema} is left behind: drop schema "${schema}" cascade`);
}

const childInput = process.env.BENCH_BILLRUN_CHILD;
if (childInput) {
  try {
    await child(JSON.parse(childInput) as ChildInput);
  } catch (error) {
    process.stderr.write(`[bench child] ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
} else {
  // Stop by itself: an hour is far beyond a run of the defaults on both databases.
  const budgetMs = setting('BENCH_BUDGET_SECONDS', 3600, 10, 86_400) * 1000;
  const watchdog = setTimeout(() => {
    log(`aborting: the run exceeded its ${Math.round(budgetMs / 1000)} s budget`);
    abandon();
    process.exit(1);
  }, budgetMs);
  watchdog.unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      abandon();
      process.exit(130);
    });
  }
  try {
    process.exitCode = await main();
  } catch (error) {
    if (error instanceof BenchError) log(`FAILED: ${error.message}`);
    else log(`FAILED: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
  }
}
