import { describe, expect, it } from 'vitest';
import {
  BRACKET_PATH,
  BRACKETS,
  componentIn,
  create,
  createGroup,
  groupId,
  otherGroupId,
  refused,
  t,
  useComponentService,
  withBrackets,
} from './components.fixtures.ts';

useComponentService();

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
      // Beyond the spec (docs/usage.md, "Billable metrics"): null, no billable metric.
      MetricCode: null,
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
