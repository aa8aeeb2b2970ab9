import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock.ts';
import type { Account } from './modules/auth/index.ts';
import type { SecretBox } from './security/secretBox.ts';
import type { Db } from './storage/database.ts';

/** What every use case receives first: the account it acts for, its database handle and its side effects. */
export interface ServiceContext {
  account: Account;
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  secrets: SecretBox;
  /** Tells the mail worker that a committed change queued mail, so it need not wait for its next round. */
  mailQueued(): void;
}

/** The same context bound to an open transaction, for use cases that call each other inside one. */
export function inTransaction(ctx: ServiceContext, trx: Db): ServiceContext {
  return { ...ctx, db: trx };
}

/**
 * Runs `work` in a transaction: the caller's when the context is already in one (a use case called by another,
 * or a preview that will be rolled back), else a new one.
 */
export function withTransaction<T>(
  ctx: ServiceContext,
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return ctx.db.transaction().execute((trx) => work(inTransaction(ctx, trx)));
}
