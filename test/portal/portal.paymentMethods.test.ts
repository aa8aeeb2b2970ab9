import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from '../collections/cards.ts';
import { PortalClient, customerWithLogin, portalPath, signedIn, t, usePortalService } from './fixtures.ts';
import { plusDays } from '../helpers/clock.ts';

usePortalService();

/** The id in a form's action on the page, e.g. the first "Make primary" form's method. */
const formActions = (html: string) => [...html.matchAll(/action="([^"]+)"/g)].map((match) => match[1]);

describe('the payment methods page', () => {
  it('lists the customer’s cards masked, marks the primary, and never shows a full number', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    await addCard(t, login.customerId, '5555555555554444', { isPrimary: false });
    const someoneElse = await customerWithLogin();
    await addCard(t, someoneElse.customerId, '4012888888881881');

    const client = await signedIn(login);
    const page = await client.get(`${client.base}payment-methods`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Visa ending 4242');
    expect(page.text).toContain('Mastercard ending 4444');
    expect(page.text).toContain('Expires 12/2040');
    expect(page.text).toMatch(/Visa ending 4242 <span class="status status-paid">Primary<\/span>/);
    expect(page.text).not.toMatch(/Mastercard ending 4444 <span[^>]*>Primary/);
    // Neither full numbers nor the vault's tokens, and nothing of the other customer's card.
    for (const secret of ['4242424242424242', '5555555555554444', 'tok_test_', '1881']) {
      expect(page.text).not.toContain(secret);
    }
    expect(page.text).toContain('aria-current="page">Payment methods');
    // The primary has no "Make primary" and no "Delete": only the other card does.
    expect(formActions(page.text).filter((action) => action!.endsWith('/primary'))).toHaveLength(1);
    expect(page.text.match(/\/delete"/g)).toHaveLength(1);
  });

  it('makes a method primary (303), as the API does: the old primary is no longer', async () => {
    const login = await customerWithLogin();
    const first = await addCard(t, login.customerId, '4242424242424242');
    const second = await addCard(t, login.customerId, '5555555555554444', { isPrimary: false });
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    const made = await client.post(`${client.base}payment-methods/${second}/primary`, { csrf });
    expect(made.status).toBe(303);
    expect(made.headers.get('location')).toBe(`${client.base}payment-methods?done=primary`);
    expect((await ok(t, 'GET', `/v1/paymentmethods/${second}`)).isPrimary).toBe(true);
    expect((await ok(t, 'GET', `/v1/paymentmethods/${first}`)).isPrimary).toBe(false);
    const events = (await eventsOf(t, 'payment_method', second)).map((event) => event.type);
    expect(events).toContain('payment_method.primary_changed');
    const after = await client.get(`${client.base}payment-methods?done=primary`);
    expect(after.text).toContain('Your primary payment method was changed');
    expect(after.text).toMatch(/Mastercard ending 4444 <span class="status status-paid">Primary/);
  });

  it('shows no notice for a done it does not know, such as constructor', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    for (const done of ['constructor', 'toString', '__proto__', 'nothing']) {
      const page = await client.get(`${client.base}payment-methods?done=${done}`);
      expect(page.status, done).toBe(200);
      // Before, the page showed Object's function as the notice: `function Object() { [native code] }`.
      expect(page.text, done).not.toContain('[native code]');
    }
  });

  it('refuses a form without the session’s token and changes nothing', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const second = await addCard(t, login.customerId, '5555555555554444', { isPrimary: false });
    const client = await signedIn(login);
    const refused = await client.post(`${client.base}payment-methods/${second}/primary`, { csrf: 'x' });
    expect(refused.status).toBe(403);
    expect((await ok(t, 'GET', `/v1/paymentmethods/${second}`)).isPrimary).toBe(false);
  });

  it('deletes a method that is not primary after asking, and refuses the primary (422)', async () => {
    const login = await customerWithLogin();
    const primary = await addCard(t, login.customerId, '4242424242424242');
    const spare = await addCard(t, login.customerId, '5555555555554444', { isPrimary: false });
    const client = await signedIn(login);

    const ask = await client.get(`${client.base}payment-methods/${spare}/delete`);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain('<h1>Delete Mastercard ending 4444?</h1>');
    const csrf = /name="csrf" value="([^"]+)"/.exec(ask.text)![1]!;

    // The primary: no button on the page, and a POST made anyway is refused with the reason, nothing deleted.
    const refused = await client.post(`${client.base}payment-methods/${primary}/delete`, { csrf });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('role="alert"');
    expect(refused.text).toContain('Your primary payment method cannot be deleted');
    expect((await ok(t, 'GET', `/v1/paymentmethods/${primary}`)).isPrimary).toBe(true);

    const deleted = await client.post(`${client.base}payment-methods/${spare}/delete`, { csrf });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe(`${client.base}payment-methods?done=deleted`);
    expect((await t.request('GET', `/v1/paymentmethods/${spare}`)).status).toBe(404);
    const events = (await eventsOf(t, 'payment_method', spare)).map((event) => event.type);
    expect(events).toContain('payment_method.deleted');
    const list = await client.get(`${client.base}payment-methods?done=deleted`);
    expect(list.text).toContain('The payment method was deleted.');
    expect(list.text).not.toContain('Mastercard ending 4444');
  });

  it("answers 404 for another customer's method and changes nothing", async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const someoneElse = await customerWithLogin();
    await addCard(t, someoneElse.customerId, '4242424242424242');
    const theirs = await addCard(t, someoneElse.customerId, '5555555555554444', { isPrimary: false });
    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    expect((await client.get(`${client.base}payment-methods/${theirs}/delete`)).status).toBe(404);
    expect((await client.post(`${client.base}payment-methods/${theirs}/delete`, { csrf })).status).toBe(404);
    expect((await client.post(`${client.base}payment-methods/${theirs}/primary`, { csrf })).status).toBe(404);
    expect((await client.get(`${client.base}payment-methods/${theirs}/mandate`)).status).toBe(404);
    expect((await client.get(`${client.base}payment-methods/nope/delete`)).status).toBe(404);
    const method = await ok(t, 'GET', `/v1/paymentmethods/${theirs}`);
    expect(method).toMatchObject({ isPrimary: false, customerID: someoneElse.customerId });
  });
});

describe('making a card primary retries failed invoices', () => {
  /** A test account with its own portal: its test clock moves the collection run as the API's tests do. */
  async function testAccountPortal(): Promise<TestAccount> {
    const account = await t.newAccount('Portal collections', { isTest: true, timeZone: 'UTC' });
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `pm-${process.pid}-${Date.now()}` });
    return account;
  }

  it('a card invoice that failed for want of the customer is tried at once from the new primary and paid', async () => {
    const account = await testAccountPortal();
    const today = plusDays(
      ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10),
      1,
    );
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
    const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const login = await customerWithLogin(account);
    // A card whose issuer asks the cardholder to confirm: off-session it fails until the customer acts.
    const failing = await addCard(account, login.customerId, '4000002500003155');
    const invoice = await issuedInvoice(account, {
      customerId: login.customerId,
      invoiceDate: today,
      dueDate: today,
      collect: { method: 'credit_card', gatewayId, paymentMethodId: failing },
      amount: 100,
    });
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T12:00:00Z` }, 200);
    const invoicePath = `/v1/invoices/${invoice.invoiceID}`;
    expect(await ok(account, 'GET', invoicePath)).toMatchObject({ NumTries: 1, NextTryDate: null });
    const good = await addCard(account, login.customerId, '5555555555554444', { isPrimary: false });

    const client = new PortalClient(await portalPath(account), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    expect((await client.post(`${client.base}payment-methods/${good}/primary`, { csrf })).status).toBe(303);

    // The account's test clock stands at noon: the retry is due now, from the new primary.
    expect(await ok(account, 'GET', invoicePath)).toMatchObject({
      customerPaymentMethodID: good,
      NextTryDate: `${today}T12:00:00.000Z`,
    });
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T12:01:00Z` }, 200);
    expect(await ok(account, 'GET', invoicePath)).toMatchObject({ Status: 'Paid', NumTries: 2 });
    const types = (await eventsOf(account, 'invoice', invoice.invoiceID)).map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(['invoice.payment_failed', 'invoice.updated', 'invoice.paid']),
    );
  });
});

describe('a bank account under a signed eMandate', () => {
  it('shows the mandate signed, masks the account, and downloads the signed PDF', async () => {
    const account = await t.newAccount('Portal mandates', { isTest: true });
    await ok(account, 'PUT', '/v1/account', { PortalSlug: `md-${process.pid}-${Date.now()}` });
    const today = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
    const created = await account.request('POST', '/widget/emandate', {
      body: {
        Name: 'Thandi',
        Lastname: 'Nkosi',
        Email: 'thandi@nkosi.example',
        Address1: '12 Long Street',
        City: 'Cape Town',
        CountryISOCode: 'ZAF',
        PostalCode: '8001',
        bank_Name: 'First National Bank',
        bank_BranchCode: '250655',
        bank_AccHolder: 'T Nkosi',
        bank_AccNumber: '62847123459876',
        bank_AccountType: 'Cheque',
        debit_ActionDay: 25,
        debit_StartDate: plusDays(today, 7),
        debit_Frequency: 'Monthly',
        debit_Amt: 299.99,
        debit_NameOnStmt: 'NORTHWIND',
        debit_ContractRef: `CTR-portal-${process.pid}`,
        debit_VariableAmts: false,
        isCustomerEditable: true,
        isCompanySignee: false,
      },
    });
    expect(created.status, created.text).toBe(200);
    const token = created.body.Token as string;
    // Signed on its hosted page, as the signee does it (docs/hosted-pages.md, "eMandates").
    const signed = await fetch(`${t.url}/widget/emandate/${token}/sign`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: t.url,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ Consent: 'yes', TypedName: 'Thandi Nkosi' }),
      redirect: 'manual',
    });
    expect(signed.status).toBe(303);
    const login = await customerWithLogin(account);
    const method = await ok(
      account,
      'POST',
      '/v1/paymentmethods/bankaccount',
      {
        customerID: login.customerId,
        isPrimary: true,
        BankAccount: {
          Method: 'debit_order',
          AccountType: 'Cheque',
          AccountHolder: 'T Nkosi',
          Bank: 'First National Bank',
          AccountNumber: '62847123459876',
          BranchCode: '250655',
          EMandateToken: token,
        },
      },
      200,
    );

    const client = new PortalClient(await portalPath(account), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const page = await client.get(`${client.base}payment-methods`);
    expect(page.text).toContain('First National Bank account ending 9876');
    expect(page.text).toMatch(/Debit mandate: Signed on \d{1,2} [A-Z][a-z]{2} \d{4}/);
    for (const secret of ['62847123459876', token]) expect(page.text).not.toContain(secret);
    const link = `${client.base}payment-methods/${method.paymentMethodID}/mandate`;
    expect(page.text).toContain(`href="${link}"`);
    const response = await fetch(`${t.url}${link}`, {
      headers: { cookie: [...client.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });
});
