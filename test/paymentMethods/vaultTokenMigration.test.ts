import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/security/secretBox.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { databaseMigratedUpTo, insertRow } from '../helpers/migrations.ts';

// docs/gateways.md, "Provider tokens are sealed"; docs/spec-decisions.md, "Payment-method tokens": migration 0067
// seals the vault tokens stored before it, gives cards a token of our own, and shows that one in the events and
// audit entries written so far. Rows are written as they were under migration 0066, then 0067 is applied, on both
// dialects.

const NOW = '2026-11-29T10:00:00.000Z';
const box = createSecretBox(crypto.randomBytes(32));
const authorization = (code: string) =>
  `paystack1.${Buffer.from(JSON.stringify({ a: code, e: 'thandi@example.co.za' })).toString('base64url')}`;
const KEPT = authorization('AUTH_kept000001');
const CAPTURED = authorization('AUTH_captured02');
const CHALLENGED = 'tok_test_challenged000000000000';
const CHARGED = authorization('AUTH_charged003');
const BANK_TOKEN = 'pm_00112233445566778899aabb';

let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
let db: Kysely<any>;
type Ids = 'account' | 'customer' | 'gateway' | 'kept' | 'charged' | 'bank' | 'completed' | 'captured';
const ids = {} as Record<Ids | 'challenging' | 'invoice' | 'attempt' | 'call', number>;
const insert = (table: string, values: Record<string, unknown>) => insertRow(db, table, values);

function sessionRow(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    account_id: ids.account,
    session_token: `cs_${crypto.randomBytes(8).toString('hex')}`,
    hash_token_sha256: crypto.randomBytes(32).toString('hex'),
    currency_code: 'ZAR',
    vaulting_type: 'VaultGateway',
    sale_type: 'VaultOnly',
    vault_only_on_success: true,
    gateway_id: ids.gateway,
    auth_domain: 'https://shop.example.com',
    method_type: 'credit_card',
    last_four: '4081',
    created_at: NOW,
    expires_at: NOW,
    updated_at: NOW,
    ...fields,
  };
}

async function insertEvent(id: string, resourceType: string, resourceId: number, object: unknown) {
  await db
    .insertInto('events')
    .values({
      id,
      account_id: ids.account,
      type: `${resourceType}.updated`,
      occurred_at: NOW,
      recorded_at: NOW,
      resource_type: resourceType,
      resource_id: String(resourceId),
      resource_version: 1,
      payload: JSON.stringify({ type: `${resourceType}.updated`, data: { object } }),
    })
    .execute();
  await db
    .insertInto('audit_log')
    .values({
      account_id: ids.account,
      recorded_at: NOW,
      actor_type: 'api_key',
      operation: 'update',
      event_id: id,
      event_type: `${resourceType}.updated`,
      resource_type: resourceType,
      resource_id: String(resourceId),
      before: null,
      after: JSON.stringify(object),
    })
    .execute();
}

beforeAll(async () => {
  database = await databaseMigratedUpTo('0066_debicheck_batches');
  db = database.db;
  ids.account = await insert('accounts', {
    name: 'Before 0067',
    time_zone: 'UTC',
    currency_code: 'ZAR',
    created_at: NOW,
  });
  await db
    .insertInto('account_currencies')
    .values({ account_id: ids.account, currency_code: 'ZAR', created_at: NOW })
    .execute();
  ids.customer = await insert('customers', {
    account_id: ids.account,
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
  ids.gateway = await insert('gateways', {
    account_id: ids.account,
    gateway_token: crypto.randomUUID(),
    gateway_name: 'Paystack',
    friendly_name: 'Paystack',
    gateway_type: 'paystack',
    is_active: true,
    is_test_mode: true,
    is_accept_cc: true,
    is_accept_bank_dd: false,
    is_enabled: true,
    is_primary: true,
    is_manual_recon: false,
    created_at: NOW,
  });
  const card = (token: string, isPrimary: boolean) => ({
    account_id: ids.account,
    customer_id: ids.customer,
    gateway_id: ids.gateway,
    method_type: 'credit_card',
    token,
    is_primary: isPrimary,
    is_valid: true,
    last_four: '4081',
    card_type: 'Visa',
    name_on_card: 'Thandi',
    last_name_on_card: 'Nkosi',
    expiry_month: 12,
    expiry_year: 2034,
    created_at: NOW,
    updated_at: NOW,
  });
  ids.kept = await insert('payment_methods', card(KEPT, true));
  ids.charged = await insert('payment_methods', card(CHARGED, false));
  ids.bank = await insert('payment_methods', {
    account_id: ids.account,
    customer_id: ids.customer,
    method_type: 'bank_account',
    token: BANK_TOKEN,
    is_primary: false,
    is_valid: false,
    last_four: '9876',
    account_holder: 'T Nkosi',
    bank: 'A bank',
    created_at: NOW,
    updated_at: NOW,
  });
  ids.completed = await insert(
    'capture_sessions',
    sessionRow({
      state: 'completed',
      method_token: KEPT,
      payment_method_id: ids.kept,
      customer_id: ids.customer,
    }),
  );
  ids.captured = await insert('capture_sessions', sessionRow({ state: 'captured', method_token: CAPTURED }));
  ids.challenging = await insert(
    'capture_sessions',
    sessionRow({ state: 'challenging', method_token: CHALLENGED, challenge_id: 'c'.repeat(32) }),
  );
  ids.invoice = await insert('invoices', {
    account_id: ids.account,
    customer_id: ids.customer,
    currency_code: 'ZAR',
    invoice_date: '2026-11-29',
    due_date: '2026-11-29',
    is_draft: false,
    is_cancelled: false,
    source: 'Auto',
    total_minor: 9900,
    created_at: NOW,
    updated_at: NOW,
  });
  ids.attempt = await insert('collection_attempts', {
    account_id: ids.account,
    invoice_id: ids.invoice,
    customer_id: ids.customer,
    attempt_no: 1,
    idempotency_key: `inv_${ids.invoice}_try_1`,
    gateway_id: ids.gateway,
    payment_method_id: ids.charged,
    token: CHARGED,
    amount_minor: 9900,
    currency_code: 'ZAR',
    state: 'started',
    started_at: NOW,
    leased_at: NOW,
  });
  ids.call = await insert('gateway_calls', {
    account_id: ids.account,
    gateway_id: ids.gateway,
    operation: 'vault_card',
    request: JSON.stringify({ lastFour: '4081' }),
    outcome: 'ok',
    result: JSON.stringify({ outcome: 'ok', token: KEPT }),
    started_at: NOW,
    duration_ms: 12,
  });
  await insertEvent('evt_0001', 'capture_session', ids.completed, {
    iframeCapturePayID: ids.completed,
    paymentMethodToken: KEPT,
    paymentMethodID: ids.kept,
  });
  await insertEvent('evt_0002', 'capture_session', ids.captured, {
    iframeCapturePayID: ids.captured,
    paymentMethodToken: CAPTURED,
    paymentMethodID: null,
  });
  await insertEvent('evt_0003', 'customer', ids.customer, {
    customerID: ids.customer,
    PrimaryPaymentMethodInfo: { paymentMethodID: ids.kept, Token: KEPT },
  });
  // A method deleted since: its token names nothing any more.
  await insertEvent('evt_0004', 'customer', ids.customer, {
    customerID: ids.customer,
    PrimaryPaymentMethodInfo: { paymentMethodID: 999, Token: authorization('AUTH_deleted04') },
  });
});
afterAll(() => database?.close());

describe('migration 0067', () => {
  it('stops, naming the key, when there are tokens to seal and no key was given', async () => {
    await expect(migrateUpTo(database.storage.db, '0067_sealed_provider_tokens')).rejects.toThrow(
      /encryption key/,
    );
  });

  it('seals the vault tokens, gives cards tokens of our own and shows those in events and audit entries', async () => {
    expect(
      await migrateUpTo(database.storage.db, '0067_sealed_provider_tokens', { sealer: () => box }),
    ).toContain('0067_sealed_provider_tokens');

    const methods = await db
      .selectFrom('payment_methods')
      .select(['id', 'token', 'vault_token_sealed'])
      .orderBy('id')
      .execute();
    const method = (id: number) => methods.find((row) => Number(row.id) === id)!;
    for (const [id, vaultToken] of [
      [ids.kept, KEPT],
      [ids.charged, CHARGED],
    ] as const) {
      expect(method(id).token).toMatch(/^pm_[0-9a-f]{24}$/);
      expect(box.open(method(id).vault_token_sealed)).toBe(vaultToken);
    }
    expect(method(ids.kept).token).not.toBe(method(ids.charged).token);
    // A bank account's token was ours already: unchanged, nothing sealed.
    expect(method(ids.bank)).toMatchObject({ token: BANK_TOKEN, vault_token_sealed: null });

    const sessions = await db
      .selectFrom('capture_sessions')
      .select(['id', 'method_token', 'method_vault_token_sealed'])
      .execute();
    const session = (id: number) => sessions.find((row) => Number(row.id) === id)!;
    // The completed session shows its payment method's token; the captured one a token of its own.
    expect(session(ids.completed).method_token).toBe(method(ids.kept).token);
    expect(box.open(session(ids.completed).method_vault_token_sealed)).toBe(KEPT);
    expect(session(ids.captured).method_token).toMatch(/^pm_[0-9a-f]{24}$/);
    expect(box.open(session(ids.captured).method_vault_token_sealed)).toBe(CAPTURED);
    // One waiting on its challenge shows none yet, as the service leaves it from now on.
    expect(session(ids.challenging).method_token).toBeNull();
    expect(box.open(session(ids.challenging).method_vault_token_sealed)).toBe(CHALLENGED);

    const attempt = await db
      .selectFrom('collection_attempts')
      .select('token_sealed')
      .where('id', '=', ids.attempt)
      .executeTakeFirstOrThrow();
    expect(box.open(attempt.token_sealed)).toBe(CHARGED);

    const call = await db
      .selectFrom('gateway_calls')
      .select('result')
      .where('id', '=', ids.call)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(call.result)).toEqual({ outcome: 'ok', token: '[kept]' });

    const events = await db.selectFrom('events').select(['id', 'payload']).orderBy('id').execute();
    expect(events.map((event) => JSON.parse(event.payload).data.object)).toEqual([
      {
        iframeCapturePayID: ids.completed,
        paymentMethodToken: method(ids.kept).token,
        paymentMethodID: ids.kept,
      },
      {
        iframeCapturePayID: ids.captured,
        paymentMethodToken: session(ids.captured).method_token,
        paymentMethodID: null,
      },
      {
        customerID: ids.customer,
        PrimaryPaymentMethodInfo: { paymentMethodID: ids.kept, Token: method(ids.kept).token },
      },
      { customerID: ids.customer, PrimaryPaymentMethodInfo: { paymentMethodID: 999, Token: null } },
    ]);
    const audit = await db.selectFrom('audit_log').select(['after']).orderBy('id').execute();
    expect(audit.map((entry) => JSON.parse(entry.after))).toEqual(
      events.map((event) => JSON.parse(event.payload).data.object),
    );

    // Nothing of a vault token is left in clear anywhere.
    const everything = JSON.stringify(
      await Promise.all(
        [
          'payment_methods',
          'capture_sessions',
          'collection_attempts',
          'gateway_calls',
          'events',
          'audit_log',
        ].map((table) => db.selectFrom(table).selectAll().execute()),
      ),
    );
    for (const secret of ['AUTH_', 'paystack1.', CHALLENGED]) expect(everything).not.toContain(secret);
  });
});
