import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import {
  addGateway,
  findPrimaryGateway,
  setGatewayEnabled,
  setPrimaryGateway,
} from '../../src/modules/gateways/index.ts';
import { ConflictError, ValidationError } from '../../src/errors.ts';
import { migrateUpTo } from '../../src/storage/migrate.ts';
import { addCard } from '../collections/cards.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { databaseMigratedUpTo, insertAccount, insertRow } from '../helpers/migrations.ts';
import { STAGING } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { queuedMail } from '../helpers/outside.ts';

// docs/gateways.md, "Live means live": a live account never collects through the built-in test gateway, which
// moves no money. The service runs as a live deployment does (TEST_GATEWAY_ON_LIVE_ACCOUNTS off).

const t = useTestService({ env: { TEST_GATEWAY_ON_LIVE_ACCOUNTS: 'false' } });

const WORDS =
  'is the built-in test gateway, which moves no money: a live account collects through a live gateway ' +
  '(add one: billing gateway add; docs/going-live.md), or try things out on a test account';

describe('a live account and the test gateway', () => {
  it("starts with it disabled and not primary; a test account's is its usable primary", async () => {
    const [live] = await ok(t, 'GET', '/v1/gateways');
    expect(live).toMatchObject({ GatewayType: 'test', isEnabled: false, isPrimary: false, isTestMode: true });
    expect(await findPrimaryGateway(await accountContext(t, t.accountId))).toBeUndefined();

    const sandbox = await t.newAccount('Sandbox', { isTest: true });
    const [test] = await ok(sandbox, 'GET', '/v1/gateways');
    expect(test).toMatchObject({ GatewayType: 'test', isEnabled: true, isPrimary: true });
  });

  it('cannot enable it, make it primary or add another, and each refusal says what to do', async () => {
    const ctx = await accountContext(t, t.accountId);
    const [gateway] = await ok(t, 'GET', '/v1/gateways');
    for (const change of [
      () => setGatewayEnabled(ctx, gateway.gatewayID, true),
      () => setPrimaryGateway(ctx, gateway.gatewayID),
    ]) {
      const refused = await change().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused).toMatchObject({
        code: 'test_gateway_on_live_account',
        message: `Gateway ${gateway.gatewayID} ${WORDS}`,
      });
    }
    const added = await addGateway(ctx, { type: 'test', friendlyName: 'Another' }).catch((e: unknown) => e);
    expect(added).toBeInstanceOf(ValidationError);
    expect((added as ValidationError).fields.map((f) => f.field)).toEqual(['GatewayType']);
    expect(await ok(t, 'GET', '/v1/gateways')).toEqual([gateway]);
    // Disabling it stays allowed: it changes nothing that moves money.
    expect(await setGatewayEnabled(ctx, gateway.gatewayID, false)).toMatchObject({ isEnabled: false });
  });

  it('keeps no card until a live gateway is added, saying so', async () => {
    const customerId = await createCustomer(t);
    const res = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: {
        customerID: customerId,
        isPrimary: true,
        CreditCard: {
          CardType: 'Visa',
          Number: '4242424242424242',
          NameOnCard: 'Ada',
          LastNameOnCard: 'Lovelace',
          ExpiryMonth: 12,
          ExpiryYear: 2040,
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code, res.text).toBe('no_card_gateway');
    expect(res.body.fields).toEqual([
      {
        field: 'CreditCard',
        message:
          'cannot be kept: the customer has no PrimaryGatewayID and the account has no usable primary gateway ' +
          '(a live account collects through a live gateway: billing gateway add; docs/going-live.md)',
      },
    ]);
  });

  it('holds the collections of a test gateway switched off (as on upgrade) and tells the staff, not the customer', async () => {
    // Collected through the test gateway while a staging deployment allowed it; then switched off, as migration
    // 0056 switches off every live account's.
    const shop = await t.newAccount('Went live', { timeZone: 'UTC', ...STAGING });
    await ok(shop, 'PUT', '/v1/account', { StaffEmail: 'staff@example.com' }, 204);
    const [gateway] = await ok(shop, 'GET', '/v1/gateways');
    const customerId = await createCustomer(shop, { PaymentMethod: 'credit_card' });
    await addCard(shop, customerId, '4242424242424242');
    const ctx = await accountContext(t, shop.accountId);
    await setGatewayEnabled(ctx, gateway.gatewayID, false);
    const today = new Date().toISOString().slice(0, 10);
    const invoice = await ok(shop, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: today,
      DueDate: today,
      Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 100 }],
    });

    for (let run = 0; run < 2; run++) await collectDueInvoices(ctx, { staleAfterMs: 0 });

    expect(await ok(shop, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Balance: 100,
      CollectionProblem: `gateway ${gateway.gatewayID} ${WORDS}`,
    });
    expect(await ok(shop, 'GET', `/v1/customers/${customerId}/payments`)).toEqual([]);
    const mails = await queuedMail(t, shop);
    expect(mails.filter((mail) => mail.recipient === 'staff@example.com')).toMatchObject([
      {
        recipient: 'staff@example.com',
        subject: `Invoice ${invoice.invoiceNum} cannot be collected: the account's gateway`,
      },
    ]);
    expect(mails.filter((mail) => mail.subject.includes('we need a payment method'))).toEqual([]);
  });
});

describe('migration 0056', () => {
  let database: Awaited<ReturnType<typeof databaseMigratedUpTo>>;
  beforeAll(async () => {
    database = await databaseMigratedUpTo('0055_tax_documents');
  });
  afterAll(async () => {
    await database?.close();
  });

  it("switches off every live account's test gateway, and nothing else", async () => {
    const db = database.db;
    const live = await insertAccount(db, 'Live');
    const test = await insertAccount(db, 'Test');
    await db.updateTable('accounts').set({ is_test: true }).where('id', '=', test).execute();
    const gateway = (accountId: number, type: string, primary: boolean) =>
      insertRow(db, 'gateways', {
        account_id: accountId,
        gateway_token: `${accountId}-${type}`,
        gateway_name: type,
        friendly_name: type,
        gateway_type: type,
        is_active: true,
        is_test_mode: type === 'test',
        is_accept_cc: true,
        is_accept_bank_dd: true,
        is_enabled: true,
        is_primary: primary,
        is_manual_recon: false,
        created_at: '2026-03-01T00:00:00.000Z',
      });
    const liveTest = await gateway(live, 'test', true);
    const liveManual = await gateway(live, 'manual', false);
    const testTest = await gateway(test, 'test', true);

    await migrateUpTo(database.storage.db, '0056_live_accounts_test_gateway');

    const rows = await db
      .selectFrom('gateways')
      .select(['id', 'is_enabled', 'is_primary'])
      .orderBy('id')
      .execute();
    expect(rows.map((row) => [row.id, Boolean(row.is_enabled), Boolean(row.is_primary)])).toEqual([
      [liveTest, false, false],
      [liveManual, true, false],
      [testTest, true, true],
    ]);
  });
});
