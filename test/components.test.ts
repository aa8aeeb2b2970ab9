import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';

let t: TestService;
let other: TestAccount;
let groupId: number;
let otherGroupId: number;

const createGroup = async (as: TestAccount, GroupName = 'Usage') => {
  const res = await as.request('POST', '/v1/packagegroups', { body: { GroupName } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.packageGroupID as number;
};

beforeAll(async () => {
  t = await startTestService();
  other = await t.newAccount();
  groupId = await createGroup(t);
  otherGroupId = await createGroup(other);
  expect((await t.request('POST', '/v1/currencies', { body: { CurrencyCode: 'ZAR' } })).status).toBe(201);
});
afterAll(() => t.close());

/** 1–10 at 1.00, 11–20 at 0.80, 21+ at 0.50 (the pricing module's worked example). */
const BRACKETS = [
  { Price: 1.0, QtyFrom: 1, QtyTill: 10 },
  { Price: 0.8, QtyFrom: 11, QtyTill: 20 },
  { Price: 0.5, QtyFrom: 21, QtyTill: null },
];

let codeSeq = 0;
const nextCode = () => `SMS-${++codeSeq}`;

function componentIn(overrides: Record<string, unknown> = {}, group = groupId) {
  return {
    ComponentCode: nextCode(),
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: group,
    Term: 1,
    TermType: 'months',
    ComponentVersion: {
      VersionName: 'Launch prices',
      ComponentVersionCurrencies: [{ CurrencyCode: 'USD', ComponentBracketPrices: BRACKETS }],
    },
    ...overrides,
  };
}

async function create(overrides: Record<string, unknown> = {}, as: TestAccount = t, group = groupId) {
  const res = await as.request('POST', '/v1/components', { body: componentIn(overrides, group) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const withBrackets = (ComponentBracketPrices: unknown[], CurrencyCode = 'USD') => ({
  ComponentVersion: {
    VersionName: 'v1',
    ComponentVersionCurrencies: [{ CurrencyCode, ComponentBracketPrices }],
  },
});

const BRACKET_PATH = 'ComponentVersion.ComponentVersionCurrencies[0].ComponentBracketPrices';

async function refused(body: unknown, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/components', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  return res.body.fields as { field: string; message: string }[];
}

const versionIn = (overrides: Record<string, unknown> = {}) => ({
  VersionName: 'Next',
  isActive: true,
  isDefault: false,
  ComponentVersionCurrencies: [{ CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 2, QtyFrom: 1 }] }],
  ...overrides,
});

async function addVersion(componentId: number, overrides: Record<string, unknown> = {}) {
  const res = await t.request('POST', `/v1/components/${componentId}/versions`, {
    body: versionIn(overrides),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const versionsOf = async (componentId: number) =>
  (await t.request('GET', `/v1/components/${componentId}/versions`)).body as {
    VersionNo: number;
    isDefault: boolean;
    isActive: boolean;
  }[];

const defaultOf = async (componentId: number) =>
  (await versionsOf(componentId)).filter((v) => v.isDefault).map((v) => v.VersionNo);

describe('components: create and read', () => {
  it('creates a component with 201, its first version VersionNo 1 the default, in the spec wire shape', async () => {
    const res = await t.request('POST', '/v1/components', {
      body: componentIn({
        ComponentCode: 'SMS',
        Descrip: 'Text messages',
        Type: 'Quantity',
        Scheme: 'Volume',
      }),
    });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toEqual({
      componentID: expect.any(Number),
      ComponentCode: 'SMS',
      Name: 'SMS bundle',
      Descrip: 'Text messages',
      isActive: false,
      packageGroupID: groupId,
      UnitName: 'per sms',
      Term: 1,
      TermType: 'months',
      Type: 'quantity',
      Scheme: 'volume',
      ComponentVersions: [
        {
          componentVersionID: expect.any(Number),
          componentID: c.componentID,
          VersionNo: 1,
          VersionName: 'Launch prices',
          isDefault: true,
          isActive: true,
          ComponentVersionCurrencies: [
            {
              componentVersionCurrencyID: expect.any(Number),
              componentVersionID: c.ComponentVersions[0].componentVersionID,
              CurrencyCode: 'USD',
              ComponentBracketPrices: BRACKETS.map((b) => ({
                componentBracketID: expect.any(Number),
                componentVersionCurrencyID:
                  c.ComponentVersions[0].ComponentVersionCurrencies[0].componentVersionCurrencyID,
                ...b,
              })),
            },
          ],
        },
      ],
    });
    const read = await t.request('GET', `/v1/components/${c.componentID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(c);
  });

  it('defaults isActive to false and Descrip to null, and takes isActive true when sent', async () => {
    const inactive = await create();
    expect(inactive.isActive).toBe(false);
    expect(inactive.Descrip).toBeNull();
    expect((await create({ isActive: true })).isActive).toBe(true);
  });

  it.each([
    ['quantity', 'quantity'],
    ['Quantity', 'quantity'],
    ['QUANTITY', 'quantity'],
    ['metered', 'metered'],
    ['Metered', 'metered'],
    ['opt_in', 'opt_in'],
    ['opt-in', 'opt_in'],
    ['OptIn', 'opt_in'],
    ['Opt In', 'opt_in'],
  ])('accepts Type %j as %j', async (type, expected) => {
    expect((await create({ Type: type })).Type).toBe(expected);
  });

  it('takes Scheme and TermType in any case and returns them in lower case', async () => {
    const c = await create({ Scheme: 'UNIT', TermType: 'Days', Term: 30 });
    expect([c.Scheme, c.TermType, c.Term]).toEqual(['unit', 'days', 30]);
  });

  it('creates a version with several currencies and no prices at all', async () => {
    const several = await create({
      ComponentVersion: {
        VersionName: 'v1',
        isActive: false,
        ComponentVersionCurrencies: [
          { CurrencyCode: 'zar', ComponentBracketPrices: [{ Price: 15, QtyFrom: 0, QtyTill: '' }] },
          { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1 }] },
        ],
      },
    });
    const version = several.ComponentVersions[0];
    expect(version.isActive).toBe(false);
    expect(version.ComponentVersionCurrencies.map((c: { CurrencyCode: string }) => c.CurrencyCode)).toEqual([
      'ZAR',
      'USD',
    ]);
    expect(version.ComponentVersionCurrencies[0].ComponentBracketPrices[0]).toMatchObject({
      Price: 15,
      QtyFrom: 0,
      QtyTill: null,
    });
    const bare = await create({ ComponentVersion: { VersionName: 'v1' } });
    expect(bare.ComponentVersions[0].ComponentVersionCurrencies).toEqual([]);
  });

  it('keeps prices exact: decimals as numbers or strings, trailing zeros dropped, numbers returned', async () => {
    const c = await create(
      withBrackets([
        { Price: 0.1, QtyFrom: 1, QtyTill: 10 },
        { Price: '0.8000', QtyFrom: '11', QtyTill: '20' },
        { Price: 1.0001, QtyFrom: 21, QtyTill: 1e3 },
        { Price: '99999999999.9999', QtyFrom: 1001, QtyTill: 999999999999999 },
        { Price: 0, QtyFrom: '1000000000000000' },
      ]),
    );
    expect(
      c.ComponentVersions[0].ComponentVersionCurrencies[0].ComponentBracketPrices.map(
        (b: Record<string, unknown>) => [b.Price, b.QtyFrom, b.QtyTill],
      ),
    ).toEqual([
      [0.1, 1, 10],
      [0.8, 11, 20],
      [1.0001, 21, 1000],
      [99999999999.9999, 1001, 999999999999999],
      [0, 1000000000000000, null],
    ]);
    // The wire text itself, not only the parsed double.
    const text = (await t.request('GET', `/v1/components/${c.componentID}`)).text;
    expect(text).toContain('"Price":0.1,');
    expect(text).toContain('"Price":99999999999.9999,');
  });

  it('answers 404 for an unknown component and 422 for an identifier that is not one', async () => {
    const missing = await t.request('GET', '/v1/components/999999');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('component_not_found');
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const res = await t.request('GET', `/v1/components/${bad}`);
      expect(res.status).toBe(422);
      expect(res.body.fields[0].field).toBe('componentID');
    }
  });

  it('lists components in creation order, paged, with their versions', async () => {
    const account = await t.newAccount();
    const group = await createGroup(account);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create({}, account, group)).componentID);
    const all = await account.request('GET', '/v1/components');
    expect(all.status).toBe(200);
    expect(all.body.map((c: { componentID: number }) => c.componentID)).toEqual(ids);
    expect(
      all.body[4].ComponentVersions[0].ComponentVersionCurrencies[0].ComponentBracketPrices,
    ).toHaveLength(3);
    const page2 = await account.request('GET', '/v1/components?page=2&page_size=2');
    expect(page2.body.map((c: { componentID: number }) => c.componentID)).toEqual(ids.slice(2, 4));
    expect((await account.request('GET', '/v1/components?page=4&page_size=2')).body).toEqual([]);
    for (const query of ['page=0', 'page_size=0', 'page_size=201', 'page=x']) {
      const res = await account.request('GET', `/v1/components?${query}`);
      expect(res.status, query).toBe(422);
    }
  });
});

describe('components: refused input', () => {
  it.each([
    'ComponentCode',
    'Name',
    'Type',
    'Scheme',
    'UnitName',
    'packageGroupID',
    'Term',
    'TermType',
    'ComponentVersion',
  ])('refuses a component without %s with 422 naming it', async (field) => {
    const body: Record<string, unknown> = componentIn();
    delete body[field];
    expect((await refused(body)).map((f) => f.field)).toContain(field);
  });

  it.each([
    ['ComponentCode', '   '],
    ['ComponentCode', ''],
    ['Name', '  '],
    ['UnitName', ' '],
    ['Type', 'flat'],
    ['Type', 'opt'],
    ['Scheme', 'tiered'],
    ['Scheme', ''],
    ['TermType', 'weeks'],
    ['Term', 0],
    ['Term', -1],
    ['Term', 1.5],
    ['Term', '3'],
    ['Term', 10001],
    ['isActive', 'true'],
    ['Descrip', 5],
    ['packageGroupID', 0],
    ['packageGroupID', 'x'],
    ['Name', 'x'.repeat(256)],
  ])('refuses %s = %j with 422 naming it', async (field, value) => {
    expect((await refused(componentIn({ [field]: value }))).map((f) => f.field)).toContain(field);
  });

  it('refuses a VersionName that is blank or missing', async () => {
    for (const ComponentVersion of [{ VersionName: '  ' }, {}]) {
      const fields = await refused(componentIn({ ComponentVersion }));
      expect(fields.map((f) => f.field)).toContain('ComponentVersion.VersionName');
    }
  });

  it("refuses a package group that does not exist or is another account's, with 422 naming packageGroupID", async () => {
    for (const id of [999999, otherGroupId]) {
      const fields = await refused(componentIn({ packageGroupID: id }));
      expect(fields).toEqual([
        { field: 'packageGroupID', message: expect.stringContaining('does not exist') },
      ]);
    }
  });

  it('refuses currencies that are unknown or not enabled, naming the entry', async () => {
    for (const code of ['EUR', 'ABC', 'XAU']) {
      const fields = await refused(componentIn(withBrackets(BRACKETS, code)));
      expect(fields.map((f) => f.field)).toEqual([
        'ComponentVersion.ComponentVersionCurrencies[0].CurrencyCode',
      ]);
    }
    const short = await refused(componentIn(withBrackets(BRACKETS, 'US')));
    expect(short.map((f) => f.field)).toEqual([
      'ComponentVersion.ComponentVersionCurrencies[0].CurrencyCode',
    ]);
  });

  it('refuses a second entry for the same currency in a version', async () => {
    const fields = await refused(
      componentIn({
        ComponentVersion: {
          VersionName: 'v1',
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: BRACKETS },
            { CurrencyCode: 'usd', ComponentBracketPrices: BRACKETS },
          ],
        },
      }),
    );
    expect(fields).toEqual([
      {
        field: 'ComponentVersion.ComponentVersionCurrencies[1].CurrencyCode',
        message: expect.stringContaining('listed twice'),
      },
    ]);
  });

  it.each([
    [
      'a gap',
      [
        { Price: 1, QtyFrom: 1, QtyTill: 10 },
        { Price: 1, QtyFrom: 12 },
      ],
      '[1].QtyFrom',
      'gap',
    ],
    [
      'an overlap',
      [
        { Price: 1, QtyFrom: 1, QtyTill: 10 },
        { Price: 1, QtyFrom: 10 },
      ],
      '[1].QtyFrom',
      'overlap',
    ],
    ['a first bracket from 2', [{ Price: 1, QtyFrom: 2 }], '[0].QtyFrom', 'start at 0 or 1'],
    ['a closed last bracket', [{ Price: 1, QtyFrom: 1, QtyTill: 10 }], '[0].QtyTill', 'must be open'],
    [
      'an open bracket before the last',
      [
        { Price: 1, QtyFrom: 1 },
        { Price: 1, QtyFrom: 2 },
      ],
      '[0].QtyTill',
      'only the last',
    ],
    [
      'QtyTill below QtyFrom',
      [
        { Price: 1, QtyFrom: 1, QtyTill: 0 },
        { Price: 1, QtyFrom: 1 },
      ],
      '[0].QtyTill',
      'below',
    ],
    ['a fractional QtyFrom', [{ Price: 1, QtyFrom: 0.5 }], '[0].QtyFrom', 'whole number'],
    [
      'a fractional QtyTill',
      [
        { Price: 1, QtyFrom: 1, QtyTill: 9.5 },
        { Price: 1, QtyFrom: 10.5 },
      ],
      '[0].QtyTill',
      'whole number',
    ],
    ['a negative QtyFrom', [{ Price: 1, QtyFrom: -1 }], '[0].QtyFrom', 'non-negative'],
    ['a negative Price', [{ Price: -0.01, QtyFrom: 1 }], '[0].Price', 'non-negative'],
    ['a Price with 5 decimals', [{ Price: 0.12345, QtyFrom: 1 }], '[0].Price', 'at most 4 decimals'],
    ['a Price in exponent form', [{ Price: '1e2', QtyFrom: 1 }], '[0].Price', 'non-negative decimal'],
    ['a Price that is not a number', [{ Price: 'cheap', QtyFrom: 1 }], '[0].Price', 'non-negative decimal'],
    ['a Price beyond 15 digits', [{ Price: 100000000000, QtyFrom: 1 }], '[0].Price', 'at most'],
    [
      'a quantity beyond 15 digits',
      [
        { Price: 1, QtyFrom: 1, QtyTill: 1e16 },
        { Price: 1, QtyFrom: '10000000000000001' },
      ],
      '[0].QtyTill',
      'at most',
    ],
  ])('refuses brackets with %s, naming the bracket', async (_case, brackets, at, words) => {
    const fields = await refused(componentIn(withBrackets(brackets)));
    expect(fields).toContainEqual({ field: `${BRACKET_PATH}${at}`, message: expect.stringContaining(words) });
  });

  it('refuses an empty bracket list, naming the list', async () => {
    expect(await refused(componentIn(withBrackets([])))).toEqual([
      { field: BRACKET_PATH, message: 'at least one bracket is required' },
    ]);
  });

  it('refuses a bracket without Price or QtyFrom, and Price given as a boolean', async () => {
    const fields = await refused(
      componentIn(withBrackets([{ QtyFrom: 1 }, { Price: 1 }, { Price: true, QtyFrom: 1 }])),
    );
    expect(fields.map((f) => f.field)).toEqual(
      expect.arrayContaining([
        `${BRACKET_PATH}[0].Price`,
        `${BRACKET_PATH}[1].QtyFrom`,
        `${BRACKET_PATH}[2].Price`,
      ]),
    );
  });

  it('reports every problem of a request at once', async () => {
    const fields = await refused(
      componentIn({
        Type: 'flat',
        TermType: 'years',
        ...withBrackets([
          { Price: 1.00001, QtyFrom: 1, QtyTill: 10 },
          { Price: 1, QtyFrom: 15, QtyTill: 20 },
        ]),
      }),
    );
    expect(fields.map((f) => f.field)).toEqual([
      'Type',
      'TermType',
      `${BRACKET_PATH}[0].Price`,
      `${BRACKET_PATH}[1].QtyTill`,
      `${BRACKET_PATH}[1].QtyFrom`,
    ]);
  });

  it('answers 409 for a ComponentCode the account uses already, and writes nothing on refusal', async () => {
    const first = await create({ ComponentCode: 'DUP' });
    const before = (await t.request('GET', '/v1/components?page_size=200')).body.length;
    const res = await t.request('POST', '/v1/components', { body: componentIn({ ComponentCode: 'DUP' }) });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('component_code_taken');
    expect(res.body.detail).toContain(String(first.componentID));
    await refused(componentIn(withBrackets(BRACKETS, 'EUR')));
    expect((await t.request('GET', '/v1/components?page_size=200')).body.length).toBe(before);
  });
});

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

describe('components: review fixes', () => {
  it('refuses bracket values JSON reads as infinite with 422 naming them, never 500', async () => {
    const body = JSON.stringify(componentIn(withBrackets([{ Price: 1, QtyFrom: 1, QtyTill: null }])));
    for (const [raw, field] of [
      ['"Price":1e400', 'Price'],
      ['"QtyFrom":-1e999', 'QtyFrom'],
    ] as const) {
      const hostile = body.replace(raw.startsWith('"Price"') ? '"Price":1' : '"QtyFrom":1', raw);
      const res = await t.request('POST', '/v1/components', { rawBody: hostile });
      expect(res.status, raw).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toContain(`${BRACKET_PATH}[0].${field}`);
    }
  });
});
