import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import { customerWithLogin, signedIn, smtp, t, usePortalService, wallClock } from './fixtures.ts';

// docs/portal.md, "What customers may change": billing details, saved through the API's own customer update and
// read back through the API.

usePortalService();

const FORM = {
  Company: 'Analytical Engines Ltd',
  Address1: '12 Marylebone Road',
  Address2: 'Floor 2',
  City: 'London',
  ZipCode: 'NW1 5LR',
  Country: 'United Kingdom',
  VatNo: 'GB123456789',
};

describe('billing details', () => {
  it('saves the company, address and VAT number, and the contact’s own e-mail, as the API then shows them', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const page = await client.get(`${client.base}details`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('aria-current="page">Billing details');
    expect(page.text).toContain('<label for="ZipCode">Postal code</label>');
    expect(page.text).toContain('autocomplete="postal-code"');
    const csrf = await client.csrfOf(`${client.base}details`);

    const saved = await client.post(`${client.base}details`, {
      csrf,
      ...FORM,
      ContactEmail: 'ada.finance@example.com',
      CurrentPassword: login.password,
      // Not on the form: the portal never changes them.
      CurrencyCode: 'EUR',
      Name: 'Mallory',
      isWaiveTaxes: 'true',
    });
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.get('location')).toBe(`${client.base}details?saved=1`);

    const customer = await ok(t, 'GET', `/v1/customers/${login.customerId}`);
    expect(customer).toMatchObject({ ...FORM, CurrencyCode: 'USD', isWaiveTaxes: false });
    expect(customer.Name).toMatch(/^Ada /);
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    expect(contact.Email).toBe('ada.finance@example.com');
    expect(contact.Username).toBe(login.username);
    // The audit log says which contact made the change, through which page.
    const audit = await ok(
      t,
      'GET',
      `/v1/auditlog?resourceType=customer&resourceID=${login.customerId}&actorType=widget`,
    );
    expect(audit.map((e: any) => e.Operation)).toEqual([
      `POST /portal/:slug/details [customer contact ${login.contactId}]`,
    ]);

    // Changing the e-mail ended the contact's sessions (its login moved on); this one went on under a new id.
    const after = await client.get(saved.headers.get('location')!);
    expect(after.status, after.headers.get('location') ?? '').toBe(200);
    expect(after.text).toContain('Your billing details were saved.');
    expect(after.text).toContain('value="GB123456789"');

    // Blank clears a field, as null does through the API.
    const newCsrf = await client.csrfOf(`${client.base}details`);
    const cleared = await client.post(`${client.base}details`, {
      csrf: newCsrf,
      ...FORM,
      Address2: '',
      ContactEmail: contact.Email,
    });
    expect(cleared.status, cleared.text).toBe(303);
    expect((await ok(t, 'GET', `/v1/customers/${login.customerId}`)).Address2).toBeNull();
    // The session is still good: without a new e-mail address or password, the login did not move on.
    expect((await client.get(`${client.base}details`)).status).toBe(200);
  });

  it('answers 422 naming the field, and changes nothing, on bad input', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}details`);
    const before = await ok(t, 'GET', `/v1/customers/${login.customerId}`);
    const contactBefore = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);

    const cases = [
      { fields: { City: 'x'.repeat(101) }, field: 'City', text: 'City must be at most 100 characters' },
      {
        fields: { ZipCode: '1'.repeat(21) },
        field: 'ZipCode',
        text: 'Postal code must be at most 20 characters',
      },
      { fields: { VatNo: 'V'.repeat(51) }, field: 'VatNo', text: 'VAT number must be at most 50 characters' },
      {
        fields: { ContactEmail: 'not-an-address' },
        field: 'ContactEmail',
        text: 'Your e-mail address must be an e-mail address',
      },
    ];
    for (const c of cases) {
      const res = await client.post(`${client.base}details`, {
        csrf,
        ...FORM,
        ContactEmail: contactBefore.Email,
        ...c.fields,
      });
      expect(res.status, c.field).toBe(422);
      expect(res.text).toContain(`<a href="#${c.field}">${c.text}</a>`);
      expect(res.text).toMatch(new RegExp(`id="${c.field}"[^>]*aria-invalid="true"`));
      // The form comes back with what was typed.
      expect(res.text).toContain('value="Analytical Engines Ltd"');
    }
    expect(await ok(t, 'GET', `/v1/customers/${login.customerId}`)).toEqual(before);
    expect(await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`)).toEqual(contactBefore);
  });

  it('refuses a form without the session’s token', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const res = await client.post(`${client.base}details`, {
      csrf: 'forged',
      ...FORM,
      ContactEmail: 'x@example.com',
    });
    expect(res.status).toBe(403);
    expect((await ok(t, 'GET', `/v1/customers/${login.customerId}`)).Company).toBeNull();
  });

  it('asks for the current password to change the e-mail address, and saves nothing of a form refused for it', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}details`);
    const before = await ok(t, 'GET', `/v1/customers/${login.customerId}`);
    const contactBefore = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    for (const [CurrentPassword, message] of [
      ['', 'Enter your current password to change your e-mail address'],
      ['not-my-password', 'Your current password is not right'],
    ] as const) {
      const res = await client.post(`${client.base}details`, {
        csrf,
        ...FORM,
        ContactEmail: 'thief@example.com',
        CurrentPassword,
      });
      expect(res.status, CurrentPassword).toBe(422);
      expect(res.text).toContain(`<a href="#CurrentPassword">${message}</a>`);
      expect(res.text).toMatch(/id="CurrentPassword"[^>]*value=""[^>]*aria-invalid="true"/);
      // What was typed comes back, except the password.
      expect(res.text).toContain('value="thief@example.com"');
      expect(res.text).not.toContain('value="not-my-password"');
    }
    // Nothing of either form was saved: not the e-mail, nor the company and address sent with it.
    expect(await ok(t, 'GET', `/v1/customers/${login.customerId}`)).toEqual(before);
    expect(await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`)).toEqual(contactBefore);
    // The other fields alone need no password.
    const plain = await client.post(`${client.base}details`, {
      csrf,
      ...FORM,
      ContactEmail: contactBefore.Email,
    });
    expect(plain.status, plain.text).toBe(303);
  });

  it('counts wrong current passwords as failed sign-ins, and pauses them as it pauses sign-in', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}details`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await client.post(`${client.base}details`, {
        csrf,
        ...FORM,
        ContactEmail: 'thief@example.com',
        CurrentPassword: `guess-${i}`,
      });
      statuses.push(res.status);
    }
    // docs/design/portal.md, "Throttling": five failures of one username from one address pause it.
    expect(statuses).toEqual([422, 422, 422, 422, 429, 429]);
    const right = await client.post(`${client.base}details`, {
      csrf,
      ...FORM,
      ContactEmail: 'thief@example.com',
      CurrentPassword: login.password,
    });
    expect(right.status).toBe(429);
    expect((await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`)).Email).not.toBe(
      'thief@example.com',
    );
  });

  it('tells the old address that the e-mail changed, signs the contact’s other sessions out, keeps this one', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const elsewhere = await signedIn(login);
    const contactBefore = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    const csrf = await client.csrfOf(`${client.base}details`);
    const saved = await client.post(`${client.base}details`, {
      csrf,
      ...FORM,
      ContactEmail: `new-${login.contactId}@example.com`,
      CurrentPassword: login.password,
    });
    expect(saved.status, saved.text).toBe(303);
    expect((await client.get(`${client.base}details?saved=1`)).status).toBe(200);
    // The old session's form token went with it; the new session has its own.
    expect(await client.csrfOf(`${client.base}details`)).not.toBe(csrf);
    const other = await elsewhere.get(`${elsewhere.base}details`);
    expect(other.status).toBe(303);
    expect(other.headers.get('location')).toContain('login');

    const mail = await eventually(() =>
      smtp.messages.find((m) => m.to.includes(contactBefore.Email) && m.raw.includes('address was changed')),
    );
    const unfolded = mail.raw.replace(/=\r?\n/g, '');
    expect(unfolded).toContain(`new-${login.contactId}@example.com`);
    expect(unfolded).toContain('If you did not change it');
    // Signed by the seller, as every message to a customer (the account's name, without a LegalName).
    expect(unfolded).toContain('Test Account');
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(smtp.messages.some((m) => m.to.includes(`new-${login.contactId}@example.com`))).toBe(false);
  });
});

describe('limits on the signed-in forms', () => {
  // docs/portal.md, "Sign-in, sessions and passwords". Each test starts a minute later, past the form limit's window
  // of the tests before it.
  const nextMinute = () => wallClock.advance(61_000);

  it('caps e-mail changes at 3 a day per contact, so that the old addresses are told at most 3 times', async () => {
    nextMinute();
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const change = async (i: number) =>
      client.post(`${client.base}details`, {
        csrf: await client.csrfOf(`${client.base}details`),
        ...FORM,
        ContactEmail: `loop-${i}-${login.contactId}@example.com`,
        CurrentPassword: login.password,
      });
    for (let i = 1; i <= 3; i++) expect((await change(i)).status).toBe(303);
    const fourth = await change(4);
    expect(fourth.status).toBe(429);
    expect(fourth.text).toContain('Your e-mail address can be changed at most 3 times a day');
    expect(fourth.text).toContain('aria-invalid="true"');
    expect((await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`)).Email).toBe(
      `loop-3-${login.contactId}@example.com`,
    );
    const notices = () =>
      smtp.messages.filter(
        (m) => m.raw.includes('address was changed') && m.raw.includes(`-${login.contactId}@example.com`),
      ).length;
    await eventually(() => (notices() >= 3 ? true : undefined));

    // A day later the contact may change it again (wall time: docs/architecture.md, "Two clocks").
    wallClock.advance(24 * 60 * 60_000 + 1);
    const again = await signedIn(login);
    const fifth = await again.post(`${again.base}details`, {
      csrf: await again.csrfOf(`${again.base}details`),
      ...FORM,
      ContactEmail: `loop-5-${login.contactId}@example.com`,
      CurrentPassword: login.password,
    });
    expect(fifth.status, fifth.text).toBe(303);
  });

  it('counts right current passwords too: 5 checks a session, 10 a contact, in 15 minutes', async () => {
    nextMinute();
    const login = await customerWithLogin();
    // A right current password with a new one the rule refuses: checked and counted, nothing changed.
    const check = async (client: Awaited<ReturnType<typeof signedIn>>) =>
      client.post(`${client.base}password`, {
        csrf: await client.csrfOf(`${client.base}password`),
        CurrentPassword: login.password,
        Password: 'short',
        ConfirmPassword: 'short',
      });
    const first = await signedIn(login);
    for (let i = 0; i < 5; i++) expect((await check(first)).status).toBe(422);
    const sixth = await check(first);
    expect(sixth.status).toBe(429);
    expect(sixth.text).toContain('Your password was checked too many times');
    const second = await signedIn(login);
    for (let i = 0; i < 5; i++) expect((await check(second)).status).toBe(422);
    const third = await signedIn(login);
    const overContact = await check(third);
    expect(overContact.status).toBe(429);
    expect(overContact.text).toContain('Your password was checked too many times');
    // The window passes, and the contact's checks with it.
    wallClock.advance(15 * 60_000 + 1);
    expect((await check(await signedIn(login))).status).toBe(422);
  }, 60_000);

  it('puts the form limit on the details and password forms', async () => {
    nextMinute();
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}details`);
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    // The sign-in above was the first form of this minute.
    for (let i = 0; i < 29; i++) {
      const saved = await client.post(`${client.base}details`, {
        csrf,
        ...FORM,
        ContactEmail: contact.Email,
      });
      expect(saved.status).toBe(303);
    }
    const over = await client.post(`${client.base}details`, { csrf, ...FORM, ContactEmail: contact.Email });
    expect(over.status).toBe(429);
    expect(over.text).toContain('Too many requests from your network');
    const password = await client.post(`${client.base}password`, {
      csrf,
      CurrentPassword: login.password,
      Password: 'brand2new',
      ConfirmPassword: 'brand2new',
    });
    expect(password.status).toBe(429);
  });
});
