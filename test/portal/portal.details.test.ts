import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { customerWithLogin, signedIn, t, usePortalService } from './fixtures.ts';

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

    const after = await client.get(saved.headers.get('location')!);
    expect(after.text).toContain('Your billing details were saved.');
    expect(after.text).toContain('value="GB123456789"');

    // Blank clears a field, as null does through the API.
    await client.post(`${client.base}details`, { csrf, ...FORM, Address2: '', ContactEmail: contact.Email });
    expect((await ok(t, 'GET', `/v1/customers/${login.customerId}`)).Address2).toBeNull();
    // The session is still good: the contact's password did not change.
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
});
