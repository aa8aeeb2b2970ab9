import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  DECLINED_AT_VAULT,
  MERCHANT,
  complete,
  createSession,
  db,
  expectProblem,
  other,
  sessionBody,
  sha256,
  submit,
  t,
  useWidgetService,
} from './fixtures.ts';

useWidgetService();

const CREATE = '/v1/widgets/capturepaymethod/create';

/** Spec part 2, Capture session (hosted widget): every field of the resource, with our State and links. */
const FIELDS = [
  'AppId',
  'AccountID',
  'iframeCapturePayID',
  'IframeType',
  'SessionToken',
  'HashToken',
  'ExtRef',
  'CurrencyCode',
  'DateCreated',
  'Expires',
  'VaultingType',
  'SaleType',
  'isVaultOnlyOnSuccess',
  'Amount',
  'gatewayID',
  'GatewayToken',
  'AuthDomain',
  'paymentMethodID',
  'paymentMethodToken',
  'transactionID',
  'Description',
  'Html',
  'State',
  'customerID',
  'invoiceID',
  'paymentID',
  'Purpose',
  'ProviderReference',
].sort();

const countSessions = async () =>
  Number(
    (
      await db()
        .selectFrom('capture_sessions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/widgets/capturepaymethod/create', () => {
  it('answers 200 with the session, its tokens, Expires after ExpiresIn and the Html to embed', async () => {
    const session = await createSession(t, {
      SaleType: 'VaultSale',
      Amount: 30,
      Description: 'Pro plan, first month',
      ExtRef: 'order-4471',
      AuthDomain: 'https://Shop.Example.com/',
    });
    expect(Object.keys(session).sort()).toEqual(FIELDS);
    expect(session).toMatchObject({
      AccountID: t.accountId,
      IframeType: 'capturepaymethod',
      CurrencyCode: 'USD',
      DateCreated: '2026-03-15T10:00:00.000Z',
      Expires: '2026-03-15T10:30:00.000Z',
      VaultingType: 'VaultGateway',
      SaleType: 'VaultSale',
      isVaultOnlyOnSuccess: false,
      Amount: 30,
      AuthDomain: MERCHANT,
      Description: 'Pro plan, first month',
      ExtRef: 'order-4471',
      State: 'open',
      paymentMethodID: null,
      paymentMethodToken: null,
      transactionID: null,
      customerID: null,
      // A sale naming no invoice; the test gateway starts nothing at a provider.
      Purpose: 'charge',
      ProviderReference: null,
    });
    expect(session.AppId).toBeGreaterThan(0);
    // At least 128 random bits: 24 bytes of base64url after the prefix.
    expect(session.SessionToken).toMatch(/^cs_[A-Za-z0-9_-]{32}$/);
    expect(session.HashToken).toMatch(/^[0-9a-f]{64}$/);
    expect(session.Html).toContain(`data-hash-token="${session.HashToken}"`);
    expect(session.Html).toMatch(
      new RegExp(
        `<script src="${t.url}/widget/v1/capture.js" integrity="sha384-[A-Za-z0-9+/=]{64}" crossorigin="anonymous">`,
      ),
    );
  });

  it.each([{}, { Amount: 0 }])(
    'saves a verified card and charges nothing for a VaultSale with %j (the spec sample without Amount)',
    async (amount) => {
      const session = await createSession(t, { SaleType: 'VaultSale', ...amount });
      expect(session).toMatchObject({ SaleType: 'VaultSale', Amount: null, State: 'open' });
      const refused = await submit(session.HashToken, { number: DECLINED_AT_VAULT });
      expectProblem(refused, 422, 'number');
      const saved = await submit(session.HashToken);
      expect(saved.status, saved.text).toBe(200);
      expect(saved.body).toMatchObject({ type: 'card', lastFour: '4242', charged: false });
      const customer = await ok(t, 'POST', '/v1/customers', { Name: 'Vault Sale' }, 201);
      const done = await complete(t, customer.customerID, session.SessionToken);
      expect(done.status, done.text).toBeLessThan(300);
      const completed = await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
      expect(completed).toMatchObject({ State: 'completed', transactionID: null, paymentID: null });
      expect(completed.paymentMethodID).toBeGreaterThan(0);
    },
  );

  it('stores only the SHA-256 of the HashToken', async () => {
    const session = await createSession(t);
    const row = await db()
      .selectFrom('capture_sessions')
      .selectAll()
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row.hash_token_sha256).toBe(sha256(session.HashToken));
    expect(JSON.stringify(row)).not.toContain(session.HashToken);
  });

  it.each([
    [{ VaultingType: 'Vault' }, 'VaultingType'],
    [{ SaleType: 'Refund' }, 'SaleType'],
    [{ VaultingType: 'None', SaleType: 'VaultOnly' }, 'SaleType'],
    [{ SaleType: 'Sale', Amount: 5 }, 'SaleType'],
    [{ ExpiresIn: '24:00:01' }, 'ExpiresIn'],
    [{ ExpiresIn: '30 minutes' }, 'ExpiresIn'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ GatewayToken: 'no-such-gateway' }, 'GatewayToken'],
    [{ AuthDomain: 'https://*.example.com' }, 'AuthDomain'],
    [{ AuthDomain: 'https://shop.example.com/checkout' }, 'AuthDomain'],
    [{ AuthDomain: 'https://shop.example.com; frame-ancestors *' }, 'AuthDomain'],
    [{ AuthDomain: 'https://a.example.com, https://b.example.com' }, 'AuthDomain'],
    [{ AuthDomain: 'https://shop.example.com"><script>alert(1)</script>' }, 'AuthDomain'],
    [{ AuthDomain: 'http://shop.example.com' }, 'AuthDomain'],
    [{ VaultingType: 'None', SaleType: 'Sale' }, 'Amount'],
    [{ VaultingType: 'None', SaleType: 'Sale', Amount: 0 }, 'Amount'],
    [{ SaleType: 'VaultSale', Amount: 10.005 }, 'Amount'],
    [{ Amount: 10 }, 'Amount'],
    [{ isVaultOnlyOnSuccess: 'yes' }, 'isVaultOnlyOnSuccess'],
    [{ SaleType: 'VaultSale', Amount: 10, invoiceID: 999999 }, 'invoiceID'],
  ])('refuses %j naming %s, and makes nothing', async (change, field) => {
    const before = await countSessions();
    const res = await t.request('POST', CREATE, { body: await sessionBody(t, change) });
    expectProblem(res, 422, field);
    expect(await countSessions()).toBe(before);
  });

  it('refuses another account’s gateway', async () => {
    const res = await t.request('POST', CREATE, { body: await sessionBody(other) });
    expectProblem(res, 422, 'GatewayToken');
  });

  it('answers 401 without an API key', async () => {
    const res = await t.request('POST', CREATE, { auth: false, body: await sessionBody(t) });
    expect(res.status).toBe(401);
  });
});

describe('GET /v1/widgets/capturepaymethod/get and build', () => {
  it('answers 200 with the session, as create did', async () => {
    const session = await createSession(t);
    const read = await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read).toEqual(session);
  });

  it('builds the Html as a string', async () => {
    const session = await createSession(t);
    const html = await ok(t, 'GET', `/v1/widgets/capturepaymethod/build/${session.SessionToken}`);
    expect(html).toBe(session.Html);
  });

  it('answers 404 for another account’s session, and for an unknown token', async () => {
    const session = await createSession(t);
    for (const path of ['get', 'build']) {
      expectProblem(
        await other.request('GET', `/v1/widgets/capturepaymethod/${path}/${session.SessionToken}`),
        404,
      );
      expectProblem(await t.request('GET', `/v1/widgets/capturepaymethod/${path}/cs_unknown`), 404);
    }
  });
});

describe('POST create with an Idempotency-Key', () => {
  it('answers the same session again, and makes one', async () => {
    const body = await sessionBody(t, { ExtRef: 'idempotent-create' });
    const headers = { 'idempotency-key': 'create-capture-session-1' };
    const first = await t.request('POST', CREATE, { body, headers });
    const again = await t.request('POST', CREATE, { body, headers });
    expect(first.status, first.text).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const made = await db()
      .selectFrom('capture_sessions')
      .select('id')
      .where('ext_ref', '=', 'idempotent-create')
      .execute();
    expect(made).toHaveLength(1);
  });
});
