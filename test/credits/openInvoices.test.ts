import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { advance, deliveredTo, eventTypes, plusDays } from '../collections/notices.fixtures.ts';

// Credit pays open invoices too (docs/credits.md, "Consumption order", the third moment): a grant made, or a paid
// top-up's grant come into being, pays the customer's open invoices in its currency at once; money left unapplied
// (a payment sent with AutoApply false, a credit note, a grant left over) pays them at the next day's run, oldest
// first, so an invoice the customer pays itself (EFT) is not reminded while it holds credit. Driven over HTTP on a
// test account's clock; reminders read from a real SMTP receiver and the invoices' events.

const t = useTestService({ smtp: true });
const { smtp } = t;

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

/** A payment by EFT of `amount` that the client leaves unallocated (AutoApply false, no allocations). */
async function unallocatedPayment(s: Pick<Shop, 'account' | 'customerId'>, amount: number, date: string) {
  const made = await ok(s.account, 'POST', '/v1/payments', {
    customerID: s.customerId,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: date,
    Method: 'eft',
    AutoApply: false,
    allocations: [],
  });
  expect(made).toMatchObject({ Status: 'Unallocated' });
  return made.paymentID as number;
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

    // Paid: neither the due date's reminder nor the one 7 days after goes; the grant's credit note is all it gets.
    await advance(s.account, `${due}T12:00:00Z`);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    expect((await deliveredTo(t, smtp, s.account.accountId, s.email)).map((mail) => mail.subject)).toEqual([
      'Credit note CN-0001 from Coffee Co Ltd',
    ]);
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
    // The grant reduced both invoices: a credit note for each, then the newer's reminder.
    expect(mails.map((mail) => mail.subject)).toEqual([
      'Credit note CN-0001 from Coffee Co Ltd',
      'Credit note CN-0002 from Coffee Co Ltd',
      `Invoice ${newer.num} from Coffee Co Ltd is due today`,
    ]);
    expect(mails[2]!.text).toContain(`Invoice ${newer.num} of USD 60.00 is due today,`);
    expect(mails[2]!.text).toContain(': USD 30.00 is still owed.');
    expect(await reminders(s, older.id)).toEqual([]);
    expect(await reminders(s, newer.id)).toHaveLength(1);
  });

  it('keeps the customer’s own money first: the grant pays only what it leaves open, the next day’s run the rest', async () => {
    const s = await shop();
    const invoice = await eftInvoice(s, 100, { invoiceDate: s.today, dueDate: plusDays(s.today, 10) });
    const note = await ok(s.account, 'POST', '/v1/credits', {
      customerID: s.customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Date: s.today,
      allocations: [],
    });
    // 100.00 owed, 30.00 of it kept for the credit note: the grant of 50.00 pays 50.00 of the other 70.00.
    await grant(s, 50);
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Balance: 50, TotalNegativeAdjs: 50 });
    expect((await walletOf(s)).Balance).toBe(0);
    const noteBefore = await ok(s.account, 'GET', `/v1/credits/${note.creditNoteID}`);
    expect(noteBefore.Allocations).toEqual([]);

    // The next day's run applies the credit note: 50.00 − 30.00 = 20.00 still owed.
    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Balance: 20, TotalNegativeAdjs: 80 });
    const types = (await eventsOf(s.account, 'credit_note', note.creditNoteID)).map((e) => e.type);
    expect(types).toContain('credit_note.allocated');
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

describe('the daily run pays open invoices from money left unapplied', () => {
  it('pays an EFT invoice from a payment sent with AutoApply false the next day, and no reminder goes for it', async () => {
    const s = await shop();
    const due = plusDays(s.today, 2);
    const invoice = await eftInvoice(s, 100, { invoiceDate: s.today, dueDate: due });
    const paymentId = await unallocatedPayment(s, 100, s.today);
    // The client chose not to allocate it now: the invoice still owes 100.00 today.
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Status: 'Due', Balance: 100 });

    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);
    expect(await invoiceOf(s, invoice.id)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      TotalActualPaid: 100,
    });
    expect(await ok(s.account, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({
      Status: 'Allocated',
      Allocations: [expect.objectContaining({ invoiceID: invoice.id, amountApplied: 100 })],
    });
    expect((await eventsOf(s.account, 'payment', paymentId)).map((e) => e.type)).toEqual([
      'payment.created',
      'payment.allocated',
    ]);
    expect(await eventTypes(s.account, invoice.id)).toContain('invoice.paid');

    // Neither the due date's reminder nor the one 7 days after goes.
    await advance(s.account, `${due}T12:00:00Z`);
    await advance(s.account, `${plusDays(due, 7)}T12:00:00Z`);
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    expect(await reminders(s, invoice.id)).toEqual([]);
  });

  it('pays the older of two invoices in full and the newer in part from money for one and a half', async () => {
    const s = await shop();
    const due = plusDays(s.today, 3);
    const newer = await eftInvoice(s, 100, { invoiceDate: s.today, dueDate: due });
    const older = await eftInvoice(s, 100, { invoiceDate: plusDays(s.today, -2), dueDate: due });
    const paymentId = await unallocatedPayment(s, 150, s.today);

    // 150.00: 100.00 to the older, the other 50.00 to the newer, which owes 100.00 − 50.00 = 50.00.
    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);
    expect(await invoiceOf(s, older.id)).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect(await invoiceOf(s, newer.id)).toMatchObject({ Status: 'Due', Balance: 50 });
    const payment = await ok(s.account, 'GET', `/v1/payments/${paymentId}`);
    expect(payment.Status).toBe('Allocated');
    expect(
      (payment.Allocations as any[]).map((a) => [a.invoiceID, a.amountApplied]).sort((a, b) => a[0] - b[0]),
    ).toEqual(
      [
        [older.id, 100],
        [newer.id, 50],
      ].sort((a, b) => a[0]! - b[0]!),
    );
    expect(await eventTypes(s.account, older.id)).toContain('invoice.paid');
    expect(await eventTypes(s.account, newer.id)).toContain('invoice.partially_paid');

    await advance(s.account, `${due}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Invoice ${newer.num} from Coffee Co Ltd is due today`,
    ]);
    expect(mails[0]!.text).toContain(`Invoice ${newer.num} of USD 100.00 is due today,`);
    expect(mails[0]!.text).toContain(': USD 50.00 is still owed.');
  });
});

describe('what credit never pays', () => {
  it('pays nothing when the account turned ApplyCreditBeforeCollecting off', async () => {
    const s = await shop({ ApplyCreditBeforeCollecting: false });
    const due = plusDays(s.today, 2);
    const invoice = await eftInvoice(s, 100, { invoiceDate: s.today, dueDate: due });
    await grant(s, 50);
    const paymentId = await unallocatedPayment(s, 30, s.today);
    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);

    // Neither the grant (50.00) nor the payment (30.00) moved: the invoice owes its 100.00, and is reminded.
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Status: 'Due', Balance: 100 });
    expect((await walletOf(s)).Balance).toBe(50);
    expect(await ok(s.account, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({ Status: 'Unallocated' });
    await advance(s.account, `${due}T12:00:00Z`);
    expect(await reminders(s, invoice.id)).toHaveLength(1);

    // Turned on again, the next day's run pays 30.00 from the payment, then 50.00 from the grant: 20.00 owed.
    await ok(s.account, 'PUT', '/v1/account', { ApplyCreditBeforeCollecting: true });
    await advance(s.account, `${plusDays(due, 1)}T12:00:00Z`);
    expect(await invoiceOf(s, invoice.id)).toMatchObject({
      Balance: 20,
      TotalActualPaid: 30,
      TotalNegativeAdjs: 50,
    });
    expect((await walletOf(s)).Balance).toBe(0);
  });

  it('never pays a customer’s invoices with another customer’s credit', async () => {
    const s = await shop();
    const invoice = await eftInvoice(s, 100, { invoiceDate: s.today, dueDate: plusDays(s.today, 5) });
    const other = { account: s.account, ...(await customerWithWallet(s.account)) };
    const its = await eftInvoice(other, 30, { invoiceDate: s.today, dueDate: plusDays(s.today, 5) });
    await grant(other, 100);
    const paymentId = await unallocatedPayment(other, 50, s.today);
    await advance(s.account, `${plusDays(s.today, 1)}T12:00:00Z`);

    // The other customer's credit pays its own invoice only: 100.00 − 30.00 = 70.00 left in its wallet, its 50.00
    // of money untouched; the first customer's invoice still owes 100.00.
    expect(await invoiceOf(s, its.id)).toMatchObject({ Status: 'Paid', TotalNegativeAdjs: 30 });
    expect(await invoiceOf(s, invoice.id)).toMatchObject({ Status: 'Due', Balance: 100 });
    expect((await ok(s.account, 'GET', `/v1/wallets/${other.walletId}`)).Balance).toBe(70);
    expect(await ok(s.account, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({ Status: 'Unallocated' });
  });
});
