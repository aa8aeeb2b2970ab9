import { describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { fieldsOf, newCustomer, t, useCustomersService } from './fixtures.ts';

useCustomersService();

const NOTE_TYPES = [
  'General',
  'Follow Up',
  'Query',
  'Alert',
  'Dispute',
  'Issue',
  'Request',
  'Meeting',
  'Phone Call',
  'Email',
];

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function addNote(account: TestAccount, body: Record<string, unknown>): Promise<any> {
  const res = await account.request('POST', '/v1/customernotes', { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function noteCount(account: TestAccount): Promise<number> {
  return (await account.request('GET', '/v1/customernotes?page_size=200')).body.length;
}

describe('adding a note', () => {
  it('answers 201 with the note, dated now in UTC by the service, of type General by default', async () => {
    const customerID = await newCustomer();
    const before = Date.now();
    const res = await t.request('POST', '/v1/customernotes', {
      body: { customerID, Note: 'Called about the March invoice' },
    });
    const after = Date.now();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      customerNoteID: expect.any(Number),
      customerID,
      DateUTC: expect.stringMatching(ISO_UTC),
      Note: 'Called about the March invoice',
      NoteType: 'General',
    });
    const dated = Date.parse(res.body.DateUTC);
    expect(dated).toBeGreaterThanOrEqual(before - 5_000);
    expect(dated).toBeLessThanOrEqual(after + 5_000);

    const read = await t.request('GET', `/v1/customernotes/${res.body.customerNoteID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('sets DateUTC itself, ignoring one sent by the client', async () => {
    const customerID = await newCustomer();
    const before = Date.now();
    const note = await addNote(t, {
      customerID,
      Note: 'Backdated?',
      DateUTC: '2001-01-01T00:00:00Z',
    });
    expect(note.DateUTC).toMatch(ISO_UTC);
    expect(Date.parse(note.DateUTC)).toBeGreaterThanOrEqual(before - 5_000);
  });

  it('takes General for a null NoteType', async () => {
    const customerID = await newCustomer();
    expect((await addNote(t, { customerID, Note: 'Null type', NoteType: null })).NoteType).toBe('General');
  });

  it.each(NOTE_TYPES)('accepts the NoteType %s', async (NoteType) => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: `A ${NoteType} note`, NoteType });
    expect(note.NoteType).toBe(NoteType);
    expect((await t.request('GET', `/v1/customernotes/${note.customerNoteID}`)).body.NoteType).toBe(NoteType);
  });

  it.each([
    ['phone call', 'Phone Call'],
    ['FOLLOW UP', 'Follow Up'],
    ['email', 'Email'],
    ['aLeRt', 'Alert'],
  ])('reads the NoteType %j as %j, whatever its letter case', async (given, stored) => {
    const customerID = await newCustomer();
    expect((await addNote(t, { customerID, Note: 'Case', NoteType: given })).NoteType).toBe(stored);
  });

  it('answers 422 naming NoteType for an unknown type, creating nothing', async () => {
    const account = await t.newAccount('Unknown Note Types');
    const customerID = await newCustomer(account);
    for (const NoteType of ['Banana', 'Phone', 'General Note']) {
      const res = await account.request('POST', '/v1/customernotes', {
        body: { customerID, Note: 'Typed', NoteType },
      });
      expect(res.status, NoteType).toBe(422);
      expect(res.body.code).toBe('invalid_fields');
      expect(fieldsOf(res)).toEqual(['NoteType']);
    }
    expect(await noteCount(account)).toBe(0);
  });

  it('answers 422 naming Note when it is blank or missing', async () => {
    const account = await t.newAccount('Blank Notes');
    const customerID = await newCustomer(account);
    for (const body of [{ customerID, Note: '' }, { customerID, Note: '   \n ' }, { customerID }]) {
      const res = await account.request('POST', '/v1/customernotes', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res)).toEqual(['Note']);
    }
    expect(await noteCount(account)).toBe(0);
  });

  it('answers 422 naming customerID when it is missing or not an identifier', async () => {
    for (const body of [{ Note: 'Orphan' }, { customerID: 'abc', Note: 'x' }, { customerID: 0, Note: 'x' }]) {
      const res = await t.request('POST', '/v1/customernotes', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res)).toEqual(['customerID']);
    }
    const empty = await t.request('POST', '/v1/customernotes', { body: {} });
    expect(empty.status).toBe(422);
    expect(fieldsOf(empty).sort()).toEqual(['Note', 'customerID']);
  });

  it('answers 404 for a customer of another account or one that does not exist, creating nothing', async () => {
    const account = await t.newAccount('Foreign Note Customer');
    const other = await t.newAccount('Note Customer Owner');
    const foreignCustomer = await newCustomer(other);
    for (const customerID of [foreignCustomer, 987_654_321]) {
      const res = await account.request('POST', '/v1/customernotes', { body: { customerID, Note: 'Nope' } });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    expect(await noteCount(account)).toBe(0);
    expect(await noteCount(other)).toBe(0);
  });
});

describe('listing notes', () => {
  it('lists the account and each customer in creation order, with paging', async () => {
    const account = await t.newAccount('Note Lists');
    const first = await newCustomer(account, 'First');
    const second = await newCustomer(account, 'Second');
    const empty = await newCustomer(account, 'Empty');
    const n1 = await addNote(account, { customerID: first, Note: 'N1' });
    const n2 = await addNote(account, { customerID: second, Note: 'N2', NoteType: 'Query' });
    const n3 = await addNote(account, { customerID: first, Note: 'N3', NoteType: 'Alert' });
    const n4 = await addNote(account, { customerID: first, Note: 'N4' });

    const texts = (res: ApiResponse) => {
      expect(res.status).toBe(200);
      return res.body.map((n: { Note: string }) => n.Note);
    };
    expect((await account.request('GET', '/v1/customernotes')).body).toEqual([n1, n2, n3, n4]);
    expect(texts(await account.request('GET', '/v1/customernotes?page=2&page_size=3'))).toEqual(['N4']);
    expect(texts(await account.request('GET', '/v1/customernotes?page=1&page_size=2'))).toEqual(['N1', 'N2']);
    expect(texts(await account.request('GET', '/v1/customernotes?page=5&page_size=2'))).toEqual([]);

    expect((await account.request('GET', `/v1/customers/${first}/customernotes`)).body).toEqual([n1, n3, n4]);
    expect(
      texts(await account.request('GET', `/v1/customers/${first}/customernotes?page=2&page_size=2`)),
    ).toEqual(['N4']);
    expect(texts(await account.request('GET', `/v1/customers/${second}/customernotes`))).toEqual(['N2']);
    expect(texts(await account.request('GET', `/v1/customers/${empty}/customernotes`))).toEqual([]);
  });

  it('answers 404 for the notes of a customer that does not exist, and 422 for bad paging', async () => {
    const missing = await t.request('GET', '/v1/customers/987654321/customernotes');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('customer_not_found');
    for (const query of ['page_size=201', 'page=0', 'page_size=x']) {
      expect((await t.request('GET', `/v1/customernotes?${query}`)).status, query).toBe(422);
    }
  });

  it('answers 404 for a note that does not exist', async () => {
    const res = await t.request('GET', '/v1/customernotes/987654321');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('customer_note_not_found');
  });
});

describe('editing a note', () => {
  it('answers 204 with no body, changes Note and NoteType and keeps DateUTC', async () => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: 'First draft', NoteType: 'General' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const res = await t.request('PUT', `/v1/customernotes/${note.customerNoteID}`, {
      body: { customerID, Note: 'Second draft', NoteType: 'dispute' },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await t.request('GET', `/v1/customernotes/${note.customerNoteID}`);
    expect(read.body).toEqual({ ...note, Note: 'Second draft', NoteType: 'Dispute' });
    expect(read.body.DateUTC).toBe(note.DateUTC);
  });

  it('keeps the NoteType when the edit leaves it out', async () => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: 'Typed note', NoteType: 'Meeting' });
    const res = await t.request('PUT', `/v1/customernotes/${note.customerNoteID}`, {
      body: { customerID, Note: 'Retitled' },
    });
    expect(res.status).toBe(204);
    const read = await t.request('GET', `/v1/customernotes/${note.customerNoteID}`);
    expect(read.body).toEqual({ ...note, Note: 'Retitled', NoteType: 'Meeting' });
  });

  it('moves a note to another customer of the account', async () => {
    const from = await newCustomer(t, 'From');
    const to = await newCustomer(t, 'To');
    const note = await addNote(t, { customerID: from, Note: 'Moving' });
    const res = await t.request('PUT', `/v1/customernotes/${note.customerNoteID}`, {
      body: { customerID: to, Note: 'Moved' },
    });
    expect(res.status).toBe(204);
    expect((await t.request('GET', `/v1/customers/${from}/customernotes`)).body).toEqual([]);
    expect((await t.request('GET', `/v1/customers/${to}/customernotes`)).body).toEqual([
      { ...note, customerID: to, Note: 'Moved' },
    ]);
  });

  it('answers 422 for an unknown type, a blank Note or missing fields, changing nothing', async () => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: 'Stable', NoteType: 'Issue' });
    const path = `/v1/customernotes/${note.customerNoteID}`;
    const cases: [Record<string, unknown>, string[]][] = [
      [{ customerID, Note: 'Changed', NoteType: 'Banana' }, ['NoteType']],
      [{ customerID, Note: '  ' }, ['Note']],
      [{ customerID, Note: '' }, ['Note']],
      [{ Note: 'Changed' }, ['customerID']],
      [{}, ['Note', 'customerID']],
    ];
    for (const [body, fields] of cases) {
      const res = await t.request('PUT', path, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res).sort()).toEqual(fields);
    }
    expect((await t.request('GET', path)).body).toEqual(note);
  });

  it('answers 404 for an unknown note or a customer of another account', async () => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: 'Mine' });
    const unknown = await t.request('PUT', '/v1/customernotes/987654321', {
      body: { customerID, Note: 'Ghost' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('customer_note_not_found');

    const other = await t.newAccount('Foreign Note Target');
    const foreignCustomer = await newCustomer(other);
    const moved = await t.request('PUT', `/v1/customernotes/${note.customerNoteID}`, {
      body: { customerID: foreignCustomer, Note: 'Escaping' },
    });
    expect(moved.status).toBe(404);
    expect(moved.body.code).toBe('customer_not_found');
    expect((await t.request('GET', `/v1/customernotes/${note.customerNoteID}`)).body).toEqual(note);
    expect((await other.request('GET', `/v1/customers/${foreignCustomer}/customernotes`)).body).toEqual([]);
  });
});

describe('deleting a note', () => {
  it('answers 204, then 404 to reads, edits and a second delete', async () => {
    const customerID = await newCustomer();
    const note = await addNote(t, { customerID, Note: 'Short-lived' });
    const path = `/v1/customernotes/${note.customerNoteID}`;
    const res = await t.request('DELETE', path);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('GET', path)).status).toBe(404);
    expect((await t.request('PUT', path, { body: { customerID, Note: 'Back?' } })).status).toBe(404);
    const again = await t.request('DELETE', path);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('customer_note_not_found');
    expect((await t.request('GET', `/v1/customers/${customerID}/customernotes`)).body).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it("hides one account's notes from another", async () => {
    const owner = await t.newAccount('Note Owner');
    const intruder = await t.newAccount('Note Intruder');
    const customerID = await newCustomer(owner);
    const note = await addNote(owner, { customerID, Note: 'Confidential', NoteType: 'Dispute' });
    const intruderCustomer = await newCustomer(intruder);
    await addNote(intruder, { customerID: intruderCustomer, Note: 'Own note' });

    const path = `/v1/customernotes/${note.customerNoteID}`;
    expect((await intruder.request('GET', path)).status).toBe(404);
    const put = await intruder.request('PUT', path, {
      body: { customerID: intruderCustomer, Note: 'Hijacked' },
    });
    expect(put.status).toBe(404);
    expect((await intruder.request('DELETE', path)).status).toBe(404);
    expect((await intruder.request('GET', `/v1/customers/${customerID}/customernotes`)).status).toBe(404);

    const theirs = await intruder.request('GET', '/v1/customernotes?page_size=200');
    expect(theirs.body.map((n: { Note: string }) => n.Note)).toEqual(['Own note']);

    expect((await owner.request('GET', path)).body).toEqual(note);
    expect((await owner.request('GET', '/v1/customernotes')).body).toEqual([note]);
  });
});
