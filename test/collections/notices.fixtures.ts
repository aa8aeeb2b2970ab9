import PostalMime from 'postal-mime';
import { expect } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import type { startSmtpReceiver } from '../helpers/smtp.ts';
import { addCard } from './cards.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';

// What the collection loop's notice tests share (docs/gateways.md, "The collection loop"): an account on its own
// test clock with one customer and one invoice, the e-mails the real SMTP receiver got for an address, read as a
// mail client reads them, and the HTML part checked against the text part.

export type Smtp = Awaited<ReturnType<typeof startSmtpReceiver>>;

export { plusDays };

export { advanceClock as advance };

export interface Setup {
  account: TestAccount;
  today: string;
  customerId: number;
  invoiceId: number;
  invoiceNum: number;
  email: string;
}

let customers = 0;

/**
 * A test account in UTC (its settings `settings`) whose clock stands at the start of tomorrow, with one customer
 * (a unique Email) and an invoice of 100.00 issued today, due in `dueInDays`: collected from `card` when given,
 * else left to the customer (CollectionMethod eft).
 */
export async function noticeSetup(
  t: TestService,
  options: { card?: string; settings?: Record<string, unknown>; dueInDays?: number } = {},
): Promise<Setup> {
  const account = await t.newAccount('Coffee Co', { isTest: true, timeZone: 'UTC' });
  await ok(account, 'PUT', '/v1/account', {
    LegalName: 'Coffee Co Ltd',
    City: 'Cape Town',
    // A card invoice whose collection stopped is the customer's to pay, and reminded too: these tests read the
    // card's notices alone unless they ask for reminders.
    ...(options.card ? { SendInvoiceReminders: false } : {}),
    ...options.settings,
  });
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  customers += 1;
  const email = `customer${customers}.${account.accountId}@example.com`;
  const customerId = await createCustomer(account, { Name: 'Ada', LastName: 'Lovelace', Email: email });
  const dueDate = plusDays(today, options.dueInDays ?? 0);
  let invoice;
  if (options.card) {
    const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const paymentMethodId = await addCard(account, customerId, options.card);
    invoice = await issuedInvoice(account, {
      customerId,
      invoiceDate: today,
      dueDate,
      collect: { method: 'credit_card', gatewayId, paymentMethodId },
      amount: 100,
    });
  } else {
    invoice = await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: today,
      DueDate: dueDate,
      CollectionMethod: 'eft',
      Charges: [{ Descrip: 'Coffee beans', Qty: 1, UnitCostEx: 100 }],
    });
  }
  return {
    account,
    today,
    customerId,
    invoiceId: invoice.invoiceID as number,
    invoiceNum: invoice.invoiceNum as number,
    email,
  };
}

export interface ReadMail {
  subject: string;
  text: string;
  html: string;
}

/** The messages received for `to`, parsed as a mail client does, in the order they came. */
export async function mailsTo(smtp: Smtp, to: string): Promise<ReadMail[]> {
  const mails: ReadMail[] = [];
  for (const message of smtp.messages.filter((m) => m.to.includes(to))) {
    const parsed = await PostalMime.parse(message.raw);
    mails.push({ subject: parsed.subject ?? '', text: parsed.text ?? '', html: parsed.html ?? '' });
  }
  return mails;
}

/** Waits until every message the account queued went out, then returns those to `to`. */
export async function deliveredTo(t: TestService, smtp: Smtp, accountId: number, to: string) {
  const queued = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select('recipient')
    .where('account_id', '=', accountId)
    .execute();
  const expected = queued.filter((row) => row.recipient === to).length;
  await eventually(() =>
    smtp.messages.filter((m) => m.to.includes(to)).length >= expected ? true : undefined,
  );
  const mails = await mailsTo(smtp, to);
  expect(mails).toHaveLength(expected);
  return mails;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The words of an HTML part, its tags gone and its entities read. */
export function htmlWords(html: string): string {
  return html
    .replace(/<title>[\s\S]*?<\/title>/, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The HTML part is a whole document holding the same content as the text part: every line of the text (its
 * links as the anchors' targets) is in the HTML's words or its links.
 */
export function expectSameContent(mail: ReadMail): void {
  expect(mail.html).toMatch(/^<!DOCTYPE html>[\s\S]*<html[\s\S]*<\/html>\s*$/);
  const words = htmlWords(mail.html);
  const links = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  for (const line of mail.text.split('\n').map((l) => l.trim())) {
    if (line === '' || line === '--') continue;
    if (/^https?:\/\//.test(line)) expect(links).toContain(line);
    // A figure is "label: value" in text, a row of two cells in HTML.
    else
      expect([words, words.replaceAll(/(?<=\d) (?=[A-Z]{3} \d)/g, ': ')].some((w) => w.includes(line))).toBe(
        true,
      );
  }
}

export async function eventTypes(account: TestAccount, invoiceId: number): Promise<string[]> {
  return (await eventsOf(account, 'invoice', invoiceId)).map((event) => event.type);
}
