import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { auditOf, eventsOf, expectEvents, firstKeyId, ok, read } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';

// Every event of customers, contacts, notes and custom fields, triggered through the API and read back through
// GET /v1/events: the object as the API shows it right after the change, `previous` for updates, versions
// counting up by one, timestamps on the account's clock, and the audit entry naming key, request and operation.

const t = useTestService();

async function newCustomer(account: TestAccount, body: Record<string, unknown> = {}): Promise<number> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body.customerID;
}

/** A customer as events show it: its GET, with its custom fields as the with_customfields listing gives them. */
async function customerObject(account: TestAccount, id: number) {
  const customer = await read(account, `/v1/customers/${id}`);
  const listed = (await read(account, '/v1/customers/with_customfields?page_size=200')) as any[];
  return { ...customer, CustomFields: listed.find((c) => c.customerID === id).CustomFields };
}

describe('customer events', () => {
  it('announce edits with the changed fields, and status moves with their lifecycle events', async () => {
    const account = await t.newAccount('Customer events');
    await ok(account, 'POST', '/v1/customfields', { Key: 'Region' });
    const id = await newCustomer(account, { Email: 'ada@example.com' });
    const created = await customerObject(account, id);

    await ok(account, 'PUT', `/v1/customers/${id}`, { Name: 'Ada L', City: 'London' }, 'req-edit-1');
    const afterEdit = await customerObject(account, id);
    await ok(account, 'PUT', `/v1/customers/${id}`, { CustomFields: [{ Key: 'Region', Value: 'North' }] });
    const afterFields = await customerObject(account, id);
    await ok(account, 'PUT', `/v1/customers/${id}/archive`);
    const archived = await customerObject(account, id);
    await ok(account, 'PUT', `/v1/customers/${id}/reopen`);
    const reopened = await customerObject(account, id);
    await ok(account, 'PUT', `/v1/customers/${id}/suspend`);
    const suspended = await customerObject(account, id);
    await ok(account, 'PUT', `/v1/customers/${id}/unsuspend`);
    const unsuspended = await customerObject(account, id);

    const events = await expectEvents(account, 'customer', id, [
      'customer.created',
      'customer.updated',
      'customer.updated',
      'customer.updated',
      'customer.archived',
      'customer.updated',
      'customer.reopened',
      'customer.updated',
      'customer.suspended',
      'customer.updated',
      'customer.unsuspended',
    ]);
    const [create, edit, fields, archive, archivedEvent, reopen, reopenedEvent, suspend, suspendedEvent] =
      events;
    expect(create!.data).toEqual({ object: created });
    expect(edit!.data).toEqual({ object: afterEdit, previous: { Name: 'Ada', City: null } });
    expect(fields!.data).toEqual({
      object: afterFields,
      previous: { CustomFields: [{ Key: 'Region', Value: null }] },
    });
    const archivePrevious = { isActive: true, comp_status: 'Active' };
    expect(archive!.data).toEqual({ object: archived, previous: archivePrevious });
    expect(archivedEvent!.data).toEqual({ object: archived, previous: archivePrevious });
    expect(reopen!.data).toEqual({
      object: reopened,
      previous: { isActive: false, comp_status: 'Archived' },
    });
    expect(reopenedEvent!.data).toEqual(reopen!.data);
    const suspendPrevious = { isSuspended: false, SuspendedDate: null, comp_status: 'Active' };
    expect(suspend!.data).toEqual({ object: suspended, previous: suspendPrevious });
    expect(suspendedEvent!.data).toEqual(suspend!.data);
    expect(events[9]!.data).toEqual({
      object: unsuspended,
      previous: { isSuspended: true, SuspendedDate: suspended.SuspendedDate, comp_status: 'Suspended' },
    });
    expect(events[10]!.data).toEqual(events[9]!.data);

    const audit = await auditOf(account, edit!.id);
    expect(audit).toMatchObject({
      ActorType: 'api_key',
      apiKeyID: await firstKeyId(account),
      RequestID: 'req-edit-1',
      Operation: 'PUT /v1/customers/:customerID',
      EventType: 'customer.updated',
      ResourceType: 'customer',
      ResourceID: String(id),
      Before: { Name: 'Ada', City: null },
      After: { Name: 'Ada L', City: 'London' },
    });
  });

  it('write nothing for an edit that changes nothing, nor for a refused one', async () => {
    const account = await t.newAccount('Customer no-ops');
    const id = await newCustomer(account, { Reference: 'R-1', City: 'Paris' });
    const other = await newCustomer(account, { Reference: 'R-2' });
    await ok(account, 'PUT', `/v1/customers/${id}`, { City: 'Paris', Reference: 'R-1' });
    await ok(account, 'PUT', `/v1/customers/${id}/reopen`);
    const taken = await account.request('PUT', `/v1/customers/${other}`, { body: { Reference: 'R-1' } });
    expect(taken.status).toBe(409);
    const bad = await account.request('PUT', `/v1/customers/${id}`, { body: { Email: 'nope' } });
    expect(bad.status).toBe(422);
    await expectEvents(account, 'customer', id, ['customer.created']);
    await expectEvents(account, 'customer', other, ['customer.created']);
  });

  it('announce a deletion with the last object, its contacts and notes first', async () => {
    const account = await t.newAccount('Customer deletion');
    const id = await newCustomer(account);
    const contact = await ok(account, 'POST', '/v1/customercontacts', {
      customerID: id,
      Name: 'Bob',
      LastName: 'Stone',
      Email: 'bob@example.com',
      isActive: false,
    });
    const note = await ok(account, 'POST', '/v1/customernotes', { customerID: id, Note: 'Called' });
    const last = await customerObject(account, id);
    await ok(account, 'DELETE', `/v1/customers/${id}`);

    const [, deleted] = await expectEvents(account, 'customer', id, ['customer.created', 'customer.deleted']);
    expect(deleted!.data).toEqual({ object: last });
    const [, contactGone] = await expectEvents(account, 'customer_contact', contact.customerContactID, [
      'customer_contact.created',
      'customer_contact.deleted',
    ]);
    expect(contactGone!.data).toEqual({ object: contact });
    const [, noteGone] = await expectEvents(account, 'customer_note', note.customerNoteID, [
      'customer_note.created',
      'customer_note.deleted',
    ]);
    expect(noteGone!.data).toEqual({ object: note });
    const order = (await read(account, '/v1/events?page_size=3')) as any[];
    expect(order.map((e) => e.type)).toEqual([
      'customer.deleted',
      'customer_note.deleted',
      'customer_contact.deleted',
    ]);
  });

  it("are timed by a test account's clock", async () => {
    const account = await t.newAccount('Clocked customers', { isTest: true });
    const clock = (await read(account, '/v1/account')).TestClockDate as string;
    const to = new Date(Date.parse(clock) + 2 * 86_400_000 + 3_600_000).toISOString();
    await ok(account, 'POST', '/v1/test-clock/advance', { To: to });
    const id = await newCustomer(account);
    await ok(account, 'PUT', `/v1/customers/${id}`, { City: 'Rome' });
    const events = await eventsOf(account, 'customer', id);
    expect(events).toHaveLength(2);
    for (const event of events) expect(event.timestamp).toBe(to);
  });
});

describe('customer contact events', () => {
  it('announce creation with the credentials e-mail, edits, password changes and deletion', async () => {
    const account = await t.newAccount('Contact events');
    const customerId = await newCustomer(account);
    const contact = await ok(
      account,
      'POST',
      '/v1/customercontacts',
      { customerID: customerId, Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' },
      'req-contact-1',
    );
    const id = contact.customerContactID as number;
    const path = `/v1/customercontacts/${id}`;
    const base = { customerID: customerId, Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' };

    await ok(account, 'PUT', path, { ...base, Cell: '0821234567' });
    const edited = await read(account, path);
    await ok(account, 'PUT', path, { ...base, Cell: '0821234567', Password: 'n3wPassword' });
    await ok(account, 'PUT', path, { ...base, Cell: '0821234567' });
    const last = await read(account, path);
    await ok(account, 'DELETE', path);

    const events = await expectEvents(account, 'customer_contact', id, [
      'customer_contact.created',
      'customer_contact.credentials_sent',
      'customer_contact.updated',
      'customer_contact.password_changed',
      'customer_contact.credentials_sent',
      'customer_contact.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: contact });
    expect(events[1]!.data).toEqual({ object: contact });
    expect(events[2]!.data).toEqual({ object: edited, previous: { Cell: null } });
    expect(events[3]!.data).toEqual({ object: edited });
    expect(events[4]!.data).toEqual({ object: edited });
    expect(events[5]!.data).toEqual({ object: last });
    for (const event of events) {
      expect(Object.keys(event.data.object).join()).not.toMatch(/password|hash/i);
      expect(JSON.stringify(event)).not.toMatch(/n3wPassword|scrypt/);
    }
    expect((await auditOf(account, events[0]!.id)).RequestID).toBe('req-contact-1');
  });

  it('write nothing for a refused contact', async () => {
    const account = await t.newAccount('Contact refusals');
    const customerId = await newCustomer(account);
    const bad = await account.request('POST', '/v1/customercontacts', {
      body: {
        customerID: customerId,
        Name: 'Ada',
        LastName: 'L',
        Email: 'ada@example.com',
        Password: 'short',
      },
    });
    expect(bad.status).toBe(422);
    expect(await read(account, '/v1/events?resourceType=customer_contact')).toEqual([]);
  });
});

describe('customer note events', () => {
  it('announce creation, edits and deletion; an edit that changes nothing writes none', async () => {
    const account = await t.newAccount('Note events');
    const customerId = await newCustomer(account);
    const note = await ok(account, 'POST', '/v1/customernotes', { customerID: customerId, Note: 'Called' });
    const id = note.customerNoteID as number;
    const path = `/v1/customernotes/${id}`;
    await ok(account, 'PUT', path, { customerID: customerId, Note: 'Called twice', NoteType: 'Phone Call' });
    const edited = await read(account, path);
    await ok(account, 'PUT', path, { customerID: customerId, Note: 'Called twice' });
    const blank = await account.request('PUT', path, { body: { customerID: customerId, Note: ' ' } });
    expect(blank.status).toBe(422);
    await ok(account, 'DELETE', path);

    const events = await expectEvents(account, 'customer_note', id, [
      'customer_note.created',
      'customer_note.updated',
      'customer_note.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: note });
    expect(events[1]!.data).toEqual({
      object: edited,
      previous: { Note: 'Called', NoteType: 'General' },
    });
    expect(events[2]!.data).toEqual({ object: edited });
  });
});

describe('custom field events', () => {
  it('announce a definition and its deletion; a taken key writes nothing', async () => {
    const account = await t.newAccount('Custom field events');
    const field = await ok(account, 'POST', '/v1/customfields', { Key: 'Region' });
    const listed = await read(account, '/v1/customfields');
    expect(listed).toEqual([field]);
    const taken = await account.request('POST', '/v1/customfields', { body: { Key: 'Region' } });
    expect(taken.status).toBe(409);
    await ok(account, 'DELETE', `/v1/customfields/${field.customFieldID}`);
    const events = await expectEvents(account, 'custom_field', field.customFieldID, [
      'custom_field.created',
      'custom_field.deleted',
    ]);
    expect(events[0]!.data).toEqual({ object: field });
    expect(events[1]!.data).toEqual({ object: field });
    expect(await read(account, '/v1/events?resourceType=custom_field')).toHaveLength(2);
  });
});
