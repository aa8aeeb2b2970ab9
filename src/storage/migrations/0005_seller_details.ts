import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

/** The text columns of an account's seller details, printed on its invoices (all optional). */
const SELLER_COLUMNS = [
  'seller_legal_name',
  'seller_address1',
  'seller_address2',
  'seller_city',
  'seller_postal_code',
  'seller_country_code',
  'seller_tax_number',
  'seller_company_number',
  'seller_email',
  'seller_phone',
  'payment_instructions',
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // NOTE: SQLite adds one column per ALTER TABLE statement.
  for (const column of SELLER_COLUMNS) {
    await db.schema.alterTable('accounts').addColumn(column, 'text').execute();
  }
  // The logo lives apart from the account row, which every authenticated request reads.
  await db.schema
    .createTable('account_logos')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    // NOTE: binary is bytea on PostgreSQL and blob on SQLite; both drivers take and give a Buffer.
    .addColumn('image', t.isPostgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
}
