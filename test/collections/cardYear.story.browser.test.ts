import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from './cards.ts';
import { expectSameContent, mailsTo } from './notices.fixtures.ts';
import type { ReadMail } from './notices.fixtures.ts';
import { advanceToDay, plusDays } from '../helpers/clock.ts';
import { useTestService } from '../helpers/testService.ts';

// A year of one card customer as the collection loop runs it (docs/gateways.md, "The collection loop"), over HTTP
// on a test clock, with a real SMTP receiver and the pay page in Chromium: soft declines retried until a new card
// pays, a hard decline, a renewal the bank wants confirmed and that the customer confirms from the e-mail's link,
// and receipts for every payment. What the customer reads is checked as a customer would read it: no code, no
// internal id, the same content in HTML and text. With STORY_MAILS=<file> the e-mails' subjects and first lines
// are written there.

let browser: Browser;

const t = useTestService({ smtp: true });
const { smtp } = t;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const EMAIL = 'thandi@example.com';
/** docs/gateways.md, "The test gateway's cards". */
const CARDS = {
  good: '4242424242424242',
  otherGood: '5555555555554444',
  insufficientFunds: '4000000000009995',
  reportedLost: '4000000000000085',
  needsAuthentication: '4000002500003155',
};

/** The same day `months` later (the story starts on a 1st, which every month has). */
function plusMonths(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
}

const advance = (account: TestAccount, date: string) => advanceToDay(account, date);

/** The first paragraph of a message's text: what a mail client's preview shows after the greeting. */
const firstLine = (mail: ReadMail) => mail.text.split('\n\n')[1]?.trim() ?? '';

describe('a year of a card customer', () => {
  it('is told of every failure with what happens next, confirms a renewal from the link, and gets every receipt', async () => {
    const account = await t.newAccount('Karoo Coffee', {
      isTest: true,
      timeZone: 'Africa/Johannesburg',
    });
    await ok(account, 'PUT', '/v1/account', {
      LegalName: 'Karoo Coffee Roasters',
      City: 'Cape Town',
      ContactEmail: 'accounts@karoo.example',
    });
    const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
    const start = `${plusMonths(clock, 1).slice(0, 8)}01`;
    await advance(account, start);
    const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const plan = await createPlan(account, { chargePrice: 114.8 });
    const customerId = (
      await ok(account, 'POST', '/v1/customers', {
        Name: 'Thandi',
        LastName: 'Nkosi',
        Email: EMAIL,
        PaymentMethod: 'credit_card',
        PrimaryGatewayID: gatewayId,
      })
    ).customerID as number;
    await addCard(account, customerId, CARDS.good);
    await subscribe(account, customerId, plan);
    // Every message the account queued delivered (an invoice's draws its PDF first: allow a loaded machine time).
    const mails = async () => {
      const queued = await t.service.storage.db
        .selectFrom('mail_outbox')
        .select(['recipient', 'status'])
        .where('account_id', '=', account.accountId)
        .where('recipient', '=', EMAIL)
        .execute();
      await eventually(
        () => (smtp.messages.filter((m) => m.to.includes(EMAIL)).length >= queued.length ? true : undefined),
        60_000,
      );
      return mailsTo(smtp, EMAIL);
    };
    // Each invoice's own e-mail goes out as well (docs/portal.md, "E-mail"); the loop's messages are the others.
    const isInvoiceMail = (mail: ReadMail) => /^Invoice \d+ from /.test(mail.subject);
    let seen = 0;
    const newMails = async () => {
      const all = await mails();
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh.filter((mail) => !isInvoiceMail(mail));
    };

    // Month 0: the first invoice is charged; a receipt.
    await advance(account, plusDays(start, 1));
    let got = await newMails();
    expect(got.map((m) => m.subject)).toEqual([expect.stringMatching(/^Receipt from Karoo Coffee Roasters/)]);
    expect(firstLine(got[0]!)).toMatch(/from Visa ending 4242/);

    // Month 1: a card without funds. Each decline says when the next try is; a new card then pays.
    const month1 = plusMonths(start, 1);
    await addCard(account, customerId, CARDS.insufficientFunds);
    await advance(account, month1);
    await advance(account, plusDays(month1, 1));
    got = await newMails();
    expect(got).toHaveLength(2);
    for (const notice of got) {
      expect(notice.subject).toMatch(/^Payment of invoice \d+ to Karoo Coffee Roasters failed$/);
      expect(notice.text).toMatch(/We will try again on \d{1,2} \w+ \d{4}/);
      expect(notice.text).toMatch(/\/pay\/[\w-]+\.[\w-]+/);
    }
    await addCard(account, customerId, CARDS.otherGood);
    await advance(account, plusDays(month1, 2));
    got = await newMails();
    expect(got.map((m) => m.subject)).toEqual([expect.stringMatching(/^Receipt from/)]);
    expect(firstLine(got[0]!)).toMatch(/from Mastercard ending 4444/);

    // Month 2: a card reported lost since it was stored. The notice says it can no longer be used; a new one pays.
    const month2 = plusMonths(start, 2);
    const lost = await addCard(account, customerId, CARDS.reportedLost);
    await advance(account, month2);
    got = await newMails();
    expect(got).toHaveLength(1);
    expect(got[0]!.text).toContain('This card can no longer be used');
    expect((await ok(account, 'GET', `/v1/paymentmethods/${lost}`)).isValid).toBe(false);
    await addCard(account, customerId, CARDS.good);
    await advance(account, plusDays(month2, 1));
    got = await newMails();
    expect(got.map((m) => m.subject)).toEqual([expect.stringMatching(/^Receipt from/)]);

    // Month 3: the bank wants the cardholder. The e-mail asks her to confirm, and its link's page does it.
    const month3 = plusMonths(start, 3);
    await addCard(account, customerId, CARDS.needsAuthentication);
    await advance(account, month3);
    got = await newMails();
    expect(got).toHaveLength(1);
    expect(got[0]!.subject).toMatch(/^Please confirm your payment of invoice \d+ to Karoo Coffee Roasters$/);
    const link = /https?:\/\/\S+\/pay\/[\w-]+\.[\w-]+/.exec(got[0]!.text)![0];
    const page = await browser.newPage();
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm payment' }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Thank you: there is nothing more to do.').waitFor();
    await page.close();
    got = await newMails();
    expect(got.map((m) => m.subject)).toEqual([expect.stringMatching(/^Receipt from/)]);

    // Months 4 to 12 on a good card: a receipt each month, and nothing else.
    await addCard(account, customerId, CARDS.good);
    for (let month = 4; month <= 12; month += 1)
      await advance(account, plusDays(plusMonths(start, month), 1));
    got = await newMails();
    expect(got.map((m) => m.subject)).toEqual(Array(9).fill(expect.stringMatching(/^Receipt from/)));

    // Every invoice Paid by exactly one payment: none charged twice, none left owing.
    const invoices = await invoicesOf(account, customerId);
    expect(invoices).toHaveLength(13);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0 });
      expect(invoice.PaymentsApplied).toHaveLength(1);
    }
    const customer = await ok(account, 'GET', `/v1/customers/${customerId}`);
    expect(customer.Balance).toBe(0);

    // What she read: every message in words (no code, no internal id), the same in HTML and in text.
    const all = await mails();
    for (const mail of all) {
      if (!isInvoiceMail(mail)) expectSameContent(mail);
      const words = mail.text.replaceAll(/https?:\/\/\S+/g, '');
      expect(words).not.toMatch(/[a-z]+_[a-z_]+|payment method \d+|gateway \d+/i);
    }
    if (process.env.STORY_MAILS) {
      fs.writeFileSync(
        process.env.STORY_MAILS,
        all.map((m) => `- ${m.subject}\n  ${firstLine(m)}`).join('\n') + '\n',
      );
    }
  }, 180_000);
});
