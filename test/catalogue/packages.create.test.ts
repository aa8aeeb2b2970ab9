import { describe, expect, it } from 'vitest';
import {
  createPackage,
  expectField,
  groupId,
  nextCode,
  packageBody,
  rate,
  t,
  usePackageService,
  versionBody,
} from './packages.fixtures.ts';

usePackageService();

describe('packages: create and read', () => {
  it('creates a package with its first version, rates and terms, in the spec’s wire names', async () => {
    const body = packageBody({
      PackageVersion: versionBody({
        isDefault: false,
        packageVersionRates: [rate('USD'), rate('zar', { TrialPeriodType: 'Months', TrialPeriod: 1 })],
      }),
    });
    const res = await t.request('POST', '/v1/packages', { body });
    expect(res.status).toBe(201);
    const pkg = res.body;
    const version = pkg.PackageVersions[0];
    const [usd, zar] = version.packageVersionRates;
    expect(pkg).toEqual({
      packageID: expect.any(Number),
      packageGroupID: groupId,
      packageCode: body.packageCode,
      Name: 'Gold',
      Descrip: 'The gold plan',
      isActive: true,
      PackageVersions: [
        {
          packageVersionID: expect.any(Number),
          packageID: pkg.packageID,
          VersionNo: 1,
          VersionName: 'Standard',
          // The first version is the default whatever isDefault says.
          isDefault: true,
          isActive: true,
          SubscriptionCount: 0,
          packageVersionRates: [
            {
              packageRateID: expect.any(Number),
              packageID: pkg.packageID,
              CurrencyCode: 'USD',
              SetupFee: 10,
              TrialFee: 0,
              TrialPeriod: 14,
              TrialPeriodType: 'days',
              PackageRateTerms: [
                {
                  packageRateTermID: expect.any(Number),
                  packageRateID: usd.packageRateID,
                  ChargePrice: 99.99,
                  ChargeTerm: 1,
                  ChargeTermType: 'months',
                },
                {
                  packageRateTermID: expect.any(Number),
                  packageRateID: usd.packageRateID,
                  ChargePrice: 999.5,
                  ChargeTerm: 12,
                  ChargeTermType: 'months',
                },
              ],
            },
            {
              packageRateID: expect.any(Number),
              packageID: pkg.packageID,
              CurrencyCode: 'ZAR',
              SetupFee: 10,
              TrialFee: 0,
              TrialPeriod: 1,
              TrialPeriodType: 'months',
              PackageRateTerms: expect.any(Array),
            },
          ],
        },
      ],
    });
    expect(zar.packageRateID).toBeGreaterThan(usd.packageRateID);
    const terms = usd.PackageRateTerms;
    expect(terms[1].packageRateTermID).toBeGreaterThan(terms[0].packageRateTermID);
    const read = await t.request('GET', `/v1/packages/${pkg.packageID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(pkg);
  });

  it('keeps amounts exact to 4 decimals, and returns them as JSON numbers', async () => {
    const pkg = await createPackage({
      PackageVersion: versionBody({
        packageVersionRates: [
          rate('USD', {
            SetupFee: 0.1,
            TrialFee: 123456789.1234,
            PackageRateTerms: [{ ChargePrice: 0.0001, ChargeTerm: 30, ChargeTermType: 'DAYS' }],
          }),
        ],
      }),
    });
    const read = await t.request('GET', `/v1/packages/${pkg.packageID}`);
    expect(read.text).toContain('"SetupFee":0.1,');
    expect(read.text).toContain('"TrialFee":123456789.1234,');
    expect(read.text).toContain('"ChargePrice":0.0001,');
    const rateOut = read.body.PackageVersions[0].packageVersionRates[0];
    expect(rateOut.PackageRateTerms[0].ChargeTermType).toBe('days');
  });

  it('stores amounts as canonical decimal strings', async () => {
    const pkg = await createPackage({
      PackageVersion: versionBody({
        packageVersionRates: [
          rate('USD', {
            SetupFee: 10.5,
            PackageRateTerms: [{ ChargePrice: 7, ChargeTerm: 1, ChargeTermType: 'months' }],
          }),
        ],
      }),
    });
    const row = await t.service.storage.db
      .selectFrom('package_version_rates')
      .innerJoin('package_versions', 'package_versions.id', 'package_version_rates.package_version_id')
      .select(['setup_fee', 'trial_fee'])
      .where('package_versions.package_id', '=', pkg.packageID)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ setup_fee: '10.5', trial_fee: '0' });
  });

  it('accepts a package whose version has no rates yet, and a null or absent Descrip', async () => {
    const pkg = await createPackage({
      Descrip: null,
      PackageVersion: { VersionName: 'Draft', isActive: false, isDefault: false },
    });
    expect(pkg.Descrip).toBeNull();
    expect(pkg.PackageVersions[0]).toMatchObject({
      isDefault: true,
      isActive: false,
      packageVersionRates: [],
    });
    const { Descrip: _, ...withoutDescrip } = packageBody();
    const res = await t.request('POST', '/v1/packages', { body: withoutDescrip });
    expect(res.status).toBe(201);
    expect(res.body.Descrip).toBeNull();
  });

  it('takes a whole package read back, ignoring what only the service sets', async () => {
    const pkg = await createPackage();
    const res = await t.request('POST', '/v1/packages', {
      body: { ...pkg, packageCode: nextCode(), PackageVersion: versionBody() },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.packageID).not.toBe(pkg.packageID);
    expect(res.body.PackageVersions[0].VersionNo).toBe(1);
  });

  it('refuses a VersionNo in PackageVersion: the service numbers versions', async () => {
    const res = await t.request('POST', '/v1/packages', {
      body: packageBody({ PackageVersion: versionBody({ VersionNo: 9 }) }),
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field: 'PackageVersion.VersionNo', message: 'unknown field' }]);
  });

  it('answers 409 when the packageCode is taken, in this account only', async () => {
    const pkg = await createPackage();
    const res = await t.request('POST', '/v1/packages', {
      body: packageBody({ packageCode: pkg.packageCode }),
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('package_code_taken');
    const other = await t.newAccount();
    const otherGroup = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'G' } })).body;
    const theirs = await other.request('POST', '/v1/packages', {
      body: packageBody({ packageCode: pkg.packageCode, packageGroupID: otherGroup.packageGroupID }),
    });
    expect(theirs.status).toBe(201);
  });

  it('answers 404 for an unknown package and 422 for an id that is not a positive integer', async () => {
    expect((await t.request('GET', '/v1/packages/999999')).status).toBe(404);
    for (const id of ['abc', '0', '-3']) {
      expectField(await t.request('GET', `/v1/packages/${id}`), 'packageID');
    }
  });
});

describe('packages: bad input', () => {
  const terms = (term: Record<string, unknown>) => [
    { ChargePrice: 1, ChargeTerm: 1, ChargeTermType: 'months' },
    { ChargePrice: 2, ChargeTerm: 3, ChargeTermType: 'months', ...term },
  ];
  const withRate = (r: Record<string, unknown>) =>
    packageBody({ PackageVersion: versionBody({ packageVersionRates: [rate('USD'), r] }) });
  const at = 'PackageVersion.packageVersionRates[1]';

  it.each([
    [
      'a negative ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: -1 }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a ChargePrice with 5 decimals',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: 1.00001 }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a binary-float ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: 0.1 + 0.2 }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a tiny ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: 5e-7 }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a huge ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: 1e21 }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a string ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargePrice: '5' }) })),
      `${at}.PackageRateTerms[1].ChargePrice`,
    ],
    [
      'a ChargeTerm of 0',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargeTerm: 0 }) })),
      `${at}.PackageRateTerms[1].ChargeTerm`,
    ],
    [
      'a fractional ChargeTerm',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargeTerm: 1.5 }) })),
      `${at}.PackageRateTerms[1].ChargeTerm`,
    ],
    [
      'a ChargeTermType of weeks',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargeTermType: 'weeks' }) })),
      `${at}.PackageRateTerms[1].ChargeTermType`,
    ],
    [
      'a repeated term',
      () => withRate(rate('ZAR', { PackageRateTerms: terms({ ChargeTerm: 1, ChargeTermType: 'Months' }) })),
      `${at}.PackageRateTerms[1].ChargeTerm`,
    ],
    ['a rate without terms', () => withRate(rate('ZAR', { PackageRateTerms: [] })), `${at}.PackageRateTerms`],
    [
      'a missing ChargePrice',
      () => withRate(rate('ZAR', { PackageRateTerms: [{ ChargeTerm: 1, ChargeTermType: 'days' }] })),
      `${at}.PackageRateTerms[0].ChargePrice`,
    ],
    ['a negative SetupFee', () => withRate(rate('ZAR', { SetupFee: -0.01 })), `${at}.SetupFee`],
    ['a TrialFee with 5 decimals', () => withRate(rate('ZAR', { TrialFee: 0.12345 })), `${at}.TrialFee`],
    ['a negative TrialPeriod', () => withRate(rate('ZAR', { TrialPeriod: -1 })), `${at}.TrialPeriod`],
    [
      'a TrialPeriodType of years',
      () => withRate(rate('ZAR', { TrialPeriodType: 'years' })),
      `${at}.TrialPeriodType`,
    ],
    ['a second rate in the same currency', () => withRate(rate('usd')), `${at}.CurrencyCode`],
    ['a currency not enabled', () => withRate(rate('GBP')), `${at}.CurrencyCode`],
    ['a currency that does not exist', () => withRate(rate('ABC')), `${at}.CurrencyCode`],
    [
      'a missing VersionName',
      () => packageBody({ PackageVersion: { isActive: true, isDefault: true } }),
      'PackageVersion.VersionName',
    ],
    [
      'a blank VersionName',
      () => packageBody({ PackageVersion: versionBody({ VersionName: '  ' }) }),
      'PackageVersion.VersionName',
    ],
    ['a missing PackageVersion', () => packageBody({ PackageVersion: undefined }), 'PackageVersion'],
    [
      'a string isDefault',
      () => packageBody({ PackageVersion: versionBody({ isDefault: 'true' }) }),
      'PackageVersion.isDefault',
    ],
    ['a blank packageCode', () => packageBody({ packageCode: ' ' }), 'packageCode'],
    ['a missing Name', () => packageBody({ Name: undefined }), 'Name'],
    ['a missing isActive', () => packageBody({ isActive: undefined }), 'isActive'],
    ['an unknown packageGroupID', () => packageBody({ packageGroupID: 999999 }), 'packageGroupID'],
    ['a packageGroupID of 0', () => packageBody({ packageGroupID: 0 }), 'packageGroupID'],
  ])('refuses %s with 422 naming the field', async (_what, makeBody, field) => {
    // Bodies are made when the test runs, once the account's package group exists.
    const body = makeBody();
    const before = (await t.request('GET', '/v1/packages?page_size=200')).body.length;
    expectField(await t.request('POST', '/v1/packages', { body }), field);
    // Bad input never leaves a partial write.
    expect((await t.request('GET', '/v1/packages?page_size=200')).body.length).toBe(before);
  });

  it('names every invalid field at once', async () => {
    const res = await t.request('POST', '/v1/packages', {
      body: withRate(rate('ZAR', { SetupFee: 0.00001, TrialPeriodType: 'weeks' })),
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([
      `${at}.SetupFee`,
      `${at}.TrialPeriodType`,
    ]);
  });
});

describe('packages: paging', () => {
  it('lists packages in creation order, paged, with the bounds checked', async () => {
    const other = await t.newAccount();
    const group = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'P' } })).body;
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createPackage({ packageGroupID: group.packageGroupID }, other)).packageID);
    }
    expect((await other.request('GET', '/v1/packages')).body.map((p: any) => p.packageID)).toEqual(ids);
    const page = await other.request('GET', '/v1/packages?page=2&page_size=2');
    expect(page.body.map((p: any) => p.packageID)).toEqual(ids.slice(2, 4));
    expect((await other.request('GET', '/v1/packages?page=9&page_size=2')).body).toEqual([]);
    expectField(await other.request('GET', '/v1/packages?page=0'), 'page');
    expectField(await other.request('GET', '/v1/packages?page_size=201'), 'page_size');
  });
});

describe('packages: review fixes', () => {
  it('refuses amounts a JSON number cannot carry exactly with 4 decimals (above 99 999 999 999.9999)', async () => {
    // Sent as text: 999999999999.0003 has no exact double, which is the point.
    const body = JSON.stringify(
      packageBody({
        PackageVersion: versionBody({ packageVersionRates: [rate('USD', { SetupFee: 12345 })] }),
      }),
    ).replace('"SetupFee":12345', '"SetupFee":999999999999.0003');
    const res = await t.request('POST', '/v1/packages', { rawBody: body });
    expectField(res, 'PackageVersion.packageVersionRates[0].SetupFee');
    const largest = await createPackage({
      PackageVersion: versionBody({ packageVersionRates: [rate('USD', { SetupFee: 99999999999.9999 })] }),
    });
    expect(largest.PackageVersions[0].packageVersionRates[0].SetupFee).toBe(99999999999.9999);
  });
});
