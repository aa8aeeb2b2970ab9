import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';

/** The service's clock: tests move it; every test starts on TODAY (afterEach puts it back). */
const TODAY = '2026-03-10';
const clock = {
  at: Date.parse(`${TODAY}T10:00:00.000Z`),
  now() {
    return new Date(this.at);
  },
};
const setToday = (date: string) => {
  clock.at = Date.parse(`${date}T10:00:00.000Z`);
};
/** The account is in UTC: a calendar date is shown as its midnight in UTC. */
const wire = (date: string) => `${date}T00:00:00.000Z`;

let t: TestService;
let other: TestAccount;
let groupId: number;
let gold: any;
let goldMonthly: number;
let goldYearly: number;
let goldZarMonthly: number;
let trialPkg: any;
let trialMonthly: number;
let sms: any;
let zarOnly: any;
let ada: number;
let bongani: number;

const SPEC_FIELDS = [
  'subscriptionID',
  'customerID',
  'packageID',
  'packageVersionID',
  'packageVersionNumber',
  'packageRateTermID',
  'CustomerName',
  'PackageName',
  'Term',
  'TermType',
  'StartDate',
  'EndDate',
  'TrialEndDate',
  'firstProrataSyncDate',
  'isProRata',
  'isFutureChange',
  'isCancelled',
  'isExpired',
  'lastInvDate',
  'lastRenewDate',
  'nextRenewDate',
  'numDaysBeforeToInv',
  'comp_nextInvDate',
  'comp_Status',
  'LastModified',
  'componentUsage',
  'CurrencyCode',
  'ChargePrice',
  'CancelType',
  'CancelDate',
  'isParked',
  'ParkedReason',
];

let codes = 0;
const rate = (CurrencyCode: string, overrides: Record<string, unknown> = {}) => ({
  CurrencyCode,
  SetupFee: 10,
  TrialFee: 0,
  TrialPeriod: 0,
  TrialPeriodType: 'days',
  PackageRateTerms: [
    { ChargePrice: CurrencyCode === 'ZAR' ? 500 : 30, ChargeTerm: 1, ChargeTermType: 'months' },
    { ChargePrice: CurrencyCode === 'ZAR' ? 5000 : 300, ChargeTerm: 12, ChargeTermType: 'months' },
  ],
  ...overrides,
});
const versionBody = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Standard',
  isActive: true,
  isDefault: false,
  packageVersionRates: [rate('USD'), rate('ZAR')],
  ...overrides,
});

async function createPackage(overrides: Record<string, unknown> = {}, as: TestAccount = t, group = groupId) {
  const res = await as.request('POST', '/v1/packages', {
    body: {
      packageGroupID: group,
      packageCode: `SUB-${++codes}`,
      Name: 'Gold',
      isActive: true,
      PackageVersion: versionBody(),
      ...overrides,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The id of the rate term of `version` in `currency` with the given ChargeTerm. */
const termOf = (version: any, currency: string, months = 1): number =>
  version.packageVersionRates
    .find((r: any) => r.CurrencyCode === currency)
    .PackageRateTerms.find((term: any) => term.ChargeTerm === months).packageRateTermID;

const BRACKETS = [
  { Price: 1, QtyFrom: 1, QtyTill: 10 },
  { Price: 0.5, QtyFrom: 11, QtyTill: null },
];

async function createComponent(currencies = ['USD'], as: TestAccount = t, group = groupId) {
  const res = await as.request('POST', '/v1/components', {
    body: {
      ComponentCode: `C-${++codes}`,
      Name: 'SMS bundle',
      Type: 'quantity',
      Scheme: 'unit',
      UnitName: 'per sms',
      packageGroupID: group,
      Term: 1,
      TermType: 'months',
      ComponentVersion: {
        VersionName: 'Launch',
        ComponentVersionCurrencies: currencies.map((CurrencyCode) => ({
          CurrencyCode,
          ComponentBracketPrices: BRACKETS,
        })),
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function createCustomer(body: Record<string, unknown> = {}, as: TestAccount = t): Promise<number> {
  const res = await as.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerID;
}

const subscriptionBody = (overrides: Record<string, unknown> = {}) => ({
  customerID: ada,
  packageID: gold.packageID,
  packageRateTermID: goldMonthly,
  ...overrides,
});

async function subscribe(overrides: Record<string, unknown> = {}, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/subscriptions', { body: subscriptionBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A subscription starting later: nothing is billed, so every computed field is this module's own. */
const subscribeFuture = (overrides: Record<string, unknown> = {}) =>
  subscribe({ StartDate: '2026-04-01', ...overrides });

const get = async (id: number) => {
  const res = await t.request('GET', `/v1/subscriptions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** The distinct fields a problem names, in order. */
const fieldsOf = (res: { status: number; headers: Headers; body: any }, status = 422): string[] => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  return [...new Set<string>((res.body.fields ?? []).map((f: { field: string }) => f.field))];
};

/** Changes stored columns directly, to stand for what the bill run or cancellation would have written. */
const setColumns = (id: number, changes: Record<string, unknown>) =>
  t.service.storage.db
    .updateTable('subscriptions')
    .set(changes as never)
    .where('id', '=', id)
    .execute();

const put = (id: number, path: string, body: unknown, as: TestAccount = t) =>
  as.request('PUT', `/v1/subscriptions/${id}/${path}`, { body });

beforeAll(async () => {
  t = await startTestService({ clock });
  other = await t.newAccount();
  expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
  groupId = (await t.request('POST', '/v1/packagegroups', { body: { GroupName: 'Plans' } })).body
    .packageGroupID;
  gold = await createPackage();
  goldMonthly = termOf(gold.PackageVersions[0], 'USD');
  goldYearly = termOf(gold.PackageVersions[0], 'USD', 12);
  goldZarMonthly = termOf(gold.PackageVersions[0], 'ZAR');
  trialPkg = await createPackage({
    Name: 'Trial plan',
    PackageVersion: versionBody({ packageVersionRates: [rate('USD', { TrialPeriod: 14, TrialFee: 1 })] }),
  });
  trialMonthly = termOf(trialPkg.PackageVersions[0], 'USD');
  sms = await createComponent();
  zarOnly = await createComponent(['ZAR']);
  ada = await createCustomer({ LastName: 'Lovelace' });
  bongani = await createCustomer({ Name: 'Bongani', CurrencyCode: 'ZAR' });
});
afterAll(() => t.close());
afterEach(() => setToday(TODAY));

describe('POST /v1/subscriptions', () => {
  it('creates a subscription starting today on the default version, with the price terms copied, in the spec’s wire names', async () => {
    const res = await t.request('POST', '/v1/subscriptions', { body: subscriptionBody() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const s = res.body;
    expect(Object.keys(s).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(s).toMatchObject({
      subscriptionID: expect.any(Number),
      customerID: ada,
      packageID: gold.packageID,
      packageVersionID: gold.PackageVersions[0].packageVersionID,
      packageVersionNumber: 1,
      packageRateTermID: goldMonthly,
      CustomerName: 'Ada Lovelace',
      PackageName: 'Gold',
      Term: 1,
      TermType: 'months',
      StartDate: wire(TODAY),
      EndDate: null,
      TrialEndDate: null,
      firstProrataSyncDate: null,
      isProRata: false,
      isFutureChange: false,
      isCancelled: false,
      isExpired: false,
      numDaysBeforeToInv: 0,
      comp_Status: 'Active',
      componentUsage: [],
      CurrencyCode: 'USD',
      ChargePrice: 30,
      CancelType: null,
      CancelDate: null,
      isParked: false,
      ParkedReason: null,
    });
    expect(s.LastModified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await get(s.subscriptionID)).toEqual(s);
  });

  it('makes a later StartDate a Future subscription, first invoiced numDaysBeforeToInv days before it', async () => {
    const s = await subscribe({ StartDate: '05 Apr 2026', numDaysBeforeToInv: 5, EndDate: '2026-10-05' });
    expect(s).toMatchObject({
      StartDate: wire('2026-04-05'),
      EndDate: wire('2026-10-05'),
      comp_Status: 'Future',
      // 2026-04-05 less 5 days.
      comp_nextInvDate: wire('2026-03-31'),
      lastInvDate: null,
      nextRenewDate: null,
      numDaysBeforeToInv: 5,
    });
  });

  it('never dates the first invoice before today, and bills it at once when it is due', async () => {
    const s = await subscribe({ StartDate: '2026-03-12', numDaysBeforeToInv: 30 });
    // Due today (2026-03-12 less 30 days is in the past): billed on create, the next one 30 days before 2026-04-12.
    expect(s).toMatchObject({
      comp_Status: 'Future',
      lastInvDate: wire(TODAY),
      lastRenewDate: wire('2026-03-12'),
      nextRenewDate: wire('2026-04-12'),
      comp_nextInvDate: wire('2026-03-13'),
    });
  });

  it('takes the version by id or by number, and its rate term in the customer’s currency', async () => {
    const v2 = (
      await t.request('POST', `/v1/packages/${gold.packageID}/versions`, {
        body: versionBody({ VersionName: 'Dearer', packageVersionRates: [rate('USD', { SetupFee: 0 })] }),
      })
    ).body;
    const byNumber = await subscribeFuture({
      packageVersionNumber: 2,
      packageRateTermID: termOf(v2, 'USD', 12),
    });
    expect(byNumber).toMatchObject({
      packageVersionID: v2.packageVersionID,
      packageVersionNumber: 2,
      Term: 12,
      TermType: 'months',
      ChargePrice: 300,
    });
    const byId = await subscribeFuture({
      packageVersionID: v2.packageVersionID,
      packageVersionNumber: 2,
      packageRateTermID: termOf(v2, 'USD'),
    });
    expect(byId.packageVersionNumber).toBe(2);
    const zar = await subscribeFuture({ customerID: bongani, packageRateTermID: goldZarMonthly });
    expect(zar).toMatchObject({ CurrencyCode: 'ZAR', ChargePrice: 500, CustomerName: 'Bongani' });
  });

  it('starts a trial when the rate has one: TrialEndDate, then Trial until it ends and Active after', async () => {
    const s = await subscribeFuture({ packageID: trialPkg.packageID, packageRateTermID: trialMonthly });
    expect(s).toMatchObject({ TrialEndDate: wire('2026-04-15'), comp_Status: 'Future' });
    setToday('2026-04-01');
    expect((await get(s.subscriptionID)).comp_Status).toBe('Trial');
    setToday('2026-04-14');
    expect((await get(s.subscriptionID)).comp_Status).toBe('Trial');
    setToday('2026-04-15');
    expect((await get(s.subscriptionID)).comp_Status).toBe('Active');
  });

  it('accepts a pro-rata sync date after the start and at most one term after it', async () => {
    const s = await subscribeFuture({ isProRata: true, firstProrataSyncDate: '2026-05-01' });
    expect(s).toMatchObject({ isProRata: true, firstProrataSyncDate: wire('2026-05-01') });
    const yearly = await subscribeFuture({
      packageRateTermID: goldYearly,
      isProRata: true,
      firstProrataSyncDate: '2027-04-01',
    });
    expect(yearly.firstProrataSyncDate).toBe(wire('2027-04-01'));
  });

  it('refuses pro-rata dates that break the rules, naming firstProrataSyncDate', async () => {
    for (const body of [
      { isProRata: true },
      { isProRata: true, firstProrataSyncDate: null },
      { isProRata: true, firstProrataSyncDate: '2026-04-01' },
      { isProRata: true, firstProrataSyncDate: '2026-03-20' },
      { isProRata: true, firstProrataSyncDate: '2026-05-02' },
      { isProRata: false, firstProrataSyncDate: '2026-04-20' },
    ]) {
      const res = await t.request('POST', '/v1/subscriptions', {
        body: subscriptionBody({ StartDate: '2026-04-01', ...body }),
      });
      expect(fieldsOf(res), JSON.stringify(body)).toEqual(['firstProrataSyncDate']);
    }
  });

  it('refuses an EndDate on or before the StartDate, and unreadable dates, naming them', async () => {
    expect(
      fieldsOf(await t.request('POST', '/v1/subscriptions', { body: subscriptionBody({ EndDate: TODAY }) })),
    ).toEqual(['EndDate']);
    const bad = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({ StartDate: 'tomorrow', EndDate: '2026-02-30', firstProrataSyncDate: 5 }),
    });
    expect(fieldsOf(bad).sort()).toEqual(['EndDate', 'StartDate', 'firstProrataSyncDate']);
  });

  it('requires customerID, packageID and packageRateTermID, and checks every field’s type and range', async () => {
    expect(fieldsOf(await t.request('POST', '/v1/subscriptions', { body: {} })).sort()).toEqual([
      'customerID',
      'packageID',
      'packageRateTermID',
    ]);
    const res = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({
        customerID: 'one',
        packageVersionNumber: 0,
        numDaysBeforeToInv: 366,
        isProRata: 'yes',
        componentUsage: [{ NumUnits: 1 }],
      }),
    });
    expect(fieldsOf(res).sort()).toEqual([
      'componentUsage[0].componentID',
      'customerID',
      'isProRata',
      'numDaysBeforeToInv',
      'packageVersionNumber',
    ]);
    expect((await t.request('POST', '/v1/subscriptions', { rawBody: '{"customerID":' })).status).toBe(400);
  });

  it('answers 404 for a customer the account cannot see, and 409 for an archived one', async () => {
    const res = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({ customerID: 999999 }),
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('customer_not_found');
    const theirs = await createCustomer({}, other);
    expect(
      (await t.request('POST', '/v1/subscriptions', { body: subscriptionBody({ customerID: theirs }) }))
        .status,
    ).toBe(404);
    const archived = await createCustomer({ Name: 'Gone' });
    await t.request('PUT', `/v1/customers/${archived}/archive`);
    const refused = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({ customerID: archived }),
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('customer_archived');
  });

  it('refuses unknown or unusable catalogue choices with 422 naming the field', async () => {
    const theirGroup = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'x' } })).body
      .packageGroupID;
    const theirs = await createPackage(
      { PackageVersion: versionBody({ packageVersionRates: [rate('USD')] }) },
      other,
      theirGroup,
    );
    expect(
      fieldsOf(
        await t.request('POST', '/v1/subscriptions', {
          body: subscriptionBody({ packageID: theirs.packageID }),
        }),
      ),
    ).toEqual(['packageID']);
    expect(
      fieldsOf(
        await t.request('POST', '/v1/subscriptions', {
          body: subscriptionBody({ packageVersionNumber: 99 }),
        }),
      ),
    ).toEqual(['packageVersionNumber']);
    expect(
      fieldsOf(
        await t.request('POST', '/v1/subscriptions', {
          body: subscriptionBody({ packageVersionID: theirs.PackageVersions[0].packageVersionID }),
        }),
      ),
    ).toEqual(['packageVersionID']);
    expect(
      fieldsOf(
        await t.request('POST', '/v1/subscriptions', {
          body: subscriptionBody({
            packageVersionID: gold.PackageVersions[0].packageVersionID,
            packageVersionNumber: 2,
          }),
        }),
      ),
    ).toEqual(['packageVersionNumber']);
    // A ZAR term for a USD customer, and a term of another package.
    const wrongCurrency = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({ packageRateTermID: goldZarMonthly }),
    });
    expect(fieldsOf(wrongCurrency)).toEqual(['packageRateTermID']);
    expect(wrongCurrency.body.fields[0].message).toContain('ZAR');
    expect(
      fieldsOf(
        await t.request('POST', '/v1/subscriptions', {
          body: subscriptionBody({ packageRateTermID: trialMonthly }),
        }),
      ),
    ).toEqual(['packageRateTermID']);
  });

  it('refuses an inactive version or package', async () => {
    const pkg = await createPackage();
    const v2 = (
      await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, {
        body: versionBody({ isActive: false }),
      })
    ).body;
    const inactiveVersion = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({
        packageID: pkg.packageID,
        packageVersionNumber: 2,
        packageRateTermID: termOf(v2, 'USD'),
      }),
    });
    expect(fieldsOf(inactiveVersion)).toEqual(['packageVersionNumber']);
    const inactive = await createPackage({ isActive: false });
    const res = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({
        packageID: inactive.packageID,
        packageRateTermID: termOf(inactive.PackageVersions[0], 'USD'),
      }),
    });
    expect(fieldsOf(res)).toEqual(['packageID']);
  });

  it('starts with components: the default version, initial units recorded in the first usage period', async () => {
    const s = await subscribeFuture({
      componentUsage: [
        { componentID: sms.componentID, NumUnits: 12.5, Memo: 'launch' },
        { componentID: (await createComponent()).componentID, NumUnits: '3' },
      ],
    });
    expect(s.componentUsage).toEqual([
      {
        componentID: sms.componentID,
        componentVersionID: sms.ComponentVersions[0].componentVersionID,
        componentVersionNumber: 1,
        Memo: 'launch',
        NumUnits: 12.5,
        isSetUnits: true,
      },
      expect.objectContaining({ NumUnits: 3, Memo: null, isSetUnits: true }),
    ]);
  });

  it('refuses components that are unknown, repeated, unpriced in the currency, or with bad units', async () => {
    const res = await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({
        componentUsage: [
          { componentID: 999999 },
          { componentID: sms.componentID, NumUnits: -1 },
          { componentID: sms.componentID },
          { componentID: zarOnly.componentID },
          { componentID: sms.componentID, componentVersionNumber: 7 },
        ],
      }),
    });
    expect(fieldsOf(res)).toEqual([
      'componentUsage[0].componentID',
      'componentUsage[1].NumUnits',
      'componentUsage[2].componentID',
      'componentUsage[3].componentID',
      'componentUsage[4].componentID',
    ]);
    for (const NumUnits of [1.23456, 'ten', '1e3', 1e12]) {
      const bad = await t.request('POST', '/v1/subscriptions', {
        body: subscriptionBody({ componentUsage: [{ componentID: sms.componentID, NumUnits }] }),
      });
      expect(fieldsOf(bad), String(NumUnits)).toEqual(['componentUsage[0].NumUnits']);
    }
  });

  it('leaves nothing behind when refused', async () => {
    const before = (await t.request('GET', '/v1/subscriptions?page_size=200')).body.length;
    await t.request('POST', '/v1/subscriptions', {
      body: subscriptionBody({ componentUsage: [{ componentID: zarOnly.componentID }] }),
    });
    expect((await t.request('GET', '/v1/subscriptions?page_size=200')).body.length).toBe(before);
  });
});

describe('GET /v1/subscriptions, /v1/subscriptions/{id}, /v1/customers/{id}/subscriptions', () => {
  it('lists in creation order, pages, and lists a customer’s own', async () => {
    const customer = await createCustomer({ Name: 'Lister' });
    const a = await subscribeFuture({ customerID: customer });
    const b = await subscribeFuture({ customerID: customer, packageRateTermID: goldYearly });
    const mine = await t.request('GET', `/v1/customers/${customer}/subscriptions`);
    expect(mine.status).toBe(200);
    expect(mine.body.map((s: any) => s.subscriptionID)).toEqual([a.subscriptionID, b.subscriptionID]);
    expect(mine.body[1]).toEqual(b);
    const second = await t.request('GET', `/v1/customers/${customer}/subscriptions?page=2&page_size=1`);
    expect(second.body.map((s: any) => s.subscriptionID)).toEqual([b.subscriptionID]);
    const all = (await t.request('GET', '/v1/subscriptions?page_size=200')).body.map(
      (s: any) => s.subscriptionID,
    );
    expect(all).toEqual([...all].sort((x: number, y: number) => x - y));
    expect(all).toEqual(expect.arrayContaining([a.subscriptionID, b.subscriptionID]));
    expect(fieldsOf(await t.request('GET', '/v1/subscriptions?page_size=201'))).toEqual(['page_size']);
    expect((await t.request('GET', '/v1/customers/999999/subscriptions')).status).toBe(404);
    expect((await t.request('GET', '/v1/subscriptions/999999')).status).toBe(404);
    expect(fieldsOf(await t.request('GET', '/v1/subscriptions/abc'))).toEqual(['subscriptionID']);
  });

  it('reads a page in three statements whatever its size', async () => {
    await subscribeFuture({ componentUsage: [{ componentID: sms.componentID, NumUnits: 1 }] });
    // The billing and mail workers run statements meanwhile: count only this read's own.
    const isRead = (q: string) =>
      q.includes('as "package_version_no"') ||
      q.includes('"component_versions"."version_no"') ||
      (q.includes('from "subscription_usage"') && q.includes('"period_end" >'));
    const count = async (pageSize: number) => {
      t.queries.length = 0;
      const res = await t.request('GET', `/v1/subscriptions?page_size=${pageSize}`);
      expect(res.body.length).toBe(pageSize);
      return t.queries.filter(isRead).length;
    };
    expect(await count(1)).toBe(3);
    expect(await count(8)).toBe(3);
  });

  it('shows isExpired and Expired from the EndDate on', async () => {
    const s = await subscribe({ EndDate: '2026-03-20' });
    setToday('2026-03-19');
    expect(await get(s.subscriptionID)).toMatchObject({ isExpired: false, comp_Status: 'Active' });
    setToday('2026-03-20');
    expect(await get(s.subscriptionID)).toMatchObject({ isExpired: true, comp_Status: 'Expired' });
  });

  it('shows a cancellation to come as a future change, then as cancelled from its date', async () => {
    const s = await subscribeFuture();
    await setColumns(s.subscriptionID, { cancel_date: '2026-05-01', cancel_type: 'renewal' });
    expect(await get(s.subscriptionID)).toMatchObject({
      isFutureChange: true,
      isCancelled: false,
      CancelType: 'renewal',
      CancelDate: wire('2026-05-01'),
    });
    setToday('2026-05-01');
    expect(await get(s.subscriptionID)).toMatchObject({
      isFutureChange: false,
      isCancelled: true,
      comp_Status: 'Cancelled',
    });
  });

  it('shows a scheduled change and a parked record', async () => {
    const s = await subscribeFuture();
    await setColumns(s.subscriptionID, {
      pending_change: JSON.stringify({ effectiveDate: '2026-05-01' }),
      parked_reason: 'invalid term 0 months',
      parked_at: clock.now().toISOString(),
    });
    expect(await get(s.subscriptionID)).toMatchObject({
      isFutureChange: true,
      isParked: true,
      ParkedReason: 'invalid term 0 months',
    });
  });
});

describe('PUT /v1/subscriptions/{id}/components/modify', () => {
  it('adds, moves to another version and removes components: the list is the whole set', async () => {
    const extra = await createComponent();
    const v2 = (
      await t.request('POST', `/v1/components/${sms.componentID}/versions`, {
        body: {
          VersionName: 'Cheaper',
          isActive: true,
          isDefault: false,
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 0.1, QtyFrom: 1 }] },
          ],
        },
      })
    ).body;
    const s = await subscribe({ componentUsage: [{ componentID: extra.componentID }] });
    const res = await put(s.subscriptionID, 'components/modify', {
      componentUsage: [
        { componentID: sms.componentID, componentVersionNumber: 2, NumUnits: 4, Memo: 'set up' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.text).toBe('');
    expect((await get(s.subscriptionID)).componentUsage).toEqual([
      {
        componentID: sms.componentID,
        componentVersionID: v2.componentVersionID,
        componentVersionNumber: 2,
        Memo: 'set up',
        NumUnits: 4,
        isSetUnits: true,
      },
    ]);
    // A bare list is accepted; a component named without a version keeps its own.
    expect(
      (await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID }])).status,
    ).toBe(204);
    const kept = (await get(s.subscriptionID)).componentUsage;
    expect(kept).toEqual([
      expect.objectContaining({ componentVersionNumber: 2, NumUnits: 4, Memo: 'set up' }),
    ]);
    expect(
      (
        await put(s.subscriptionID, 'components/modify', [
          { componentID: sms.componentID, componentVersionNumber: 1 },
        ])
      ).status,
    ).toBe(204);
    expect((await get(s.subscriptionID)).componentUsage[0].componentVersionNumber).toBe(1);
  });

  it('refuses to remove a component whose units are not billed yet (409), and removes it once they are 0', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 2 }] });
    const refused = await put(s.subscriptionID, 'components/modify', { componentUsage: [] });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('component_has_unbilled_usage');
    expect(
      (await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID, NumUnits: 0 }]))
        .status,
    ).toBe(204);
    expect((await put(s.subscriptionID, 'components/modify', { componentUsage: [] })).status).toBe(204);
    expect((await get(s.subscriptionID)).componentUsage).toEqual([]);
  });

  it('refuses bad components with 422 naming them, and changes nothing', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 1 }] });
    const res = await put(s.subscriptionID, 'components/modify', [
      { componentID: sms.componentID, NumUnits: 5 },
      { componentID: zarOnly.componentID },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[1].componentID']);
    expect((await get(s.subscriptionID)).componentUsage).toEqual([expect.objectContaining({ NumUnits: 1 })]);
    expect(fieldsOf(await put(s.subscriptionID, 'components/modify', {}))).toEqual(['componentUsage']);
    expect(fieldsOf(await put(s.subscriptionID, 'components/modify', [{ componentID: 'x' }]))).toEqual([
      'componentUsage[0].componentID',
    ]);
  });

  it('refuses changes to an expired subscription (409)', async () => {
    const s = await subscribe({ EndDate: '2026-03-15' });
    setToday('2026-03-15');
    const res = await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID }]);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_expired');
  });
});

describe('PUT /v1/subscriptions/{id}/components/recordusage', () => {
  it('adds to and sets the units of the usage period holding today', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const id = s.subscriptionID;
    expect(
      (await put(id, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 5 }])).status,
    ).toBe(204);
    expect(
      (
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: 2.25, isSetUnits: 0 },
        ])
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({ NumUnits: 7.25, isSetUnits: false });
    expect(
      (
        await put(id, 'components/recordusage', {
          componentUsage: [{ componentID: sms.componentID, NumUnits: -3, Memo: 'refund' }],
        })
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({ NumUnits: 4.25, Memo: 'refund' });
    expect(
      (
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: '10', isSetUnits: true },
        ])
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({
      NumUnits: 10,
      isSetUnits: true,
      Memo: 'refund',
    });
  });

  it('starts a new usage period when the billing period turns', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    await put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 5 }]);
    // Monthly from 2026-03-10: the second period starts on 2026-04-10.
    setToday('2026-04-09');
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(5);
    setToday('2026-04-10');
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(0);
    await put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 2 }]);
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(2);
  });

  it('refuses units that would go below 0, applying none of the records', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 3 }] });
    const res = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: sms.componentID, NumUnits: 1 },
      { componentID: sms.componentID, NumUnits: -5 },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[1].NumUnits']);
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(3);
    const negativeSet = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: sms.componentID, NumUnits: -1, isSetUnits: true },
    ]);
    expect(fieldsOf(negativeSet)).toEqual(['componentUsage[0].NumUnits']);
  });

  it('refuses bad records with 422 naming the field', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const id = s.subscriptionID;
    expect(
      fieldsOf(await put(id, 'components/recordusage', [{ componentID: zarOnly.componentID, NumUnits: 1 }])),
    ).toEqual(['componentUsage[0].componentID']);
    expect(fieldsOf(await put(id, 'components/recordusage', []))).toEqual(['componentUsage']);
    expect(fieldsOf(await put(id, 'components/recordusage', [{ componentID: sms.componentID }]))).toEqual([
      'componentUsage[0].NumUnits',
    ]);
    expect(
      fieldsOf(
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: 1, isSetUnits: 'yes' },
        ]),
      ),
    ).toEqual(['componentUsage[0].isSetUnits']);
    expect(
      fieldsOf(
        await put(id, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 0.00001 }]),
      ),
    ).toEqual(['componentUsage[0].NumUnits']);
  });

  it('refuses a component whose version lost its price in the currency (422)', async () => {
    const component = await createComponent();
    const s = await subscribe({ componentUsage: [{ componentID: component.componentID }] });
    const edit = await t.request('PUT', `/v1/components/${component.componentID}/versions/1`, {
      body: { VersionName: 'Launch', isActive: true, ComponentVersionCurrencies: [] },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(204);
    const res = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: component.componentID, NumUnits: 1 },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[0].componentID']);
  });

  it('refuses usage on a Future, Expired or Cancelled subscription (409)', async () => {
    const future = await subscribeFuture({ componentUsage: [{ componentID: sms.componentID }] });
    const record = [{ componentID: sms.componentID, NumUnits: 1 }];
    const res = await put(future.subscriptionID, 'components/recordusage', record);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_future');
    const ending = await subscribe({
      EndDate: '2026-03-12',
      componentUsage: [{ componentID: sms.componentID }],
    });
    const cancelled = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    await setColumns(cancelled.subscriptionID, { cancel_date: '2026-03-11', cancel_type: 'norefund' });
    setToday('2026-03-12');
    expect((await put(ending.subscriptionID, 'components/recordusage', record)).body.code).toBe(
      'subscription_expired',
    );
    expect((await put(cancelled.subscriptionID, 'components/recordusage', record)).body.code).toBe(
      'subscription_cancelled',
    );
  });

  it('loses nothing when 20 adds arrive at once', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 1.5 }]),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(204));
    // 20 × 1.5
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(30);
  });
});

describe('PUT /v1/subscriptions/{id}/changestartdate', () => {
  it('moves the start with the trial’s end, the next invoice date and the first period’s usage', async () => {
    const s = await subscribeFuture({
      packageID: trialPkg.packageID,
      packageRateTermID: trialMonthly,
      numDaysBeforeToInv: 2,
      componentUsage: [{ componentID: sms.componentID, NumUnits: 6 }],
    });
    const res = await put(s.subscriptionID, 'changestartdate', { StartDate: '2026-05-10' });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const moved = await get(s.subscriptionID);
    expect(moved).toMatchObject({
      StartDate: wire('2026-05-10'),
      TrialEndDate: wire('2026-05-24'),
      comp_nextInvDate: wire('2026-05-08'),
      comp_Status: 'Future',
    });
    expect(moved.componentUsage[0].NumUnits).toBe(6);
    expect(moved.LastModified >= s.LastModified).toBe(true);
  });

  it('refuses once something has been billed (409)', async () => {
    const s = await subscribeFuture();
    await setColumns(s.subscriptionID, { period_count: 1, setup_billed: true, last_inv_date: '2026-03-10' });
    const res = await put(s.subscriptionID, 'changestartdate', { StartDate: '2026-04-05' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_billed');
  });

  it('refuses a start at or after the EndDate or leaving the sync date behind, and bad dates (422)', async () => {
    const s = await subscribeFuture({
      EndDate: '2026-06-01',
      isProRata: true,
      firstProrataSyncDate: '2026-04-15',
    });
    for (const StartDate of ['2026-06-01', '2026-04-20', '2026-03-14']) {
      expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', { StartDate })), StartDate).toEqual([
        'StartDate',
      ]);
    }
    expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', { StartDate: 'soon' }))).toEqual([
      'StartDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', {}))).toEqual(['StartDate']);
    expect((await put(999999, 'changestartdate', { StartDate: TODAY })).status).toBe(404);
  });
});

describe('PUT /v1/subscriptions/{id}/changeenddate', () => {
  it('sets and clears the EndDate', async () => {
    const s = await subscribeFuture();
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-09-01' })).status).toBe(204);
    expect(await get(s.subscriptionID)).toMatchObject({
      EndDate: wire('2026-09-01'),
      comp_nextInvDate: wire('2026-04-01'),
    });
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: null })).status).toBe(204);
    expect((await get(s.subscriptionID)).EndDate).toBeNull();
  });

  it('refuses an EndDate before today or on or before the StartDate, and a missing one (422)', async () => {
    const s = await subscribeFuture();
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-03-09' }))).toEqual([
      'EndDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-04-01' }))).toEqual([
      'EndDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', {}))).toEqual(['EndDate']);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: 'never' }))).toEqual(['EndDate']);
  });

  it('refuses to lengthen a subscription billed short to its EndDate, and allows shortening it', async () => {
    const s = await subscribeFuture({ EndDate: '2026-04-20' });
    // As the bill run leaves it: the one period, 2026-04-01 to the EndDate, billed.
    await setColumns(s.subscriptionID, {
      period_count: 1,
      setup_billed: true,
      last_inv_date: '2026-03-10',
      last_renew_date: '2026-04-01',
      next_renew_date: '2026-04-20',
      next_inv_date: null,
    });
    for (const EndDate of ['2026-06-01', null]) {
      const res = await put(s.subscriptionID, 'changeenddate', { EndDate });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('subscription_billed_to_end');
    }
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-04-15' })).status).toBe(204);
    expect((await get(s.subscriptionID)).comp_nextInvDate).toBeNull();
  });

  it('refuses a change to an expired subscription (409)', async () => {
    const s = await subscribe({ EndDate: '2026-03-11' });
    setToday('2026-03-11');
    const res = await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-05-01' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_expired');
  });
});

describe('what other records show and refuse', () => {
  it('counts SubscriptionCount per package version: future and active, not expired', async () => {
    const pkg = await createPackage();
    const term = termOf(pkg.PackageVersions[0], 'USD');
    const on = (o: Record<string, unknown> = {}) =>
      subscribe({ packageID: pkg.packageID, packageRateTermID: term, ...o });
    await on();
    await on({ StartDate: '2026-06-01' });
    await on({ EndDate: '2026-03-12' });
    const count = async () =>
      (await t.request('GET', `/v1/packages/${pkg.packageID}`)).body.PackageVersions[0].SubscriptionCount;
    expect(await count()).toBe(3);
    setToday('2026-03-12');
    expect(await count()).toBe(2);
  });

  it('refuses to delete a package or version with subscriptions, or to re-price a version that has them', async () => {
    const pkg = await createPackage();
    const v2 = (await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, { body: versionBody() }))
      .body;
    await subscribeFuture({
      packageID: pkg.packageID,
      packageVersionNumber: 2,
      packageRateTermID: termOf(v2, 'USD'),
    });
    const version = await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/2`);
    expect(version.status).toBe(409);
    expect(version.body.code).toBe('version_in_use');
    const whole = await t.request('DELETE', `/v1/packages/${pkg.packageID}`);
    expect(whole.status).toBe(409);
    expect(whole.body.code).toBe('package_in_use');
    // The same prices (renamed, made inactive) are taken and keep their ids; new prices are refused.
    const same = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ VersionName: 'Renamed', isActive: false }),
    });
    expect(same.status, JSON.stringify(same.body)).toBe(204);
    const after = (await t.request('GET', `/v1/packages/${pkg.packageID}/versions/2`)).body;
    expect(after).toMatchObject({ VersionName: 'Renamed', isActive: false });
    expect(termOf(after, 'USD')).toBe(termOf(v2, 'USD'));
    const repriced = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ packageVersionRates: [rate('USD', { SetupFee: 11 }), rate('ZAR')] }),
    });
    expect(repriced.status).toBe(409);
    expect(repriced.body.code).toBe('version_in_use');
    // A version nobody subscribes to is re-priced as before.
    const free = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/1`, {
      body: versionBody({ isDefault: true, packageVersionRates: [rate('USD', { SetupFee: 11 })] }),
    });
    expect(free.status, JSON.stringify(free.body)).toBe(204);
  });

  it('refuses to delete a component or a component version that subscriptions carry', async () => {
    const component = await createComponent();
    const v2 = (
      await t.request('POST', `/v1/components/${component.componentID}/versions`, {
        body: {
          VersionName: 'v2',
          isActive: true,
          isDefault: false,
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 2, QtyFrom: 1 }] },
          ],
        },
      })
    ).body;
    await subscribeFuture({
      componentUsage: [{ componentID: component.componentID, componentVersionID: v2.componentVersionID }],
    });
    const version = await t.request('DELETE', `/v1/components/${component.componentID}/versions/2`);
    expect(version.status).toBe(409);
    expect(version.body.code).toBe('component_version_in_use');
    const whole = await t.request('DELETE', `/v1/components/${component.componentID}`);
    expect(whole.status).toBe(409);
    expect(whole.body.code).toBe('component_in_use');
    expect((await t.request('DELETE', `/v1/components/${component.componentID}/versions/1`)).status).toBe(
      409,
    );
  });

  it('counts a customer’s ActiveSubs (future and active, not expired) and refuses to delete a customer with subscriptions', async () => {
    const customer = await createCustomer({ Name: 'Counted' });
    const activeSubs = async () => (await t.request('GET', `/v1/customers/${customer}`)).body.ActiveSubs;
    expect(await activeSubs()).toBe(0);
    await subscribeFuture({ customerID: customer });
    await subscribeFuture({ customerID: customer, EndDate: '2026-04-05' });
    expect(await activeSubs()).toBe(2);
    setToday('2026-04-05');
    expect(await activeSubs()).toBe(1);
    const res = await t.request('DELETE', `/v1/customers/${customer}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('customer_has_subscriptions');
  });
});

describe('tenant isolation', () => {
  it("answers 404 to every operation on another account's subscription and lists none of them", async () => {
    const s = await subscribeFuture();
    const id = s.subscriptionID;
    expect((await other.request('GET', `/v1/subscriptions/${id}`)).status).toBe(404);
    expect((await other.request('GET', `/v1/customers/${ada}/subscriptions`)).status).toBe(404);
    expect((await other.request('GET', '/v1/subscriptions')).body).toEqual([]);
    for (const [path, body] of [
      ['components/modify', []],
      ['components/recordusage', [{ componentID: sms.componentID, NumUnits: 1 }]],
      ['changestartdate', { StartDate: '2026-04-02' }],
      ['changeenddate', { EndDate: null }],
    ] as const) {
      const res = await put(id, path, body, other);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('subscription_not_found');
    }
    expect(await get(id)).toEqual(s);
  });
});
