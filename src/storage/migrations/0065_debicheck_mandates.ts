import type { ColumnDataType, Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // An eMandate may be a DebiCheck mandate (docs/design/mandates.md, "DebiCheck"): its contract type, tracking days,
  // first collection's amount and the debtor's identity number (sealed, with its last three characters for people
  // to recognise it), then the bank's authentication through the gateway it was registered with: its state, the
  // contract reference the gateway gave it, when it was asked, until when it may wait, when it was answered, and
  // the gateway's words. All null for an ordinary mandate.
  // NOTE: SQLite adds one column per ALTER TABLE.
  const columns: [string, ColumnDataType][] = [
    ['debicheck_contract_type', 'text'],
    ['debicheck_tracking_days', 'integer'],
    ['debicheck_first_amt_minor', 'bigint'],
    ['debicheck_id_kind', 'text'],
    ['debicheck_id_sealed', 'text'],
    ['debicheck_id_ending', 'text'],
    ['debicheck_status', 'text'],
    ['debicheck_gateway_id', 'bigint'],
    ['debicheck_contract_reference', 'text'],
    ['debicheck_requested_at', t.instant],
    ['debicheck_expires_at', t.instant],
    ['debicheck_answered_at', t.instant],
    ['debicheck_reason', 'text'],
  ];
  for (const [name, type] of columns) {
    await db.schema.alterTable('emandates').addColumn(name, type).execute();
  }
  // The run asks about the account's authentications still waiting on the bank.
  await db.schema
    .createIndex('emandates_debicheck_status')
    .on('emandates')
    .columns(['account_id', 'debicheck_status'])
    .execute();
}
