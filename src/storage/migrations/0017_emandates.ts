import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // eMandates (spec part 2, "eMandate" and "eMandates"; docs/design/mandates.md): a debtor's authority to debit a
  // bank account, made by the merchant's server, signed by the debtor on a hosted page.
  await withId(db.schema.createTable('emandates'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // The bearer capability the spec's Token is: 32 random bytes, base64url.
    .addColumn('token', 'text', (c) => c.notNull().unique())
    // Beyond the spec: the customer the mandate is for, when the merchant names one.
    .addColumn('customer_id', 'bigint', (c) => c.references('customers.id').onDelete('set null'))
    // The bank account the mandate was linked to (customerPaymentMethodID).
    .addColumn('payment_method_id', 'bigint')
    // embedded (POST /v1/emandate) or redirect (POST /widget/emandate).
    .addColumn('flow', 'text', (c) => c.notNull())
    // pending_signature, signed, expired, rejected (the signee declined).
    .addColumn('status', 'text', (c) => c.notNull())
    // The signee.
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('company', 'text')
    .addColumn('trading_as', 'text')
    .addColumn('tel', 'text')
    .addColumn('email', 'text')
    .addColumn('address1', 'text')
    .addColumn('address2', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('country_iso_code', 'text')
    .addColumn('postal_code', 'text')
    // The bank account: the number sealed (security/secretBox.ts), only its last four in clear.
    .addColumn('bank_debit_method', 'text', (c) => c.notNull())
    .addColumn('bank_name', 'text', (c) => c.notNull())
    .addColumn('bank_branch_code', 'text', (c) => c.notNull())
    .addColumn('bank_acc_holder', 'text', (c) => c.notNull())
    .addColumn('bank_acc_number_sealed', 'text', (c) => c.notNull())
    .addColumn('bank_last_four', 'text', (c) => c.notNull())
    .addColumn('bank_account_type', 'text', (c) => c.notNull())
    // The debit terms (docs/design/mandates.md, "Fields"); amounts in the currency's minor unit.
    .addColumn('currency_code', 'text', (c) => c.notNull())
    .addColumn('debit_frequency', 'text', (c) => c.notNull())
    .addColumn('debit_action_day', 'integer', (c) => c.notNull())
    .addColumn('debit_start_date', t.date, (c) => c.notNull())
    .addColumn('debit_end_date', t.date)
    .addColumn('debit_amt_minor', 'bigint', (c) => c.notNull())
    .addColumn('debit_max_amt_minor', 'bigint', (c) => c.notNull())
    // A yearly rate in percent, exact.
    .addColumn('debit_escalation', t.decimal)
    .addColumn('debit_name_on_stmt', 'text', (c) => c.notNull())
    .addColumn('debit_contract_ref', 'text', (c) => c.notNull())
    .addColumn('debit_variable_amts', t.bool, (c) => c.notNull())
    .addColumn('is_customer_editable', t.bool, (c) => c.notNull())
    .addColumn('is_company_signee', t.bool, (c) => c.notNull())
    // Beyond the spec: the origin allowed to frame the embedded signing page, and where the signee goes after.
    .addColumn('auth_domain', 'text')
    .addColumn('return_url', 'text')
    .addColumn('cancel_url', 'text')
    .addColumn('expires_at', t.instant, (c) => c.notNull())
    // The evidence of signing (docs/design/hosted-pages.md, "eMandate pages").
    .addColumn('signed_at', t.instant)
    .addColumn('signed_name', 'text')
    .addColumn('signed_client_address', 'text')
    .addColumn('signed_user_agent', 'text')
    .addColumn('consent_text', 'text')
    .addColumn('consent_sha256', 'text')
    .addColumn('document_sha256', 'text')
    .addColumn('declined_at', t.instant)
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addColumn('updated_at', t.instant, (c) => c.notNull())
    .execute();
  // docs/design/mandates.md, "Fields": the contract reference is unique (per account: it is the merchant's).
  await db.schema
    .createIndex('emandates_contract_ref')
    .on('emandates')
    .columns(['account_id', 'debit_contract_ref'])
    .unique()
    .execute();
  await db.schema
    .createIndex('emandates_pending')
    .on('emandates')
    .columns(['account_id', 'status', 'expires_at'])
    .execute();
}
