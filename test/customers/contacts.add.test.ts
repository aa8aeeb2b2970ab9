import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/security/passwords.ts';
import { fieldsOf, newCustomer, t, useCustomersService } from './fixtures.ts';
import {
  addContact,
  contactCount,
  credentialsIn,
  expectNoMailTo,
  mailTo,
  outboxCount,
  passwordHashOf,
  uniqueEmail,
} from './contacts.fixtures.ts';

useCustomersService({ smtp: true });

/** A generated username: the name's letters, then six random letters and digits without look-alikes. */
const GENERATED = /^alovelace-[a-hj-km-np-z2-9]{6}$/;

describe('adding a contact', () => {
  it('answers 201 with the contact, never with a Password, and reads it back by id', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('grace');
    const res = await t.request('POST', '/v1/customercontacts', {
      body: {
        customerID,
        Name: 'Grace',
        LastName: 'Hopper',
        Email,
        Cell: '+27 82 555 0100',
        Username: 'ghopper-add',
        Password: 'Cobol1959',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      customerContactID: expect.any(Number),
      customerID,
      Name: 'Grace',
      LastName: 'Hopper',
      Email,
      Cell: '+27 82 555 0100',
      Username: 'ghopper-add',
      isActive: true,
    });
    expect(Object.keys(res.body)).not.toContain('Password');
    expect(res.text).not.toContain('Cobol1959');

    const read = await t.request('GET', `/v1/customercontacts/${res.body.customerContactID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.text).not.toContain('Cobol1959');
  });

  it('defaults isActive to true and an absent Cell to null', async () => {
    const customerID = await newCustomer();
    const contact = await addContact(t, {
      customerID,
      Name: 'Linus',
      LastName: 'Torvalds',
      Email: uniqueEmail('linus'),
      Password: 'Penguin91',
    });
    expect(contact.isActive).toBe(true);
    expect(contact.Cell).toBeNull();
  });

  it('generates a username from the name and a random suffix for an active contact without one', async () => {
    const account = await t.newAccount('Usernames');
    const customerID = await newCustomer(account);
    const first = await addContact(account, {
      customerID,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: uniqueEmail('ada'),
    });
    const second = await addContact(account, {
      customerID,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: uniqueEmail('ada'),
      Username: '   ',
    });
    // Not jsmith, jsmith2: a name would give the usernames away (docs/spec-decisions.md, "Customer contacts").
    expect(first.Username).toMatch(GENERATED);
    expect(second.Username).toMatch(GENERATED);
    expect(second.Username).not.toBe(first.Username);
  });

  it('generates a password, e-mails it with the username to the contact, and stores only its scrypt hash', async () => {
    const account = await t.newAccount('Generated Credentials');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('ada');
    const contact = await addContact(account, { customerID, Name: 'Ada', LastName: 'Lovelace', Email });
    expect(contact.Username).toMatch(GENERATED);

    const mail = await mailTo(Email);
    expect(mail.subject).toContain('customer portal');
    const { username, password } = credentialsIn(mail.text);
    expect(username).toBe(contact.Username);
    expect(password).toBeDefined();
    expect(password!.length).toBeGreaterThanOrEqual(6);
    expect(password).toMatch(/[A-Za-z]/);
    expect(password).toMatch(/[0-9]/);

    const hash = await passwordHashOf(contact.customerContactID);
    expect(hash).toMatch(/^scrypt\$/);
    expect(hash).not.toContain(password);
    expect(await verifyPassword(password!, hash!)).toBe(true);
    expect(await verifyPassword(`${password}x`, hash!)).toBe(false);

    const outbox = await t.service.storage.db
      .selectFrom('mail_outbox')
      .select(['recipient', 'body_sealed'])
      .where('account_id', '=', account.accountId)
      .execute();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]!.recipient).toBe(Email);
    expect(outbox[0]!.body_sealed).not.toContain(password);
  });

  it('e-mails a given username and password as given, and stores the password hashed', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('katherine');
    const contact = await addContact(t, {
      customerID,
      Name: 'Katherine',
      LastName: 'Johnson',
      Email,
      Username: 'kjohnson-given',
      Password: 'Orbit1962',
    });
    const { username, password } = credentialsIn((await mailTo(Email)).text);
    expect(username).toBe('kjohnson-given');
    expect(password).toBe('Orbit1962');
    const hash = await passwordHashOf(contact.customerContactID);
    expect(hash).toMatch(/^scrypt\$/);
    expect(hash).not.toContain('Orbit1962');
    expect(await verifyPassword('Orbit1962', hash!)).toBe(true);
  });

  it('accepts a password of exactly 6 characters with a letter and a number', async () => {
    const customerID = await newCustomer();
    const contact = await addContact(t, {
      customerID,
      Name: 'Six',
      LastName: 'Chars',
      Email: uniqueEmail('six'),
      Password: 'abc123',
    });
    expect(await verifyPassword('abc123', (await passwordHashOf(contact.customerContactID))!)).toBe(true);
  });

  it.each([
    ['shorter than 6 characters', 'ab12c'],
    ['without a letter', '12345678'],
    ['without a digit', 'abcdefgh'],
  ])(
    'answers 422 naming Password for a password %s, creating nothing and queuing no mail',
    async (_, bad) => {
      const account = await t.newAccount('Password Policy');
      const customerID = await newCustomer(account);
      const Email = uniqueEmail('policy');
      const res = await account.request('POST', '/v1/customercontacts', {
        body: { customerID, Name: 'Pat', LastName: 'Policy', Email, Password: bad },
      });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('invalid_fields');
      expect(fieldsOf(res)).toEqual(['Password']);
      expect(res.text).not.toContain(bad);
      expect(await contactCount(account)).toBe(0);
      expect(await outboxCount(account)).toBe(0);
      await expectNoMailTo(Email);
    },
  );

  it('answers 409 when the Username is taken in the account, creating nothing and queuing no mail', async () => {
    const account = await t.newAccount('Taken Usernames');
    const customerID = await newCustomer(account);
    await addContact(account, {
      customerID,
      Name: 'First',
      LastName: 'Holder',
      Email: uniqueEmail('holder'),
      Username: 'shared.name',
      isActive: false,
    });
    const Email = uniqueEmail('second');
    const res = await account.request('POST', '/v1/customercontacts', {
      body: { customerID, Name: 'Second', LastName: 'Holder', Email, Username: 'shared.name' },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('username_taken');
    expect(await contactCount(account)).toBe(1);
    expect(await outboxCount(account)).toBe(0);
    await expectNoMailTo(Email);
  });

  it('lets another account use the same username', async () => {
    const first = await t.newAccount('Username Owner');
    const second = await t.newAccount('Username Neighbour');
    const body = (customerID: number) => ({
      customerID,
      Name: 'Same',
      LastName: 'Name',
      Email: uniqueEmail('same'),
      Username: 'same.username',
      Password: 'Shared123',
    });
    await addContact(first, body(await newCustomer(first)));
    const theirs = await addContact(second, body(await newCustomer(second)));
    expect(theirs.Username).toBe('same.username');
  });

  it('answers 422 naming each missing required field', async () => {
    const res = await t.request('POST', '/v1/customercontacts', { body: { Cell: '555' } });
    expect(res.status).toBe(422);
    expect(fieldsOf(res).sort()).toEqual(['Email', 'LastName', 'Name', 'customerID']);
  });

  it('answers 422 naming blank names and a malformed Email', async () => {
    const customerID = await newCustomer();
    const blank = await t.request('POST', '/v1/customercontacts', {
      body: { customerID, Name: '   ', LastName: '  ', Email: uniqueEmail('blank') },
    });
    expect(blank.status).toBe(422);
    expect(fieldsOf(blank).sort()).toEqual(['LastName', 'Name']);

    for (const Email of ['not-an-email', 'two words@example.com', 'missing@tld', '']) {
      const res = await t.request('POST', '/v1/customercontacts', {
        body: { customerID, Name: 'Bad', LastName: 'Mail', Email },
      });
      expect(res.status, Email).toBe(422);
      expect(fieldsOf(res), Email).toEqual(['Email']);
    }
  });

  it('answers 422 for wrongly typed fields, a customerID sent as text included', async () => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/customercontacts', {
      body: {
        customerID: String(customerID),
        Name: 'A',
        LastName: 'B',
        Email: uniqueEmail('typed'),
        Cell: 5,
        isActive: 'yes',
      },
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res).sort()).toEqual(['Cell', 'customerID', 'isActive']);
  });

  it('answers 404 for a customer of another account or one that does not exist, creating nothing', async () => {
    const account = await t.newAccount('Foreign Customer');
    const other = await t.newAccount('Customer Owner');
    const foreignCustomer = await newCustomer(other);
    for (const customerID of [foreignCustomer, 987_654_321]) {
      const res = await account.request('POST', '/v1/customercontacts', {
        body: { customerID, Name: 'No', LastName: 'Customer', Email: uniqueEmail('nocustomer') },
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    expect(await contactCount(account)).toBe(0);
    expect(await outboxCount(account)).toBe(0);
  });

  it('generates neither username nor password for an inactive contact, and sends no mail', async () => {
    const account = await t.newAccount('Inactive Contacts');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('inactive');
    const contact = await addContact(account, {
      customerID,
      Name: 'Ina',
      LastName: 'Active',
      Email,
      Username: '',
      Password: '',
      isActive: false,
    });
    expect(contact.isActive).toBe(false);
    expect(contact.Username).toBeNull();
    expect(await passwordHashOf(contact.customerContactID)).toBeNull();
    expect(await outboxCount(account)).toBe(0);
    await expectNoMailTo(Email);
  });
});

describe('concurrent adds', () => {
  it('answers 201 to one and 409 to the other of two concurrent adds with the same Username', async () => {
    const account = await t.newAccount('Username Race');
    const customerID = await newCustomer(account);
    const results = await Promise.all(
      [0, 1].map((i) =>
        account.request('POST', '/v1/customercontacts', {
          body: {
            customerID,
            Name: 'Race',
            LastName: `Runner${i}`,
            Email: uniqueEmail('race'),
            Username: 'race.winner',
            Password: 'Race1234',
          },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await contactCount(account)).toBe(1);
    expect(await outboxCount(account)).toBe(1);
  });

  it('answers 201 to one and 409 to the other of two concurrent adds of one Username in two letter cases', async () => {
    const account = await t.newAccount('Username case race');
    const customerID = await newCustomer(account);
    const results = await Promise.all(
      ['Bob', 'bob'].map((Username) =>
        account.request('POST', '/v1/customercontacts', {
          body: {
            customerID,
            Name: 'Bob',
            LastName: Username,
            Email: uniqueEmail('bobcase'),
            Username,
            Password: 'Bobby1234',
          },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join('\n')).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('username_taken');
    expect(await contactCount(account)).toBe(1);
  });

  // Two contacts of the same name added at once must not fail over a username the caller never chose.
  it('gives concurrent same-named contacts without a Username distinct generated usernames', async () => {
    const account = await t.newAccount('Generated Race');
    const customerID = await newCustomer(account);
    const results = await Promise.all(
      [0, 1, 2, 3].map(() =>
        account.request('POST', '/v1/customercontacts', {
          body: { customerID, Name: 'Ada', LastName: 'Lovelace', Email: uniqueEmail('samename') },
        }),
      ),
    );
    expect(
      results.map((r) => r.status),
      results.map((r) => r.text).join('\n'),
    ).toEqual([201, 201, 201, 201]);
    const usernames = results.map((r) => r.body.Username);
    for (const username of usernames) expect(username).toMatch(GENERATED);
    expect(new Set(usernames).size).toBe(4);
  });

  it('returns 409 for a Username another contact holds in another letter case, on add and on edit', async () => {
    const account = await t.newAccount('Usernames by case');
    const customerID = await newCustomer(account);
    const body = (Username: string) => ({
      customerID,
      Name: 'Bob',
      LastName: 'Case',
      Email: uniqueEmail('bob'),
      Username,
      Password: 'Bobby1234',
    });
    const bob = await addContact(account, body('bob.case'));
    const added = await account.request('POST', '/v1/customercontacts', { body: body('Bob.Case') });
    expect(added.status, added.text).toBe(409);
    expect(added.body.code).toBe('username_taken');
    expect(added.text).toContain('Bob.Case');
    const other = await addContact(account, body('robert.case'));
    const edited = await account.request('PUT', `/v1/customercontacts/${other.customerContactID}`, {
      body: { ...body('BOB.CASE'), Password: undefined },
    });
    expect(edited.status, edited.text).toBe(409);
    // Its own username in another case is still its own.
    const own = await account.request('PUT', `/v1/customercontacts/${bob.customerContactID}`, {
      body: { ...body('Bob.Case'), Password: undefined },
    });
    expect(own.status, own.text).toBe(204);
  });
});
