import { describe, expect, it } from 'vitest';
import {
  addVersion,
  BRACKETS,
  create,
  defaultOf,
  t,
  useComponentService,
  versionIn,
  versionsOf,
} from './components.fixtures.ts';

useComponentService();

describe('component versions', () => {
  it('adds a version with the next VersionNo (never reused), 201, not the default unless asked', async () => {
    const c = await create();
    const v2 = await addVersion(c.componentID, { VersionName: 'Second' });
    expect(v2).toEqual({
      componentVersionID: expect.any(Number),
      componentID: c.componentID,
      VersionNo: 2,
      VersionName: 'Second',
      isDefault: false,
      isActive: true,
      ComponentVersionCurrencies: [
        {
          componentVersionCurrencyID: expect.any(Number),
          componentVersionID: v2.componentVersionID,
          CurrencyCode: 'USD',
          ComponentBracketPrices: [
            {
              componentBracketID: expect.any(Number),
              componentVersionCurrencyID: v2.ComponentVersionCurrencies[0].componentVersionCurrencyID,
              Price: 2,
              QtyFrom: 1,
              QtyTill: null,
            },
          ],
        },
      ],
    });
    const v3 = await addVersion(c.componentID);
    expect(v3.VersionNo).toBe(3);
    expect((await t.request('DELETE', `/v1/components/${c.componentID}/versions/3`)).status).toBe(204);
    expect((await addVersion(c.componentID)).VersionNo).toBe(4);
    expect((await versionsOf(c.componentID)).map((v) => v.VersionNo)).toEqual([1, 2, 4]);
  });

  it('reads a version by VersionNo and lists versions paged', async () => {
    const c = await create();
    const v2 = await addVersion(c.componentID);
    await addVersion(c.componentID);
    const read = await t.request('GET', `/v1/components/${c.componentID}/versions/2`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(v2);
    const first = await t.request('GET', `/v1/components/${c.componentID}/versions/1`);
    expect(first.body).toEqual(c.ComponentVersions[0]);
    const page = await t.request('GET', `/v1/components/${c.componentID}/versions?page=2&page_size=1`);
    expect(page.status).toBe(200);
    expect(page.body).toEqual([v2]);
    expect((await t.request('GET', `/v1/components/${c.componentID}/versions?page_size=0`)).status).toBe(422);
    const all = await t.request('GET', `/v1/components/${c.componentID}`);
    expect(all.body.ComponentVersions.map((v: { VersionNo: number }) => v.VersionNo)).toEqual([1, 2, 3]);
  });

  it('answers 404 for an unknown version or component, 422 for a versionno that is not an integer >= 1', async () => {
    const c = await create();
    const missing = await t.request('GET', `/v1/components/${c.componentID}/versions/9`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('component_version_not_found');
    expect((await t.request('GET', '/v1/components/999999/versions/1')).body.code).toBe(
      'component_not_found',
    );
    expect((await t.request('GET', '/v1/components/999999/versions')).status).toBe(404);
    expect((await t.request('POST', '/v1/components/999999/versions', { body: versionIn() })).status).toBe(
      404,
    );
    for (const bad of ['0', '-1', 'x', '1.5', '2147483648']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await t.request(method, `/v1/components/${c.componentID}/versions/${bad}`, {
          body: method === 'PUT' ? versionIn() : undefined,
        });
        expect(res.status, `${method} ${bad}`).toBe(422);
        expect(res.body.fields.map((f: { field: string }) => f.field)).toContain('versionno');
      }
    }
    for (const method of ['PUT', 'DELETE']) {
      const res = await t.request(method, `/v1/components/${c.componentID}/versions/9`, {
        body: method === 'PUT' ? versionIn() : undefined,
      });
      expect(res.status).toBe(404);
    }
  });

  it('refuses a version without VersionName, isActive or isDefault, or with bad prices', async () => {
    const c = await create();
    for (const field of ['VersionName', 'isActive', 'isDefault']) {
      const body: Record<string, unknown> = versionIn();
      delete body[field];
      const res = await t.request('POST', `/v1/components/${c.componentID}/versions`, { body });
      expect(res.status).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    const bad = await t.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: versionIn({
        ComponentVersionCurrencies: [
          {
            CurrencyCode: 'USD',
            ComponentBracketPrices: [
              { Price: 1, QtyFrom: 1, QtyTill: 5 },
              { Price: 1, QtyFrom: 7 },
            ],
          },
        ],
      }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.fields).toEqual([
      {
        field: 'ComponentVersionCurrencies[0].ComponentBracketPrices[1].QtyFrom',
        message: expect.stringContaining('gap'),
      },
    ]);
    const currency = await t.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: versionIn({
        ComponentVersionCurrencies: [{ CurrencyCode: 'EUR', ComponentBracketPrices: BRACKETS }],
      }),
    });
    expect(currency.body.fields[0].field).toBe('ComponentVersionCurrencies[0].CurrencyCode');
    expect((await versionsOf(c.componentID)).length).toBe(1);
  });

  it('moves the default to a version added or edited with isDefault true; exactly one default', async () => {
    const c = await create();
    await addVersion(c.componentID, { isDefault: true });
    expect(await defaultOf(c.componentID)).toEqual([2]);
    await addVersion(c.componentID);
    expect(await defaultOf(c.componentID)).toEqual([2]);
    const res = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: { VersionName: 'Back', isActive: true, isDefault: true },
    });
    expect(res.status).toBe(204);
    expect(await defaultOf(c.componentID)).toEqual([1]);
  });

  it('edits a version with 204: name and isActive as sent, prices replaced when sent and kept when left out', async () => {
    const c = await create();
    const v2 = await addVersion(c.componentID);
    const res = await t.request('PUT', `/v1/components/${c.componentID}/versions/2`, {
      body: { VersionName: 'Renamed', isActive: false },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const kept = (await t.request('GET', `/v1/components/${c.componentID}/versions/2`)).body;
    expect(kept).toEqual({ ...v2, VersionName: 'Renamed', isActive: false });

    await t.request('PUT', `/v1/components/${c.componentID}/versions/2`, {
      body: {
        VersionName: 'Renamed',
        isActive: true,
        isDefault: false,
        ComponentVersionCurrencies: [
          {
            CurrencyCode: 'ZAR',
            ComponentBracketPrices: [
              { Price: 3, QtyFrom: 1, QtyTill: 5 },
              { Price: 2, QtyFrom: 6 },
            ],
          },
        ],
      },
    });
    const replaced = (await t.request('GET', `/v1/components/${c.componentID}/versions/2`)).body;
    expect(replaced.isActive).toBe(true);
    expect(replaced.ComponentVersionCurrencies).toHaveLength(1);
    expect(replaced.ComponentVersionCurrencies[0]).toMatchObject({
      CurrencyCode: 'ZAR',
      ComponentBracketPrices: [
        { Price: 3, QtyFrom: 1, QtyTill: 5 },
        { Price: 2, QtyFrom: 6, QtyTill: null },
      ],
    });
    await t.request('PUT', `/v1/components/${c.componentID}/versions/2`, {
      body: { VersionName: 'Bare', isActive: true, ComponentVersionCurrencies: [] },
    });
    expect(
      (await t.request('GET', `/v1/components/${c.componentID}/versions/2`)).body.ComponentVersionCurrencies,
    ).toEqual([]);
  });

  it('refuses to make the default version non-default (409): another version must become the default', async () => {
    const c = await create();
    const alone = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: { VersionName: 'v1', isActive: true, isDefault: false },
    });
    expect(alone.status).toBe(409);
    expect(alone.body.code).toBe('default_version_required');
    await addVersion(c.componentID);
    const res = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: { VersionName: 'v1', isActive: true, isDefault: false },
    });
    expect(res.status).toBe(409);
    expect(await defaultOf(c.componentID)).toEqual([1]);
  });

  it('keeps the default active while other versions exist (409), and lets a lone version be inactive', async () => {
    const c = await create();
    const lone = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: { VersionName: 'v1', isActive: false },
    });
    expect(lone.status).toBe(204);
    // The inactive default would have company: add the new version as the default, or activate version 1.
    const beside = await t.request('POST', `/v1/components/${c.componentID}/versions`, { body: versionIn() });
    expect(beside.status).toBe(409);
    expect(beside.body.code).toBe('default_version_inactive');
    await addVersion(c.componentID, { isDefault: true });
    expect(await defaultOf(c.componentID)).toEqual([2]);

    const deactivate = await t.request('PUT', `/v1/components/${c.componentID}/versions/2`, {
      body: { VersionName: 'v2', isActive: false },
    });
    expect(deactivate.status).toBe(409);
    expect(deactivate.body.code).toBe('default_version_inactive');
    const inactiveDefault = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: { VersionName: 'v1', isActive: false, isDefault: true },
    });
    expect(inactiveDefault.status).toBe(409);
    const addedInactiveDefault = await t.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: versionIn({ isActive: false, isDefault: true }),
    });
    expect(addedInactiveDefault.status).toBe(409);
    expect(await versionsOf(c.componentID)).toMatchObject([
      { VersionNo: 1, isDefault: false, isActive: false },
      { VersionNo: 2, isDefault: true, isActive: true },
    ]);
  });

  it('gives concurrent additions distinct VersionNos and leaves exactly one default', async () => {
    const c = await create();
    const added = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request('POST', `/v1/components/${c.componentID}/versions`, {
          body: versionIn({ isDefault: i % 2 === 0 }),
        }),
      ),
    );
    expect(added.map((res) => res.status)).toEqual(Array(6).fill(201));
    expect(added.map((res) => res.body.VersionNo).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(await defaultOf(c.componentID)).toHaveLength(1);
  });

  it('refuses to delete the last version (spec Limits) or the default (409), and deletes others with 204', async () => {
    const c = await create();
    const last = await t.request('DELETE', `/v1/components/${c.componentID}/versions/1`);
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('last_component_version');
    await addVersion(c.componentID);
    const asDefault = await t.request('DELETE', `/v1/components/${c.componentID}/versions/1`);
    expect(asDefault.status).toBe(409);
    expect(asDefault.body.code).toBe('default_version_required');
    const res = await t.request('DELETE', `/v1/components/${c.componentID}/versions/2`);
    expect(res.status).toBe(204);
    expect((await t.request('GET', `/v1/components/${c.componentID}/versions/2`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/components/${c.componentID}/versions/2`)).status).toBe(404);
    // Moving the default lets the old one go.
    await addVersion(c.componentID, { isDefault: true });
    expect((await t.request('DELETE', `/v1/components/${c.componentID}/versions/1`)).status).toBe(204);
    expect((await versionsOf(c.componentID)).map((v) => [v.VersionNo, v.isDefault])).toEqual([[3, true]]);
  });
});
