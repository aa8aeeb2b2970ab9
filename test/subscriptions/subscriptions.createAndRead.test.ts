import { describe, expect, it } from 'vitest';
import {
  ada,
  bongani,
  clock,
  createComponent,
  createCustomer,
  createPackage,
  fieldsOf,
  get,
  gold,
  goldMonthly,
  goldYearly,
  goldZarMonthly,
  other,
  put,
  rate,
  setColumns,
  setToday,
  sms,
  subscribe,
  subscribeFuture,
  subscriptionBody,
  t,
  termOf,
  TODAY,
  trialMonthly,
  trialPkg,
  useSubscriptionService,
  versionBody,
  wire,
  zarOnly,
} from './subscriptions.fixtures.ts';

useSubscriptionService();

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
  // Beyond the spec (docs/gateways.md, "A subscription's own collection").
  'CollectionMethod',
  'gatewayID',
  'customerPaymentMethodID',
  // Beyond the spec (docs/portal.md, "Cancel with a way to stay").
  'CancelReason',
];

// NOTE: the reads below page over the subscriptions the creates above made (a page of 8), so they share a file
// and run after them.

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
      CollectionMethod: null,
      gatewayID: null,
      customerPaymentMethodID: null,
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
      q.includes('"component_version_numbers"."version_no"') ||
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
