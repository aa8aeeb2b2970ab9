import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { complete, createSession, db, submit, t, useWidgetService } from '../widgets/fixtures.ts';

// The receipt of a capture widget's sale (docs/gateways.md, "The collection loop"): queued in the outbox when the
// merchant completes the session and the sale becomes a payment, naming the card the customer typed even when it
// is not kept, with invoice.payment_succeeded for the invoice it paid.

useWidgetService();

/** The messages the account queued for `to`: subject, text and HTML, opened as the mail worker opens them. */
async function outboxTo(accountId: number, to: string) {
  const rows = await db()
    .selectFrom('mail_outbox')
    .select(['subject', 'body_sealed', 'html_sealed'])
    .where('account_id', '=', accountId)
    .where('recipient', '=', to)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    subject: row.subject,
    text: t.service.secrets.open(row.body_sealed),
    html: row.html_sealed === null ? null : t.service.secrets.open(row.html_sealed),
  }));
}

describe('a widget sale’s receipt', () => {
  it('is sent when the sale is completed, with the card typed and what the invoice still owes', async () => {
    const customerId = await createCustomer(t, { Name: 'Ada', Email: 'ada.sale@example.com' });
    const invoice = await issuedInvoice(t, { customerId, amount: 25 });
    const session = await createSession(t, {
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: 20,
      invoiceID: invoice.invoiceID,
    });
    expect((await submit(session.HashToken)).body.charged).toBe(true);
    // Nothing is told before the merchant completes the session: the payment does not exist yet.
    expect(await outboxTo(t.accountId, 'ada.sale@example.com')).toEqual([]);
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const [receipt, ...more] = await outboxTo(t.accountId, 'ada.sale@example.com');
    expect(more).toEqual([]);
    expect(receipt!.subject).toMatch(/^Receipt from .+: USD 20\.00 received$/);
    expect(receipt!.text).toMatch(
      /we received USD 20\.00 from Visa ending 4242 on \d{1,2} [A-Z][a-z]+ \d{4}\./,
    );
    // 25.00 owed, 20.00 paid: 5.00 still owed.
    expect(receipt!.text).toContain(`Invoice ${invoice.invoiceNum}: USD 20.00 paid, USD 5.00 still owed`);
    expect(receipt!.html).toContain('USD 20.00 paid, USD 5.00 still owed');
    const types = (await eventsOf(t, 'invoice', invoice.invoiceID)).map((event) => event.type);
    expect(types).toContain('invoice.payment_succeeded');
  });

  it('is not sent when the account turns receipts off, and the event still is', async () => {
    const account = await t.newAccount('No receipts');
    await ok(account, 'PUT', '/v1/account', { SendPaymentReceipts: false });
    const customerId = await createCustomer(account, { Name: 'Ada', Email: 'ada.quiet@example.com' });
    const invoice = await issuedInvoice(account, { customerId, amount: 25 });
    const session = await createSession(account, {
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: 25,
      invoiceID: invoice.invoiceID,
    });
    expect((await submit(session.HashToken)).body.charged).toBe(true);
    expect((await complete(account, customerId, session.SessionToken)).status).toBe(204);
    expect(await outboxTo(account.accountId, 'ada.quiet@example.com')).toEqual([]);
    const types = (await eventsOf(account, 'invoice', invoice.invoiceID)).map((event) => event.type);
    expect(types).toContain('invoice.payment_succeeded');
  });
});
