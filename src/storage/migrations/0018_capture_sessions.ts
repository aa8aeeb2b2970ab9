import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  // Capture sessions of the hosted widget (spec part 2, Capture session (hosted widget);
  // docs/design/hosted-pages.md, "Capture widget"). The browser's HashToken is never stored: only its SHA-256, by
  // which the frame's URL finds the session. No card number, security code or clear account number is kept: the
  // card is in the gateway's vault (its token) and the session keeps what a person may see of it.
  await withId(db.schema.createTable('capture_sessions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('session_token', 'text', (c) => c.notNull().unique())
    .addColumn('hash_token_sha256', 'text', (c) => c.notNull().unique())
    // The API key that made the session (AppId); null when the key was revoked and deleted since.
    .addColumn('api_key_id', 'bigint')
    .addColumn('ext_ref', 'text')
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('vaulting_type', 'text', (c) => c.notNull())
    .addColumn('sale_type', 'text', (c) => c.notNull())
    .addColumn('vault_only_on_success', t.bool, (c) => c.notNull())
    .addColumn('amount_minor', 'bigint')
    .addColumn('gateway_id', 'bigint', (c) => c.notNull().references('gateways.id'))
    // The one origin allowed to frame the widget, normalised (scheme://host[:port]).
    .addColumn('auth_domain', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // Beyond the spec: the invoice a sale pays.
    .addColumn('invoice_id', 'bigint')
    // open, capturing (a submit is with the gateway), captured, completed, locked; expired is read from expires_at.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Wall-clock end of a submit's claim: one left by a crash may be taken again after it.
    .addColumn('claimed_until', t.instant)
    // What was captured: credit_card or bank_account.
    .addColumn('method_type', 'text')
    // A card: the vault's token (null for a Sale, which keeps nothing), the card as a person sees it.
    .addColumn('method_token', 'text')
    .addColumn('card_type', 'text')
    .addColumn('last_four', 'text')
    .addColumn('name_on_card', 'text')
    .addColumn('last_name_on_card', 'text')
    .addColumn('expiry_month', 'integer')
    .addColumn('expiry_year', 'integer')
    // A bank account: its details sealed (SecretBox; they become the customer's method at complete), its bank.
    .addColumn('bank_account_sealed', 'text')
    .addColumn('bank_name', 'text')
    // The gateway's charge for a sale, and whether it is settled or pending.
    .addColumn('charge_id', 'text')
    .addColumn('charge_state', 'text')
    // Set by complete.
    .addColumn('customer_id', 'bigint')
    .addColumn('payment_method_id', 'bigint')
    .addColumn('payment_id', 'bigint')
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('expires_at', t.instant, (c) => c.notNull())
    .addColumn('captured_at', t.instant)
    .addColumn('completed_at', t.instant)
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('capture_sessions_account')
    .on('capture_sessions')
    .columns(['account_id', 'id'])
    .execute();
}
