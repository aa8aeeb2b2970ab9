import { describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { pdfAttachment } from '../invoicing/invoices.fixtures.ts';
import { invoice, payment, readPdf } from './fixtures.ts';
import { queuedMail } from '../helpers/outside.ts';

// Statements e-mailed by the bill run to autoSendStatement customers on their StatementDate (docs/spec-decisions.md,
// "Statements"), driven here by test clocks through POST /v1/test-clock/advance.

const clock = movableClock('2026-03-20T10:00:00.000Z');
const t = useTestService({ clock, smtp: true });
const { smtp } = t;

const advance = async (as: TestAccount, To: string) =>
  (await ok(as, 'POST', '/v1/test-clock/advance', { To }, 200)).Billed;

/** The message as text: header lines unfolded, quoted-printable soft breaks joined. */
const readable = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');

const customerOf = (as: TestAccount, id: number) => ok(as, 'GET', `/v1/customers/${id}`);

describe('statements sent by the bill run', () => {
  it('e-mails March’s statement with its PDF on 1 April, moves StatementDate a month on and sets StatementLastSentDate, once', async () => {
    const as = await t.newAccount('Statements monthly', { isTest: true });
    await ok(as, 'PUT', '/v1/account', { LegalName: 'Northwind & Co Ltd', City: 'London' });
    const customerID = await createCustomer(as, {
      Name: 'Ada',
      Email: 'ada.statements@example.com',
      EmailCC: 'books@example.com',
      autoSendStatement: true,
      StatementDate: '2026-04-01',
    });
    const march = await invoice(as, customerID, 30, '2026-03-20', '2026-03-27');
    await payment(as, customerID, 12.5, '2026-03-25', [{ invoiceID: march.invoiceID, amountApplied: 12.5 }]);

    // 31 March: not yet.
    expect((await advance(as, '2026-03-31T12:00:00.000Z')).statementsSent).toBe(0);
    expect((await customerOf(as, customerID)).StatementLastSentDate).toBeNull();

    expect((await advance(as, '2026-04-01T12:00:00.000Z')).statementsSent).toBe(1);
    const customer = await customerOf(as, customerID);
    expect(customer.StatementDate).toBe('2026-05-01T00:00:00.000Z');
    expect(customer.StatementLastSentDate).toBe('2026-04-01T12:00:00.000Z');

    const mail = await eventually(() =>
      smtp.messages.find(
        (m) => m.to.includes('ada.statements@example.com') && m.raw.includes('Subject: Statement'),
      ),
    );
    expect(mail.to).toEqual(['ada.statements@example.com', 'books@example.com']);
    const message = readable(mail.raw);
    expect(message).toContain(
      'Subject: Statement of account from Northwind & Co Ltd, 1 Mar 2026 to 31 Mar 2026',
    );
    // HTML with a plain-text alternative, both with the seller's details.
    expect(message).toMatch(/Content-Type: multipart\/alternative/);
    expect(message).toMatch(/Content-Type: text\/plain[\s\S]*Northwind & Co Ltd\r?\nLondon/);
    expect(message).toMatch(
      /Content-Type: text\/html[\s\S]*<strong>Northwind &amp; Co Ltd<\/strong><br>London/,
    );
    // 30.00 − 12.50 = 17.50, due 27 Mar: past due on 31 Mar.
    expect(readable(mail.raw)).toContain('Balance due: USD 17.50, of which USD 17.50 is past due.');
    expect(mail.raw).toContain(`statement-${customerID}-2026-03-31.pdf`);
    const text = readPdf(pdfAttachment(mail.raw)!, 'statement-mailed');
    expect(text).toMatch(/Opening balance\s+0\.00/);
    expect(text).toMatch(/Closing balance\s+17\.50/);

    // Later the same day, and the next day: nothing more.
    expect((await advance(as, '2026-04-01T20:00:00.000Z')).statementsSent).toBe(0);
    expect((await advance(as, '2026-04-02T12:00:00.000Z')).statementsSent).toBe(0);
    const rows = await queuedMail(t, as, { subjectLike: 'Statement%' });
    expect(rows).toHaveLength(1);
  });

  it('follows the account’s StatementPeriod, and gives a customer without StatementDate the first of next month', async () => {
    const as = await t.newAccount('Statements quarterly', { isTest: true });
    await ok(as, 'PUT', '/v1/account', { StatementPeriod: 'quarterly' });
    expect((await ok(as, 'GET', '/v1/account')).StatementPeriod).toBe('quarterly');
    const dated = await createCustomer(as, {
      Email: 'quarterly@example.com',
      autoSendStatement: true,
      StatementDate: '2026-04-01',
    });
    const undated = await createCustomer(as, { Email: 'undated@example.com', autoSendStatement: true });
    const off = await createCustomer(as, { Email: 'off@example.com', StatementDate: '2026-04-01' });

    expect((await advance(as, '2026-03-21T12:00:00.000Z')).statementsSent).toBe(0);
    expect((await customerOf(as, undated)).StatementDate).toBe('2026-04-01T00:00:00.000Z');

    // 1 April: both are due; the dated one moves a quarter on, to 1 July; the one without autoSendStatement stays.
    expect((await advance(as, '2026-04-01T12:00:00.000Z')).statementsSent).toBe(2);
    expect((await customerOf(as, dated)).StatementDate).toBe('2026-07-01T00:00:00.000Z');
    expect((await customerOf(as, undated)).StatementDate).toBe('2026-07-01T00:00:00.000Z');
    expect((await customerOf(as, off)).StatementLastSentDate).toBeNull();
    const mail = await eventually(() =>
      smtp.messages.find(
        (m) => m.to.includes('quarterly@example.com') && m.raw.includes('Subject: Statement'),
      ),
    );
    // The quarter before 1 April.
    expect(readable(mail.raw)).toContain('1 Jan 2026 to 31 Mar 2026');
  });

  it('refuses a StatementPeriod it does not know with a 422 naming it', async () => {
    const as = await t.newAccount('Statements refused', { isTest: true });
    const res = await as.request('PUT', '/v1/account', { body: { StatementPeriod: 'weekly' } });
    expect(res.status).toBe(422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual(['StatementPeriod']);
  });
});
