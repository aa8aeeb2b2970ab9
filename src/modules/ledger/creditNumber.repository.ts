import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';

/** The credit notes' sequence (credit_note_numbers) and who holds a number (docs/tax.md, "Tax credit notes"). */

/**
 * Takes the next number of the account's credit note sequence. The upsert holds the account's counter row until
 * the transaction ends (PostgreSQL: a second taker of a row still being inserted waits for it too), so concurrent
 * creations queue here and get consecutive numbers; a rollback gives the number back. An account's first take
 * makes its row, numbering from 1.
 */
export async function takeCreditNumber(db: Db, accountId: number): Promise<number> {
  const row = await db
    .insertInto('credit_note_numbers')
    .values({ account_id: accountId, last_num: 1 })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({ last_num: sql<number>`credit_note_numbers.last_num + 1` }),
    )
    .returning('last_num')
    .executeTakeFirstOrThrow();
  return Number(row.last_num);
}

/** The credit note holding a CreditNumber in the account (unique per account), if any. */
export function findCreditNoteIdByNumber(
  db: Db,
  accountId: number,
  creditNumber: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('credit_notes')
    .select('id')
    .where('account_id', '=', accountId)
    .where('credit_number', '=', creditNumber)
    .executeTakeFirst();
}
