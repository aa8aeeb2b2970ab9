import type { MemoryPart, ServiceContext } from '../context.ts';
import { withTransaction } from '../context.ts';
import { DomainError } from '../errors.ts';
import type { CustomerQueue } from '../http/customerQueue.ts';
import { subscriptionCustomers } from '../modules/subscriptions/index.ts';
import { foldedEvents, sendUsageEventCalls, storageCapOf, usageLanes } from '../modules/usage/index.ts';
import type { SentUsageEvent, UsageEventOutcome } from '../modules/usage/index.ts';

/**
 * Group commit of an account's usage calls (docs/design/usage.md, "Speed (bench:usage)"). An account's calls take
 * turns (src/http/customerQueue.ts), usageLanes at a time; the call whose turn comes records, in one transaction,
 * the calls at the front of the line (its own first when it is still there), up to `foldedEvents`, in the order
 * they came: each answered with its own outcomes, as if it had had its turn alone. A call answered by another's
 * turn leaves the line at once; one taken by a fold still running, whose turn comes, records the next calls if any.
 * NOTE: a transaction costs a commit (on PostgreSQL a round trip and a flush, on SQLite a write of the log) and a
 * statement per table whatever its rows; ten connections of batches paid them ten times.
 */

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
 * The flow of recording usage (docs/architecture.md, "Flows"): in one transaction, the subscriptions the events name
 * read with their customers (subscriptions sit above usage), then usage's recording, which checks each event's
 * subscription against them. NOTE: the transaction is never cut to let the event loop turn (docs/architecture.md,
 * "Storage"): on SQLite it holds the file's write lock, and another process (or instance) waiting for it would
 * wait the longer; so `foldedEvents` bounds how long it holds the loop instead.
 */
function inOneTransaction(
  ctx: ServiceContext,
  calls: readonly (readonly SentUsageEvent[])[],
): Promise<UsageEventOutcome[][]> {
  return withTransaction(ctx, async (tctx) => {
    const named = calls.flat().flatMap((e) => (e.subscriptionId === null ? [] : [e.subscriptionId]));
    const owners = await subscriptionCustomers(tctx.db, tctx.account.id, named);
    return sendUsageEventCalls(tctx, calls, owners);
  });
}
