import type { FastifyInstance } from 'fastify';
import type { MoneyTurnSettings } from '../config.ts';

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
/** What a full line's refusal says: who is busy, with what. */
interface LineKind {
  code: string;
  holder: string;
  calls: string;
}
const CUSTOMER_LINE: LineKind = { code: 'customer_busy', holder: 'This customer', calls: 'money movements' };
const USAGE_LINE: LineKind = { code: 'usage_busy', holder: 'This account', calls: 'usage event calls' };

export class CustomerQueue {
  readonly #settings: MoneyTurnSettings;
  /** Per `account:customer`, the releases of the requests waiting behind the one whose turn it is, in order. */
  readonly #lines = new Map<string, (() => void)[]>();
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
    return this.#inLine(accountId, `${accountId}:${customerId}`, CUSTOMER_LINE, work);
  }

  /**
   * Runs `work` in the account's turn for usage events (docs/usage.md, "Sending events"): one batch at a time per
   * account, in a line of the same bounds, counted with the account's money movements.
   */
  async inUsageTurn<T>(accountId: number, work: () => Promise<T>, admitted?: () => void): Promise<T> {
    return this.#inLine(accountId, `${accountId}:usage`, USAGE_LINE, work, admitted);
  }

  /**
   * `admitted`, when given, is called once the request has its place (its turn, or a place in line), before it
   * waits: a request refused as busy is never admitted.
   */
  async #inLine<T>(
    accountId: number,
    key: string,
    kind: LineKind,
    work: () => Promise<T>,
    admitted?: () => void,
  ): Promise<T> {
    const line = this.#lines.get(key);
    if (line === undefined) {
      this.#lines.set(key, []);
      admitted?.();
    } else await this.#wait(accountId, line, kind, admitted);
    try {
      return await work();
    } finally {
      this.#next(key);
    }
  }

  async #wait(accountId: number, line: (() => void)[], kind: LineKind, admitted?: () => void): Promise<void> {
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
        `This account already has ${waiting} money movements waiting in line; nothing was changed: send the ` +
          'request again after Retry-After',
      );
    }
    this.#waitingPerAccount.set(accountId, waiting + 1);
    try {
      const turn = new Promise<void>((resolve) => line.push(resolve));
      admitted?.();
      await turn;
    } finally {
      const left = (this.#waitingPerAccount.get(accountId) ?? 1) - 1;
      if (left === 0) this.#waitingPerAccount.delete(accountId);
      else this.#waitingPerAccount.set(accountId, left);
    }
  }

  /** The turn ends: the next in line runs, or the line is gone. */
  #next(key: string): void {
    const line = this.#lines.get(key);
    const next = line?.shift();
    if (next) next();
    else this.#lines.delete(key);
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
