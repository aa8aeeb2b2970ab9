import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { RefundAttemptsTable } from '../../storage/schema.ts';

export type RefundAttemptRow = Selectable<RefundAttemptsTable>;

export async function insertAttempt(db: Db, row: Insertable<RefundAttemptsTable>): Promise<RefundAttemptRow> {
  return db.insertInto('refund_attempts').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Records the answer, once: only an attempt still `started` changes; whether this one did. */
export async function finishAttempt(
  db: Db,
  accountId: number,
  attemptId: number,
  answer: { state: 'succeeded' | 'declined'; refund_id?: string; raw_code?: string },
): Promise<boolean> {
  const result = await db
    .updateTable('refund_attempts')
    .set(answer)
    .where('account_id', '=', accountId)
    .where('id', '=', attemptId)
    .where('state', '=', 'started')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function listStaleAttempts(
  db: Db,
  accountId: number,
  staleBefore: string,
): Promise<RefundAttemptRow[]> {
  return db
    .selectFrom('refund_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('state', '=', 'started')
    .where('leased_at', '<', staleBefore)
    .orderBy('id')
    .limit(100)
    .execute();
}
