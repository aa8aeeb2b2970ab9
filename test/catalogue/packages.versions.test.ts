import { describe, expect, it } from 'vitest';
import {
  addVersion,
  createPackage,
  defaults,
  expectField,
  rate,
  t,
  usePackageService,
  versionBody,
  versionsOf,
} from './packages.fixtures.ts';

usePackageService();

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

describe('packages: review fixes', () => {
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
