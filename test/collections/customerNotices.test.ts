import { describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/context.ts';
import { noticeRetriesRanOut } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { PortalClient } from '../portal/fixtures.ts';
import { addCard } from './cards.ts';
import {
  advance,
  deliveredTo,
  eventTypes,
  expectSameContent,
  noticeSetup,
  plusDays,
} from './notices.fixtures.ts';

// What card customers are told at each step of collection (docs/gateways.md, "The collection loop"), driven by the
// test clock over HTTP, read from a real SMTP receiver: a notice at each decline with what happens next and a link
// to act, a confirmation asked for 3-D Secure, one last notice when retries run out (and the staff told), and a
// receipt for the money taken. Each notice's event is there whether or not its e-mail is sent.

const t = useTestService({ smtp: true });
const { smtp } = t;

/** The first line of the text part after the greeting. */
const firstLine = (text: string) => text.split('\n\n')[1];

describe('failed card payments', () => {
  it('tells a soft decline at once, with the next try’s date in words and a pay link', async () => {
    const s = await noticeSetup(t, { card: '4000000000009995' });
    await advance(s.account, `${s.today}T12:00:00Z`);
    const [mail, ...more] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe(`Payment of invoice ${s.invoiceNum} to Coffee Co Ltd failed`);
    expect(firstLine(mail!.text)).toBe(
      `We could not collect USD 100.00 for invoice ${s.invoiceNum} from Visa ending 9995.`,
    );
    expect(mail!.text).toContain('there was not enough money available');
    // The account's default schedule: the first retry a day after the first failure.
    const [y, m, d] = plusDays(s.today, 1).split('-').map(Number);
    const month = new Date(Date.UTC(y!, m! - 1, d!)).toLocaleString('en-GB', {
      month: 'long',
      timeZone: 'UTC',
    });
    expect(mail!.text).toContain(`We will try again on ${d} ${month} ${y}, unless you pay before then.`);
    expect(mail!.text).toMatch(new RegExp(`${t.url}/pay/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`));
    // Never a code or an internal id.
    expect(mail!.text).not.toMatch(/insufficient_funds|customer \d|payment method \d/);
    expectSameContent(mail!);
    expect(await eventTypes(s.account, s.invoiceId)).toContain('invoice.payment_failed');
  });

  it('tells a hard decline: the card can no longer be used, with a link to add a new one or pay', async () => {
    const s = await noticeSetup(t, { card: '4000000000000085' });
    await advance(s.account, `${s.today}T12:00:00Z`);
    const [mail] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(firstLine(mail!.text)).toBe(
      `We could not collect USD 100.00 for invoice ${s.invoiceNum} from Visa ending 0085.`,
    );
    expect(mail!.text).toContain('The card was reported lost.');
    expect(mail!.text).toContain('This card can no longer be used, so we will not try it again.');
    expect(mail!.html).toMatch(/<a href="http[^"]+\/pay\/[^"]+">Add a new card or pay invoice \d+<\/a>/);
    expectSameContent(mail!);
  });

  it('links a contact who signs in to the portal to the invoice’s portal page, which has the pay form', async () => {
    const s = await noticeSetup(t, { card: '4000000000009995' });
    const slug = `coffee-${s.account.accountId}`;
    await ok(s.account, 'PUT', '/v1/account', { PortalSlug: slug });
    const login = { username: `ada-${s.account.accountId}`, password: 'secret123' };
    const contactEmail = `ada.contact.${s.account.accountId}@example.com`;
    await ok(s.account, 'POST', '/v1/customercontacts', {
      customerID: s.customerId,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: contactEmail,
      Username: login.username,
      Password: login.password,
    });
    await advance(s.account, `${s.today}T12:00:00Z`);
    // The contact's first e-mail is its portal login; then the failure notice.
    const mail = (await deliveredTo(t, smtp, s.account.accountId, contactEmail)).find((m) =>
      m.subject.startsWith(`Payment of invoice ${s.invoiceNum}`),
    );
    const invoicePath = `/portal/${slug}/invoices/${s.invoiceId}`;
    expect(mail!.text).toContain(`${t.url}${invoicePath}\n`);
    expect(mail!.html).toContain(`<a href="${t.url}${invoicePath}">`);
    // The customer's own address, with no portal login, keeps the signed pay link.
    const [own] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(own!.text).toMatch(/\/pay\/[A-Za-z0-9_-]+\./);

    // Signed out, the link asks for a sign-in (not a 404); signed in, it is the invoice with its pay form.
    const client = new PortalClient(`/portal/${slug}/`, t.url);
    const signedOut = await client.get(invoicePath);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toContain(`/portal/${slug}/login`);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const page = await client.get(invoicePath);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${invoicePath}/pay"`);
  });

  it('asks a card that needs 3-D Secure to confirm the payment, with its own event', async () => {
    const s = await noticeSetup(t, { card: '4000002500003155' });
    await advance(s.account, `${s.today}T12:00:00Z`);
    const [mail] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mail!.subject).toBe(`Please confirm your payment of invoice ${s.invoiceNum} to Coffee Co Ltd`);
    expect(firstLine(mail!.text)).toMatch(
      /^Please confirm the payment of USD 100\.00 for invoice \d+ with your bank/,
    );
    expect(mail!.html).toMatch(/<a href="http[^"]+\/pay\/[^"]+">Confirm the payment of invoice \d+<\/a>/);
    expectSameContent(mail!);
    const types = await eventTypes(s.account, s.invoiceId);
    expect(types).toContain('invoice.payment_action_required');
    expect(types).toContain('invoice.payment_failed');
  });

  it('offers a card that asks for confirmation another card or a debit order, in the notice and the portal', async () => {
    const s = await noticeSetup(t, { card: '4000002500003155' });
    const slug = `confirm-${s.account.accountId}`;
    await ok(s.account, 'PUT', '/v1/account', { PortalSlug: slug });
    const login = { username: `ada-c-${s.account.accountId}`, password: 'secret123' };
    const contactEmail = `ada.confirm.${s.account.accountId}@example.com`;
    await ok(s.account, 'POST', '/v1/customercontacts', {
      customerID: s.customerId,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: contactEmail,
      Username: login.username,
      Password: login.password,
    });
    await advance(s.account, `${s.today}T12:00:00Z`);
    // The customer's own address, with no portal login: another card by answering, or a debit order (the test
    // account's test gateway takes bank debits).
    const [own] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(own!.text).toContain(
      'If your bank asks you to confirm every payment from Visa ending 3155, each renewal will wait for you like ' +
        'this one. So that they go through on their own, reply to this e-mail to give us another card, or pay by ' +
        'debit order from your bank account instead: reply to this e-mail and we will send you a debit order ' +
        'mandate to sign.',
    );
    expectSameContent(own!);
    // A contact who signs in to the portal is linked to its payment methods, where the page says the same.
    const mail = (await deliveredTo(t, smtp, s.account.accountId, contactEmail)).find((m) =>
      m.subject.startsWith('Please confirm'),
    );
    expect(mail!.text).toContain('save another card in the customer portal and make it your primary one');
    expect(mail!.html).toContain(`<a href="${t.url}/portal/${slug}/payment-methods">Save another card</a>`);
    const client = new PortalClient(`/portal/${slug}/`, t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
    const page = await client.get(`/portal/${slug}/payment-methods`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      'Your bank asks you to confirm each payment from Visa ending 3155, so each renewal waits for you.',
    );
    expect(page.text).toContain(
      'Or pay by debit order from your bank account: ask Coffee Co for a debit order mandate',
    );
  });

  it('when retries run out: one e-mail for the last failure saying no more tries follow, and the staff told', async () => {
    const s = await noticeSetup(t, {
      card: '4000000000009995',
      settings: { DunningRetryDays: [2], DunningMaxAttempts: 2, StaffEmail: 'staff@coffee.example' },
    });
    await advance(s.account, `${s.today}T12:00:00Z`);
    await advance(s.account, `${plusDays(s.today, 2)}T12:00:00Z`);
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    // One per failure: the first decline's, then the last one's.
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Payment of invoice ${s.invoiceNum} to Coffee Co Ltd failed`,
      `Payment of invoice ${s.invoiceNum} to Coffee Co Ltd failed`,
    ]);
    expect(mails[1]!.text).toContain('We have tried as often as we can and will not try again.');
    expect(mails[1]!.text).toMatch(/\/pay\//);
    const staff = await deliveredTo(t, smtp, s.account.accountId, 'staff@coffee.example');
    expect(staff.map((mail) => mail.subject)).toEqual([
      `Collection of invoice ${s.invoiceNum} stopped: retries ran out`,
    ]);
    expect(staff[0]!.text).toContain('Ada Lovelace');
    expect(await eventTypes(s.account, s.invoiceId)).toContain('invoice.collection_exhausted');
  });
});

describe('collection that stops', () => {
  it('tells a first return that cannot be retried as stopped, not as tries used up', async () => {
    const s = await noticeSetup(t, { settings: { StaffEmail: 'staff.stopped@coffee.example' } });
    const ctx = await accountContext(t, s.account.accountId);
    const failure = {
      customerId: s.customerId,
      invoiceId: s.invoiceId,
      currencyCode: 'USD',
      amountMinor: 10_000,
      reason: 'account_closed',
      paymentMethodId: null,
      nextTryDate: null,
      from: 'bank_account' as const,
    };
    await withTransaction(ctx, (tctx) => noticeRetriesRanOut(tctx, { ...failure, exhausted: false }));
    const [mail] = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mail!.text).toContain('Your bank returned the debit order because the account has been closed.');
    expect(mail!.text).toContain('This account can no longer be debited, so we will not try it again.');
    expect(mail!.text).not.toContain('We have tried as often as we can');
    const [staff] = await deliveredTo(t, smtp, s.account.accountId, 'staff.stopped@coffee.example');
    expect(staff!.subject).toBe(
      `Collection of invoice ${s.invoiceNum} stopped: the return cannot be retried`,
    );
    expect(staff!.text).toContain('The return: Your bank returned the debit order');
    expect(staff!.text).toContain('The customer was e-mailed a link to pay the invoice.');

    // Used up, with failure notices off: the staff read that retries ran out, and that no e-mail went.
    await ok(s.account, 'PUT', '/v1/account', { SendPaymentFailedEmails: false });
    const quiet = await accountContext(t, s.account.accountId);
    await withTransaction(quiet, (tctx) =>
      noticeRetriesRanOut(tctx, { ...failure, reason: 'insufficient_funds', exhausted: true }),
    );
    const staffMails = await deliveredTo(t, smtp, s.account.accountId, 'staff.stopped@coffee.example');
    expect(staffMails[1]!.subject).toBe(`Collection of invoice ${s.invoiceNum} stopped: retries ran out`);
    expect(staffMails[1]!.text).toContain('The last return:');
    expect(staffMails[1]!.text).not.toContain('The customer was e-mailed');
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toHaveLength(1);
  });
});

describe('receipts', () => {
  it('sends a receipt with the card’s brand and last four when a retry with a new card takes the money', async () => {
    const s = await noticeSetup(t, { card: '4000000000009995' });
    await advance(s.account, `${s.today}T12:00:00Z`);
    // A new primary card retries the invoice at once (docs/gateways.md): the money is taken.
    await addCard(s.account, s.customerId, '5555555555554444');
    await advance(s.account, `${s.today}T13:00:00Z`);
    expect((await ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`)).Status).toBe('Paid');
    const mails = await deliveredTo(t, smtp, s.account.accountId, s.email);
    expect(mails.map((mail) => mail.subject)).toEqual([
      `Payment of invoice ${s.invoiceNum} to Coffee Co Ltd failed`,
      'Receipt from Coffee Co Ltd: USD 100.00 received',
    ]);
    const receipt = mails[1]!;
    expect(firstLine(receipt.text)).toMatch(
      /^Thank you: we received USD 100\.00 from Mastercard ending 4444 on \d{1,2} [A-Z][a-z]+ \d{4}\.$/,
    );
    expect(receipt.text).toContain(`Invoice ${s.invoiceNum}: USD 100.00 paid, USD 0.00 still owed`);
    expect(receipt.text).toContain('Coffee Co Ltd\nCape Town');
    expectSameContent(receipt);
    expect(await eventTypes(s.account, s.invoiceId)).toContain('invoice.payment_succeeded');
  });
});

describe('the account’s settings', () => {
  it('sends no receipt and no failure notice when they are off, and still emits each event', async () => {
    const s = await noticeSetup(t, {
      card: '4000002500003155',
      settings: { SendPaymentReceipts: false, SendPaymentFailedEmails: false },
    });
    await advance(s.account, `${s.today}T12:00:00Z`);
    await addCard(s.account, s.customerId, '4242424242424242');
    await advance(s.account, `${s.today}T13:00:00Z`);
    expect((await ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`)).Status).toBe('Paid');
    expect(await deliveredTo(t, smtp, s.account.accountId, s.email)).toEqual([]);
    const types = await eventTypes(s.account, s.invoiceId);
    expect(types).toEqual(
      expect.arrayContaining([
        'invoice.payment_failed',
        'invoice.payment_action_required',
        'invoice.payment_succeeded',
      ]),
    );
  });
});
