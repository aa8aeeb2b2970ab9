import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/service.ts';
import { newCustomer, t, useCustomersService } from './fixtures.ts';
import { addContact, editBody, uniqueEmail } from './contacts.fixtures.ts';

useCustomersService({ smtp: true });

describe('listing contacts', () => {
  it('lists the account and each customer in creation order, with paging', async () => {
    const account = await t.newAccount('Contact Lists');
    const first = await newCustomer(account, 'First');
    const second = await newCustomer(account, 'Second');
    const empty = await newCustomer(account, 'Empty');
    const add = (customerID: number, Name: string) =>
      addContact(account, {
        customerID,
        Name,
        LastName: 'Listed',
        Email: uniqueEmail(Name),
        isActive: false,
      });
    const a1 = await add(first, 'A1');
    const b1 = await add(second, 'B1');
    const a2 = await add(first, 'A2');
    const a3 = await add(first, 'A3');

    const names = (res: ApiResponse) => {
      expect(res.status).toBe(200);
      return res.body.map((c: { Name: string }) => c.Name);
    };
    const all = await account.request('GET', '/v1/customercontacts');
    expect(all.body).toEqual([a1, b1, a2, a3]);
    expect(names(await account.request('GET', '/v1/customercontacts?page=2&page_size=2'))).toEqual([
      'A2',
      'A3',
    ]);
    expect(names(await account.request('GET', '/v1/customercontacts?page=3&page_size=2'))).toEqual([]);

    expect(names(await account.request('GET', `/v1/customers/${first}/contacts`))).toEqual([
      'A1',
      'A2',
      'A3',
    ]);
    expect(names(await account.request('GET', `/v1/customers/${first}/contacts?page=2&page_size=2`))).toEqual(
      ['A3'],
    );
    expect(names(await account.request('GET', `/v1/customers/${first}/contacts?page_size=1`))).toEqual([
      'A1',
    ]);
    expect(names(await account.request('GET', `/v1/customers/${second}/contacts`))).toEqual(['B1']);
    expect(names(await account.request('GET', `/v1/customers/${empty}/contacts`))).toEqual([]);
  });

  it('answers 404 for the contacts of a customer that does not exist, and 422 for bad paging', async () => {
    const missing = await t.request('GET', '/v1/customers/987654321/contacts');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('customer_not_found');
    for (const query of ['page_size=201', 'page=0', 'page_size=x']) {
      expect((await t.request('GET', `/v1/customercontacts?${query}`)).status, query).toBe(422);
    }
  });

  it('answers 404 for a contact that does not exist', async () => {
    const res = await t.request('GET', '/v1/customercontacts/987654321');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('customer_contact_not_found');
  });
});

describe('deleting a contact', () => {
  it('answers 204, then 404 to reads, edits and a second delete', async () => {
    const customerID = await newCustomer();
    const contact = await addContact(t, {
      customerID,
      Name: 'Gone',
      LastName: 'Soon',
      Email: uniqueEmail('gone'),
      isActive: false,
    });
    const path = `/v1/customercontacts/${contact.customerContactID}`;
    const res = await t.request('DELETE', path);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('GET', path)).status).toBe(404);
    expect((await t.request('PUT', path, { body: editBody(contact) })).status).toBe(404);
    const again = await t.request('DELETE', path);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('customer_contact_not_found');
    const listed = await t.request('GET', `/v1/customers/${customerID}/contacts`);
    expect(listed.body).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it("hides one account's contacts from another", async () => {
    const owner = await t.newAccount('Contact Owner');
    const intruder = await t.newAccount('Contact Intruder');
    const customerID = await newCustomer(owner);
    const contact = await addContact(owner, {
      customerID,
      Name: 'Private',
      LastName: 'Person',
      Email: uniqueEmail('private'),
      Username: 'private.person',
      isActive: false,
    });
    const intruderCustomer = await newCustomer(intruder);
    await addContact(intruder, {
      customerID: intruderCustomer,
      Name: 'Own',
      LastName: 'Contact',
      Email: uniqueEmail('own'),
      isActive: false,
    });

    const path = `/v1/customercontacts/${contact.customerContactID}`;
    expect((await intruder.request('GET', path)).status).toBe(404);
    const put = await intruder.request('PUT', path, {
      body: editBody(contact, { customerID: intruderCustomer, Name: 'Hijacked' }),
    });
    expect(put.status).toBe(404);
    expect((await intruder.request('DELETE', path)).status).toBe(404);
    expect((await intruder.request('GET', `/v1/customers/${customerID}/contacts`)).status).toBe(404);

    const theirs = await intruder.request('GET', '/v1/customercontacts?page_size=200');
    expect(theirs.body.map((c: { Name: string }) => c.Name)).toEqual(['Own']);

    expect((await owner.request('GET', path)).body).toEqual(contact);
    expect((await owner.request('GET', '/v1/customercontacts')).body).toEqual([contact]);
  });
});
