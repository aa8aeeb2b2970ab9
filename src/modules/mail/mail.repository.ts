import { sql } from 'kysely';
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { isPostgres } from '../../storage/columns.ts';
import type { Database } from '../../storage/schema.ts';
import { STORED_MAIL_COLUMNS, newMailToRow, storedMailFromRow } from './mail.mapper.ts';
import type { NewMail, StoredMail } from './mail.mapper.ts';

export async function insertMail(db: Db, mail: NewMail): Promise<number> {
  const row = await db
    .insertInto('mail_outbox')
    .values(newMailToRow(mail))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Rows per INSERT: 12 parameters each stays far below both dialects' limits on parameters per statement. */
const INSERT_CHUNK = 1000;

/** Many messages in a few multi-row statements (a bill run queues one per invoice). */
export async function insertMails(db: Db, mails: readonly NewMail[]): Promise<void> {
  for (let at = 0; at < mails.length; at += INSERT_CHUNK) {
    await db
      .insertInto('mail_outbox')
      .values(mails.slice(at, at + INSERT_CHUNK).map(newMailToRow))
      .execute();
  }
}

/**
 * Leases up to `limit` due messages to the caller until `leaseUntil`, so that several workers never send the same
 * message twice at once. NOTE: PostgreSQL skips rows another worker holds (SKIP LOCKED); SQLite runs one writer
 * at a time, so each UPDATE is already exclusive.
 *
 * Due: a message that has not failed yet (no `last_error`) at once, whenever it was made, in the order it was
 * queued; then a failed one at its retry time, which the worker set on its own clock. A message's `created_at` is
 * the time of the change it reports, on its account's clock: a test account's clock may stand months ahead of the
 * worker's (docs/spec-decisions.md, "Account settings and test accounts"), and a message waiting for it would never
 * be sent nor skipped. Two statements rather than one with an OR, so that each walks an index
 * (`mail_outbox_pending`, `mail_outbox_due`) instead of every message ever sent.
 */
export async function leaseDueMail(
  db: Db,
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<StoredMail[]> {
  const unfailed = await leaseWhere(db, now, leaseUntil, limit, (due) =>
    due.where('last_error', 'is', null).orderBy('id'),
  );
  if (unfailed.length === limit) return unfailed;
  const retries = await leaseWhere(db, now, leaseUntil, limit - unfailed.length, (due) =>
    due.where('last_error', 'is not', null).where('next_attempt_at', '<=', now).orderBy('next_attempt_at'),
  );
  return [...unfailed, ...retries];
}

type PendingQuery = SelectQueryBuilder<Database, 'mail_outbox', { id: number }>;

async function leaseWhere(
  db: Db,
  now: string,
  leaseUntil: string,
  limit: number,
  due: (pending: PendingQuery) => PendingQuery,
): Promise<StoredMail[]> {
  const pending = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
  const chosen = due(pending)
    .limit(limit)
    .$if(isPostgres(db), (qb) => qb.forUpdate().skipLocked());
  const rows = await db
    .updateTable('mail_outbox')
    .set({ lease_until: leaseUntil, attempts: sql<number>`attempts + 1` })
    .where('id', 'in', chosen)
    .returning(STORED_MAIL_COLUMNS)
    .execute();
  return rows.map(storedMailFromRow);
}

/** Records what became of a leased message, unless its lease ran out and another worker took it over. */
export async function recordDelivery(
  db: Db,
  lease: { id: number; leaseUntil: string },
  outcome:
    | { status: 'sent'; at: string }
    | { status: 'skipped'; reason: string }
    | { status: 'failed'; error: string }
    /** `uncounted`: the attempt did not count (the lease counted it), as when the attachment's documents were busy. */
    | { status: 'pending'; error: string; retryAt: string; uncounted?: boolean },
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({
      status: outcome.status,
      lease_until: null,
      delivered_at: outcome.status === 'sent' ? outcome.at : null,
      last_error:
        outcome.status === 'sent' ? null : outcome.status === 'skipped' ? outcome.reason : outcome.error,
      ...(outcome.status === 'pending' ? { next_attempt_at: outcome.retryAt } : {}),
      ...(outcome.status === 'pending' && outcome.uncounted ? { attempts: sql<number>`attempts - 1` } : {}),
    })
    .where('id', '=', lease.id)
    .where('lease_until', '=', lease.leaseUntil)
    .execute();
}

export async function listMail(db: Db, filter: { accountId?: number; limit: number }): Promise<StoredMail[]> {
  const rows = await db
    .selectFrom('mail_outbox')
    .select(STORED_MAIL_COLUMNS)
    .$if(filter.accountId !== undefined, (qb) => qb.where('account_id', '=', filter.accountId!))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();
  return rows.map(storedMailFromRow);
}
