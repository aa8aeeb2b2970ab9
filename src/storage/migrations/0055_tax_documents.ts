import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { columnTypes, withId } from '../columns.ts';

// Frozen: a migration describes the schema as it was on the day it was written. Change the schema in a new one.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  // The register of tax credit notes (docs/tax.md, "Tax credit notes"): a credit note of /v1/credits, a negative
  // adjustment that reduces a supply, or the document of prepaid credit taking the VAT off an invoice after it was
  // issued. One sequence of numbers: a credit note's CreditNumber is its number here too.
  await withId(db.schema.createTable('tax_credit_notes'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id'))
    .addColumn('currency_code', 'text', (c) => c.notNull())
    // credit_note, adjustment (source_id: it) or prepaid_credit (source_id: the invoice it reduces).
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'bigint', (c) => c.notNull())
    .addColumn('credit_number', 'text', (c) => c.notNull())
    .addColumn('issue_date', t.date, (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .addUniqueConstraint('tax_credit_notes_number', ['account_id', 'credit_number'])
    .execute();
  await db
    .insertInto('tax_credit_notes')
    .columns([
      'account_id',
      'customer_id',
      'currency_code',
      'source_type',
      'source_id',
      'credit_number',
      'issue_date',
      'reason',
      'created_at',
    ])
    .expression(
      db
        .selectFrom('credit_notes')
        .select([
          'account_id',
          'customer_id',
          'currency_code',
          sql.lit('credit_note').as('source_type'),
          'id',
          'credit_number',
          'credit_date',
          sql`coalesce(memo, '')`.as('reason'),
          'created_at',
        ])
        .orderBy('id'),
    )
    .execute();
  await db.schema
    .createIndex('tax_credit_notes_source')
    .on('tax_credit_notes')
    .columns(['account_id', 'source_type', 'source_id'])
    .execute();
  await db.schema
    .createIndex('tax_credit_notes_date')
    .on('tax_credit_notes')
    .columns(['account_id', 'issue_date'])
    .execute();
  // What each credit takes off an invoice's consideration, with the VAT in it (docs/tax.md, "The VAT in a
  // reduction"): append-only, a negative row gives back. An invoice's rows sum to what it has been reduced by.
  await withId(db.schema.createTable('invoice_reductions'), t)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('invoice_id', 'bigint', (c) => c.notNull())
    // credit_note, adjustment or credit_grant.
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'bigint', (c) => c.notNull())
    // The document of a prepaid credit's reduction made after the invoice was issued; null otherwise (a credit
    // note's or an adjustment's document is its source's; a reduction made at issue is on the invoice).
    .addColumn('tax_credit_note_id', 'bigint', (c) => c.references('tax_credit_notes.id'))
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_minor', 'bigint', (c) => c.notNull())
    .addColumn('reduction_date', t.date, (c) => c.notNull())
    .addColumn('created_at', t.instant, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('invoice_reductions_invoice')
    .on('invoice_reductions')
    .columns(['account_id', 'invoice_id'])
    .execute();
  await db.schema
    .createIndex('invoice_reductions_source')
    .on('invoice_reductions')
    .columns(['account_id', 'source_type', 'source_id'])
    .execute();
  await db.schema
    .createIndex('invoice_reductions_date')
    .on('invoice_reductions')
    .columns(['account_id', 'reduction_date'])
    .execute();

  // How prepaid credit is taxed (docs/tax.md, "Prepaid credit"): the account's choice for credit it sells from now
  // on, when_sold (section 10(19)) or when_used (section 10(18)); each top-up and grant keeps the one it was sold
  // under. Free credit is a discount.
  await db.schema
    .alterTable('accounts')
    .addColumn('prepaid_credit_vat', 'text', (c) => c.notNull().defaultTo('when_sold'))
    .execute();
  // The basis of the VAT report: invoice (by document date) or payments (by the date money came in).
  await db.schema
    .alterTable('accounts')
    .addColumn('vat_basis', 'text', (c) => c.notNull().defaultTo('invoice'))
    .execute();
  // What customers are told (docs/tax.md, "What customers are told"): credit notes, refunds, cancellations and
  // low prepaid credit, each on by default; and whether the staff address gets a copy of those notices (off).
  for (const column of [
    'send_credit_notes',
    'send_refund_notices',
    'send_cancellation_notices',
    'send_low_balance_alerts',
  ])
    await db.schema
      .alterTable('accounts')
      .addColumn(column, t.bool, (c) => c.notNull().defaultTo(t.isPostgres ? true : 1))
      .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('copy_notices_to_staff', t.bool, (c) => c.notNull().defaultTo(t.isPostgres ? false : 0))
    .execute();
  await db.schema
    .alterTable('wallet_top_ups')
    .addColumn('vat_treatment', 'text', (c) => c.notNull().defaultTo('when_sold'))
    .execute();
  await db.schema
    .alterTable('credit_grants')
    .addColumn('vat_treatment', 'text', (c) => c.notNull().defaultTo('discount'))
    .execute();
  // Credit sold before: VAT was charged when it was sold when its invoice carried any, else it is money.
  const taxed = sql`exists (select 1 from invoice_charges c where c.invoice_id = credit_grants.top_up_invoice_id
    and c.amount_inc_minor <> c.amount_ex_minor)`;
  await db
    .updateTable('credit_grants')
    .set({ vat_treatment: sql`case when ${taxed} then 'when_sold' else 'when_used' end` })
    .where('kind', '=', 'paid')
    .execute();
  await db
    .updateTable('wallet_top_ups')
    .set({
      vat_treatment: sql`case when exists (select 1 from invoice_charges c where c.invoice_id =
        wallet_top_ups.invoice_id and c.amount_inc_minor <> c.amount_ex_minor) then 'when_sold' else 'when_used' end`,
    })
    .execute();
}
