import type { MemoryPart, ServiceContext } from '../../context.ts';
import { inTransaction } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Db } from '../../storage/database.ts';
import type { CustomerQueue } from '../../http/customerQueue.ts';
import type { UsageEventOutcome } from './usageEvent.ts';
import { sendUsageEventCalls } from './usageEventSending.service.ts';
import { storageCapOf } from './usageStorage.service.ts';
import type { SentUsageEvent } from './usageEventSending.service.ts';

/**
 * Group commit of an account's usage calls (docs/design/usage.md, "Speed (bench:usage)"). An account's calls take
 * turns (src/http/customerQueue.ts), usageLanes at a time; the call whose turn comes records, in one transaction,
 * the calls at the front of the line (its own first when it is still there), up to `foldedEvents`, in the order
 * they came: each answered with its own outcomes, as if it had had its turn alone. A call answered by another's
 * turn leaves the line at once; one taken by a fold still running, whose turn comes, records the next calls if any.
 * NOTE: a transaction costs a commit (on PostgreSQL a round trip and a flush, on SQLite a write of the log) and a
 * statement per table whatever its rows; ten connections of batches paid them ten times.
 */

/**
 * The most events one transaction records for the calls it takes together. SQLite: a batch's worth, since its
 * transaction holds the event loop from its first statement to its commit and every other request waits for it
 * (under ingestion another account's GET p99 was 122-135 ms with 200, 41-91 ms with 100, for 10-30 % fewer
 * events a second; docs/benchmarks.md, "Usage"); single events sent by many calls still share a transaction.
 * PostgreSQL's statements never hold the loop: five batches.
 */
export function foldedEvents(db: Db): number {
  return isPostgres(db) ? 500 : 100;
}

/**
 * How many of an account's folds may run at once in a process. SQLite has one writer: one. PostgreSQL: two, so that
 * one fold's statements run while the other's are checked and built on the event loop, or wait for their commit
 * (docs/design/usage.md, "Speed (bench:usage)"); more measured no faster, and would hold more of the pool's
 * connections for one account.
 */
export function usageLanes(db: Db): number {
  return isPostgres(db) ? 2 : 1;
}

/** A call waiting for its events to be recorded, by its own turn or by the turn of a call ahead of it. */
interface Waiting {
  ctx: ServiceContext;
  sent: readonly SentUsageEvent[];
  answer?: { outcomes: UsageEventOutcome[] } | { error: unknown };
  /** Called once `answer` is set. */
  settle: () => void;
}

/**
 * In the service's memory (its turns are its queue's), per account, the admitted calls not taken by a fold yet, in
 * the order of their turns.
 */
export const WAITING_CALLS: MemoryPart<Map<number, Waiting[]>> = {
  name: 'usage calls waiting for a fold',
  make: () => new Map(),
};

/**
 * Records a call's events in its account's turn, with the calls waiting behind it. Throws ServiceBusyError, having
 * recorded nothing, when the account's line is full, and ConflictError `usage_storage_full` when the process found
 * the account's stored events at their cap; throws what recording the call alone throws.
 */
export async function sendInUsageTurn(
  queue: CustomerQueue,
  ctx: ServiceContext,
  sent: readonly SentUsageEvent[],
): Promise<UsageEventOutcome[]> {
  // Before its turn: a call of an account found full would open a transaction only to be refused in it.
  storageCapOf(ctx).refuseWhenKnownFull(ctx.account.id);
  const lines = ctx.memory.part(WAITING_CALLS);
  const accountId = ctx.account.id;
  let settle!: () => void;
  const answered = new Promise<void>((resolve) => (settle = resolve));
  const mine: Waiting = { ctx, sent, settle };
  const admitted = () => {
    const line = lines.get(accountId);
    if (line === undefined) lines.set(accountId, [mine]);
    else line.push(mine);
  };
  await queue.inUsageTurn(
    accountId,
    async () => {
      if (lines.has(accountId)) await record(takeFold(lines, accountId, foldedEvents(ctx.db)));
    },
    { admitted, lanes: usageLanes(ctx.db), withdrawn: answered },
  );
  await answered;
  const answer = mine.answer!;
  if ('error' in answer) throw answer.error;
  return answer.outcomes;
}

/** The calls of the account's line from its front up to `most` events, taken out of it. */
function takeFold(lines: Map<number, Waiting[]>, accountId: number, most: number): Waiting[] {
  const line = lines.get(accountId)!;
  let events = line[0]!.sent.length;
  let count = 1;
  while (count < line.length && events + line[count]!.sent.length <= most) {
    events += line[count]!.sent.length;
    count++;
  }
  const fold = line.splice(0, count);
  if (line.length === 0) lines.delete(accountId);
  return fold;
}

/** Records the fold's calls, and settles each once it has its answer. */
async function record(fold: Waiting[]): Promise<void> {
  try {
    await answerFold(fold);
  } finally {
    for (const w of fold) w.settle();
  }
}

/**
 * The calls' events recorded in one transaction. When it fails, nothing of it was kept. A failure one call's events
 * can cause (a DomainError: its batch would pass an hour's 64 bits, say) has each call recorded alone, so that it is
 * that call's answer only. Any other (the database busy or locked, no connection free, the connection lost) is the
 * answer of every call in the fold, as it would have been had each had its turn: recording them one by one would
 * meet it again, each waiting out its own timeout while the account's line waits behind them.
 */
async function answerFold(fold: Waiting[]): Promise<void> {
  const first = fold[0]!.ctx;
  try {
    const answers = await inOneTransaction(
      first,
      fold.map((w) => w.sent),
    );
    fold.forEach((w, i) => (w.answer = { outcomes: answers[i]! }));
    return;
  } catch (error) {
    if (fold.length === 1 || !(error instanceof DomainError)) {
      for (const w of fold) w.answer = { error };
      return;
    }
  }
  for (const w of fold) {
    try {
      w.answer = { outcomes: (await inOneTransaction(w.ctx, [w.sent]))[0]! };
    } catch (error) {
      w.answer = { error };
    }
  }
}

/**
 * NOTE: the transaction is never cut to let the event loop turn (docs/architecture.md, "Storage"): on SQLite it
 * holds the file's write lock, and another process (or instance) waiting for it would wait the longer; so
 * `foldedEvents` bounds how long it holds the loop instead.
 */
function inOneTransaction(
  ctx: ServiceContext,
  calls: readonly (readonly SentUsageEvent[])[],
): Promise<UsageEventOutcome[][]> {
  return ctx.db.transaction().execute((trx) => sendUsageEventCalls(inTransaction(ctx, trx), calls));
}
