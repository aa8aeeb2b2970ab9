import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';

let t: TestService;
let groupId: number;
beforeAll(async () => {
  t = await startTestService();
  for (const CurrencyCode of ['ZAR', 'EUR']) {
    await t.request('POST', '/v1/currencies', { body: { CurrencyCode } });
  }
  groupId = (await t.request('POST', '/v1/packagegroups', { body: { GroupName: 'Plans' } })).body
    .packageGroupID;
});
afterAll(() => t.close());

let codes = 0;
const nextCode = () => `PKG-${++codes}`;

const rate = (CurrencyCode = 'USD', overrides: Record<string, unknown> = {}) => ({
  CurrencyCode,
  SetupFee: 10,
  TrialFee: 0,
  TrialPeriod: 14,
  TrialPeriodType: 'days',
  PackageRateTerms: [
    { ChargePrice: 99.99, ChargeTerm: 1, ChargeTermType: 'months' },
    { ChargePrice: 999.5, ChargeTerm: 12, ChargeTermType: 'months' },
  ],
  ...overrides,
});

const versionBody = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Standard',
  isActive: true,
  isDefault: true,
  packageVersionRates: [rate()],
  ...overrides,
});

const packageBody = (overrides: Record<string, unknown> = {}) => ({
  packageGroupID: groupId,
  packageCode: nextCode(),
  Name: 'Gold',
  Descrip: 'The gold plan',
  isActive: true,
  PackageVersion: versionBody(),
  ...overrides,
});

const createPackage = async (overrides: Record<string, unknown> = {}, as: TestAccount = t) => {
  const res = await as.request('POST', '/v1/packages', { body: packageBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const addVersion = async (packageId: number, overrides: Record<string, unknown> = {}) => {
  const res = await t.request('POST', `/v1/packages/${packageId}/versions`, { body: versionBody(overrides) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const versionsOf = async (packageId: number) =>
  (await t.request('GET', `/v1/packages/${packageId}/versions`)).body as {
    VersionNo: number;
    isDefault: boolean;
    isActive: boolean;
  }[];

const defaults = async (packageId: number) =>
  (await versionsOf(packageId)).filter((v) => v.isDefault).map((v) => v.VersionNo);

const expectField = (res: { status: number; body: any }, field: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
};

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

  it('ignores fields it does not know, such as a whole package read back', async () => {
    const pkg = await createPackage();
    const res = await t.request('POST', '/v1/packages', {
      body: { ...pkg, packageCode: nextCode(), PackageVersion: versionBody({ VersionNo: 9 }) },
    });
    expect(res.status).toBe(201);
    expect(res.body.PackageVersions[0].VersionNo).toBe(1);
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

describe('packages: edit and delete', () => {
  it('edits the package with 200 and an empty body, leaving its versions alone', async () => {
    const pkg = await createPackage();
    const group2 = (await t.request('POST', '/v1/packagegroups', { body: { GroupName: 'Other' } })).body;
    const code = nextCode();
    const res = await t.request('PUT', `/v1/packages/${pkg.packageID}`, {
      body: {
        packageGroupID: group2.packageGroupID,
        packageCode: code,
        Name: 'Platinum',
        Descrip: ' ',
        isActive: false,
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const read = (await t.request('GET', `/v1/packages/${pkg.packageID}`)).body;
    expect(read).toEqual({
      ...pkg,
      packageGroupID: group2.packageGroupID,
      packageCode: code,
      Name: 'Platinum',
      Descrip: null,
      isActive: false,
    });
  });

  it('keeps Descrip when an edit leaves it out, and accepts its own code again', async () => {
    const pkg = await createPackage();
    const { PackageVersions: _, ...sent } = pkg;
    const res = await t.request('PUT', `/v1/packages/${pkg.packageID}`, {
      body: { ...sent, Descrip: undefined, Name: 'Renamed' },
    });
    expect(res.status).toBe(200);
    const read = (await t.request('GET', `/v1/packages/${pkg.packageID}`)).body;
    expect(read.Descrip).toBe(pkg.Descrip);
    expect(read.Name).toBe('Renamed');
  });

  it('refuses edits that take another package’s code (409), an unknown group or missing fields (422)', async () => {
    const a = await createPackage();
    const b = await createPackage();
    const edit = (body: Record<string, unknown>) =>
      t.request('PUT', `/v1/packages/${b.packageID}`, {
        body: { packageGroupID: groupId, packageCode: b.packageCode, Name: 'B', isActive: true, ...body },
      });
    const taken = await edit({ packageCode: a.packageCode });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('package_code_taken');
    expectField(await edit({ packageGroupID: 999999 }), 'packageGroupID');
    expectField(await edit({ Name: undefined }), 'Name');
    expectField(await edit({ isActive: 'yes' }), 'isActive');
    expect(
      (
        await t.request('PUT', '/v1/packages/999999', {
          body: { packageGroupID: groupId, packageCode: 'Z', Name: 'Z', isActive: true },
        })
      ).status,
    ).toBe(404);
  });

  it('deletes a package by path, by query string and by body, with its versions', async () => {
    const a = await createPackage();
    const b = await createPackage();
    const c = await createPackage();
    await addVersion(a.packageID);
    expect((await t.request('DELETE', `/v1/packages/${a.packageID}`)).status).toBe(204);
    expect((await t.request('DELETE', `/v1/packages?packageID=${b.packageID}`)).status).toBe(204);
    const byBody = await t.request('DELETE', '/v1/packages', { body: { packageID: c.packageID } });
    expect(byBody.status).toBe(204);
    expect(byBody.text).toBe('');
    for (const pkg of [a, b, c]) {
      expect((await t.request('GET', `/v1/packages/${pkg.packageID}`)).status).toBe(404);
    }
    expect((await t.request('DELETE', `/v1/packages/${a.packageID}`)).status).toBe(404);
    const left = await t.service.storage.db
      .selectFrom('package_versions')
      .select('id')
      .where('package_id', 'in', [a.packageID, b.packageID, c.packageID])
      .execute();
    expect(left).toEqual([]);
    // The code is free again.
    expect(
      (await t.request('POST', '/v1/packages', { body: packageBody({ packageCode: a.packageCode }) })).status,
    ).toBe(201);
  });

  it('answers 422 for DELETE /v1/packages without a valid packageID', async () => {
    expectField(await t.request('DELETE', '/v1/packages'), 'packageID');
    expectField(await t.request('DELETE', '/v1/packages?packageID=x'), 'packageID');
    expectField(await t.request('DELETE', '/v1/packages', { body: { packageID: '1' } }), 'packageID');
  });
});

describe('package versions', () => {
  it('adds versions with the next VersionNo, never reusing a deleted one', async () => {
    const pkg = await createPackage();
    const v2 = await addVersion(pkg.packageID, { isDefault: false, VersionName: 'Second' });
    expect(v2).toMatchObject({
      packageID: pkg.packageID,
      VersionNo: 2,
      VersionName: 'Second',
      isDefault: false,
      SubscriptionCount: 0,
    });
    expect((await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/2`)).status).toBe(204);
    const v3 = await addVersion(pkg.packageID, { isDefault: false });
    expect(v3.VersionNo).toBe(3);
    expect((await versionsOf(pkg.packageID)).map((v) => v.VersionNo)).toEqual([1, 3]);
  });

  it('reads a version by its number, with its rates', async () => {
    const pkg = await createPackage();
    const v2 = await addVersion(pkg.packageID, { isDefault: false, packageVersionRates: [rate('EUR')] });
    const read = await t.request('GET', `/v1/packages/${pkg.packageID}/versions/2`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(v2);
    expect(read.body.packageVersionRates[0]).toMatchObject({ CurrencyCode: 'EUR', packageID: pkg.packageID });
    expect((await t.request('GET', `/v1/packages/${pkg.packageID}/versions/7`)).status).toBe(404);
    expect((await t.request('GET', `/v1/packages/999999/versions/1`)).status).toBe(404);
  });

  it('lists versions in order, paged', async () => {
    const pkg = await createPackage();
    for (let i = 0; i < 4; i++) await addVersion(pkg.packageID, { isDefault: false });
    expect((await versionsOf(pkg.packageID)).map((v) => v.VersionNo)).toEqual([1, 2, 3, 4, 5]);
    const page = await t.request('GET', `/v1/packages/${pkg.packageID}/versions?page=2&page_size=2`);
    expect(page.body.map((v: { VersionNo: number }) => v.VersionNo)).toEqual([3, 4]);
    expect((await t.request('GET', `/v1/packages/${pkg.packageID}/versions?page=9`)).body).toEqual([]);
    expectField(await t.request('GET', `/v1/packages/${pkg.packageID}/versions?page_size=500`), 'page_size');
    expect((await t.request('GET', '/v1/packages/999999/versions')).status).toBe(404);
  });

  it('answers 422 naming versionno when it is not an integer of at least 1', async () => {
    const pkg = await createPackage();
    for (const no of ['0', '-1', 'x', '1.5', '99999999999']) {
      for (const method of ['GET', 'DELETE']) {
        expectField(await t.request(method, `/v1/packages/${pkg.packageID}/versions/${no}`), 'versionno');
      }
      expectField(
        await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/${no}`, { body: versionBody() }),
        'versionno',
      );
    }
  });

  it('makes an added version with isDefault true the default, and clears the former one', async () => {
    const pkg = await createPackage();
    const v2 = await addVersion(pkg.packageID, { isDefault: true });
    expect(v2.isDefault).toBe(true);
    expect(await defaults(pkg.packageID)).toEqual([2]);
    await addVersion(pkg.packageID, { isDefault: false });
    expect(await defaults(pkg.packageID)).toEqual([2]);
  });

  it('replaces a version with 204: name, flags and rates', async () => {
    const pkg = await createPackage();
    await addVersion(pkg.packageID, { isDefault: false });
    const res = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({
        VersionName: 'Repriced',
        isDefault: false,
        isActive: false,
        packageVersionRates: [
          rate('ZAR', { PackageRateTerms: [{ ChargePrice: 5, ChargeTerm: 7, ChargeTermType: 'days' }] }),
        ],
      }),
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = (await t.request('GET', `/v1/packages/${pkg.packageID}/versions/2`)).body;
    expect(read).toMatchObject({ VersionName: 'Repriced', isDefault: false, isActive: false });
    expect(read.packageVersionRates).toHaveLength(1);
    expect(read.packageVersionRates[0]).toMatchObject({
      CurrencyCode: 'ZAR',
      PackageRateTerms: [{ ChargePrice: 5, ChargeTerm: 7, ChargeTermType: 'days' }],
    });
    // Version 1 is untouched.
    expect((await t.request('GET', `/v1/packages/${pkg.packageID}/versions/1`)).body).toEqual(
      pkg.PackageVersions[0],
    );
  });

  it('makes an edited version with isDefault true the default', async () => {
    const pkg = await createPackage();
    await addVersion(pkg.packageID, { isDefault: false });
    const res = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ isDefault: true }),
    });
    expect(res.status).toBe(204);
    expect(await defaults(pkg.packageID)).toEqual([2]);
  });

  it('refuses with 409 to make the default non-default or inactive while other versions exist', async () => {
    const pkg = await createPackage();
    await addVersion(pkg.packageID, { isDefault: false });
    const put = (body: Record<string, unknown>) =>
      t.request('PUT', `/v1/packages/${pkg.packageID}/versions/1`, { body: versionBody(body) });
    const nonDefault = await put({ isDefault: false });
    expect(nonDefault.status).toBe(409);
    expect(nonDefault.body.code).toBe('default_version_required');
    const inactive = await put({ isDefault: true, isActive: false });
    expect(inactive.status).toBe(409);
    expect(inactive.body.code).toBe('default_version_inactive');
    const addInactiveDefault = await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, {
      body: versionBody({ isDefault: true, isActive: false }),
    });
    expect(addInactiveDefault.status).toBe(409);
    expect(addInactiveDefault.body.code).toBe('default_version_inactive');
    expect(await defaults(pkg.packageID)).toEqual([1]);
    expect((await versionsOf(pkg.packageID)).map((v) => v.VersionNo)).toEqual([1, 2]);
  });

  it('keeps the only version the default, and lets it be made inactive', async () => {
    const pkg = await createPackage();
    const res = await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/1`, {
      body: versionBody({ isDefault: false, isActive: false }),
    });
    expect(res.status).toBe(204);
    expect(await versionsOf(pkg.packageID)).toMatchObject([
      { VersionNo: 1, isDefault: true, isActive: false },
    ]);
  });

  it('refuses with 409 to delete the default version, or the only one', async () => {
    const pkg = await createPackage();
    const only = await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/1`);
    expect(only.status).toBe(409);
    expect(only.body.code).toBe('last_version');
    await addVersion(pkg.packageID, { isDefault: false });
    const deflt = await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/1`);
    expect(deflt.status).toBe(409);
    expect(deflt.body.code).toBe('default_version_required');
    // To delete the default, make another one default first.
    await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/2`, {
      body: versionBody({ isDefault: true }),
    });
    expect((await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/1`)).status).toBe(204);
    expect((await versionsOf(pkg.packageID)).map((v) => [v.VersionNo, v.isDefault])).toEqual([[2, true]]);
    expect((await t.request('DELETE', `/v1/packages/${pkg.packageID}/versions/1`)).status).toBe(404);
  });

  it('names the field of a bad version body without the PackageVersion prefix', async () => {
    const pkg = await createPackage();
    const body = versionBody({
      packageVersionRates: [
        rate('USD', {
          PackageRateTerms: [
            { ChargePrice: 1, ChargeTerm: 1, ChargeTermType: 'months' },
            { ChargePrice: 1.23456, ChargeTerm: 2, ChargeTermType: 'months' },
          ],
        }),
      ],
    });
    expectField(
      await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, { body }),
      'packageVersionRates[0].PackageRateTerms[1].ChargePrice',
    );
    expectField(
      await t.request('PUT', `/v1/packages/${pkg.packageID}/versions/1`, { body }),
      'packageVersionRates[0].PackageRateTerms[1].ChargePrice',
    );
    expectField(
      await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, { body: { VersionName: 'x' } }),
      'isActive',
    );
    // Nothing was written.
    expect((await versionsOf(pkg.packageID)).map((v) => v.VersionNo)).toEqual([1]);
    expect((await t.request('GET', `/v1/packages/${pkg.packageID}`)).body).toEqual(pkg);
  });
});

describe('packages: concurrency and documentation', () => {
  it('gives concurrent new versions distinct numbers and leaves exactly one default', async () => {
    const pkg = await createPackage();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.request('POST', `/v1/packages/${pkg.packageID}/versions`, {
          body: versionBody({ isDefault: true }),
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(results.map((r) => r.body.VersionNo).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(await defaults(pkg.packageID)).toHaveLength(1);
  });

  it('documents the routes in the OpenAPI document', async () => {
    const res = await t.request('GET', '/openapi.json', { auth: false });
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/packages',
        '/v1/packages/{packageID}',
        '/v1/packages/{packageID}/versions',
        '/v1/packages/{packageID}/versions/{versionno}',
        '/v1/packagegroups',
        '/v1/packagegroups/{packageGroupID}',
      ]),
    );
  });
});

describe('packages: statements per read', () => {
  it('reads a list and a package with a fixed number of statements, whatever their size', async () => {
    const other = await t.newAccount();
    for (const CurrencyCode of ['ZAR', 'EUR'])
      await other.request('POST', '/v1/currencies', { body: { CurrencyCode } });
    const group = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'Count' } })).body;
    const rich = versionBody({
      isDefault: false,
      packageVersionRates: [rate('USD'), rate('ZAR'), rate('EUR')],
    });
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const pkg = await createPackage({ packageGroupID: group.packageGroupID, PackageVersion: rich }, other);
      ids.push(pkg.packageID);
      for (let v = 0; v < 2; v++) {
        expect(
          (await other.request('POST', `/v1/packages/${pkg.packageID}/versions`, { body: rich })).status,
        ).toBe(201);
      }
    }

    // Only the statements on the catalogue's package tables: the worker's rounds (mail, housekeeping) run
    // beside the request and would make a raw count flaky.
    const statements = async (path: string) => {
      t.queries.length = 0;
      const res = await other.request('GET', path);
      expect(res.status).toBe(200);
      return { count: t.queries.filter((sql) => /from "package/.test(sql)).length, body: res.body };
    };
    const one = await statements('/v1/packages?page_size=1');
    const twenty = await statements('/v1/packages?page_size=20');
    const single = await statements(`/v1/packages/${ids[19]}`);
    const versions = await statements(`/v1/packages/${ids[0]}/versions`);
    expect(one.count).toBeGreaterThan(0);

    expect(one.body).toHaveLength(1);
    expect(twenty.body).toHaveLength(20);
    const sizes = twenty.body.map((p: any) => [
      p.PackageVersions.length,
      p.PackageVersions.flatMap((v: any) => v.packageVersionRates).length,
      p.PackageVersions.flatMap((v: any) => v.packageVersionRates.flatMap((r: any) => r.PackageRateTerms))
        .length,
    ]);
    expect(sizes).toEqual(Array(20).fill([3, 9, 18]));
    // One statement per level: packages, versions, rates, terms.
    expect(one.count).toBe(4);
    expect(twenty.count).toBe(4);
    expect(single.count).toBe(4);
    // The package (to tell a missing one from one without versions), then versions, rates, terms.
    expect(versions.count).toBe(4);
    expect(twenty.body.map((p: any) => p.packageID)).toEqual(ids);
  });
});

describe('packages: tenant isolation', () => {
  it("answers 404 for another account's packages and versions, and lists only the account's own", async () => {
    const pkg = await createPackage();
    const other = await t.newAccount();
    const otherGroup = (await other.request('POST', '/v1/packagegroups', { body: { GroupName: 'G' } })).body;
    const id = pkg.packageID;
    const edit = { packageGroupID: otherGroup.packageGroupID, packageCode: 'X', Name: 'X', isActive: true };
    expect((await other.request('GET', `/v1/packages/${id}`)).status).toBe(404);
    expect((await other.request('PUT', `/v1/packages/${id}`, { body: edit })).status).toBe(404);
    expect((await other.request('GET', `/v1/packages/${id}/versions`)).status).toBe(404);
    expect((await other.request('GET', `/v1/packages/${id}/versions/1`)).status).toBe(404);
    expect((await other.request('POST', `/v1/packages/${id}/versions`, { body: versionBody() })).status).toBe(
      404,
    );
    expect(
      (await other.request('PUT', `/v1/packages/${id}/versions/1`, { body: versionBody() })).status,
    ).toBe(404);
    expect((await other.request('DELETE', `/v1/packages/${id}/versions/1`)).status).toBe(404);
    expect((await other.request('DELETE', `/v1/packages/${id}`)).status).toBe(404);
    expect((await other.request('DELETE', `/v1/packages?packageID=${id}`)).status).toBe(404);
    expect((await other.request('GET', '/v1/packages')).body).toEqual([]);
    // A rate in a currency this account has enabled but the other has not.
    const zar = await other.request('POST', '/v1/packages', {
      body: packageBody({
        packageGroupID: otherGroup.packageGroupID,
        PackageVersion: versionBody({ packageVersionRates: [rate('ZAR')] }),
      }),
    });
    expectField(zar, 'PackageVersion.packageVersionRates[0].CurrencyCode');
    expect((await t.request('GET', `/v1/packages/${id}`)).body).toEqual(pkg);
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

  it('refuses a new version beside an inactive default with 409', async () => {
    const pkg = await createPackage({ PackageVersion: versionBody({ isActive: false }) });
    const res = await t.request('POST', `/v1/packages/${pkg.packageID}/versions`, {
      body: versionBody({ isDefault: false }),
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('default_version_inactive');
    expect(await versionsOf(pkg.packageID)).toHaveLength(1);
  });
});
