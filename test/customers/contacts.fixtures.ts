import PostalMime from 'postal-mime';
import { expect } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import type { ReceivedMail } from '../helpers/smtp.ts';
import { smtp, t } from './fixtures.ts';

// Contacts and the credentials mail they are sent: what the contacts test files share.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sequence = 0;
/** An address no other test uses, so the mail that reaches it belongs to one test. */
export const uniqueEmail = (label: string) => `${label}.${++sequence}.${Date.now()}@example.com`;

interface ContactFields {
  customerID: number;
  Name: string;
  LastName: string;
  Email: string;
  [key: string]: unknown;
}

export async function addContact(account: TestAccount, body: ContactFields): Promise<any> {
  const res = await account.request('POST', '/v1/customercontacts', { body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A PUT body repeating the contact's current fields, with some changed. */
export function editBody(contact: any, changes: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerID: contact.customerID,
    Name: contact.Name,
    LastName: contact.LastName,
    Email: contact.Email,
    Cell: contact.Cell,
    Username: contact.Username,
    isActive: contact.isActive,
    ...changes,
  };
}

/** PUT of the contact as `account` sees it: its current fields with `changes`. */
export const editContact = (account: TestAccount, contact: any, changes: Record<string, unknown> = {}) =>
  account.request('PUT', `/v1/customercontacts/${contact.customerContactID}`, {
    body: editBody(contact, changes),
  });

/** The contact as GET answers it to `account`. */
export const readContact = async (account: TestAccount, contact: { customerContactID: number }) =>
  (await account.request('GET', `/v1/customercontacts/${contact.customerContactID}`)).body;

export async function passwordHashOf(contactId: number): Promise<string | null> {
  const row = await t.service.storage.db
    .selectFrom('customer_contacts')
    .select('password_hash')
    .where('id', '=', contactId)
    .executeTakeFirstOrThrow();
  return row.password_hash;
}

export async function outboxCount(account: TestAccount): Promise<number> {
  const rows = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select('id')
    .where('account_id', '=', account.accountId)
    .execute();
  return rows.length;
}

export async function contactCount(account: TestAccount): Promise<number> {
  return (await account.request('GET', '/v1/customercontacts?page_size=200')).body.length;
}

const mailsTo = (address: string): ReceivedMail[] =>
  smtp.messages.filter((m) => m.to.map((to) => to.toLowerCase()).includes(address.toLowerCase()));

/** Waits for the `count`-th message to `address` and returns its decoded text. */
export async function mailTo(
  address: string,
  count = 1,
): Promise<{ subject: string; text: string; html: string }> {
  const mail = await eventually(() => mailsTo(address)[count - 1]);
  return decode(mail.raw);
}

/** Gives the mail worker (every 100 ms, and woken on commit) time to send anything it would send. */
export async function expectNoMailTo(address: string, already = 0): Promise<void> {
  await sleep(500);
  expect(mailsTo(address)).toHaveLength(already);
}

/** The message as a mail client reads it: its subject, its plain-text part and its HTML part. */
async function decode(raw: string): Promise<{ subject: string; text: string; html: string }> {
  const email = await PostalMime.parse(raw);
  return { subject: email.subject ?? '', text: email.text ?? '', html: email.html ?? '' };
}

export function credentialsIn(text: string): { username: string | undefined; password: string | undefined } {
  return {
    username: /^Username: (.+)$/m.exec(text)?.[1]?.trim(),
    password: /^Password: (\S+)$/m.exec(text)?.[1],
  };
}
