import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkDeployment } from '../../src/cli/doctor.ts';
import { systemClock } from '../../src/clock.ts';
import { runBilling } from '../../src/billing/billRun.ts';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { ACCEPTED_PNGS, craftPng } from '../auth/logo.fixtures.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { PAYSTACK_TEST_CARDS, PaystackSimulator } from '../providers/paystackSimulator.ts';
import { providerSession } from '../providers/providerAccount.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// Going live (docs/going-live.md): a live account made from a test account with a full catalogue has the same
// catalogue, settings and logo, none of its customers, and bills and collects through Paystack's simulator once a
// live Paystack gateway is added to it.

const clock = movableClock('2026-03-02T08:00:00.000Z');
const sim = await PaystackSimulator.start('sk_live_paystacksimulator000000000000000', clock);
const PUBLIC_KEY = 'pk_live_paystacksimulator000000000000000';

let test: TestAccount;
let plan: { packageId: number; rateTermId: number };
let logo: Buffer;

/** The reads that show an account's catalogue, settings and what it has of its own. */
const CATALOGUE_READS = [
  '/v1/currencies',
  '/v1/tax?page_size=200',
  '/v1/billable-metrics?page_size=200',
  '/v1/packagegroups?page_size=200',
  '/v1/packages?page_size=200',
  '/v1/components?page_size=200',
  '/v1/features?page_size=200',
  '/v1/coupons?page_size=200',
];

/**
 * An answer with every id, audit time and count of what customers did (subscriptions, redemptions) left out, so
 * that two accounts' copies compare: ids are the database's, and what a copy points at is checked apart (a
 * package's features, a coupon's packages).
 */
function withoutIdsAndDates(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIdsAndDates);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/(ID|IDs|Date|At|SubscriptionCount|RedemptionCount)$/.test(key))
      .map(([key, inner]) => [key, withoutIdsAndDates(inner)]),
  );
}

async function catalogueOf(as: TestAccount) {
  const answers: Record<string, unknown> = {};
  for (const path of CATALOGUE_READS) answers[path] = withoutIdsAndDates(await ok(as, 'GET', path));
  return answers;
}

/** A live account as the API reaches it, from the key a go-live answered with. */
function accountOf(accountId: number, apiKey: string): TestAccount {
  return {
    accountId,
    apiKey,
    request: (method, path, options = {}) =>
      t.request(method, path, { auth: { accountId, apiKey }, ...options }),
  };
}

const t = useTestService({ clock, providerFetch: sim.fetch });
beforeAll(async () => {
  test = await t.newAccount('Karoo Fibre', { isTest: true, currencyCode: 'ZAR' });
  await ok(test, 'POST', '/v1/currencies', { CurrencyCode: 'USD' });
  await ok(test, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15, countryID: 710 }] });
  await ok(test, 'POST', '/v1/billable-metrics', {
    Code: 'api_calls',
    Name: 'API calls',
    Aggregation: 'count',
  });
  plan = await createPlan(test, { chargePrice: 114.8, currency: 'ZAR' });
  const group = await ok(test, 'POST', '/v1/packagegroups', { GroupName: 'Usage' });
  const component = await ok(test, 'POST', '/v1/components', {
    ComponentCode: 'CALLS',
    Name: 'API calls',
    Type: 'metered',
    Scheme: 'unit',
    UnitName: 'per call',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    isActive: true,
    MetricCode: 'api_calls',
    ComponentVersion: {
      VersionName: 'Launch',
      ComponentVersionCurrencies: [
        { CurrencyCode: 'ZAR', ComponentBracketPrices: [{ Price: 0.05, QtyFrom: 1, QtyTill: null }] },
      ],
    },
  });
  await ok(test, 'POST', '/v1/features', { Code: 'seats', Name: 'Seats', Type: 'config' });
  await ok(test, 'PUT', `/v1/packages/${plan.packageId}/features/seats`, { Value: '5' }, 200);
  await ok(test, 'POST', '/v1/coupons', {
    Code: 'LAUNCH',
    Name: 'Launch',
    Duration: 'once',
    PercentOff: 10,
    AppliesTo: { PackageIDs: [plan.packageId], ComponentIDs: [component.componentID] },
  });
  const stay = await ok(test, 'POST', '/v1/coupons', {
    Code: 'STAY50',
    Name: 'Stay with us',
    Duration: 'once',
    PercentOff: 50,
    IsRetention: true,
  });
  await ok(
    test,
    'PUT',
    '/v1/account/retention',
    {
      Reasons: [
        {
          Code: 'too_expensive',
          Label: 'It costs too much',
          Offers: [
            { Kind: 'coupon', couponID: stay.couponID },
            { Kind: 'package', packageID: plan.packageId, packageRateTermID: plan.rateTermId },
          ],
        },
        { Code: 'other', Label: 'Another reason' },
      ],
    },
    200,
  );
  logo = craftPng(ACCEPTED_PNGS['greyscale 8-bit']!);
  await ok(test, 'PUT', '/v1/account', {
    LegalName: 'Karoo Fibre (Pty) Ltd',
    TaxNumber: '4123456789',
    ContactEmail: 'accounts@karoo.example',
    InvoiceDueDays: 14,
    PortalSwitchPackageIDs: [plan.packageId],
    Logo: logo.toString('base64'),
  });
  // The test account's customer, redeeming the coupon: none of it goes live.
  const customerId = await createCustomer(test, { Name: 'Tess', Email: 'tess@example.co.za' });
  const subscription = await subscribe(test, customerId, plan);
  await ok(test, 'POST', `/v1/subscriptions/${subscription.subscriptionID}/coupons`, { Code: 'LAUNCH' });
  await ok(test, 'POST', '/v1/webhookendpoints', {
    Url: 'https://hooks.karoo.example/billing',
    EnabledEvents: ['invoice.paid'],
  });
});

/** The live account made through the API, and the answer that made it. */
let live: TestAccount;
let made: any;

describe('POST /v1/account/golive', () => {
  it("makes a live account with the test account's catalogue, settings and logo, and no customers", async () => {
    made = await ok(test, 'POST', '/v1/account/golive', { Name: 'Karoo Fibre' });
    live = accountOf(made.liveAccountID, made.ApiKey);
    expect(made).toMatchObject({
      testAccountID: test.accountId,
      Copied: {
        Currencies: 2,
        TaxSettings: 1,
        BillableMetrics: 1,
        PackageGroups: 2,
        Packages: 1,
        Components: 1,
        Features: 1,
        Coupons: 2,
      },
    });
    expect(await catalogueOf(live)).toEqual(await catalogueOf(test));

    const [livePackage] = await ok(live, 'GET', '/v1/packages');
    expect(await ok(live, 'GET', `/v1/packages/${livePackage.packageID}/features`)).toMatchObject([
      { FeatureCode: 'seats', packageID: livePackage.packageID, Value: '5' },
    ]);
    const [liveCoupon, liveStay] = await ok(live, 'GET', '/v1/coupons');
    const [liveComponent] = await ok(live, 'GET', '/v1/components');
    // The cancel reasons' offers name the live account's copies of the coupon and the package's rate term.
    const liveTerm = (await ok(live, 'GET', `/v1/packages/${livePackage.packageID}`)).PackageVersions[0]
      .packageVersionRates[0].PackageRateTerms[0];
    expect((await ok(live, 'GET', '/v1/account/retention')).Reasons[0].Offers).toEqual([
      { Kind: 'coupon', couponID: liveStay.couponID, packageID: null, packageRateTermID: null },
      {
        Kind: 'package',
        couponID: null,
        packageID: livePackage.packageID,
        packageRateTermID: liveTerm.packageRateTermID,
      },
    ]);
    expect(liveStay).toMatchObject({ Code: 'STAY50', IsRetention: true });
    expect(liveCoupon).toMatchObject({
      AppliesTo: { PackageIDs: [livePackage.packageID], ComponentIDs: [liveComponent.componentID] },
      RedemptionCount: 0,
    });

    const account = await ok(live, 'GET', '/v1/account');
    expect(account).toMatchObject({
      Name: 'Karoo Fibre',
      isTest: false,
      LegalName: 'Karoo Fibre (Pty) Ltd',
      TaxNumber: '4123456789',
      InvoiceDueDays: 14,
      PortalSwitchPackageIDs: [livePackage.packageID],
    });
    expect(Buffer.from(await (await fetch(`${t.url}/v1/account/logo`, authOf(live))).arrayBuffer())).toEqual(
      logo,
    );

    expect(await ok(live, 'GET', '/v1/customers')).toEqual([]);
    expect(await ok(live, 'GET', '/v1/invoices')).toEqual([]);
    expect(await ok(live, 'GET', '/v1/webhookendpoints')).toEqual([
      expect.objectContaining({
        Url: 'https://hooks.karoo.example/billing',
        EnabledEvents: ['invoice.paid'],
        Status: 'disabled',
        DisabledReason: expect.stringContaining(`copied from test account ${test.accountId}`),
      }),
    ]);
    expect(made.WebhookEndpoints).toEqual([
      {
        webhookEndpointID: expect.any(Number),
        Url: 'https://hooks.karoo.example/billing',
        Secret: expect.any(String),
      },
    ]);
    expect(made.ToDo.join('\n')).toMatch(/billing gateway add --account \d+/);
  });

  it('refuses a second go-live naming the live account, a live account, and a blank name; copies no other account', async () => {
    const again = await test.request('POST', '/v1/account/golive', { body: {} });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('account_already_live');
    expect(again.body.detail).toContain(`as account ${made.liveAccountID}`);

    const fromLive = await live.request('POST', '/v1/account/golive', { body: {} });
    expect(fromLive.status).toBe(403);
    expect(fromLive.body.code).toBe('not_a_test_account');

    const other = await t.newAccount('Blank', { isTest: true });
    const blank = await other.request('POST', '/v1/account/golive', { body: { Name: ' ' } });
    expect(blank.status).toBe(422);
    expect(blank.body.fields).toEqual([{ field: 'Name', message: 'must not be blank' }]);
    // Another test account's go-live copies its own rows only: none of Karoo Fibre's catalogue.
    const otherLive = await ok(other, 'POST', '/v1/account/golive', {});
    expect(otherLive.Copied).toEqual({
      Currencies: 1,
      TaxSettings: 0,
      BillableMetrics: 0,
      PackageGroups: 0,
      Packages: 0,
      Components: 0,
      Features: 0,
      Coupons: 0,
    });
    const otherAccount = accountOf(otherLive.liveAccountID, otherLive.ApiKey);
    expect(await ok(otherAccount, 'GET', '/v1/packages')).toEqual([]);
    expect(await ok(otherAccount, 'GET', '/v1/webhookendpoints')).toEqual([]);
  });

  it('bills and collects through Paystack on the live account once a live Paystack gateway is added', async () => {
    const ctx = { ...(await accountContext(t, live.accountId, clock)), providerFetch: sim.fetch };
    // Its built-in test gateway refuses, whatever this staging-like service allows (docs/gateways.md).
    const [testGateway] = await ok(live, 'GET', '/v1/gateways');
    expect(testGateway).toMatchObject({ GatewayType: 'test', isEnabled: false, isPrimary: false });
    await expect(setGatewayEnabled(ctx, testGateway.gatewayID, true)).rejects.toMatchObject({
      code: 'test_gateway_on_live_account',
    });
    const gateway = await addGateway(ctx, {
      type: 'paystack',
      friendlyName: 'Paystack',
      isPrimary: true,
      settings: { secretKey: sim.secretKey, publicKey: PUBLIC_KEY },
    });
    expect(gateway.isTestMode).toBe(false);
    const customer = await ok(live, 'POST', '/v1/customers', {
      Name: 'Ada',
      Email: 'ada@example.co.za',
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: gateway.id,
    });
    const session = await providerSession(live, gateway.token, 'ZAR');
    const frame = (step: string, body = {}) =>
      t.request('POST', `/widget/capture/${session.HashToken}/provider/${step}`, { auth: false, body });
    const started = await frame('start', { email: 'ada@example.co.za' });
    expect(started.status, started.text).toBe(200);
    sim.payWithCard(started.body.confirm.accessCode, {
      ...PAYSTACK_TEST_CARDS.success,
      expiryMonth: 12,
      expiryYear: 2034,
    });
    expect((await frame('complete')).status).toBe(200);
    await ok(live, 'PUT', '/v1/widgets/capturepaymethod/complete', {
      customerID: customer.customerID,
      SessionToken: session.SessionToken,
    });

    const [livePackage] = await ok(live, 'GET', '/v1/packages');
    const term = livePackage.PackageVersions[0].packageVersionRates[0].PackageRateTerms[0];
    await subscribe(live, customer.customerID, {
      packageId: livePackage.packageID,
      rateTermId: term.packageRateTermID,
    });
    // The copied InvoiceDueDays (14) sets when the card is charged: on the due date.
    clock.set('2026-03-16T08:00:00.000Z');
    const summary = await runBilling(
      {
        ports: modulePorts(),
        db: t.service.storage.db,
        clock,
        wallClock: systemClock,
        log: t.service.log,
        secrets: t.service.secrets,
        mailQueued: () => {},
        providerFetch: sim.fetch,
      },
      { accountId: live.accountId },
    );
    expect(summary.collected).toBe(1);
    const [invoice] = await invoicesOf(live, customer.customerID);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, CurrencyCode: 'ZAR', gatewayID: gateway.id });
    expect(sim.chargesMade()).toContainEqual(expect.objectContaining({ status: 'success', amount: 11480 }));
    expect(sim.problems).toEqual([]);
  });
});

function authOf(as: TestAccount): RequestInit {
  return {
    headers: { authorization: `Basic ${Buffer.from(`${as.accountId}:${as.apiKey}`).toString('base64')}` },
  };
}

describe('billing account go-live', () => {
  it('prints the live account, its key, what was copied and what is left to do; a second run names it', async () => {
    const other = await t.newAccount('Cape Hosting', { isTest: true });
    const first = await runCli(['account', 'go-live', String(other.accountId)], t.env);
    expect(first.code, first.stderr).toBe(0);
    const liveId = Number(/^Live account (\d+) made from test account/.exec(first.stdout)?.[1]);
    expect(liveId).toBeGreaterThan(other.accountId);
    expect(first.stdout).toContain('API key (shown once): bk_');
    expect(first.stdout).toContain('Left to do by hand:');
    expect(first.stdout).toContain(`billing doctor --account ${liveId}`);

    const second = await runCli(['account', 'go-live', String(other.accountId)], t.env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`as account ${liveId}`);
  });
});

/**
 * The service behind an https address of its own, as a deployment's proxy puts it: a certificate made for the
 * test by openssl, trusted only by `publicFetch`. Providers reach a live deployment's webhook URL so.
 */
async function behindHttps(target: string) {
  const dir = fs.mkdtempSync(path.join(t.dataDir, 'tls-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const ca = fs.readFileSync(cert);
  const proxy = https.createServer({ key: fs.readFileSync(key), cert: ca }, (request, response) => {
    const forwarded = http.request(
      `${target}${request.url}`,
      { method: request.method, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const publicUrl = `https://localhost:${(proxy.address() as AddressInfo).port}`;
  /** `fetch` as a provider's client does it, over TLS to the proxy, trusting the test's certificate. */
  const publicFetch = (async (url: string | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const sent = https.request(
        String(url),
        {
          method: init?.method,
          headers: init?.headers as Record<string, string>,
          ca,
          lookup: (_h, _o, done) => done(null, [{ address: '127.0.0.1', family: 4 }]),
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode })));
        },
      );
      sent.on('error', reject);
      sent.end(init?.body as string | undefined);
    })) as typeof fetch;
  return {
    publicUrl,
    publicFetch,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

describe('billing doctor', () => {
  it('says each missing item of a bare deployment, and exits 1', async () => {
    const bare = await t.newAccount('Bare Books', { isTest: true });
    const madeBare = await ok(bare, 'POST', '/v1/account/golive', {});
    const doctor = await runCli(['doctor', '--account', String(madeBare.liveAccountID)], t.env);
    expect(doctor.code, doctor.stderr).toBe(1);
    const lines = doctor.stdout.trim().split('\n');
    // t.env lets live accounts use the test gateway, as the service's tests do: a staging deployment.
    expect(lines[0]).toBe('9 item(s) missing:');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^- PUBLIC_URL is not set/),
      expect.stringMatching(/^- SMTP_URL is not set/),
      expect.stringMatching(/^- MAIL_FROM is billing@localhost/),
      expect.stringMatching(/^- ENCRYPTION_KEY is not set: .* encryption.key in DATA_DIR/),
      expect.stringMatching(/^- TEST_GATEWAY_ON_LIVE_ACCOUNTS is true: .* moves no money/),
      expect.stringMatching(/^- PASSWORD_COST is 12: .* below OWASP's scrypt cost \(17\)/),
      expect.stringMatching(/^- BILLING_INTERVAL_MS is 0: .*billing run/),
      expect.stringMatching(
        new RegExp(`^- Account ${madeBare.liveAccountID} \\(Bare Books\\).* primary gateway`),
      ),
      expect.stringMatching(
        new RegExp(`^- Account ${madeBare.liveAccountID} \\(Bare Books\\) has no staff address`),
      ),
    ]);

    const ofTest = await runCli(['doctor', '--account', String(bare.accountId), '--billed-by-cron'], t.env);
    expect(ofTest.code).toBe(1);
    expect(ofTest.stdout).toContain(`Account ${bare.accountId} is a test account`);
    expect(ofTest.stdout).not.toContain('BILLING_INTERVAL_MS');
  });

  it('finds nothing missing on a complete deployment, asking Paystack and its webhook URL over https', async () => {
    const front = await behindHttps(t.url);
    try {
      const deps = {
        db: t.service.storage.db,
        clock,
        wallClock: systemClock,
        secrets: t.service.secrets,
        log: t.service.log,
        providerFetch: sim.fetch,
        publicFetch: front.publicFetch,
      };
      const complete = {
        publicUrl: front.publicUrl,
        smtpUrl: 'smtp://mail.karoo.example:587',
        mailFrom: 'billing@karoo.example',
        encryptionKey: Buffer.alloc(32, 7).toString('base64'),
        billingIntervalMs: 60_000,
        testGatewayOnLiveAccounts: false,
        passwordCostLog2: 17,
      };
      const balanceChecks = sim.requests.filter((r) => r.path === '/balance').length;
      expect(
        await checkDeployment(
          { ports: modulePorts(), ...deps, config: complete },
          { accountId: live.accountId },
        ),
      ).toEqual({
        accounts: [live.accountId],
        missing: [],
      });
      expect(sim.requests.filter((r) => r.path === '/balance')).toHaveLength(balanceChecks + 1);

      // The same deployment with the proxy pointing elsewhere, and keys Paystack no longer takes.
      const elsewhere = { ...complete, publicUrl: 'https://localhost:1' };
      const wrongKeys = await PaystackSimulator.start('sk_live_rotatedaway00000000000000000000', clock);
      const report = await checkDeployment(
        { ports: modulePorts(), ...deps, providerFetch: wrongKeys.fetch, config: elsewhere },
        { accountId: live.accountId },
      );
      expect(report.missing).toEqual([
        expect.stringContaining('its provider refused its keys: Paystack refused the secret key'),
        expect.stringMatching(
          /its webhook URL https:\/\/localhost:1\/gateway-webhooks\/\S+ cannot be reached/,
        ),
      ]);
      const unreachable = await checkDeployment(
        {
          ports: modulePorts(),
          ...deps,
          providerFetch: () => Promise.reject(new TypeError('fetch failed')),
          config: complete,
        },
        { accountId: live.accountId },
      );
      expect(unreachable.missing).toEqual([
        expect.stringContaining('its provider could not be asked about its keys (the gateway did not answer'),
      ]);
    } finally {
      await front.close();
    }
  });
});
