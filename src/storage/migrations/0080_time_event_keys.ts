import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { isPostgres } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/**
 * Keys for the daily pass of time-driven events (docs/benchmarks.md, "A test-clock advance"):
 *
 * - It reads an account's subscriptions with a status date in its window, as a union of one range per date column
 *   (timeEventCandidates.repository.ts, `listWithStatusDatesBetween`). The four other columns have had an index
 *   since 0008; `pause_date` and `resume_date`, added by the pause, had none, and each page read every subscription
 *   of the account.
 * - It asks which once-keys were claimed, 32 at a time, of an account. PostgreSQL plans the named statement once for
 *   any account: led by `account_id`, the key let that plan find the account's rows and filter them by once-key, as
 *   cheap for an account of ten events as it is ruinous for one of 20,000 (12 ms a question instead of 0.1). Led by
 *   `once_key`, the one way in is the key's own 32 look-ups. SQLite plans each run with its values and keeps its key.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['pause_date', 'resume_date']) {
    await db.schema
      .createIndex(`subscriptions_account_${column}`)
      .on('subscriptions')
      .columns(['account_id', column])
      .execute();
  }
  if (isPostgres(db)) {
    await sql`alter table events_emitted_once drop constraint events_emitted_once_pk`.execute(db);
    await sql`alter table events_emitted_once add constraint events_emitted_once_pk primary key (once_key, account_id)`.execute(
      db,
    );
  }
}
