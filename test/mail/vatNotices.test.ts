import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { deliveredTo, expectSameContent } from '../collections/notices.fixtures.ts';
import { pdfAttachment, pdfText } from '../invoicing/invoices.fixtures.ts';

/**
 * What customers are told (docs/tax.md, "What customers are told"): invoices say what is owed, top-ups and tax credit
 * notes are e-mailed as invoices are, and refunds and cancellations are told; each an account setting, on by
 * default, and a copy to the staff address when asked. Every message is read from a real SMTP receiver.
 */
const t = useTestService({ smtp: true });
const { smtp } = t;

let sequence = 0;

/** An account (UTC, 15 % VAT) with a customer who gets its invoices by e-mail, and a USD wallet. */
async function shop(settings: Record<string, unknown> = {}, options: { isTest?: boolean } = {}) {
  const as = await t.newAccount('Notice shop', { timeZone: 'UTC', ...options });
  await ok(as, 'PUT', '/v1/account', { LegalName: 'Notice Shop Ltd', ...settings });
  await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  sequence += 1;
  const email = `ada${sequence}.${as.accountId}@example.com`;
  const customerId = await createCustomer(as, {
    Name: 'Ada',
    LastName: 'Lovelace',
    Email: email,
    autoSendInvoice: true,
  });
  const wallet = await ok(as, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
  return { as, customerId, email, walletId: wallet.walletID as number };
}

const invoiceOf = (as: TestAccount, customerId: number, ex: number) =>
  ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: '2026-03-02',
    DueDate: '2026-03-16',
    CollectionMethod: 'eft',
    Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: ex }],
    Taxes: [{ Name: 'VAT', Perc: 0.15 }],
  });

describe('the invoice e-mail', () => {
  it('says an invoice paid from prepaid credit is paid, and what is still owed on one partly paid', async () => {
    const { as, customerId, email, walletId } = await shop();
    await ok(as, 'POST', `/v1/wallets/${walletId}/grants`, { Amount: 130 });
    // 100.00 + 15.00 = 115.00, paid whole from the 130.00; then 115.00 of which the 15.00 left pays.
    const paid = await invoiceOf(as, customerId, 100);
    const part = await invoiceOf(as, customerId, 100);
    for (const invoice of [paid, part])
      await ok(as, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`, {}, 204);
    const mails = await deliveredTo(t, smtp, as.accountId, email);
    const [first, second] = mails.filter((mail) => mail.subject.startsWith('Invoice'));
    expect(first!.text).toContain(
      `Please find attached invoice ${paid.invoiceNum} of 2026-03-02 for USD 115.00.`,
    );
    expect(first!.text).toContain(
      'It is paid in full: USD 115.00 from your prepaid credit. There is nothing to pay.',
    );
    expect(first!.text).not.toContain('due on');
    expect(second!.text).toContain(
      'Already paid: USD 15.00 from your prepaid credit. Still owed: USD 100.00, due on 2026-03-16.',
    );
  });

  it('goes out for a top-up too, to a customer who gets its invoices by e-mail', async () => {
    const { as, email, walletId } = await shop();
    const topUp = await ok(as, 'POST', `/v1/wallets/${walletId}/top-ups`, { Amount: 2000 });
    const [mail] = (await deliveredTo(t, smtp, as.accountId, email)).filter((m) =>
      m.subject.includes('Prepaid credit'),
    );
    const invoice = await ok(as, 'GET', `/v1/invoices/${topUp.invoiceID}`);
    expect(mail!.subject).toBe(`Prepaid credit: invoice ${invoice.invoiceNum} from Notice Shop Ltd`);
    expect(mail!.text).toContain(`invoice ${invoice.invoiceNum} (prepaid credit) of`);
    expect(mail!.text).toContain('for USD 2000.00, due on');
    expect(invoice.DateSent).not.toBeNull();
    expect((await eventsOf(as, 'invoice', topUp.invoiceID)).map((e) => e.type)).toContain('invoice.sent');
  });
});

describe('the sender of every e-mail', () => {
  /** The From and Reply-To headers of the messages received for `to`, with their subjects. */
  async function headersTo(to: string, accountId: number) {
    await deliveredTo(t, smtp, accountId, to);
    return Promise.all(
      smtp.messages
        .filter((m) => m.to.includes(to))
        .map(async (m) => {
          const parsed = await PostalMime.parse(m.raw);
          return {
            subject: parsed.subject ?? '',
            from: parsed.from,
            replyTo: parsed.replyTo?.map((r) => r.address) ?? [],
          };
        }),
    );
  }

  it("is the account's SenderName with its Reply-To, for the invoice and every other e-mail", async () => {
    const { as, customerId, email } = await shop({
      SenderName: 'Notice Billing',
      ReplyTo: 'accounts@notice.example',
    });
    const invoice = await invoiceOf(as, customerId, 100);
    await ok(as, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`, {}, 204);
    const note = await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Date: '2026-03-10',
      CurrencyCode: 'USD',
      Amount: 23,
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 23 }],
    });
    const mails = await headersTo(email, as.accountId);
    // Before: the invoice came "from" the account's Name and the credit note from its LegalName, neither with a
    // display name in From nor a Reply-To.
    expect(mails.map((m) => m.subject).sort()).toEqual([
      `Credit note ${note.CreditNumber} from Notice Billing`,
      `Invoice ${invoice.invoiceNum} from Notice Billing`,
    ]);
    for (const mail of mails) {
      expect(mail.from).toEqual({ name: 'Notice Billing', address: 'billing@localhost' });
      expect(mail.replyTo).toEqual(['accounts@notice.example']);
    }
  });

  it('is the legal name, with no Reply-To, for an account that sets no sender', async () => {
    const { as, customerId, email } = await shop();
    const invoice = await invoiceOf(as, customerId, 100);
    await ok(as, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`, {}, 204);
    const [mail] = await headersTo(email, as.accountId);
    expect(mail!.subject).toBe(`Invoice ${invoice.invoiceNum} from Notice Shop Ltd`);
    expect(mail!.from).toEqual({ name: 'Notice Shop Ltd', address: 'billing@localhost' });
    expect(mail!.replyTo).toEqual([]);
  });
});

describe('a tax credit note', () => {
  it('is e-mailed with its PDF, and issued as an event; a copy goes to the staff when asked', async () => {
    const { as, customerId, email } = await shop({
      CopyNoticesToStaff: true,
      StaffEmail: 'books@notice.example',
    });
    const invoice = await invoiceOf(as, customerId, 100);
    const note = await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Date: '2026-03-10',
      CurrencyCode: 'USD',
      Amount: 23,
      Memo: 'Two days of outage',
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 23 }],
    });
    const [mail] = (await deliveredTo(t, smtp, as.accountId, email)).filter((m) =>
      m.subject.startsWith('Credit note'),
    );
    expect(mail!.subject).toBe(`Credit note ${note.CreditNumber} from Notice Shop Ltd`);
    expect(mail!.text).toContain(
      `Please find attached credit note ${note.CreditNumber} of 10 Mar 2026 for USD 23.00: Two days of outage.`,
    );
    // 23.00 of the 115.00 carries 3.00 of VAT.
    expect(mail!.text).toContain(
      `Invoice ${invoice.invoiceNum} of 2 Mar 2026: USD 23.00 credited, VAT USD 3.00`,
    );
    expectSameContent(mail!);
    const raw = smtp.messages.find((m) => m.to.includes(email) && m.raw.includes(note.CreditNumber))!.raw;
    expect(await pdfText(new Uint8Array(pdfAttachment(raw)!))).toContain(`Credit note ${note.CreditNumber}`);
    const [copy] = await deliveredTo(t, smtp, as.accountId, 'books@notice.example');
    expect(copy!.subject).toBe(
      `Copy: Credit note ${note.CreditNumber} from Notice Shop Ltd (customer ${customerId})`,
    );
    const [document] = await ok(as, 'GET', '/v1/tax-credit-notes');
    expect((await eventsOf(as, 'tax_credit_note', document.taxCreditNoteID)).map((e) => e.type)).toEqual([
      'tax_credit_note.issued',
    ]);
  });

  it('is not e-mailed when the account sends none, and its event is issued all the same', async () => {
    const { as, customerId, email } = await shop({ SendCreditNotes: false });
    const invoice = await invoiceOf(as, customerId, 100);
    await ok(as, 'POST', '/v1/credits', {
      customerID: customerId,
      Date: '2026-03-10',
      CurrencyCode: 'USD',
      Amount: 23,
      Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: 23 }],
    });
    expect((await deliveredTo(t, smtp, as.accountId, email)).map((m) => m.subject)).toEqual([]);
    const [document] = await ok(as, 'GET', '/v1/tax-credit-notes');
    expect((await eventsOf(as, 'tax_credit_note', document.taxCreditNoteID)).map((e) => e.type)).toEqual([
      'tax_credit_note.issued',
    ]);
  });
});

describe('a refund', () => {
  it('tells the customer how much went back to which card, and when to expect it', async () => {
    const { as, customerId, email } = await shop({ InvoiceDueDays: 0 }, { isTest: true });
    await ok(as, 'PUT', `/v1/customers/${customerId}`, { Name: 'Ada', PaymentMethod: 'credit_card' });
    await addCard(as, customerId, '4242424242424242');
    await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 100 }],
    });
    await collectDueInvoices(await accountContext(t, as.accountId), { staleAfterMs: 0 });
    const [payment] = await ok(as, 'GET', `/v1/customers/${customerId}/payments`);
    const refund = await as.request('POST', `/v1/payments/${payment.paymentID}/refund`, {
      body: { Amount: 40 },
    });
    expect(refund.status, refund.text).toBe(200);
    const mails = await deliveredTo(t, smtp, as.accountId, email);
    const notice = mails.find((m) => m.subject.startsWith('Refund from'))!;
    expect(notice.subject).toBe('Refund from Notice Shop Ltd: USD 40.00');
    expect(notice.text).toMatch(/We have refunded USD 40\.00 to Visa ending 4242 on \d{1,2} \w+ \d{4}\./);
    expect(notice.text).toContain('within 5 to 10 business days');
    // The refund credited the invoice: its credit note went too.
    expect(mails.some((m) => m.subject.startsWith('Credit note'))).toBe(true);
  });
});

describe('a cancellation', () => {
  it('tells what ends when and the credit for the time not used, unless the account sends none', async () => {
    const { as, customerId, email } = await shop({}, { isTest: true });
    const plan = await createPlan(as, { chargePrice: 31 });
    const sub = await subscribe(as, customerId, plan);
    await ok(as, 'PUT', `/v1/subscriptions/${sub.subscriptionID}/cancel/fullcredit`);
    const mails = await deliveredTo(t, smtp, as.accountId, email);
    const notice = mails.find((m) => m.subject.endsWith('subscription is cancelled'))!;
    expect(notice.text).toMatch(/Your subscription to .+ is cancelled from \d{1,2} \w+ \d{4}\./);
    // The whole period credited: 31.00 + 15 % = 35.65, on its tax credit note.
    expect(notice.text).toMatch(/USD 35\.65 of credit for the time not used is on credit note CN-\d{4}/);

    const quiet = await shop({ SendCancellationNotices: false }, { isTest: true });
    const quietPlan = await createPlan(quiet.as, { chargePrice: 31 });
    const quietSub = await subscribe(quiet.as, quiet.customerId, quietPlan);
    await ok(quiet.as, 'PUT', `/v1/subscriptions/${quietSub.subscriptionID}/cancel/fullcredit`);
    const told = await deliveredTo(t, smtp, quiet.as.accountId, quiet.email);
    expect(told.filter((m) => m.subject.endsWith('subscription is cancelled'))).toEqual([]);
    expect((await eventsOf(quiet.as, 'subscription', quietSub.subscriptionID)).map((e) => e.type)).toContain(
      'subscription.cancelled',
    );
  });
});
