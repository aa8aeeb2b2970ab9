import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ISO_CODES_VERSION,
  codeOfStateId,
  findCountry,
  listCountries,
  listStates,
  stateIdOfCode,
  suffixOfValue,
  suffixValue,
} from '../../src/core/countries.ts';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

const ZA = 710;
// W = 33, C = 13: 33 x 37 + 13 = 1234.
const ZA_WC = 71001234;
const US_CA = stateIdOfCode('US-CA')!;

describe('the country and state identifiers', () => {
  it('are the ISO numeric code, and countryID x 100000 + the suffix in base 37', () => {
    expect(stateIdOfCode('ZA-WC')).toBe(ZA_WC);
    expect(codeOfStateId(ZA_WC)).toBe('ZA-WC');
    expect(suffixValue('1')).toBe(2);
    expect(suffixValue('01')).toBe(1 * 37 + 2);
    expect(suffixValue('ZZZ')).toBe(37 ** 3 - 1);
    expect(suffixOfValue(37)).toBeUndefined();
    expect(codeOfStateId(ZA * 100000)).toBeUndefined();
  });

  it('are distinct and reversible for every listed subdivision', () => {
    const seen = new Set<number>();
    for (const country of listCountries()) {
      for (const state of listStates(country.id)) {
        expect(Math.floor(state.id / 100000)).toBe(country.id);
        expect(codeOfStateId(state.id)).toBe(state.code);
        seen.add(state.id);
      }
    }
    expect(seen.size).toBeGreaterThan(5000);
  });

  it('round-trip every suffix of up to three characters', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Z]{1,3}$/), (suffix) => {
        expect(suffixOfValue(suffixValue(suffix)!)).toBe(suffix);
      }),
    );
  });

  it('come from a recorded iso-codes release', () => {
    expect(ISO_CODES_VERSION).toMatch(/^\d+\.\d+/);
  });
});

describe('GET /v1/countries', () => {
  it('lists countries ordered by name, 100 to a page by default', async () => {
    const res = await t.request('GET', '/v1/countries');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(100);
    expect(res.body[0]).toEqual({ countryID: 4, Code: 'AF', Code3: 'AFG', Name: 'Afghanistan' });
    const all = (await t.request('GET', '/v1/countries?page_size=200')).body.concat(
      (await t.request('GET', '/v1/countries?page=2&page_size=200')).body,
    );
    expect(all).toHaveLength(listCountries().length);
    expect(all).toContainEqual({ countryID: 710, Code: 'ZA', Code3: 'ZAF', Name: 'South Africa' });
    const names = all.map((c: { Name: string }) => c.Name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
  });

  it('pages: page 2 of 10 follows page 1, past the end is empty', async () => {
    const first = (await t.request('GET', '/v1/countries?page_size=20')).body;
    const second = (await t.request('GET', '/v1/countries?page=2&page_size=10')).body;
    expect(second).toEqual(first.slice(10, 20));
    expect((await t.request('GET', '/v1/countries?page=100')).body).toEqual([]);
  });

  it.each([
    ['page=0', 'page'],
    ['page_size=201', 'page_size'],
    ['page_size=x', 'page_size'],
  ])('refuses %s with 422 naming %s', async (query, field) => {
    const res = await t.request('GET', `/v1/countries?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.fields[0].field).toBe(field);
  });

  it('needs credentials', async () => {
    expect((await t.request('GET', '/v1/countries', { auth: false })).status).toBe(401);
  });
});

describe('GET /v1/countries/{countryID}/states', () => {
  it("lists a country's states ordered by code", async () => {
    const res = await t.request('GET', `/v1/countries/${ZA}/states`);
    expect(res.status).toBe(200);
    expect(res.body.map((s: { Code: string }) => s.Code)).toEqual([
      'ZA-EC',
      'ZA-FS',
      'ZA-GP',
      'ZA-KZN',
      'ZA-LP',
      'ZA-MP',
      'ZA-NC',
      'ZA-NW',
      'ZA-WC',
    ]);
    expect(res.body[8]).toEqual({
      countryStateID: ZA_WC,
      countryID: ZA,
      Code: 'ZA-WC',
      Name: 'Western Cape',
      Type: 'Province',
    });
  });

  it('pages', async () => {
    const all = (await t.request('GET', '/v1/countries/840/states?page_size=200')).body;
    expect(all.length).toBe(listStates(840).length);
    const page = (await t.request('GET', '/v1/countries/840/states?page=3&page_size=5')).body;
    expect(page).toEqual(all.slice(10, 15));
    expect((await t.request('GET', '/v1/countries/840/states?page=50')).body).toEqual([]);
  });

  it('answers an empty list for a country without states', async () => {
    expect(findCountry(10)?.alpha2).toBe('AQ');
    const res = await t.request('GET', '/v1/countries/10/states');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('answers 404 for an unknown country and 422 for one that cannot be an id', async () => {
    const unknown = await t.request('GET', '/v1/countries/999/states');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('country_not_found');
    const bad = await t.request('GET', '/v1/countries/ZA/states');
    expect(bad.status).toBe(422);
    expect(bad.body.fields[0].field).toBe('countryID');
  });
});

describe("customers' countryID and countryStateID", () => {
  const create = (body: object) => t.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });

  it('accepts a known country with one of its states, and a country alone', async () => {
    const created = await create({ countryID: ZA, countryStateID: ZA_WC });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ countryID: ZA, countryStateID: String(ZA_WC) });
    expect((await create({ countryID: 840, countryStateID: String(US_CA) })).status).toBe(201);
    expect((await create({ countryID: 840 })).status).toBe(201);
  });

  it.each([
    [{ countryID: 999 }, 'countryID', 'not an ISO 3166-1'],
    [{ countryID: ZA, countryStateID: 71000001 }, 'countryStateID', 'not a known state'],
    [{ countryID: ZA, countryStateID: US_CA }, 'countryStateID', 'US-CA is in United States'],
    [{ countryStateID: ZA_WC }, 'countryStateID', 'needs countryID'],
    [{ countryID: 999, countryStateID: ZA_WC }, 'countryID', 'not an ISO 3166-1'],
  ])('refuses %j with 422 naming %s', async (bad, field, message) => {
    const res = await create(bad);
    expect(res.status).toBe(422);
    expect(res.body.fields).toContainEqual({ field, message: expect.stringContaining(message) });
  });

  it('checks an edit against the fields it keeps', async () => {
    const id = (await create({ countryID: ZA, countryStateID: ZA_WC })).body.customerID;
    const edit = (body: object) => t.request('PUT', `/v1/customers/${id}`, { body });

    const moved = await edit({ countryID: 840 });
    expect(moved.status).toBe(422);
    expect(moved.body.fields[0]).toEqual({
      field: 'countryStateID',
      message: expect.stringContaining('ZA-WC is in South Africa'),
    });
    expect((await edit({ countryStateID: US_CA })).status).toBe(422);
    expect((await edit({ countryID: 840, countryStateID: US_CA })).status).toBe(204);
    expect((await edit({ countryStateID: null })).status).toBe(204);
    expect((await edit({ countryID: null })).status).toBe(204);
    expect((await edit({ Name: 'Unrelated' })).status).toBe(204);
    const read = await t.request('GET', `/v1/customers/${id}`);
    expect(read.body).toMatchObject({ countryID: null, countryStateID: null, Name: 'Unrelated' });
  });
});
