import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService({ secondAccount: true });
const { other } = t;

const ZA = 710;
const US = 840;
const ZA_WC = 71001234;
const ZA_GP = 71000655;
const US_CA = 84000492;

let nameSeq = 0;
const uniqueName = (prefix = 'Tax') => `${prefix} ${++nameSeq}`;

async function create(body: object, as: TestAccount = t) {
  const res = await as.request('POST', '/v1/tax', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const read = async (id: number, as: TestAccount = t) => (await as.request('GET', `/v1/tax/${id}`)).body;

describe('POST /v1/tax', () => {
  it('creates a setting with its rules and generated ids, Perc a number', async () => {
    const created = await create({
      Name: '  VAT  ',
      rules: [
        { Perc: 0.15, countryID: ZA, TaxNumber: '4123456789' },
        { Perc: 0.1, countryID: ZA, countryStateID: ZA_WC, TaxNumber: ' ' },
        { Perc: 0.2 },
      ],
    });
    expect(created).toEqual({
      taxSettingID: expect.any(Number),
      Name: 'VAT',
      rules: [
        {
          taxRuleID: expect.any(Number),
          Perc: 0.15,
          countryID: ZA,
          countryStateID: null,
          TaxNumber: '4123456789',
          ScheduledRates: [],
        },
        {
          taxRuleID: expect.any(Number),
          Perc: 0.1,
          countryID: ZA,
          countryStateID: ZA_WC,
          TaxNumber: null,
          ScheduledRates: [],
        },
        {
          taxRuleID: expect.any(Number),
          Perc: 0.2,
          countryID: null,
          countryStateID: null,
          TaxNumber: null,
          ScheduledRates: [],
        },
      ],
    });
    expect(new Set(created.rules.map((r: { taxRuleID: number }) => r.taxRuleID)).size).toBe(3);
    expect(await read(created.taxSettingID)).toEqual(created);
  });

  it('creates a setting without rules, and accepts a numeric string countryStateID', async () => {
    expect((await create({ Name: uniqueName() })).rules).toEqual([]);
    const created = await create({
      Name: uniqueName(),
      rules: [{ Perc: 0.0725, countryID: US, countryStateID: String(US_CA) }],
    });
    expect(created.rules[0]).toMatchObject({ Perc: 0.0725, countryStateID: US_CA });
  });

  it('stores Perc exactly: 0, 1 and six decimals', async () => {
    const created = await create({
      Name: uniqueName(),
      rules: [{ Perc: 0 }, { Perc: 1, countryID: ZA }, { Perc: 0.123456, countryID: US }],
    });
    expect(created.rules.map((r: { Perc: number }) => r.Perc)).toEqual([0, 1, 0.123456]);
    const raw = await t.request('GET', `/v1/tax/${created.taxSettingID}`);
    expect(raw.text).toContain('"Perc":0.123456');
  });

  it('ignores taxRuleID on create, so a setting read back can be posted as a copy', async () => {
    const original = await create({ Name: uniqueName(), rules: [{ Perc: 0.15, countryID: ZA }] });
    const copy = await create({ ...original, Name: uniqueName('Copy') });
    expect(copy.taxSettingID).not.toBe(original.taxSettingID);
    expect(copy.rules[0].taxRuleID).not.toBe(original.rules[0].taxRuleID);
    expect((await read(original.taxSettingID)).rules).toEqual(original.rules);
  });

  it.each([
    [{ Perc: 14 }, 'rules[0].Perc', 'not a percentage: 14% is 0.14'],
    [{ Perc: 1.000001 }, 'rules[0].Perc', 'between 0 and 1'],
    [{ Perc: -0.1 }, 'rules[0].Perc', 'between 0 and 1'],
    [{ Perc: 150 }, 'rules[0].Perc', 'between 0 and 1'],
    [{ Perc: 0.1234567 }, 'rules[0].Perc', 'at most 6 decimals'],
    [{ Perc: '0.15' }, 'rules[0].Perc', 'must be a number'],
    [{ Perc: null }, 'rules[0].Perc', 'must be a number'],
    [{}, 'rules[0].Perc', 'is required'],
    [{ Perc: 0.1, countryID: 999 }, 'rules[0].countryID', 'not an ISO 3166-1'],
    [{ Perc: 0.1, countryID: 0 }, 'rules[0].countryID', ''],
    [{ Perc: 0.1, countryID: ZA, countryStateID: 71000001 }, 'rules[0].countryStateID', 'not a known state'],
    [{ Perc: 0.1, countryID: ZA, countryStateID: US_CA }, 'rules[0].countryStateID', 'is in United States'],
    [{ Perc: 0.1, countryStateID: ZA_WC }, 'rules[0].countryStateID', 'needs rules[0].countryID'],
    [{ Perc: 0.1, countryStateID: '12a' }, 'rules[0].countryStateID', ''],
    [{ Perc: 0.1, TaxNumber: 'x'.repeat(101) }, 'rules[0].TaxNumber', ''],
  ])('refuses the rule %j with 422 naming %s and creates nothing', async (rule, field, message) => {
    const before = (await t.request('GET', '/v1/tax?page_size=200')).body.length;
    const res = await t.request('POST', '/v1/tax', { body: { Name: uniqueName(), rules: [rule] } });
    expect(res.status).toBe(422);
    expect(res.body.fields).toContainEqual({ field, message: expect.stringContaining(message) });
    expect((await t.request('GET', '/v1/tax?page_size=200')).body.length).toBe(before);
  });

  it('names the rule by its position and reports every bad rule', async () => {
    const res = await t.request('POST', '/v1/tax', {
      body: {
        Name: uniqueName(),
        rules: [{ Perc: 0.1 }, { Perc: 15, countryID: ZA }, { Perc: 0.1, countryID: 1 }],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([
      'rules[1].Perc',
      'rules[2].countryID',
    ]);
  });

  it.each([
    [[{ Perc: 0.1 }, { Perc: 0.2 }], 'rules[1].countryID'],
    [
      [
        { Perc: 0.1, countryID: ZA },
        { Perc: 0.2, countryID: US },
        { Perc: 0.2, countryID: ZA },
      ],
      'rules[2].countryID',
    ],
    [
      [
        { Perc: 0.1, countryID: ZA, countryStateID: ZA_WC },
        { Perc: 0.2, countryID: ZA, countryStateID: String(ZA_WC) },
      ],
      'rules[1].countryStateID',
    ],
  ])('refuses two rules for one place (%j)', async (rules, field) => {
    const res = await t.request('POST', '/v1/tax', { body: { Name: uniqueName(), rules } });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field, message: expect.stringContaining('same country and state') }]);
  });

  it.each([
    [{ rules: [] }, 'Name', 'is required'],
    [{ Name: '' }, 'Name', 'must not be empty'],
    [{ Name: '   ' }, 'Name', 'must not be blank'],
    [{ Name: 'x'.repeat(256) }, 'Name', 'at most 255'],
    [{ Name: 'VAT', rules: {} }, 'rules', 'must be an array'],
  ])('refuses %j with 422 naming %s', async (body, field, message) => {
    const res = await t.request('POST', '/v1/tax', { body });
    expect(res.status).toBe(422);
    expect(res.body.fields).toContainEqual({ field, message: expect.stringContaining(message) });
  });

  it('answers 409 when the Name is taken in the account, ignoring case, and allows it in another', async () => {
    const name = uniqueName('Sales tax');
    await create({ Name: name });
    const res = await t.request('POST', '/v1/tax', { body: { Name: ` ${name.toUpperCase()} ` } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('tax_name_taken');
    await create({ Name: name }, other);
  });

  it('gives one of several concurrent creates with the same name a 201 and the others a 409, never a 500', async () => {
    const name = uniqueName();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.request('POST', '/v1/tax', {
          body: { Name: i % 2 ? name : name.toLowerCase(), rules: [{ Perc: 0.1 }] },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const refused of results.filter((r) => r.status === 409))
      expect(refused.body.code).toBe('tax_name_taken');
  });
});

describe('GET /v1/tax', () => {
  it('lists the settings with their rules in creation order, paged', async () => {
    const account = await t.newAccount('Lister');
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await create({ Name: `T${i}`, rules: [{ Perc: i / 100 }] }, account)).taxSettingID);
    }
    const all = await account.request('GET', '/v1/tax');
    expect(all.status).toBe(200);
    expect(all.body.map((s: { taxSettingID: number }) => s.taxSettingID)).toEqual(ids);
    expect(all.body[3]).toEqual({
      taxSettingID: ids[3],
      Name: 'T3',
      rules: [expect.objectContaining({ Perc: 0.03, countryID: null })],
    });
    const page = await account.request('GET', '/v1/tax?page=2&page_size=2');
    expect(page.body.map((s: { Name: string }) => s.Name)).toEqual(['T2', 'T3']);
    expect((await account.request('GET', '/v1/tax?page=4&page_size=2')).body).toEqual([]);
  });

  it.each([
    ['page=0', 'page'],
    ['page_size=0', 'page_size'],
    ['page_size=201', 'page_size'],
  ])('refuses %s with 422 naming %s', async (query, field) => {
    const res = await t.request('GET', `/v1/tax?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.fields[0].field).toBe(field);
  });
});

describe('GET /v1/tax/{taxSettingID}', () => {
  it('answers one setting (an object, not the list of the spec sample)', async () => {
    const created = await create({ Name: uniqueName(), rules: [{ Perc: 0.15 }] });
    const res = await t.request('GET', `/v1/tax/${created.taxSettingID}`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(false);
    expect(res.body).toEqual(created);
  });

  it('answers 404 for an unknown id and 422 for one that cannot be an id', async () => {
    const unknown = await t.request('GET', '/v1/tax/999999');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('tax_setting_not_found');
    const bad = await t.request('GET', '/v1/tax/abc');
    expect(bad.status).toBe(422);
    expect(bad.body.fields[0].field).toBe('taxSettingID');
  });
});

describe('PUT /v1/tax/{taxSettingID}', () => {
  it('adds rules without taxRuleID, edits those with one, deletes those left out', async () => {
    const created = await create({
      Name: uniqueName(),
      rules: [
        { Perc: 0.15, countryID: ZA },
        { Perc: 0.1, countryID: ZA, countryStateID: ZA_WC },
        { Perc: 0.2 },
      ],
    });
    const [za, wc, global] = created.rules;
    const res = await t.request('PUT', `/v1/tax/${created.taxSettingID}`, {
      body: {
        Name: 'VAT renamed',
        rules: [
          { taxRuleID: za.taxRuleID, Perc: 0.16, countryID: ZA, TaxNumber: 'ZA-1' },
          { Perc: 0.12, countryID: ZA, countryStateID: ZA_GP },
          { taxRuleID: global.taxRuleID, Perc: 0.21, countryID: null },
        ],
      },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await read(created.taxSettingID);
    expect(after.Name).toBe('VAT renamed');
    expect(after.rules).toEqual([
      {
        taxRuleID: za.taxRuleID,
        Perc: 0.16,
        countryID: ZA,
        countryStateID: null,
        TaxNumber: 'ZA-1',
        ScheduledRates: [],
      },
      {
        taxRuleID: global.taxRuleID,
        Perc: 0.21,
        countryID: null,
        countryStateID: null,
        TaxNumber: null,
        ScheduledRates: [],
      },
      {
        taxRuleID: expect.any(Number),
        Perc: 0.12,
        countryID: ZA,
        countryStateID: ZA_GP,
        TaxNumber: null,
        ScheduledRates: [],
      },
    ]);
    expect(after.rules.map((r: { taxRuleID: number }) => r.taxRuleID)).not.toContain(wc.taxRuleID);
  });

  it('keeps the rules when the body has none, and deletes them all for an empty list', async () => {
    const created = await create({ Name: uniqueName(), rules: [{ Perc: 0.15 }] });
    const path = `/v1/tax/${created.taxSettingID}`;
    expect((await t.request('PUT', path, { body: { Name: 'Kept' } })).status).toBe(204);
    expect(await read(created.taxSettingID)).toEqual({ ...created, Name: 'Kept' });
    expect((await t.request('PUT', path, { body: { Name: 'Kept', rules: [] } })).status).toBe(204);
    expect((await read(created.taxSettingID)).rules).toEqual([]);
  });

  it('lets a setting keep its own name, or change its case', async () => {
    const created = await create({ Name: uniqueName('Levy') });
    const path = `/v1/tax/${created.taxSettingID}`;
    expect((await t.request('PUT', path, { body: { Name: created.Name } })).status).toBe(204);
    expect((await t.request('PUT', path, { body: { Name: created.Name.toUpperCase() } })).status).toBe(204);
  });

  it("answers 409 for another setting's name", async () => {
    const first = await create({ Name: uniqueName() });
    const second = await create({ Name: uniqueName() });
    const res = await t.request('PUT', `/v1/tax/${second.taxSettingID}`, { body: { Name: first.Name } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('tax_name_taken');
    expect((await read(second.taxSettingID)).Name).toBe(second.Name);
  });

  it("refuses an unknown taxRuleID, another setting's, or one given twice, with 422, changing nothing", async () => {
    const mine = await create({ Name: uniqueName(), rules: [{ Perc: 0.15 }] });
    const theirs = await create({ Name: uniqueName(), rules: [{ Perc: 0.1 }] });
    const foreign = await create({ Name: uniqueName(), rules: [{ Perc: 0.1 }] }, other);
    const mineId = mine.rules[0].taxRuleID;
    for (const [rules, field] of [
      [[{ taxRuleID: 99999999, Perc: 0.1 }], 'rules[0].taxRuleID'],
      [
        [
          { Perc: 0.1, countryID: ZA },
          { taxRuleID: theirs.rules[0].taxRuleID, Perc: 0.1 },
        ],
        'rules[1].taxRuleID',
      ],
      [[{ taxRuleID: foreign.rules[0].taxRuleID, Perc: 0.1 }], 'rules[0].taxRuleID'],
      [
        [
          { taxRuleID: mineId, Perc: 0.1 },
          { taxRuleID: mineId, Perc: 0.2, countryID: ZA },
        ],
        'rules[1].taxRuleID',
      ],
    ] as const) {
      const res = await t.request('PUT', `/v1/tax/${mine.taxSettingID}`, {
        body: { Name: 'Changed', rules },
      });
      expect(res.status, field).toBe(422);
      expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    expect(await read(mine.taxSettingID)).toEqual(mine);
    expect(await read(theirs.taxSettingID)).toEqual(theirs);
    expect(await read(foreign.taxSettingID, other)).toEqual(foreign);
  });

  it('refuses bad rules as POST does, changing nothing', async () => {
    const created = await create({ Name: uniqueName(), rules: [{ Perc: 0.15 }] });
    const res = await t.request('PUT', `/v1/tax/${created.taxSettingID}`, {
      body: {
        Name: 'Changed',
        rules: [
          { taxRuleID: created.rules[0].taxRuleID, Perc: 15 },
          { Perc: 0.1, countryStateID: ZA_WC },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([
      'rules[0].Perc',
      'rules[1].countryStateID',
    ]);
    expect(await read(created.taxSettingID)).toEqual(created);
  });

  it('lets a rule move to a place another rule leaves in the same request', async () => {
    const created = await create({
      Name: uniqueName(),
      rules: [{ Perc: 0.15, countryID: ZA }, { Perc: 0.2 }],
    });
    const [za, global] = created.rules;
    const res = await t.request('PUT', `/v1/tax/${created.taxSettingID}`, {
      body: {
        Name: created.Name,
        rules: [
          { taxRuleID: za.taxRuleID, Perc: 0.15 },
          { taxRuleID: global.taxRuleID, Perc: 0.2, countryID: ZA },
        ],
      },
    });
    expect(res.status).toBe(204);
    expect(
      (await read(created.taxSettingID)).rules.map((r: { countryID: number | null }) => r.countryID),
    ).toEqual([null, ZA]);
  });

  it('answers 404 for an unknown setting and 422 without a Name', async () => {
    expect((await t.request('PUT', '/v1/tax/999999', { body: { Name: 'x' } })).status).toBe(404);
    const created = await create({ Name: uniqueName() });
    const res = await t.request('PUT', `/v1/tax/${created.taxSettingID}`, { body: { rules: [] } });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field: 'Name', message: 'is required' }]);
  });
});

describe('DELETE /v1/tax/{taxSettingID}', () => {
  it('deletes a setting with its rules; a second delete is a 404', async () => {
    const created = await create({
      Name: uniqueName(),
      rules: [{ Perc: 0.15 }, { Perc: 0.1, countryID: ZA }],
    });
    const res = await t.request('DELETE', `/v1/tax/${created.taxSettingID}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('GET', `/v1/tax/${created.taxSettingID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/tax/${created.taxSettingID}`)).status).toBe(404);
    // Its name is free again.
    await create({ Name: created.Name });
  });
});

describe('tax settings of another account', () => {
  it('are never seen, changed or deleted: 404', async () => {
    const theirs = await create({ Name: uniqueName(), rules: [{ Perc: 0.15 }] }, other);
    const path = `/v1/tax/${theirs.taxSettingID}`;
    expect((await t.request('GET', path)).status).toBe(404);
    expect((await t.request('PUT', path, { body: { Name: 'Mine now', rules: [] } })).status).toBe(404);
    expect((await t.request('DELETE', path)).status).toBe(404);
    const listed = (await t.request('GET', '/v1/tax?page_size=200')).body;
    expect(listed.map((s: { taxSettingID: number }) => s.taxSettingID)).not.toContain(theirs.taxSettingID);
    expect(await read(theirs.taxSettingID, other)).toEqual(theirs);
  });
});

describe('tax settings under concurrent edits', () => {
  it('keeps one rule per place when several PUTs replace the rules at once', async () => {
    const created = await t.request('POST', '/v1/tax', {
      body: { Name: `Race ${Date.now()}`, rules: [{ Perc: 0.1 }] },
    });
    const id = created.body.taxSettingID;
    const results = await Promise.all(
      [0.01, 0.02, 0.03, 0.04].map((Perc) =>
        t.request('PUT', `/v1/tax/${id}`, { body: { Name: created.body.Name, rules: [{ Perc }] } }),
      ),
    );
    for (const res of results) expect([204, 409]).toContain(res.status);
    const read = await t.request('GET', `/v1/tax/${id}`);
    expect(read.body.rules).toHaveLength(1);
  });
});
