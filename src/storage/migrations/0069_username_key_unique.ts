import type { Kysely } from 'kysely';
import { systemClock } from '../../clock.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** The username folded as sign-in compares it (customers' usernameKey on the day this was written). */
const fold = (username: string) => username.trim().normalize('NFC').toLowerCase();

interface ContactRow {
  id: number | string;
  account_id: number | string;
  customer_id: number | string;
  username: string;
  username_key: string | null;
}

/**
 * One username per account in any letter case, held by the database (docs/spec-decisions.md, "Customer contacts"):
 * the service refused a username another contact held in another case, but two adds at once could both pass its
 * check. Contacts already sharing a folded username keep it on the oldest (lowest id); each other one gets its
 * username with its contact id appended (`bob-17`, made longer while that is taken too), and its customer a note
 * saying so, which the business reads on the customer and tells the contact. The old password still works.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const rows = (await db
    .selectFrom('customer_contacts')
    .select(['id', 'account_id', 'customer_id', 'username', 'username_key'])
    .where('username', 'is not', null)
    .orderBy('account_id')
    .orderBy('id')
    .execute()) as ContactRow[];
  const taken = new Set(rows.map((row) => `${row.account_id}\n${row.username_key ?? fold(row.username)}`));
  const holders = new Map<string, ContactRow>();
  const now = systemClock.now().toISOString();
  for (const row of rows) {
    const key = `${row.account_id}\n${row.username_key ?? fold(row.username)}`;
    const holder = holders.get(key);
    if (!holder) {
      holders.set(key, row);
      continue;
    }
    let renamed = `${row.username}-${row.id}`;
    while (taken.has(`${row.account_id}\n${fold(renamed)}`)) renamed = `${renamed}-${row.id}`;
    taken.add(`${row.account_id}\n${fold(renamed)}`);
    await db
      .updateTable('customer_contacts')
      .set({ username: renamed, username_key: fold(renamed) })
      .where('id', '=', row.id)
      .execute();
    await db
      .insertInto('customer_notes')
      .values({
        account_id: row.account_id,
        customer_id: row.customer_id,
        note:
          `Portal username of contact ${row.id} changed from "${row.username}" to "${renamed}": contact ` +
          `${holder.id} holds "${holder.username}", and usernames are one in any letter case. Tell the contact ` +
          'the new username; the password is unchanged.',
        note_type: 'General',
        created_at: now,
      })
      .execute();
  }
  await db.schema.dropIndex('customer_contacts_username_key').execute();
  // Unique: NULL usernames (inactive contacts without a login) are never equal, on both dialects.
  await db.schema
    .createIndex('customer_contacts_username_key_unique')
    .on('customer_contacts')
    .columns(['account_id', 'username_key'])
    .unique()
    .execute();
}
