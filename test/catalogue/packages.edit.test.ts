import { describe, expect, it } from 'vitest';
import {
  addVersion,
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
