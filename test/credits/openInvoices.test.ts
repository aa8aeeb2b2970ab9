import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';
import { addCard } from '../collections/cards.ts';
import type { Smtp } from '../collections/notices.fixtures.ts';
import { advance, deliveredTo, eventTypes, plusDays } from '../collections/notices.fixtures.ts';

// Credit pays open invoices too (docs/credits.md, "Consumption order", the third moment): a grant made, or a paid
// top-up's grant come into being, pays the customer's open invoices in its currency at once, oldest first, so an
// invoice the customer pays itself (EFT) is not reminded while it holds credit. Driven over HTTP on a test account's
// clock; reminders read from a real SMTP receiver and the invoices' events.

let smtp: Smtp;
let t: TestService;
beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await startTestService({ smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

interface Shop {
  account: TestAccount;
  /** The account's date: its clock stands at its start. */
  today: string;
  customerId: number;
  walletId: number;
  email: string;
}

let customers = 0;

/**
 * A test account in UTC (reminders on the due date and 7 days after, `settings` beside) whose clock stands at the
 * start of tomorrow, with a customer (a unique Email) and its USD wallet.
 */
async function shop(settings: Record<string, unknown> = {}): Promise<Shop> {
  const account = await t.newAccount('Coffee Co', { isTest: true, timeZone: 'UTC' });
  await ok(account, 'PUT', '/v1/account', {
    LegalName: 'Coffee Co Ltd',
    InvoiceReminderDays: [0, 7],
    ...settings,
  });
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advance(account, `${today}T00:00:00.000Z`);
  const { customerId, walletId, email } = await customerWithWallet(account);
  return { account, today, customerId, walletId, email };
}

async function customerWithWallet(account: TestAccount) {
  customers += 1;
  const email = `open${customers}.${account.accountId}@example.com`;
  const customerId = await createCustomer(account, { Name: 'Ada', LastName: 'Lovelace', Email: email });
  const wallet = await ok(account, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
  return { customerId, walletId: wallet.walletID as number, email };
}

/** An invoice of one line of `amount` (no tax) the customer pays itself by EFT. */
async function eftInvoice(
  s: Pick<Shop, 'account' | 'customerId'>,
  amount: number,
  dates: { invoiceDate: string; dueDate: string },
): Promise<{ id: number; num: number }> {
  const made = await ok(s.account, 'POST', '/v1/invoices', {
    customerID: s.customerId,
    InvoiceDate: dates.invoiceDate,
    DueDate: dates.dueDate,
    CollectionMethod: 'eft',
    Charges: [{ Descrip: 'Coffee beans', Qty: 1, UnitCostEx: amount }],
  });
  return { id: made.invoiceID as number, num: made.invoiceNum as number };
}

const invoiceOf = (s: Pick<Shop, 'account'>, id: number) => ok(s.account, 'GET', `/v1/invoices/${id}`);
const walletOf = (s: Shop) => ok(s.account, 'GET', `/v1/wallets/${s.walletId}`);
const grant = (s: Pick<Shop, 'account' | 'walletId'>, amount: number) =>
  ok(s.account, 'POST', `/v1/wallets/${s.walletId}/grants`, { Amount: amount });
const reminders = async (s: Shop, invoiceId: number) =>
  (await eventTypes(s.account, invoiceId)).filter((type) => type === 'invoice.payment_reminder');

describe('a grant pays open invoices when it is made', () => {
  it('pays an EFT invoice issued before the customer had credit at once, and the wallet keeps the rest', async () => {
    const s = await shop();
    const due = plusDays(s.today, 5);
    const invoice = await eftInvoice(s, 80, { invoiceDate: s.today, dueDate: due });
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Status: 'Due', Balance: 80 });

    const made = await grant(s, 100);
    // 100.00 granted, 80.00 of it paid on the invoice: 20.00 left.
    expect(made).toMatchObject({ Amount: 100, Consumed: 80, Remaining: 20, Status: 'active' });
    expect(made.Invoices).toEqual([{ invoiceID: invoice.id, Amount: 80 }]);
    expect(await invoiceOf(s, invoice.id)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      TotalNegativeAdjs: 80,
    });
    expect((await walletOf(s)).Balance).toBe(20);
    expect((await eventsOf(s.account, 'credit_grant', made.creditGrantID)).map((e) => e.type)).toEqual([
      'credit_grant.created',
      'credit_grant.consumed',
    ]);
    expect(await eventTypes(s.account, invoice.id)).toContain('invoice.paid');

    // Paid: neither the due date's reminder nor the one 7 days after goes.
    await advance(s.account, `${due}T12:00:00Z`);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    expect(await reminders(s, invoice.id)).toEqual([]);
  });

  it('pays the older of two invoices in full and the newer in part, and the newer’s reminder asks for the rest', async () => {
    const s = await shop();
    const due = plusDays(s.today, 3);
    // Made first, dated today; the older one is made second, dated 2 days before: InvoiceDate decides, not the id.
    const newer = await eftInvoice(s, 60, { invoiceDate: s.today, dueDate: due });
    const older = await eftInvoice(s, 60, { invoiceDate: plusDays(s.today, -2), dueDate: due });

    // 90.00: 60.00 pays the older, 90.00 − 60.00 = 30.00 the newer, which owes 60.00 − 30.00 = 30.00.
    const made = await grant(s, 90);
    expect(made).toMatchObject({ Consumed: 90, Remaining: 0, Status: 'used' });
    expect(await invoiceOf(s, older.id)).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect(await invoiceOf(s, newer.id)).toMatchObject({ Status: 'Due', Balance: 30, TotalNegativeAdjs: 30 });
    expect((await walletOf(s)).Balance).toBe(0);
    expect(await eventTypes(s.account, older.id)).toContain('invoice.paid');
    expect(await eventTypes(s.account, newer.id)).toContain('invoice.partially_paid');

    await advance(s.account, `${due}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${newer.num} from Coffee Co Ltd is due today`,
    ]);
    expect(mails[0]!.text).toContain(`Invoice ${newer.num} of USD 60.00 is due today,`);
    expect(mails[0]!.text).toContain(': USD 30.00 is still owed.');
    expect(await reminders(s, older.id)).toEqual([]);
    expect(await reminders(s, newer.id)).toHaveLength(1);
  });

  it('pays open invoices from a paid top-up’s credit once its invoice is paid', async () => {
    const s = await shop();
    const invoice = await eftInvoice(s, 60, { invoiceDate: s.today, dueDate: plusDays(s.today, 5) });
    const topUp = await ok(s.account, 'POST', `/v1/wallets/${s.walletId}/top-ups`, { Amount: 100 });
    // The top-up's invoice paid in full: its grant of 100.00 is made, and pays the open 60.00 in the same request.
    const payment = await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 100,
      CurrencyCode: 'USD',
      Date: s.today,
      Method: 'eft',
      allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 100 }],
    });
    expect(payment).toMatchObject({ Status: 'Allocated' });
    expect(await invoiceOf(s, topUp.invoiceID)).toMatchObject({ Status: 'Paid' });
    expect(await invoiceOf(s, invoice.id)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      TotalNegativeAdjs: 60,
    });
    // 100.00 bought, 60.00 spent: 40.00 left, all of it paid credit.
    expect(await walletOf(s)).toMatchObject({ Balance: 40, PaidBalance: 40, GrantedBalance: 0 });
  });

  it('leaves an invoice whose card charge waits for its answer to that answer', async () => {
    const s = await shop();
    const gatewayId = (await ok(s.account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    // Charged, but the answer is lost (docs/gateways.md, "The test gateway's cards"): the attempt stays started.
    const cardId = await addCard(s.account, s.customerId, '4000000000000408');
    const card = await ok(s.account, 'POST', '/v1/invoices', {
      customerID: s.customerId,
      InvoiceDate: s.today,
      DueDate: s.today,
      CollectionMethod: 'credit_card',
      gatewayID: gatewayId,
      customerPaymentMethodID: cardId,
      Charges: [{ Descrip: 'Grinder', Qty: 1, UnitCostEx: 50 }],
    });
    await advance(s.account, `${s.today}T12:00:00Z`);
    const eft = await eftInvoice(s, 40, { invoiceDate: s.today, dueDate: plusDays(s.today, 5) });

    // 100.00: 40.00 pays the EFT invoice; the card invoice, older by its id, is left to its charge's answer.
    await grant(s, 100);
    expect(await invoiceOf(s, eft.id)).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect(await invoiceOf(s, card.invoiceID)).toMatchObject({ Balance: 50, TotalNegativeAdjs: 0 });
    expect((await walletOf(s)).Balance).toBe(60);
  });
});
