import { describe, expect, it } from 'vitest';
import {
  addVersion,
  BRACKETS,
  componentIn,
  create,
  createGroup,
  groupId,
  other,
  otherGroupId,
  t,
  useComponentService,
  versionIn,
  withBrackets,
} from './components.fixtures.ts';

useComponentService();

describe('components: edit and delete', () => {
  const editIn = (overrides: Record<string, unknown> = {}) => ({
    Name: 'Renamed',
    Type: 'metered',
    Scheme: 'volume',
    UnitName: 'per GB',
    packageGroupID: groupId,
    Term: 30,
    TermType: 'days',
    ...overrides,
  });

  it('replaces the fields with 200 and an empty body, keeping the code and the versions', async () => {
    const c = await create({ Descrip: 'old', isActive: true });
    const res = await t.request('PUT', `/v1/components/${c.componentID}`, {
      body: editIn({ Descrip: 'new' }),
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const read = (await t.request('GET', `/v1/components/${c.componentID}`)).body;
    expect(read).toEqual({
      ...c,
      Name: 'Renamed',
      Descrip: 'new',
      Type: 'metered',
      Scheme: 'volume',
      UnitName: 'per GB',
      Term: 30,
      TermType: 'days',
      // Spec: isActive defaults to false when unset.
      isActive: false,
    });
  });

  it('clears Descrip left out, and sets isActive when sent', async () => {
    const c = await create({ Descrip: 'old' });
    await t.request('PUT', `/v1/components/${c.componentID}`, { body: editIn({ isActive: true }) });
    const read = (await t.request('GET', `/v1/components/${c.componentID}`)).body;
    expect([read.Descrip, read.isActive]).toEqual([null, true]);
  });

  it('changes ComponentCode when sent, still unique; its own code is not a conflict', async () => {
    const a = await create();
    const b = await create();
    const same = await t.request('PUT', `/v1/components/${a.componentID}`, {
      body: editIn({ ComponentCode: a.ComponentCode }),
    });
    expect(same.status).toBe(200);
    const taken = await t.request('PUT', `/v1/components/${a.componentID}`, {
      body: editIn({ ComponentCode: b.ComponentCode }),
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('component_code_taken');
    const moved = await t.request('PUT', `/v1/components/${a.componentID}`, {
      body: editIn({ ComponentCode: 'MOVED' }),
    });
    expect(moved.status).toBe(200);
    expect((await t.request('GET', `/v1/components/${a.componentID}`)).body.ComponentCode).toBe('MOVED');
  });

  it('moves a component to another package group of the account', async () => {
    const c = await create();
    const group = await createGroup(t, 'Second');
    await t.request('PUT', `/v1/components/${c.componentID}`, { body: editIn({ packageGroupID: group }) });
    expect((await t.request('GET', `/v1/components/${c.componentID}`)).body.packageGroupID).toBe(group);
  });

  it.each([
    ['Name', undefined],
    ['Type', 'flat'],
    ['Scheme', 'x'],
    ['TermType', 'weeks'],
    ['Term', 0],
    ['packageGroupID', 999999],
    ['packageGroupID', undefined],
    ['UnitName', undefined],
  ])('refuses an edit with %s = %j with 422 naming it', async (field, value) => {
    const c = await create();
    const body: Record<string, unknown> = editIn({ [field]: value });
    if (value === undefined) delete body[field];
    const res = await t.request('PUT', `/v1/components/${c.componentID}`, { body });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect((await t.request('GET', `/v1/components/${c.componentID}`)).body).toEqual(c);
  });

  it('answers 404 when editing or deleting an unknown component', async () => {
    expect((await t.request('PUT', '/v1/components/999999', { body: editIn() })).status).toBe(404);
    expect((await t.request('DELETE', '/v1/components/999999')).status).toBe(404);
  });

  it('deletes a component with its versions (nothing can use a component until subscriptions exist)', async () => {
    const c = await create();
    await addVersion(c.componentID);
    const res = await t.request('DELETE', `/v1/components/${c.componentID}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('GET', `/v1/components/${c.componentID}`)).status).toBe(404);
    expect((await t.request('GET', `/v1/components/${c.componentID}/versions`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/components/${c.componentID}`)).status).toBe(404);
    // Its code is free again.
    await create({ ComponentCode: c.ComponentCode });
  });

  it('keeps a package group that holds a component from being deleted', async () => {
    const group = await createGroup(t, 'Held');
    const c = await create({}, t, group);
    expect((await t.request('DELETE', `/v1/packagegroups/${group}`)).status).toBe(409);
    await t.request('DELETE', `/v1/components/${c.componentID}`);
    expect((await t.request('DELETE', `/v1/packagegroups/${group}`)).status).toBe(204);
  });
});

describe('components: accounts and statements', () => {
  it('documents every component path in the OpenAPI document', async () => {
    const res = await t.request('GET', '/openapi.json', { auth: false });
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    expect(Object.keys(paths['/v1/components']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/components/{componentID}']).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(paths['/v1/components/{componentID}/versions']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/components/{componentID}/versions/{versionno}']).sort()).toEqual([
      'delete',
      'get',
      'put',
    ]);
  });

  it("keeps each account's components apart: another account's ids are 404, codes are per account", async () => {
    const mine = await create({ ComponentCode: 'SHARED' });
    const theirs = await create({ ComponentCode: 'SHARED' }, other, otherGroupId);
    const id = mine.componentID;
    expect((await other.request('GET', `/v1/components/${id}`)).status).toBe(404);
    expect(
      (await other.request('GET', '/v1/components')).body.map((c: { componentID: number }) => c.componentID),
    ).toEqual([theirs.componentID]);
    const edit = {
      Name: 'x',
      Type: 'quantity',
      Scheme: 'unit',
      UnitName: 'u',
      packageGroupID: otherGroupId,
      Term: 1,
      TermType: 'months',
    };
    expect((await other.request('PUT', `/v1/components/${id}`, { body: edit })).status).toBe(404);
    expect((await other.request('DELETE', `/v1/components/${id}`)).status).toBe(404);
    expect((await other.request('GET', `/v1/components/${id}/versions`)).status).toBe(404);
    expect((await other.request('GET', `/v1/components/${id}/versions/1`)).status).toBe(404);
    expect((await other.request('POST', `/v1/components/${id}/versions`, { body: versionIn() })).status).toBe(
      404,
    );
    expect(
      (
        await other.request('PUT', `/v1/components/${id}/versions/1`, {
          body: { VersionName: 'x', isActive: true },
        })
      ).status,
    ).toBe(404);
    expect((await other.request('DELETE', `/v1/components/${id}/versions/1`)).status).toBe(404);
    expect((await t.request('GET', `/v1/components/${id}`)).body).toEqual(mine);
    // The other account has not enabled ZAR.
    const res = await other.request('POST', '/v1/components', {
      body: componentIn(withBrackets(BRACKETS, 'ZAR'), otherGroupId),
    });
    expect(res.status).toBe(422);
  });

  it('reads a list of components in a fixed number of statements, however many versions, currencies and brackets', async () => {
    const account = await t.newAccount();
    const group = await createGroup(account);
    await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } });
    const statements = async () => {
      t.queries.length = 0;
      const res = await account.request('GET', '/v1/components');
      expect(res.status).toBe(200);
      // The worker runs beside the request; count the statements on the component tables only.
      return { count: t.queries.filter((sql) => /component/.test(sql)).length, body: res.body };
    };
    await create({}, account, group);
    const one = await statements();
    for (let i = 0; i < 4; i++) {
      const c = await create(
        {
          ComponentVersion: {
            VersionName: 'v1',
            ComponentVersionCurrencies: [
              { CurrencyCode: 'USD', ComponentBracketPrices: BRACKETS },
              { CurrencyCode: 'ZAR', ComponentBracketPrices: BRACKETS },
            ],
          },
        },
        account,
        group,
      );
      for (let v = 0; v < 3; v++) {
        const res = await account.request('POST', `/v1/components/${c.componentID}/versions`, {
          body: versionIn(),
        });
        expect(res.status).toBe(201);
      }
    }
    const many = await statements();
    expect(many.body).toHaveLength(5);
    expect(many.body[4].ComponentVersions).toHaveLength(4);
    // Components, versions, currencies, brackets: one statement each.
    expect(one.count).toBe(4);
    expect(many.count).toBe(4);
  });
});
