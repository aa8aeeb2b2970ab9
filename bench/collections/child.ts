/**
 * The measured processes: one runs the collection and nothing else, another the floor, each in a process of its
 * own (started the same way, loading the same code), so that the peak RSS and CPU of each are its own.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { fixedClock } from '../../src/clock.ts';
import { connectModules } from '../../src/connectModules.ts';
import type { ServiceContext } from '../../src/context.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import type { CollectionSummary } from '../../src/modules/collections/index.ts';
import { chargeStoredMethod, getGateway } from '../../src/modules/gateways/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Db } from '../../src/storage/database.ts';
import { BenchError, active } from '../common.ts';

/** What the measured processes run: the benchmark's entry point, which calls `child` when BENCH_COLLECTIONS_CHILD is set. */
const ENTRY = fileURLToPath(new URL('../collections.ts', import.meta.url));
const MB = 1024 * 1024;

/** The floor's idempotency keys: apart from the collection's `inv_<id>_try_<n>`. */
export const FLOOR_KEY_PREFIX = 'bench_floor_';

export interface ChildInput {
  mode: 'collect' | 'floor';
  target: DatabaseTarget;
  accountId: number;
  gatewayId: number;
  /** The instant the work happens at (the context's clock). */
  at: string;
  encryptionKey: string;
}

/** What the work did: the collection's summary, or the floor's charges by outcome. */
export interface Counted {
  attempts: number;
  succeeded: number;
  declined: number;
  errors: number;
  unanswered: number;
}

export interface ChildResult {
  counted: Counted;
  seconds: number;
  /** CPU seconds (user + system) of the process during the work; steadier than wall time on a busy machine. */
  cpuSeconds: number;
  /** VmHWM of the process (Linux): the peak resident set, start-up included. */
  peakRssMb: number;
  rssBeforeMb: number;
  /**
   * The longest the event loop went without running a timer during the work (ms): how long a server process doing
   * the same work would have left requests and timers waiting.
   */
  longestStallMs: number;
  /**
   * BENCH_STATEMENTS=1 only (the storage's query hook, which the service runs without): the statements run during
   * the work, and how many of each SQL text, most frequent first.
   */
  statements?: number;
  statementCounts?: [string, number][];
}

function vmHwmMb(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The floor's work: one bare charge per invoice the collection charges, through the gateway contract as the
 * collection makes it (`chargeStoredMethod`: the test gateway's own reads and charge row, and our `gateway_calls`
 * record of the call), with the invoice's card token, amount and currency and a fresh idempotency key. None of our
 * own records: no claim, attempt, lock, payment, allocation, schedule or event. The list is read before the timing.
 */
async function floorWork(ctx: ServiceContext, gatewayId: number): Promise<() => Promise<Counted>> {
  const rows = await ctx.db
    .selectFrom('invoices')
    .innerJoin('payment_methods', 'payment_methods.id', 'invoices.customer_payment_method_id')
    .select(['invoices.id', 'invoices.total_minor', 'invoices.currency_code', 'payment_methods.token'])
    .where('invoices.account_id', '=', ctx.account.id)
    .where('invoices.collection_method', '=', 'credit_card')
    .orderBy('invoices.id')
    .execute();
  const gateway = await getGateway(ctx, gatewayId);
  return async () => {
    const counted: Counted = { attempts: 0, succeeded: 0, declined: 0, errors: 0, unanswered: 0 };
    for (const row of rows) {
      const result = await chargeStoredMethod(ctx, gateway, {
        token: row.token,
        amountMinor: row.total_minor,
        currencyCode: row.currency_code,
        idempotencyKey: `${FLOOR_KEY_PREFIX}${row.id}`,
        description: `Invoice ${row.id}`,
      });
      if (result.outcome === 'error') counted.errors += 1;
      else {
        counted.attempts += 1;
        if (result.outcome === 'declined') counted.declined += 1;
        else counted.succeeded += 1;
      }
    }
    return counted;
  };
}

export async function child(input: ChildInput): Promise<void> {
  // As every entry point: the collection's events render through the ports it plugs in.
  connectModules();
  let counting = false;
  const bySql = process.env.BENCH_STATEMENTS === '1' ? new Map<string, number>() : undefined;
  const onQuery = (text: string) => {
    if (counting) bySql!.set(text, (bySql!.get(text) ?? 0) + 1);
  };
  const storage = openStorage(input.target, bySql ? { onQuery } : {});
  const db: Db = storage.db;
  const ctx: ServiceContext = {
    account: await getAccount(db, input.accountId),
    db,
    clock: fixedClock(input.at),
    log: pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger,
    secrets: createSecretBox(Buffer.from(input.encryptionKey, 'base64')),
    mailQueued: () => {},
    deliveriesQueued: () => {},
  };
  const work: () => Promise<Counted> =
    input.mode === 'collect'
      ? async () => summaryCounts(await collectDueInvoices(ctx))
      : await floorWork(ctx, input.gatewayId);
  const rssBefore = process.memoryUsage.rss();
  // A timer every 10 ms: the longest gap between its runs is the longest the event loop was held.
  // NOTE: perf_hooks' monitorEventLoopDelay does not see a loop held by a chain of promises that never yields.
  let lastTick = performance.now();
  let longestStallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - lastTick);
    lastTick = now;
  }, 10);
  counting = true;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const counted = await work();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  counting = false;
  longestStallMs = Math.max(longestStallMs, performance.now() - lastTick);
  clearInterval(ticker);
  await storage.close();
  const result: ChildResult = {
    counted,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb: vmHwmMb() ?? process.memoryUsage.rss() / MB,
    rssBeforeMb: rssBefore / MB,
    longestStallMs,
    statements: bySql ? [...bySql.values()].reduce((a, b) => a + b, 0) : undefined,
    statementCounts: bySql ? [...bySql].sort((a, b) => b[1] - a[1]) : undefined,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function summaryCounts(summary: CollectionSummary): Counted {
  const { attempts, succeeded, declined, errors, unanswered } = summary;
  return { attempts, succeeded, declined, errors, unanswered };
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROFILE_DIR: each measured process writes a V8 CPU profile there (node --cpu-prof).
    const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
    const flags = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const proc = spawn(process.execPath, [...flags, '--import', 'tsx', ENTRY], {
      env: { ...process.env, BENCH_COLLECTIONS_CHILD: JSON.stringify(input) },
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
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as ChildResult);
      } catch {
        reject(new BenchError(`the ${input.mode} process printed no result: ${out}`));
      }
    });
  });
}
