import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { addCard } from '../collections/cards.ts';
import {
  customerWithLogin,
  hiddenFieldsOf,
  invoicePayForm,
  paymentsOf,
  signedIn,
  t,
  usePortalService,
} from './fixtures.ts';

usePortalService();

// Today is 15 March 2026 (fixtures.ts, START): an invoice due on the 10th is past due.

describe('paying an invoice with the primary card', () => {
  it('records a payment allocated exactly to the invoice, which is then Paid', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '123.45',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const fields = await invoicePayForm(client, invoice.invoiceID);
    expect(fields['expected']).toBe('USD 123.45');

    const paid = await client.post(`${client.base}invoices/${invoice.invoiceID}/pay`, fields);
    expect(paid.status, paid.text).toBe(303);
    const [payment, ...more] = await paymentsOf(login.customerId);
    expect(more).toEqual([]);
    expect(paid.headers.get('location')).toBe(`${client.base}paid/${payment.paymentID}`);
    expect(payment).toMatchObject({
      Amount: 123.45,
      Method: 'credit_card',
      Status: 'Allocated',
      Allocations: [expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 123.45 })],
    });
    expect(payment.Ref).toMatch(/^ch_test_/);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    expect((await eventsOf(t, 'payment', payment.paymentID)).map((e) => e.type)).toEqual(['payment.created']);
    expect((await eventsOf(t, 'invoice', invoice.invoiceID)).map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
    // The receipt e-mailed to the customer and its contact (docs/gateways.md, "The collection loop").
    const receipts = await t.service.storage.db
      .selectFrom('mail_outbox')
      .select(['recipient', 'subject', 'body_sealed'])
      .where('account_id', '=', t.accountId)
      .where('subject', 'like', 'Receipt from %')
      .orderBy('id')
      .execute();
    const mine = receipts.filter((row) =>
      t.service.secrets.open(row.body_sealed).includes(`Invoice ${invoice.invoiceNum}:`),
    );
    expect(mine.map((row) => row.subject)).toEqual([
      expect.stringMatching(/: USD 123\.45 received$/),
      expect.stringMatching(/: USD 123\.45 received$/),
    ]);
    const text = t.service.secrets.open(mine[0]!.body_sealed);
    expect(text).toMatch(/we received USD 123\.45 from Visa ending 4242 on 15 March 2026\./);
    expect(text).toContain(`Invoice ${invoice.invoiceNum}: USD 123.45 paid, USD 0.00 still owed`);

    const receipt = await client.get(`${client.base}paid/${payment.paymentID}`);
    expect(receipt.status).toBe(200);
    expect(receipt.text).toContain('Thank you: your payment was received');
    expect(receipt.text).toContain('USD 123.45 paid on 2026-03-15');
    expect(receipt.text).toContain(`href="${client.base}invoices/${invoice.invoiceID}"`);
    expect(receipt.text).toContain('status-paid">Paid<');
    const detail = await client.get(`${client.base}invoices/${invoice.invoiceID}`);
    expect(detail.text).toContain('status-paid">Paid<');
    expect(detail.text).not.toContain('/pay"');
    // The payment applied, in words: a customer does not know our ids.
    expect(detail.text).toMatch(/<th scope="row">Payment<\/th>/);
    expect(detail.text).not.toContain(`Payment ${payment.paymentID}`);
  });

  it('pays once when the form is sent twice at the same moment, and once more later', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: 40,
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const fields = await invoicePayForm(client, invoice.invoiceID);
    const path = `${client.base}invoices/${invoice.invoiceID}/pay`;
    const answers = await Promise.all([client.post(path, fields), client.post(path, fields)]);
    expect(answers.map((a) => a.status)).toEqual([303, 303]);
    const late = await client.post(path, fields);
    expect(late.status).toBe(303);
    const payments = await paymentsOf(login.customerId);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ Amount: 40, Status: 'Allocated' });
    // Both answers of the double click lead to that one payment (or to the invoice, paid by it).
    for (const answer of [...answers, late]) {
      expect([
        `${client.base}paid/${payments[0].paymentID}`,
        `${client.base}invoices/${invoice.invoiceID}`,
      ]).toContain(answer.headers.get('location'));
    }
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
  });

  it('shows a declined card’s reason in words and changes nothing', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4000000000009995');
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: 75,
      dueDate: '2026-03-31',
    });
    const before = await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`);
    const client = await signedIn(login);
    const fields = await invoicePayForm(client, invoice.invoiceID);
    const declined = await client.post(`${client.base}invoices/${invoice.invoiceID}/pay`, fields);
    expect(declined.status).toBe(422);
    expect(declined.text).toContain('role="alert"');
    expect(declined.text).toContain('The payment did not go through');
    expect(declined.text).toContain(
      'Visa ending 9995: there are not enough funds on the card. Nothing was charged.',
    );
    expect(declined.text).not.toContain('4000000000009995');
    expect(await paymentsOf(login.customerId)).toEqual([]);
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toEqual(before);
    expect((await eventsOf(t, 'invoice', invoice.invoiceID)).map((e) => e.type)).toEqual(['invoice.created']);
  });

  it('refuses an amount other than the one owed now, and an invoice without a card to charge', async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: 10,
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const fields = await invoicePayForm(client, invoice.invoiceID);
    const noCard = await client.post(`${client.base}invoices/${invoice.invoiceID}/pay`, fields);
    expect(noCard.status).toBe(422);
    expect(noCard.text).toContain('You have no card to pay USD 10.00 with');

    await addCard(t, login.customerId, '4242424242424242');
    const changed = await client.post(`${client.base}invoices/${invoice.invoiceID}/pay`, {
      ...fields,
      expected: 'USD 9.00',
    });
    expect(changed.status).toBe(422);
    expect(changed.text).toContain('You now owe USD 10.00');
    expect(await paymentsOf(login.customerId)).toEqual([]);
  });

  it("answers 404 for another customer's invoice and its receipt, and charges nothing", async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const someoneElse = await customerWithLogin();
    await addCard(t, someoneElse.customerId, '4242424242424242');
    const theirs = await issuedInvoice(t, {
      customerId: someoneElse.customerId,
      amount: 10,
      dueDate: '2026-03-31',
    });
    const theirClient = await signedIn(someoneElse);
    const theirForm = await invoicePayForm(theirClient, theirs.invoiceID);
    const paid = await theirClient.post(`${theirClient.base}invoices/${theirs.invoiceID}/pay`, theirForm);
    const receipt = paid.headers.get('location')!;

    const client = await signedIn(login);
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    const other = await issuedInvoice(t, {
      customerId: someoneElse.customerId,
      amount: 5,
      dueDate: '2026-03-31',
    });
    const refused = await client.post(`${client.base}invoices/${other.invoiceID}/pay`, {
      csrf,
      expected: 'USD 5.00',
    });
    expect(refused.status).toBe(404);
    expect((await client.get(receipt)).status).toBe(404);
    expect(await paymentsOf(login.customerId)).toEqual([]);
    expect(await paymentsOf(someoneElse.customerId)).toHaveLength(1);
  });
});

describe('paying all overdue invoices', () => {
  it('charges the sum of the overdue balances once and allocates each its balance exactly', async () => {
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const march = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '100.10',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
    });
    const february = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '20.05',
      invoiceDate: '2026-02-01',
      dueDate: '2026-02-10',
    });
    const notYetDue = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: 7,
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const overview = await client.get(client.base);
    // Overdue: 100.10 + 20.05 = 120.15; the invoice due on the 31st is not.
    const fields = hiddenFieldsOf(overview.text, `${client.base}pay-overdue`);
    expect(fields['expected']).toBe('USD 120.15');
    const paid = await client.post(`${client.base}pay-overdue`, fields);
    expect(paid.status, paid.text).toBe(303);

    const [payment, ...more] = await paymentsOf(login.customerId);
    expect(more).toEqual([]);
    expect(payment.Amount).toBe(120.15);
    expect(payment.Allocations).toHaveLength(2);
    expect(payment.Allocations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ invoiceID: march.invoiceID, amountApplied: 100.1 }),
        expect.objectContaining({ invoiceID: february.invoiceID, amountApplied: 20.05 }),
      ]),
    );
    for (const invoice of [march, february]) {
      expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
        Status: 'Paid',
        Balance: 0,
      });
    }
    expect(await ok(t, 'GET', `/v1/invoices/${notYetDue.invoiceID}`)).toMatchObject({
      Status: 'Due',
      Balance: 7,
    });
    const after = await client.get(client.base);
    expect(after.text).not.toContain('pay-overdue');
    const receipt = await client.get(paid.headers.get('location')!);
    expect(receipt.text).toContain('USD 120.15 paid on 2026-03-15');
  });
});

describe('paying with a new card through the capture widget', () => {
  /** The frame's submit, as the widget's frame posts it (test/widgets/fixtures.ts). */
  const submitCard = (hashToken: string, number: string) =>
    t.request('POST', `/widget/capture/${hashToken}/submit`, {
      auth: false,
      body: { number, expiry: '12/31', securityCode: '123', name: 'Ada Lovelace' },
    });

  it('sells the balance with the new card, keeps the card, and pays the invoice once', async () => {
    const login = await customerWithLogin();
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '64.20',
      dueDate: '2026-03-31',
    });
    const client = await signedIn(login);
    const pagePath = `${client.base}invoices/${invoice.invoiceID}/pay-card`;
    const page = await client.get(pagePath);
    expect(page.status).toBe(200);
    // The page lets the widget's loader and frame come from the service's own origin, and nothing else does.
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toContain(`frame-src ${t.url}`);
    expect(policy).toMatch(new RegExp(`script-src 'nonce-[^']+' ${t.url.replace(/\./g, '\\.')}`));
    expect(policy).toContain("frame-ancestors 'none'");
    expect(
      (await client.get(`${client.base}payment-methods`)).headers.get('content-security-policy'),
    ).not.toContain('frame-src');
    const hashToken = /data-hash-token="([0-9a-f]+)"/.exec(page.text)![1]!;
    const fields = hiddenFieldsOf(page.text, pagePath);
    expect(fields['capture']).not.toMatch(/^cs_/);
    const sessions = await ok(t, 'GET', '/v1/events?resourceType=capture_session&page_size=100');
    const made = sessions.find((e: any) => e.data.object.ExtRef === `portal:customer:${login.customerId}`);
    expect(made?.data.object).toMatchObject({ SaleType: 'VaultSale', AuthDomain: t.url });

    // Before the card is in: nothing to record.
    const early = await client.post(pagePath, fields);
    expect(early.status).toBe(422);
    expect(early.text).toContain('Nothing was paid');

    expect((await submitCard(hashToken, '5555555555554444')).status).toBe(200);
    const answers = await Promise.all([client.post(pagePath, fields), client.post(pagePath, fields)]);
    expect(answers.map((a) => a.status)).toEqual([303, 303]);
    const payments = await paymentsOf(login.customerId);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      Amount: 64.2,
      Method: 'credit_card',
      Status: 'Allocated',
      Allocations: [expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 64.2 })],
    });
    for (const answer of answers) {
      expect(answer.headers.get('location')).toBe(`${client.base}paid/${payments[0].paymentID}`);
    }
    expect(await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
    });
    const methods = await ok(t, 'GET', `/v1/customers/${login.customerId}/paymentmethods`);
    expect(methods).toEqual([
      expect.objectContaining({ CreditCard: expect.objectContaining({ LastFourDigits: '4444' }) }),
    ]);
  });

  it("refuses another customer's sealed session and another customer's invoice", async () => {
    const login = await customerWithLogin();
    const someoneElse = await customerWithLogin();
    const theirs = await issuedInvoice(t, {
      customerId: someoneElse.customerId,
      amount: 9,
      dueDate: '2026-03-31',
    });
    const mine = await issuedInvoice(t, { customerId: login.customerId, amount: 9, dueDate: '2026-03-31' });
    const theirClient = await signedIn(someoneElse);
    const theirPath = `${theirClient.base}invoices/${theirs.invoiceID}/pay-card`;
    const theirPage = await theirClient.get(theirPath);
    const theirFields = hiddenFieldsOf(theirPage.text, theirPath);
    expect(
      (await submitCard(/data-hash-token="([0-9a-f]+)"/.exec(theirPage.text)![1]!, '4242424242424242'))
        .status,
    ).toBe(200);

    const client = await signedIn(login);
    expect((await client.get(`${client.base}invoices/${theirs.invoiceID}/pay-card`)).status).toBe(404);
    const csrf = await client.csrfOf(`${client.base}payment-methods`);
    // Their sealed session posted by me, for my invoice: not mine to complete.
    const stolen = await client.post(`${client.base}invoices/${mine.invoiceID}/pay-card`, {
      csrf,
      capture: theirFields['capture']!,
    });
    expect(stolen.status).toBe(404);
    expect(await paymentsOf(login.customerId)).toEqual([]);
    // Theirs was recorded for them when the frame charged it (docs/hosted-pages.md, "When the browser never comes
    // back"), once, whoever posts the sealed session after.
    expect(await paymentsOf(someoneElse.customerId)).toMatchObject([{ Amount: 9 }]);
  });
});
