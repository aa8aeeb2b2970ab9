import { describe, expect, it } from 'vitest';
import { componentIn, create, other, refused, t, useComponentService } from './components.fixtures.ts';

useComponentService();

// docs/pricing.md, "Usage schemes": the fields each scheme needs, stored and shown as sent.
const CURRENCIES = 'ComponentVersion.ComponentVersionCurrencies';
const withPrices = (Scheme: string, currency: Record<string, unknown>) =>
  componentIn({
    Scheme,
    ComponentVersion: {
      VersionName: 'v1',
      ComponentVersionCurrencies: [{ CurrencyCode: 'USD', ...currency }],
    },
  });
const STAIRS = [
  { Price: 0, FlatPrice: 20, QtyFrom: 1, QtyTill: 10 },
  { Price: 0, FlatPrice: '50.00', QtyFrom: 11, QtyTill: null },
];
const fieldsOf = (problems: { field: string }[]) => problems.map((p) => p.field);

describe('components: package and stairstep schemes, flat fees', () => {
  it('creates a package component and shows its blocks, with no brackets', async () => {
    const c = await create(withPrices('Package', { PackageSize: 100, Price: '5.00', FreeUnits: 50 }));
    expect(c.Scheme).toBe('package');
    const currency = c.ComponentVersions[0].ComponentVersionCurrencies[0];
    expect(currency).toEqual({
      componentVersionCurrencyID: expect.any(Number),
      componentVersionID: c.ComponentVersions[0].componentVersionID,
      CurrencyCode: 'USD',
      ComponentBracketPrices: [],
      PackageSize: 100,
      Price: 5,
      FreeUnits: 50,
    });
    const read = await t.request('GET', `/v1/components/${c.componentID}`);
    expect(read.body.ComponentVersions[0].ComponentVersionCurrencies[0]).toEqual(currency);
    // FreeUnits left out is 0.
    const plain = await create(withPrices('package', { PackageSize: '10', Price: 1 }));
    expect(plain.ComponentVersions[0].ComponentVersionCurrencies[0]).toMatchObject({ FreeUnits: 0 });
  });

  it('creates stairstep and flat-fee brackets and shows FlatPrice only where a bracket has one', async () => {
    const stairs = await create(withPrices('Stairstep', { ComponentBracketPrices: STAIRS }));
    expect(stairs.Scheme).toBe('stairstep');
    const brackets = stairs.ComponentVersions[0].ComponentVersionCurrencies[0].ComponentBracketPrices;
    expect(brackets.map((b: any) => [b.Price, b.FlatPrice, b.QtyFrom, b.QtyTill])).toEqual([
      [0, 20, 1, 10],
      [0, 50, 11, null],
    ]);
    const flat = await create(
      withPrices('unit', {
        ComponentBracketPrices: [
          { Price: 1, FlatPrice: 5, QtyFrom: 1, QtyTill: 100 },
          { Price: 0.5, QtyFrom: 101 },
        ],
      }),
    );
    const [first, second] = flat.ComponentVersions[0].ComponentVersionCurrencies[0].ComponentBracketPrices;
    expect(first.FlatPrice).toBe(5);
    expect('FlatPrice' in second).toBe(false);
  });

  it.each([
    [
      'package',
      { ComponentBracketPrices: [{ Price: 1, QtyFrom: 1 }], PackageSize: 10, Price: 1 },
      'ComponentBracketPrices',
    ],
    ['package', { Price: 1 }, 'PackageSize'],
    ['package', { PackageSize: 10 }, 'Price'],
    ['package', { PackageSize: 0, Price: 1 }, 'PackageSize'],
    ['package', { PackageSize: 2.5, Price: 1 }, 'PackageSize'],
    ['package', { PackageSize: 10, Price: 1, FreeUnits: -1 }, 'FreeUnits'],
    ['package', { PackageSize: 10, Price: 1, FreeUnits: 0.5 }, 'FreeUnits'],
    ['package', { PackageSize: 10, Price: 0.00001 }, 'Price'],
    ['unit', { ComponentBracketPrices: [{ Price: 1, QtyFrom: 1 }], PackageSize: 10 }, 'PackageSize'],
    ['volume', { ComponentBracketPrices: [{ Price: 1, QtyFrom: 1 }], FreeUnits: 10 }, 'FreeUnits'],
    ['unit', { ComponentBracketPrices: [] }, 'ComponentBracketPrices'],
    ['stairstep', {}, 'ComponentBracketPrices'],
    [
      'stairstep',
      { ComponentBracketPrices: [{ Price: 1, FlatPrice: 2, QtyFrom: 1 }] },
      'ComponentBracketPrices[0].Price',
    ],
    [
      'stairstep',
      { ComponentBracketPrices: [{ Price: 0, QtyFrom: 1 }] },
      'ComponentBracketPrices[0].FlatPrice',
    ],
    [
      'unit',
      { ComponentBracketPrices: [{ Price: 1, FlatPrice: -1, QtyFrom: 1 }] },
      'ComponentBracketPrices[0].FlatPrice',
    ],
    [
      'volume',
      { ComponentBracketPrices: [{ Price: 1, FlatPrice: '1e2', QtyFrom: 1 }] },
      'ComponentBracketPrices[0].FlatPrice',
    ],
  ] as const)('refuses %s prices %j with 422 naming %s', async (scheme, currency, field) => {
    const problems = await refused(withPrices(scheme, currency));
    expect(fieldsOf(problems)).toEqual([`${CURRENCIES}[0].${field}`]);
  });

  it('checks a new version against the component scheme', async () => {
    const c = await create(withPrices('package', { PackageSize: 100, Price: 5 }));
    const bad = await t.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: {
        VersionName: 'Brackets',
        isActive: true,
        isDefault: false,
        ComponentVersionCurrencies: [
          { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1 }] },
        ],
      },
    });
    expect(bad.status).toBe(422);
    expect(fieldsOf(bad.body.fields)).toEqual([
      'ComponentVersionCurrencies[0].ComponentBracketPrices',
      'ComponentVersionCurrencies[0].PackageSize',
      'ComponentVersionCurrencies[0].Price',
    ]);
    const good = await t.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: {
        VersionName: 'Bigger blocks',
        isActive: true,
        isDefault: true,
        ComponentVersionCurrencies: [{ CurrencyCode: 'USD', PackageSize: 1000, Price: 40 }],
      },
    });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    expect(good.body.ComponentVersionCurrencies[0]).toMatchObject({
      PackageSize: 1000,
      Price: 40,
      FreeUnits: 0,
    });
    const edit = await t.request('PUT', `/v1/components/${c.componentID}/versions/1`, {
      body: {
        VersionName: 'v1',
        isActive: true,
        ComponentVersionCurrencies: [{ CurrencyCode: 'USD', PackageSize: 10 }],
      },
    });
    expect(fieldsOf(edit.body.fields)).toEqual(['ComponentVersionCurrencies[0].Price']);
  });

  it('changes Scheme only to one that the prices of every version fit', async () => {
    const { ComponentVersion: _version, ...fields } = componentIn();
    const c = await create();
    const put = (Scheme: string, id = c.componentID) =>
      t.request('PUT', `/v1/components/${id}`, { body: { ...fields, ComponentCode: undefined, Scheme } });
    expect((await put('volume')).status).toBe(200);
    const toStairs = await put('stairstep');
    expect(toStairs.status).toBe(422);
    expect(toStairs.body.fields).toEqual([
      {
        field: 'Scheme',
        message:
          'the prices of version 1 in USD do not fit stairstep: ComponentBracketPrices[0].FlatPrice: FlatPrice is ' +
          "required under the stairstep scheme; edit the version's prices first",
      },
    ]);
    const toPackage = await put('package');
    expect(fieldsOf(toPackage.body.fields)).toEqual(['Scheme']);
    expect((await t.request('GET', `/v1/components/${c.componentID}`)).body.Scheme).toBe('volume');

    const pack = await create(withPrices('package', { PackageSize: 100, Price: 5 }));
    expect(fieldsOf((await put('unit', pack.componentID)).body.fields)).toEqual(['Scheme']);
    expect((await put('package', pack.componentID)).status).toBe(200);
  });

  it("answers 404 for another account's package component, its versions and its Scheme", async () => {
    const c = await create(withPrices('package', { PackageSize: 100, Price: 5 }));
    const { ComponentVersion: _version, ...fields } = componentIn();
    expect((await other.request('GET', `/v1/components/${c.componentID}`)).status).toBe(404);
    const version = await other.request('POST', `/v1/components/${c.componentID}/versions`, {
      body: {
        VersionName: 'Theirs',
        isActive: true,
        isDefault: false,
        ComponentVersionCurrencies: [{ CurrencyCode: 'USD', PackageSize: 10, Price: 1 }],
      },
    });
    expect(version.status).toBe(404);
    const scheme = await other.request('PUT', `/v1/components/${c.componentID}`, {
      body: { ...fields, ComponentCode: undefined, Scheme: 'unit' },
    });
    expect(scheme.status).toBe(404);
    expect((await t.request('GET', `/v1/components/${c.componentID}`)).body.Scheme).toBe('package');
  });
});
