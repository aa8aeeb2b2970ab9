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
