import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The debtor's identity number of a debit-order bank account (a South-African ID number or a passport number),
  // which SA account verification and DebiCheck send to the debtor's bank: sealed like the account number, its kind
  // and its last three characters in clear, which is all a person is ever shown of it.
  // NOTE: SQLite adds one column per ALTER TABLE.
  await db.schema.alterTable('payment_methods').addColumn('id_number_sealed', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('id_number_kind', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('id_number_ending', 'text').execute();
  // The last answer of the gateway's account verification (docs/gateways/netcash.md, "Account verification"):
  // verified, pending (the bank answers later: `verification_ref` is the provider's reference to ask it by, or null
  // when the question is still to be asked) or failed (its reason and the bank's words); when it was answered, and by
  // which gateway. Null: never verified.
  await db.schema.alterTable('payment_methods').addColumn('verification_status', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('verification_reason', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('verification_detail', 'text').execute();
  await db.schema.alterTable('payment_methods').addColumn('verification_checked_at', t.instant).execute();
  await db.schema
    .alterTable('payment_methods')
    .addColumn('verification_gateway_id', 'bigint', (c) => c.references('gateways.id'))
    .execute();
  await db.schema.alterTable('payment_methods').addColumn('verification_ref', 'text').execute();
  // The run follows each account's pending verifications (paymentMethods' followBankAccountVerifications).
  await db.schema
    .createIndex('payment_methods_verification')
    .on('payment_methods')
    .columns(['account_id', 'verification_status'])
    .execute();
}
