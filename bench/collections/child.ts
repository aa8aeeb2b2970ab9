/**
 * The measured processes: one runs the collection and nothing else, another the floor, each in a process of its
 * own (started the same way, loading the same code), so that the peak RSS and CPU of each are its own.
 */
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { fixedClock, systemClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import { serviceMemory } from '../../src/context.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import type { CollectionSummary } from '../../src/modules/collections/index.ts';
import { chargeStoredMethod, getGateway } from '../../src/modules/gateways/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Db } from '../../src/storage/database.ts';
import {
  MB,
  MeasuredProcess,
  StatementCounter,
  peakRssMb,
  timed,
  watchEventLoopStalls,
} from '../measuredProcess.ts';
import { modulePorts } from '../../src/modulePorts.ts';

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

/** The measured processes: the benchmark's entry point, which calls `child` when BENCH_COLLECTIONS_CHILD is set. */
export const collectionProcesses = new MeasuredProcess<ChildInput>(
  new URL('../collections.ts', import.meta.url),
  'BENCH_COLLECTIONS_CHILD',
);

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
    .select([
      'invoices.id',
      'invoices.total_minor',
      'invoices.currency_code',
      'payment_methods.vault_token_sealed',
    ])
    .where('invoices.account_id', '=', ctx.account.id)
    .where('invoices.collection_method', '=', 'credit_card')
    .orderBy('invoices.id')
    .execute();
  const gateway = await getGateway(ctx, gatewayId);
  return async () => {
    const counted: Counted = { attempts: 0, succeeded: 0, declined: 0, errors: 0, unanswered: 0 };
    for (const row of rows) {
      const result = await chargeStoredMethod(ctx, gateway, {
        sealedToken: String(row.vault_token_sealed),
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

/** The collection or the floor, measured: what the process prints as its result. */
export async function child(input: ChildInput): Promise<ChildResult> {
  // As every entry point: the collection's events render through the ports it plugs in.
  const statements = new StatementCounter<'work'>();
  const storage = openStorage(input.target, statements.storageOptions());
  const db: Db = storage.db;
  const ctx: ServiceContext = {
    ports: modulePorts(),
    account: await getAccount(db, input.accountId),
    db,
    clock: fixedClock(input.at),
    wallClock: systemClock,
    log: pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger,
    secrets: createSecretBox(Buffer.from(input.encryptionKey, 'base64')),
    mailQueued: () => {},
    memory: serviceMemory(),
  };
  const work: () => Promise<Counted> =
    input.mode === 'collect'
      ? async () => summaryCounts(await collectDueInvoices(ctx))
      : await floorWork(ctx, input.gatewayId);
  const rssBefore = process.memoryUsage.rss();
  const stalls = watchEventLoopStalls();
  statements.phase = 'work';
  const { value: counted, time } = await timed(work);
  statements.phase = undefined;
  const longestStallMs = stalls.stop();
  await storage.close();
  const counts = statements.enabled ? statements.totals('work') : undefined;
  return {
    counted,
    seconds: time.ms / 1000,
    cpuSeconds: time.cpuMs / 1000,
    peakRssMb: peakRssMb(),
    rssBeforeMb: rssBefore / MB,
    longestStallMs,
    statements: counts?.total,
    statementCounts: counts?.bySql,
  };
}

function summaryCounts(summary: CollectionSummary): Counted {
  const { attempts, succeeded, declined, errors, unanswered } = summary;
  return { attempts, succeeded, declined, errors, unanswered };
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  return collectionProcesses.run(input, input.mode);
}
