import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { addLine, batchBody, newBatch } from '../batches/batchApi.fixtures.ts';
import { onBusinessDay } from '../../src/core/bankingDays.ts';
import type { DebitSetup } from '../batches/fixtures.ts';
import { debitAccount, debitCustomer, debitInvoice, plusDays } from '../batches/fixtures.ts';
import { addCard } from '../collections/cards.ts';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { PortalClient, portalPath } from '../portal/fixtures.ts';
import { fetchStatementPdf } from '../statements/fixtures.ts';
import { pdfText } from './invoices.fixtures.ts';

// docs/spec-decisions.md, "Pending debits on documents": while a debit order allocated to an invoice waits for the
// bank, the API keeps the spec's Balance (net of it) and Status Pending, but every document the customer reads
// says it is still due and when and from where it will be taken; and the collection notes never show an id.

const t = useTestService({ smtp: true });
const { smtp } = t;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2027-01-25" → "25 Jan 2027", as documents print dates. */
const printed = (date: string) => {
  const [y, m, d] = date.split('-').map(Number);
  return `${d} ${MONTHS[m! - 1]} ${y}`;
};

async function pdfOf(account: TestAccount, invoiceId: number): Promise<string> {
  const res = await fetchInvoicePdf(t.url, account, invoiceId);
  expect(res.status).toBe(200);
  return (await pdfText(new Uint8Array(res.body))).replace(/\s+/g, ' ');
}

/** The text of the invoice e-mail sent now for the invoice (PUT /send), once it arrives. */
async function sentMailText(account: TestAccount, invoice: { invoiceID: number; invoiceNum: number }) {
  const before = smtp.messages.length;
  await ok(account, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`, undefined, 204);
  const subject = `Subject: Invoice ${invoice.invoiceNum} from`;
  const mail = await eventually(() => smtp.messages.slice(before).find((m) => m.raw.includes(subject)));
  return ((await PostalMime.parse(mail.raw)).text ?? '').replace(/\s+/g, ' ');
}

/** A portal client signed in as a new contact of the customer. */
async function portalOf(setup: DebitSetup, customerId: number): Promise<PortalClient> {
  await ok(setup.account, 'PUT', '/v1/account', {
    PortalSlug: `debits-${process.pid}-${setup.account.accountId}`,
  });
  const username = `debtor-${process.pid}-${customerId}`;
  await ok(setup.account, 'POST', '/v1/customercontacts', {
    customerID: customerId,
    Name: 'Ada',
    LastName: 'Lovelace',
    Email: `ada.${customerId}@example.com`,
    Username: username,
    Password: 'secret123',
  });
  const client = new PortalClient(await portalPath(setup.account), t.url);
  expect((await client.signIn(username, 'secret123')).status).toBe(303);
  return client;
}

describe('a debit order waiting for the bank', () => {
  /** A ZAR customer (account ending 0001) with an invoice of 100.00 in a batch a week ahead, as a pending line. */
  async function pendingScene() {
    const setup = await debitAccount(t, 'ZAR');
    // Account number 1000000001: the debit is taken from the account ending 0001.
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 30 });
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`);
    const batch = await newBatch(setup);
    const actionDate = plusDays(setup.today, 7);
    expect(batch.ActionDate.slice(0, 10)).toBe(actionDate);
    await addLine(setup.account, batch.BatchToken, customer, '100.00', [
      { invoiceID: invoiceId, amount: 100 },
    ]);
    const words = `To be debited on ${printed(actionDate)} from account ending 0001`;
    return { setup, customer, invoiceId, invoice, actionDate, words };
  }

  it('is due, "to be debited on <action date> from account ending 0001", on the invoice PDF and e-mail', async () => {
    const { setup, invoiceId, invoice, words } = await pendingScene();
    // The API keeps the spec's figures: Balance net of the pending payment, Status Pending.
    expect(await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Status: 'Pending',
      Balance: 0,
      TotalPendingPaid: 100,
      TotalActualPaid: 0,
    });
    const pdf = await pdfOf(setup.account, invoiceId);
    expect(pdf).toContain('Balance due ZAR 100.00');
    expect(pdf).toContain(`Pending debit: ${words} 100.00`);
    expect(pdf).toContain(`${words}: 100.00.`);
    expect(pdf).not.toMatch(/Paid \u2212?100\.00/);
    expect(pdf).not.toContain('Balance due ZAR 0.00');

    const mail = await sentMailText(setup.account, invoice);
    expect(mail).toContain(`${words}: ZAR 100.00.`);
    expect(mail).not.toContain('on or after');
  });

  it('is due on the portal and the statement, which still reconciles with Balance', async () => {
    const { setup, customer, invoiceId, actionDate, words } = await pendingScene();
    const portal = await portalOf(setup, customer.customerId);
    const list = await portal.get(`${portal.base}invoices`);
    expect(list.text).toContain(`${words}: ZAR 100.00`);
    expect(list.text).toMatch(/<td class="num">ZAR 100\.00<\/td><\/tr>/);
    const page = await portal.get(`${portal.base}invoices/${invoiceId}`);
    expect(page.text).toContain('<dt>Balance due</dt><dd>ZAR 100.00</dd>');
    expect(page.text).toContain(`<dt>Pending debit</dt><dd>${words}: ZAR 100.00</dd>`);
    expect(page.text).not.toMatch(/Payment \d/);

    // The statement up to the action date, the pending payment's date.
    const range = `?startDate=${setup.today}&endDate=${actionDate}`;
    const statement = await ok(
      setup.account,
      'GET',
      `/v1/customers/${customer.customerId}/statement${range}`,
    );
    const line = statement.Lines.find((l: { Type: string }) => l.Type === 'payment');
    expect(line.Description).toBe(`Pending debit: ${words.replace('To be', 'to be')}`);
    // ClosingBalance reconciles with the customer's Balance (net of the pending debit); PendingDebits is still due.
    expect(statement).toMatchObject({ ClosingBalance: 0, PendingDebits: 100 });
    const statementPdf = await fetchStatementPdf(t.url, setup.account, customer.customerId, range);
    const statementText = (await pdfText(new Uint8Array(statementPdf.body))).replace(/\s+/g, ' ');
    expect(statementText).toContain('Pending debits, not yet collected: ZAR 100.00');
    expect(statementText).toContain('Balance due including them: ZAR 100.00');
    const portalStatement = await portal.get(`${portal.base}statement${range}`);
    expect(portalStatement.text).toContain('Pending debits, not yet collected: ZAR 100.00');
  });

  it("is dated on the statement by its batch's action date once the batch is re-dated, not the payment's", async () => {
    const { setup, customer, actionDate } = await pendingScene();
    const [batch] = await ok(setup.account, 'GET', '/v1/batches');
    // A week later, the same weekday: a business day too (2026-12-25 and 2027-01-01 aside, which tests avoid).
    const later = onBusinessDay(plusDays(actionDate, 7), 'debit_order');
    await ok(
      setup.account,
      'PUT',
      '/v1/batches',
      batchBody(setup, { BatchToken: batch.BatchToken, ActionDate: later }),
      204,
    );
    // The payment keeps its own date; the bank takes it on the batch's.
    const range = `?startDate=${setup.today}&endDate=${later}`;
    const statement = await ok(
      setup.account,
      'GET',
      `/v1/customers/${customer.customerId}/statement${range}`,
    );
    const line = statement.Lines.find((l: { Type: string }) => l.Type === 'payment');
    expect(line.Description).toBe(
      `Pending debit: to be debited on ${printed(later)} from account ending 0001`,
    );
    expect(line.Description).not.toContain(printed(actionDate));
  });

  it('before a debit is made, says the NextTryDate it will be debited on', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 10 });
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`);
    // Before the run plans it, the documents announce the day the run will plan (no mandate: the due date, on a
    // business day), never "on or after" it (docs/spec-decisions.md, "Pending debits on documents").
    const dueWords = `This amount will be debited on ${printed(onBusinessDay(plusDays(setup.today, 10), 'debit_order'))} from account ending 0001.`;
    expect((await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`)).NextTryDate).toBeNull();
    expect(await pdfOf(setup.account, invoiceId)).toContain(dueWords);
    expect(await sentMailText(setup.account, invoice)).toContain(dueWords);

    // The collection plans the debit for a later day (a mandate's action day): the documents print that day.
    const planned = plusDays(setup.today, 14);
    await t.service.storage.db
      .updateTable('invoices')
      .set({ next_try_date: `${planned}T00:00:00.000Z` })
      .where('id', '=', invoiceId)
      .execute();
    const plannedWords = `This amount will be debited on ${printed(planned)} from account ending 0001.`;
    expect(await pdfOf(setup.account, invoiceId)).toContain(plannedWords);
    expect(await sentMailText(setup.account, invoice)).toContain(plannedWords);
  });
});

describe('a card that can no longer be used', () => {
  it('is told in words, with what to do and no id, whether the invoice follows the customer or names the card', async () => {
    const account = await t.newAccount('Card shop');
    const customer = await ok(account, 'POST', '/v1/customers', {
      Name: 'Grace',
      Email: `grace.${process.pid}@example.com`,
      PaymentMethod: 'credit_card',
    });
    const cardId = await addCard(account, customer.customerID, '4000002500003155');
    const following = await ok(account, 'POST', '/v1/invoices', {
      customerID: customer.customerID,
      Charges: [{ Descrip: 'Coffee', Qty: 1, UnitCostEx: 114.8 }],
    });
    const [gateway] = await ok(account, 'GET', '/v1/gateways');
    const naming = await ok(account, 'POST', '/v1/invoices', {
      customerID: customer.customerID,
      CollectionMethod: 'credit_card',
      gatewayID: gateway.gatewayID,
      customerPaymentMethodID: cardId,
      Charges: [{ Descrip: 'Coffee', Qty: 1, UnitCostEx: 114.8 }],
    });
    expect(await pdfOf(account, following.invoiceID)).toContain('will be charged to Visa ending 3155');

    // A hard decline leaves the card not valid.
    await t.service.storage.db
      .updateTable('payment_methods')
      .set({ is_valid: false })
      .where('id', '=', cardId)
      .execute();
    const words =
      'Your card ending 3155 can no longer be used: please add a new card, or pay this invoice another way.';
    for (const invoice of [following, naming]) {
      const pdf = await pdfOf(account, invoice.invoiceID);
      expect(pdf).toContain(words);
      expect(pdf).not.toContain('payment method');
      const mail = await sentMailText(account, invoice);
      expect(mail).toContain(words);
      expect(mail).not.toMatch(/payment method|not valid/);
    }
  });
});
