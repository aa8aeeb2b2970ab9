import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/security/passwords.ts';
import { fieldsOf, newCustomer, t, useCustomersService } from './fixtures.ts';
import {
  addContact,
  credentialsIn,
  editBody,
  editContact,
  expectNoMailTo,
  mailTo,
  outboxCount,
  passwordHashOf,
  readContact,
  uniqueEmail,
} from './contacts.fixtures.ts';

useCustomersService({ smtp: true });

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
    const res = await editContact(t, contact, {
      customerID: otherCustomer,
      Name: 'New',
      LastName: 'Surname',
      Email,
      Cell: '222',
      isActive: false,
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

    const cleared = await editContact(t, read.body, { Cell: null });
    expect(cleared.status).toBe(204);
    expect((await readContact(t, contact)).Cell).toBeNull();
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

    const res = await editContact(t, contact, { Password: '', changePassword: true });
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
    const res = await editContact(t, contact, {
      Email: newEmail,
      Password: 'Second456',
      changePassword: true,
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
    const res = await editContact(t, contact, { Username: 'after-rename' });
    expect(res.status).toBe(204);
    const mail = await mailTo(Email, 2);
    expect(credentialsIn(mail.text)).toEqual({ username: 'after-rename', password: undefined });
    expect(await passwordHashOf(contact.customerContactID)).toBe(before);
    expect((await readContact(t, contact)).Username).toBe('after-rename');
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
      const res = await editContact(account, contact, changes);
      expect(res.status, JSON.stringify(changes)).toBe(204);
    }
    expect(await outboxCount(account)).toBe(1);
    expect(await passwordHashOf(contact.customerContactID)).toBe(hash);
    expect((await readContact(account, contact)).Username).toBe(contact.Username);
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
    const res = await editContact(account, contact, { Username: 'taken.on.edit', Name: 'Changed' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('username_taken');
    expect(await readContact(account, contact)).toEqual(contact);
    expect(await outboxCount(account)).toBe(1);

    const own = await editContact(account, contact, { Username: 'mover', Name: 'Kept' });
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
    const res = await editContact(account, contact, { isActive: true, changePassword: true });
    expect(res.status).toBe(204);
    const read = await account.request('GET', `/v1/customercontacts/${contact.customerContactID}`);
    expect(read.body).toMatchObject({ isActive: true });
    expect(read.body.Username).toMatch(/^alovelace-[a-z2-9]{6}$/);
    const { username, password } = credentialsIn((await mailTo(Email)).text);
    expect(username).toBe(read.body.Username);
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
    const res = await editContact(account, contact, { isActive: true });
    expect(res.status).toBe(204);
    const { username, password } = credentialsIn((await mailTo(Email)).text);
    expect(username).toMatch(/^itive-[a-z2-9]{6}$/);
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
      const res = await editContact(t, contact, { Password, changePassword: true });
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
    const moved = await editContact(t, contact, { customerID: foreignCustomer });
    expect(moved.status).toBe(404);
    expect(moved.body.code).toBe('customer_not_found');
    expect(await readContact(t, contact)).toEqual(contact);
  });
});
