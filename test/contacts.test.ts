import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/security/passwords.ts';
import { eventually, startTestService } from './helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from './helpers/service.ts';
import { startSmtpReceiver } from './helpers/smtp.ts';
import type { ReceivedMail } from './helpers/smtp.ts';

let t: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestService({ smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sequence = 0;
/** An address no other test uses, so the mail that reaches it belongs to one test. */
const uniqueEmail = (label: string) => `${label}.${++sequence}.${Date.now()}@example.com`;

async function newCustomer(account: TestAccount = t, name = 'Acme'): Promise<number> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: name } });
  expect(res.status).toBe(201);
  return res.body.customerID;
}

interface ContactFields {
  customerID: number;
  Name: string;
  LastName: string;
  Email: string;
  [key: string]: unknown;
}

async function addContact(account: TestAccount, body: ContactFields): Promise<any> {
  const res = await account.request('POST', '/v1/customercontacts', { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A PUT body repeating the contact's current fields, with some changed. */
function editBody(contact: any, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerID: contact.customerID,
    Name: contact.Name,
    LastName: contact.LastName,
    Email: contact.Email,
    Cell: contact.Cell,
    Username: contact.Username,
    isActive: contact.isActive,
    ...changes,
  };
}

async function passwordHashOf(contactId: number): Promise<string | null> {
  const row = await t.service.storage.db
    .selectFrom('customer_contacts')
    .select('password_hash')
    .where('id', '=', contactId)
    .executeTakeFirstOrThrow();
  return row.password_hash;
}

async function outboxCount(account: TestAccount): Promise<number> {
  const rows = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select('id')
    .where('account_id', '=', account.accountId)
    .execute();
  return rows.length;
}

async function contactCount(account: TestAccount): Promise<number> {
  return (await account.request('GET', '/v1/customercontacts?page_size=200')).body.length;
}

const mailsTo = (address: string): ReceivedMail[] =>
  smtp.messages.filter((m) => m.to.map((to) => to.toLowerCase()).includes(address.toLowerCase()));

/** Waits for the `count`-th message to `address` and returns its decoded text. */
async function mailTo(address: string, count = 1): Promise<{ subject: string; text: string }> {
  const mail = await eventually(() => mailsTo(address)[count - 1]);
  return decode(mail.raw);
}

/** Gives the mail worker (every 100 ms, and woken on commit) time to send anything it would send. */
async function expectNoMailTo(address: string, already = 0): Promise<void> {
  await sleep(500);
  expect(mailsTo(address)).toHaveLength(already);
}

function decode(raw: string): { subject: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  let body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    body = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  } else if (/content-transfer-encoding:\s*base64/i.test(headers)) {
    body = Buffer.from(body, 'base64').toString('utf8');
  }
  const subject = /^subject:\s*(.*)$/im.exec(headers)?.[1] ?? '';
  return { subject, text: body.replace(/\r\n/g, '\n') };
}

function credentialsIn(text: string): { username: string | undefined; password: string | undefined } {
  return {
    username: /^Username: (.+)$/m.exec(text)?.[1]?.trim(),
    password: /^Password: (\S+)$/m.exec(text)?.[1],
  };
}

function fieldsOf(res: ApiResponse): string[] {
  return (res.body.fields ?? []).map((f: { field: string }) => f.field);
}

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

  it('generates a username from the name for an active contact without one, numbering the next', async () => {
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
    expect(first.Username).toBe('alovelace');
    expect(second.Username).toBe('alovelace2');
  });

  it('generates a password, e-mails it with the username to the contact, and stores only its scrypt hash', async () => {
    const account = await t.newAccount('Generated Credentials');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('ada');
    const contact = await addContact(account, { customerID, Name: 'Ada', LastName: 'Lovelace', Email });
    expect(contact.Username).toBe('alovelace');

    const mail = await mailTo(Email);
    expect(mail.subject).toContain('customer portal');
    const { username, password } = credentialsIn(mail.text);
    expect(username).toBe('alovelace');
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
    const usernames = results.map((r) => r.body.Username).sort();
    expect(usernames).toEqual(['alovelace', 'alovelace2', 'alovelace3', 'alovelace4']);
  });
});

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

describe('editing a contact', () => {
  it('answers 204 with no body and changes the fields', async () => {
    const customerID = await newCustomer();
    const otherCustomer = await newCustomer(t, 'Other');
    const contact = await addContact(t, {
      customerID,
      Name: 'Old',
      LastName: 'Name',
      Email: uniqueEmail('old'),
      Cell: '111',
      Username: 'edit-fields',
      Password: 'Before123',
    });
    const Email = uniqueEmail('new');
    const res = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, {
        customerID: otherCustomer,
        Name: 'New',
        LastName: 'Surname',
        Email,
        Cell: '222',
        isActive: false,
      }),
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await t.request('GET', `/v1/customercontacts/${contact.customerContactID}`);
    expect(read.body).toEqual({
      customerContactID: contact.customerContactID,
      customerID: otherCustomer,
      Name: 'New',
      LastName: 'Surname',
      Email,
      Cell: '222',
      Username: 'edit-fields',
      isActive: false,
    });
    const listed = await t.request('GET', `/v1/customers/${otherCustomer}/contacts`);
    expect(listed.body.map((c: { customerContactID: number }) => c.customerContactID)).toEqual([
      contact.customerContactID,
    ]);

    const cleared = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(read.body, { Cell: null }),
    });
    expect(cleared.status).toBe(204);
    expect(
      (await t.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body.Cell,
    ).toBeNull();
  });

  it('generates and e-mails a new password when changePassword is set and Password is blank, replacing the hash', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('reset');
    const contact = await addContact(t, {
      customerID,
      Name: 'Reset',
      LastName: 'Me',
      Email,
      Username: 'reset-me',
      Password: 'First123',
    });
    await mailTo(Email, 1);
    const before = await passwordHashOf(contact.customerContactID);

    const res = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { Password: '', changePassword: true }),
    });
    expect(res.status).toBe(204);
    const { username, password } = credentialsIn((await mailTo(Email, 2)).text);
    expect(username).toBe('reset-me');
    expect(password).toBeDefined();
    expect(password).not.toBe('First123');
    expect(password!.length).toBeGreaterThanOrEqual(6);
    expect(password).toMatch(/[A-Za-z]/);
    expect(password).toMatch(/[0-9]/);

    const after = await passwordHashOf(contact.customerContactID);
    expect(after).not.toBe(before);
    expect(after).toMatch(/^scrypt\$/);
    expect(await verifyPassword(password!, after!)).toBe(true);
    expect(await verifyPassword('First123', after!)).toBe(false);
  });

  it('e-mails a new Password given on edit to the new Email and stores its hash', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('change');
    const contact = await addContact(t, {
      customerID,
      Name: 'Change',
      LastName: 'Password',
      Email,
      Username: 'change-password',
      Password: 'First123',
    });
    await mailTo(Email, 1);
    const newEmail = uniqueEmail('changed');
    const res = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { Email: newEmail, Password: 'Second456', changePassword: true }),
    });
    expect(res.status).toBe(204);
    const { username, password } = credentialsIn((await mailTo(newEmail)).text);
    expect(username).toBe('change-password');
    expect(password).toBe('Second456');
    const hash = await passwordHashOf(contact.customerContactID);
    expect(await verifyPassword('Second456', hash!)).toBe(true);
    expect(await verifyPassword('First123', hash!)).toBe(false);
    await expectNoMailTo(Email, 1);
  });

  it('e-mails the new username when the Username changes, without a password, keeping the password', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('rename');
    const contact = await addContact(t, {
      customerID,
      Name: 'Re',
      LastName: 'Name',
      Email,
      Username: 'before-rename',
      Password: 'Keep1234',
    });
    await mailTo(Email, 1);
    const before = await passwordHashOf(contact.customerContactID);
    const res = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { Username: 'after-rename' }),
    });
    expect(res.status).toBe(204);
    const mail = await mailTo(Email, 2);
    expect(credentialsIn(mail.text)).toEqual({ username: 'after-rename', password: undefined });
    expect(await passwordHashOf(contact.customerContactID)).toBe(before);
    expect((await t.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body.Username).toBe(
      'after-rename',
    );
  });

  it('sends no mail for an edit that changes neither the username nor the password', async () => {
    const account = await t.newAccount('Quiet Edits');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('quiet');
    const contact = await addContact(account, {
      customerID,
      Name: 'Quiet',
      LastName: 'Edit',
      Email,
      Password: 'Quiet123',
    });
    await mailTo(Email, 1);
    const hash = await passwordHashOf(contact.customerContactID);
    expect(await outboxCount(account)).toBe(1);

    for (const changes of [
      { Name: 'Still Quiet', Cell: '999' },
      { Username: '' },
      { Username: undefined, changePassword: false },
    ]) {
      const res = await account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
        body: editBody(contact, changes),
      });
      expect(res.status, JSON.stringify(changes)).toBe(204);
    }
    expect(await outboxCount(account)).toBe(1);
    expect(await passwordHashOf(contact.customerContactID)).toBe(hash);
    expect(
      (await account.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body.Username,
    ).toBe(contact.Username);
    await expectNoMailTo(Email, 1);
  });

  it('answers 409 when the new Username belongs to another contact of the account, changing nothing', async () => {
    const account = await t.newAccount('Edit Conflicts');
    const customerID = await newCustomer(account);
    await addContact(account, {
      customerID,
      Name: 'Holder',
      LastName: 'One',
      Email: uniqueEmail('holder'),
      Username: 'taken.on.edit',
      isActive: false,
    });
    const Email = uniqueEmail('mover');
    const contact = await addContact(account, {
      customerID,
      Name: 'Mover',
      LastName: 'Two',
      Email,
      Username: 'mover',
      Password: 'Mover123',
    });
    await mailTo(Email, 1);
    const res = await account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { Username: 'taken.on.edit', Name: 'Changed' }),
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('username_taken');
    expect((await account.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body).toEqual(
      contact,
    );
    expect(await outboxCount(account)).toBe(1);

    const own = await account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { Username: 'mover', Name: 'Kept' }),
    });
    expect(own.status).toBe(204);
  });

  it('generates and e-mails a username when an inactive contact without one is made active', async () => {
    const account = await t.newAccount('Activation');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('activate');
    const contact = await addContact(account, {
      customerID,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email,
      isActive: false,
    });
    expect(contact.Username).toBeNull();
    const res = await account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { isActive: true, changePassword: true }),
    });
    expect(res.status).toBe(204);
    const read = await account.request('GET', `/v1/customercontacts/${contact.customerContactID}`);
    expect(read.body).toMatchObject({ isActive: true, Username: 'alovelace' });
    const { username, password } = credentialsIn((await mailTo(Email)).text);
    expect(username).toBe('alovelace');
    expect(await verifyPassword(password!, (await passwordHashOf(contact.customerContactID))!)).toBe(true);
  });

  it('gives a contact made active without changePassword a password too, so the login it is sent works', async () => {
    const account = await t.newAccount('Activation without changePassword');
    const customerID = await newCustomer(account);
    const Email = uniqueEmail('activate-plain');
    const contact = await addContact(account, {
      customerID,
      Name: 'Ida',
      LastName: 'Tive',
      Email,
      isActive: false,
    });
    const res = await account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { isActive: true }),
    });
    expect(res.status).toBe(204);
    const { username, password } = credentialsIn((await mailTo(Email)).text);
    expect(username).toBe('itive');
    expect(password).toBeTruthy();
    expect(await verifyPassword(password!, (await passwordHashOf(contact.customerContactID))!)).toBe(true);
  });

  it('uses a password exactly as sent, spaces included', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('spaces');
    const contact = await addContact(t, {
      customerID,
      Name: 'Space',
      LastName: 'Pass',
      Email,
      Username: 'space-pass',
      Password: '  abc123  ',
    });
    const hash = (await passwordHashOf(contact.customerContactID))!;
    expect(await verifyPassword('  abc123  ', hash)).toBe(true);
    expect(await verifyPassword('abc123', hash)).toBe(false);
    const blank = await t.request('POST', '/v1/customercontacts', {
      body: { customerID, Name: 'Blank', LastName: 'Pass', Email: uniqueEmail('blank'), Password: '      ' },
    });
    expect(blank.status).toBe(422);
    expect(blank.body.fields[0].field).toBe('Password');
  });

  it('answers 422 for a bad password on edit and keeps the old one', async () => {
    const customerID = await newCustomer();
    const Email = uniqueEmail('badedit');
    const contact = await addContact(t, {
      customerID,
      Name: 'Bad',
      LastName: 'Edit',
      Email,
      Username: 'bad-edit',
      Password: 'Good1234',
    });
    await mailTo(Email, 1);
    const hash = await passwordHashOf(contact.customerContactID);
    for (const Password of ['ab1', 'onlyletters', '99999999']) {
      const res = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
        body: editBody(contact, { Password, changePassword: true }),
      });
      expect(res.status, Password).toBe(422);
      expect(fieldsOf(res)).toEqual(['Password']);
    }
    expect(await passwordHashOf(contact.customerContactID)).toBe(hash);
    await expectNoMailTo(Email, 1);
  });

  it('answers 422 naming missing fields, and 404 for an unknown contact or a foreign customer', async () => {
    const customerID = await newCustomer();
    const contact = await addContact(t, {
      customerID,
      Name: 'Some',
      LastName: 'One',
      Email: uniqueEmail('someone'),
      isActive: false,
    });
    const missing = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: { Cell: '1' },
    });
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing).sort()).toEqual(['Email', 'LastName', 'Name', 'customerID']);

    const unknown = await t.request('PUT', '/v1/customercontacts/987654321', { body: editBody(contact) });
    expect(unknown.status).toBe(404);

    const other = await t.newAccount('Foreign Target');
    const foreignCustomer = await newCustomer(other);
    const moved = await t.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
      body: editBody(contact, { customerID: foreignCustomer }),
    });
    expect(moved.status).toBe(404);
    expect(moved.body.code).toBe('customer_not_found');
    expect((await t.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body).toEqual(
      contact,
    );
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

describe('mail without an SMTP server', () => {
  let quiet: TestService;
  beforeAll(async () => {
    quiet = await startTestService();
  });
  afterAll(() => quiet?.close());

  it('records the credentials mail as skipped, its body sealed yet readable', async () => {
    const customer = await quiet.request('POST', '/v1/customers', { body: { Name: 'Quiet Co' } });
    const Email = uniqueEmail('nosmtp');
    const created = await quiet.request('POST', '/v1/customercontacts', {
      body: { customerID: customer.body.customerID, Name: 'Ada', LastName: 'Lovelace', Email },
    });
    expect(created.status).toBe(201);

    const db = quiet.service.storage.db;
    const row = await eventually(async () => {
      const found = await db
        .selectFrom('mail_outbox')
        .selectAll()
        .where('account_id', '=', quiet.accountId)
        .where('recipient', '=', Email)
        .executeTakeFirst();
      return found?.status === 'skipped' ? found : undefined;
    });
    expect(row.delivered_at).toBeNull();
    const text = quiet.service.secrets.open(row.body_sealed);
    const { username, password } = credentialsIn(text);
    expect(username).toBe('alovelace');
    expect(password).toBeDefined();
    expect(row.body_sealed).not.toContain(password);
    expect(row.body_sealed).not.toContain('Password:');
    expect(row.subject).not.toContain(password);

    const stored = await db
      .selectFrom('customer_contacts')
      .select('password_hash')
      .where('id', '=', created.body.customerContactID)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(password!, stored.password_hash!)).toBe(true);
  });
});

describe('password secrecy', () => {
  it('never writes a password to the logs or to a response', async () => {
    const customerID = await newCustomer();
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await t.request(method, path, { body });
      responses.push(res.text);
      return res;
    };
    const givenEmail = uniqueEmail('given');
    const given = await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Given',
      LastName: 'Secret',
      Email: givenEmail,
      Username: 'given-secret',
      Password: 'Hunter2Given',
    });
    const generatedEmail = uniqueEmail('generated');
    const generated = await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Generated',
      LastName: 'Secret',
      Email: generatedEmail,
    });
    await call('POST', '/v1/customercontacts', {
      customerID,
      Name: 'Refused',
      LastName: 'Secret',
      Email: uniqueEmail('refused'),
      Password: 'nodigitshere',
    });
    await call('PUT', `/v1/customercontacts/${given.body.customerContactID}`, {
      ...editBody(given.body),
      Password: 'Edited9Secret',
      changePassword: true,
    });
    await call('PUT', `/v1/customercontacts/${generated.body.customerContactID}`, {
      ...editBody(generated.body),
      Password: '',
      changePassword: true,
    });
    await call('GET', `/v1/customercontacts/${given.body.customerContactID}`);
    await call('GET', `/v1/customers/${customerID}/contacts`);
    await call('GET', '/v1/customercontacts?page_size=200');

    const generatedOnAdd = credentialsIn((await mailTo(generatedEmail, 1)).text).password!;
    const generatedOnEdit = credentialsIn((await mailTo(generatedEmail, 2)).text).password!;
    expect(credentialsIn((await mailTo(givenEmail, 2)).text).password).toBe('Edited9Secret');
    const secrets = ['Hunter2Given', 'nodigitshere', 'Edited9Secret', generatedOnAdd, generatedOnEdit];

    const logs = t.logs.join('');
    expect(logs).toContain('/v1/customercontacts');
    for (const secret of secrets) {
      expect(secret).toBeTruthy();
      expect(logs, secret).not.toContain(secret);
      for (const text of responses) expect(text, secret).not.toContain(secret);
    }
  });
});
