import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertRow } from '../helpers/migrations.ts';
import { tokenDigest } from './fixtures.ts';

// docs/spec-decisions.md, "eMandate tokens at rest": migration 0022 keeps only the SHA-256 of the tokens stored
// before it, takes them out of the events and audit entries written so far, and ends the bank accounts' copy.
// Rows are written as they were under migration 0021, then the rest is applied, on both dialects.

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let db: Kysely<any>;

const NOW = '2026-11-22T10:00:00.000Z';
const TOKEN = 'a1'.repeat(32);
const OTHER_TOKEN = 'b2'.repeat(32);

let accountId: number;
let mandateId: number;
let debitMethodId: number;
let sepaMethodId: number;

const insert = (table: string, values: Record<string, unknown>) => insertRow(db, table, values);

function mandateRow(token: string, contractRef: string): Record<string, unknown> {
  return {
    account_id: accountId,
    token,
    flow: 'redirect',
    status: 'signed',
    name: 'Thandi',
    last_name: 'Nkosi',
    bank_debit_method: 'debit_order',
    bank_name: 'First National Bank',
    bank_branch_code: '250655',
    bank_acc_holder: 'T Nkosi',
    bank_acc_number_sealed: 'v1:sealed',
    bank_last_four: '9876',
    bank_account_type: 'Cheque',
    currency_code: 'ZAR',
    debit_frequency: 'Monthly',
    debit_action_day: 25,
    debit_start_date: '2026-12-01',
    debit_amt_minor: 29_999,
    debit_max_amt_minor: 44_998,
    debit_name_on_stmt: 'NORTHWIND',
    debit_contract_ref: contractRef,
    debit_variable_amts: false,
    is_customer_editable: false,
    is_company_signee: false,
    expires_at: NOW,
    signed_at: NOW,
    created_at: NOW,
    updated_at: NOW,
  };
}

function bankAccountRow(customerId: number, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    account_id: accountId,
    customer_id: customerId,
    method_type: 'bank_account',
    token: `pm_${Object.keys(fields).length}_${Math.random().toString(16).slice(2)}`,
    is_primary: false,
    is_valid: true,
    last_four: '9876',
    account_holder: 'T Nkosi',
    bank: 'A bank',
    created_at: NOW,
    updated_at: NOW,
    ...fields,
  };
}

async function insertEvent(id: string, resourceType: string, resourceId: number, object: unknown) {
  const payload = JSON.stringify({ object, previous: { Status: 'pending_signature' } });
  await db
    .insertInto('events')
    .values({
      id,
      account_id: accountId,
      type: `${resourceType}.updated`,
      occurred_at: NOW,
      recorded_at: NOW,
      resource_type: resourceType,
      resource_id: String(resourceId),
      resource_version: 1,
      payload,
    })
    .execute();
  await db
    .insertInto('audit_log')
    .values({
      account_id: accountId,
      recorded_at: NOW,
      actor_type: 'api_key',
      operation: 'update',
      event_id: id,
      event_type: `${resourceType}.updated`,
      resource_type: resourceType,
      resource_id: String(resourceId),
      before: JSON.stringify(object),
      after: JSON.stringify(object),
    })
    .execute();
}

beforeAll(async () => {
  database = await databaseMigratedUpTo('0021_emandate_cancel');
  db = database.db;

  accountId = await insert('accounts', {
    name: 'Before 0022',
    time_zone: 'UTC',
    currency_code: 'ZAR',
    created_at: NOW,
  });
  await db
    .insertInto('account_currencies')
    .values({ account_id: accountId, currency_code: 'ZAR', created_at: NOW })
    .execute();
  const customerId = await insert('customers', {
    account_id: accountId,
    name: 'Thandi',
    currency_code: 'ZAR',
    is_company: false,
    is_active: true,
    is_suspended: false,
    is_waive_taxes: false,
    auto_send_invoice: false,
    auto_send_statement: false,
    created_at: NOW,
    updated_at: NOW,
  });
  mandateId = await insert('emandates', mandateRow(TOKEN, 'CTR-1'));
  await insert('emandates', mandateRow(OTHER_TOKEN, 'CTR-2'));
  debitMethodId = await insert(
    'payment_methods',
    bankAccountRow(customerId, { debit_method: 'debit_order', branch_code: '250655', emandate_token: TOKEN }),
  );
  await db
    .updateTable('emandates')
    .set({ payment_method_id: debitMethodId })
    .where('id', '=', mandateId)
    .execute();
  // Before tokens had to name a signed mandate: free text, which a SEPA account was collected under.
  sepaMethodId = await insert(
    'payment_methods',
    bankAccountRow(customerId, {
      debit_method: 'sepa',
      bic: 'COBADEFFXXX',
      emandate_token: 'MANDATE-2019-7',
    }),
  );
  await insertEvent('evt_0001', 'emandate', mandateId, {
    Token: TOKEN,
    Status: 'signed',
    bank_AccNumber: '••••9876',
  });
  await insertEvent('evt_0002', 'payment_method', debitMethodId, {
    Token: 'pm_kept',
    BankAccount: { EMandateToken: TOKEN, LastFourDigits: '9876' },
  });

  expect(await migrateUpTo(database.storage.db, '0022_emandate_token_digest')).toEqual([
    '0022_emandate_token_digest',
  ]);
});
afterAll(async () => {
  await database?.close();
});

describe('migration 0022', () => {
  it('keeps only the SHA-256 of each stored token, with no seed to derive it again', async () => {
    const rows = await db.selectFrom('emandates').selectAll().orderBy('id').execute();
    expect(rows.map((row) => [row.token_sha256, row.token_seed])).toEqual([
      [tokenDigest(TOKEN), null],
      [tokenDigest(OTHER_TOKEN), null],
    ]);
    for (const row of rows) expect(Object.keys(row)).not.toContain('token');
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });

  it('takes the tokens out of the events and audit entries, and nothing else', async () => {
    const events = await db.selectFrom('events').select(['id', 'payload']).orderBy('id').execute();
    expect(events.map((event) => JSON.parse(event.payload))).toEqual([
      {
        object: { Token: null, Status: 'signed', bank_AccNumber: '••••9876' },
        previous: { Status: 'pending_signature' },
      },
      {
        object: { Token: 'pm_kept', BankAccount: { EMandateToken: null, LastFourDigits: '9876' } },
        previous: { Status: 'pending_signature' },
      },
    ]);
    const audit = await db.selectFrom('audit_log').select(['before', 'after']).orderBy('id').execute();
    expect(JSON.stringify(audit)).not.toContain(TOKEN);
    expect(JSON.parse(audit[1]!.after)).toEqual({
      Token: 'pm_kept',
      BankAccount: { EMandateToken: null, LastFourDigits: '9876' },
    });
  });

  it("drops the bank accounts' tokens, keeping the link on the mandate and a SEPA account's free text", async () => {
    const methods = await db
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', 'in', [debitMethodId, sepaMethodId])
      .orderBy('id')
      .execute();
    for (const method of methods) expect(Object.keys(method)).not.toContain('emandate_token');
    expect(methods.map((method) => method.mandate_reference)).toEqual([null, 'MANDATE-2019-7']);
    const mandate = await db
      .selectFrom('emandates')
      .select('payment_method_id')
      .where('id', '=', mandateId)
      .executeTakeFirstOrThrow();
    expect(Number(mandate.payment_method_id)).toBe(debitMethodId);
  });
});
