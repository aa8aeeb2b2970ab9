import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertAccount } from '../helpers/migrations.ts';

// Migration 0039 (docs/architecture.md, "Tables and their owners"): the invoice and credit note numbers and the
// catalogue revision move from the accounts row to tables of their owners, each account's values carried over.
// Migrated only up to 0039, whatever comes after it; rows written as 0038 left them, and read raw.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;

beforeAll(async () => {
  database = await databaseMigratedUpTo('0038_invoice_reminders');
});

afterAll(async () => {
  await database?.close();
});

const db = () => database.db;

describe('migration 0039', () => {
  it("carries every account's counters over to their owners' tables, and takes them off accounts", async () => {
    const used = await insertAccount(db(), 'Numbered');
    await db()
      .updateTable('accounts')
      .set({ last_invoice_num: 41, last_credit_num: 7, catalogue_revision: 12 })
      .where('id', '=', used)
      .execute();
    const fresh = await insertAccount(db(), 'Fresh');

    expect(await migrateUpTo(database.storage.db, '0039_counters_with_owners')).toContain(
      '0039_counters_with_owners',
    );

    const counters = async (table: string, column: string) =>
      Object.fromEntries(
        (await db().selectFrom(table).select(['account_id', column]).orderBy('account_id').execute()).map(
          (row) => [Number(row.account_id), Number(row[column])],
        ),
      );
    expect(await counters('invoice_numbers', 'last_num')).toEqual({ [used]: 41, [fresh]: 0 });
    expect(await counters('credit_note_numbers', 'last_num')).toEqual({ [used]: 7, [fresh]: 0 });
    expect(await counters('catalogue_revisions', 'revision')).toEqual({ [used]: 12, [fresh]: 0 });
    const account = await db()
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', used)
      .executeTakeFirstOrThrow();
    expect(account).not.toHaveProperty('last_invoice_num');
    expect(account).not.toHaveProperty('last_credit_num');
    expect(account).not.toHaveProperty('catalogue_revision');
  });
});
