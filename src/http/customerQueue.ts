import type { FastifyInstance } from 'fastify';
import type { MoneyTurnSettings } from '../config.ts';

/** How a usage call waits for its turn (CustomerQueue.inUsageTurn). */
export interface UsageTurnOptions {
  /** Called once the request has its place (its turn, or a place in line): a request refused as busy never is. */
  admitted?: () => void;
  /** How many of the line's requests may have their turn at once. */
  lanes?: number;
  /** Settles when the request no longer needs its turn. */
  withdrawn?: Promise<unknown>;
}

const noop = () => {};

/** What a full line's refusal says: who is busy, with what. */
interface LineKind {
  code: string;
  holder: string;
  calls: string;
}
const CUSTOMER_LINE: LineKind = { code: 'customer_busy', holder: 'This customer', calls: 'money movements' };
const USAGE_LINE: LineKind = { code: 'usage_busy', holder: 'This account', calls: 'usage event calls' };

/**
 * One customer's money movements take turns in the process before they open their transaction
 * (docs/operations.md, "Fairness under load"). Each locks its customer's row first thing in its transaction, so
 * only one of them can work at a time anyway; without turns, the others would each hold a pooled connection (on
 * SQLite, a place in line for the one connection) while they wait for the lock, and a flood of payments for one
 * customer would leave every other request of every account waiting for a connection. With turns, a customer's
 * waiting requests hold nothing but memory: one connection per busy customer at most.
 *
 * The waiting line is bounded, per customer and per account: a request that finds it full is refused at once with
 * 503 and `Retry-After` (ServiceBusyError), before anything is written, so the same request (with the same
 * Idempotency-Key) may be sent again. The turns are this process's only: across processes, the row lock orders
 * the movements, bounded by MoneyTurnSettings.lockTimeoutMs.
 */
export class CustomerQueue {
  readonly #settings: MoneyTurnSettings;
  /** Per `account:customer` (or `account:usage`), how many have their turn now, and the releases of those waiting. */
  readonly #lines = new Map<string, { running: number; waiting: (() => void)[] }>();
  /** Per account, how many of its requests wait, all its customers together. */
  readonly #waitingPerAccount = new Map<number, number>();

  constructor(settings: MoneyTurnSettings) {
    this.#settings = settings;
  }

  /** How long a turn waits for a PostgreSQL row lock before it gives up (`lock_timeout`). */
  get lockTimeoutMs(): number {
    return this.#settings.lockTimeoutMs;
  }

  /**
   * Runs `work` in the customer's turn: at once when no other request of the customer's runs, else after those
   * ahead of it. Throws ServiceBusyError, having run nothing, when the customer's or the account's line is full.
   */
  async inTurn<T>(accountId: number, customerId: number, work: () => Promise<T>): Promise<T> {
    // Never withdrawn, so its turn comes: work's result.
    return (await this.#inLine(accountId, `${accountId}:${customerId}`, CUSTOMER_LINE, work)) as T;
  }

  /**
   * Runs `work` in one of the account's turns for usage events (docs/usage.md, "Sending events"): at most `lanes`
   * at a time per account, in a line of the same bounds, counted with the account's money movements. A request
   * whose `withdrawn` settles while it waits leaves the line without running `work` (its work was done by another
   * turn): undefined.
   */
  async inUsageTurn<T>(
    accountId: number,
    work: () => Promise<T>,
    options: UsageTurnOptions = {},
  ): Promise<T | undefined> {
    return this.#inLine(accountId, `${accountId}:usage`, USAGE_LINE, work, options);
  }

  async #inLine<T>(
    accountId: number,
    key: string,
    kind: LineKind,
    work: () => Promise<T>,
    { admitted, lanes = 1, withdrawn }: UsageTurnOptions = {},
  ): Promise<T | undefined> {
    let line = this.#lines.get(key);
    if (line === undefined) this.#lines.set(key, (line = { running: 0, waiting: [] }));
    if (line.running < lanes) {
      admitted?.();
      line.running++;
    } else if (!(await this.#wait(accountId, line.waiting, kind, admitted, withdrawn))) return undefined;
    try {
      return await work();
    } finally {
      this.#next(key);
    }
  }

  /** Whether the request's turn came (false: it was withdrawn first, and left the line). */
  async #wait(
    accountId: number,
    line: (() => void)[],
    kind: LineKind,
    admitted?: () => void,
    withdrawn?: Promise<unknown>,
  ): Promise<boolean> {
    if (line.length >= this.#settings.waitingPerCustomer) {
      throw new ServiceBusyError(
        kind.code,
        `${kind.holder} already has ${line.length} ${kind.calls} waiting in line; nothing was changed: send the ` +
          'request again after Retry-After',
      );
    }
    const waiting = this.#waitingPerAccount.get(accountId) ?? 0;
    if (waiting >= this.#settings.waitingPerAccount) {
      throw new ServiceBusyError(
        'account_busy',
        // The account's one count holds both kinds of calls: the message names them both.
        `This account already has ${waiting} money movements and usage event calls waiting in line; nothing was ` +
          'changed: send the request again after Retry-After',
      );
    }
    this.#waitingPerAccount.set(accountId, waiting + 1);
    try {
      let given = false;
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const giveTurn = () => {
        given = true;
        release();
      };
      admitted?.();
      line.push(giveTurn);
      // A withdrawal that fails withdraws as well: the line must not keep a place nobody takes.
      await (withdrawn ? Promise.race([turn, withdrawn.then(noop, noop)]) : turn);
      // NOTE: a turn given in the same tick as the withdrawal is taken: #next counted on it.
      if (!given) line.splice(line.indexOf(giveTurn), 1);
      return given;
    } finally {
      const left = (this.#waitingPerAccount.get(accountId) ?? 1) - 1;
      if (left === 0) this.#waitingPerAccount.delete(accountId);
      else this.#waitingPerAccount.set(accountId, left);
    }
  }

  /** A turn ends: the next in line takes it, or it is free (and the line gone when no turn is taken). */
  #next(key: string): void {
    const line = this.#lines.get(key)!;
    const next = line.waiting.shift();
    if (next) next();
    else if (--line.running === 0) this.#lines.delete(key);
  }
}

/**
 * The service cannot take the request now, and did nothing with it: 503 with `Retry-After`
 * (docs/spec-decisions.md, "Fairness under load"). Not one of the domain's errors: it says nothing of the request,
 * only of the load.
 */
export class ServiceBusyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryAfterSeconds = 1,
    /** 503 for load; 429 when the asker itself asked too often. */
    readonly status: 429 | 503 = 503,
  ) {
    super(message);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This process's turns of customers' money movements (idempotentCreate takes them). */
    customerQueue: CustomerQueue;
  }
}

/** Gives every request of `app` the process's one `queue`. */
export function registerCustomerQueue(app: FastifyInstance, queue: CustomerQueue): void {
  app.decorateRequest('customerQueue', { getter: () => queue });
}
