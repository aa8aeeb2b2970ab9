import type { Kysely } from 'kysely';
import { columnTypes } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // A wallet's automatic top-up and low-balance alert (docs/credits.md, "Automatic top-ups", "Low-balance
  // alerts"): both off while their amounts are null. `low_balance_alerted` is the alert's state: set when the
  // balance crosses below the threshold, cleared when it is back at or above it, so the alert fires once a crossing.
  // `auto_top_up_problem` keeps why the last automatic top-up could not be made (null once one is).
  await db.schema.alterTable('wallets').addColumn('auto_top_up_threshold_minor', 'bigint').execute();
  await db.schema.alterTable('wallets').addColumn('auto_top_up_amount_minor', 'bigint').execute();
  await db.schema.alterTable('wallets').addColumn('low_balance_alert_minor', 'bigint').execute();
  await db.schema
    .alterTable('wallets')
    .addColumn('low_balance_alerted', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('wallets').addColumn('auto_top_up_problem', 'text').execute();
  // A top-up the wallet made by itself: at most one of them open (its grant not yet made) at a time.
  await db.schema
    .alterTable('wallet_top_ups')
    .addColumn('automatic', t.bool, (c) => c.notNull().defaultTo(false))
    .execute();
}
