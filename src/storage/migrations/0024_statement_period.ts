import type { Kysely } from 'kysely';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // How often automatic statements go out: monthly, quarterly or yearly (docs/spec-decisions.md, "Statements").
  // Customers already keep StatementDate and StatementLastSentDate (statement_date, statement_last_sent_at, 0001).
  await db.schema
    .alterTable('accounts')
    .addColumn('statement_period', 'text', (c) => c.notNull().defaultTo('monthly'))
    .execute();
  // The HTML part of a message, sealed like its text, which stays as the plain-text alternative; null: text only.
  await db.schema.alterTable('mail_outbox').addColumn('html_sealed', 'text').execute();
}
