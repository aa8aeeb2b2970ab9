import { PDFParse } from 'pdf-parse';
import { expect } from 'vitest';
import { movableClock } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import type { ReceivedMail } from '../helpers/smtp.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService, SmtpReceiver } from '../helpers/testService.ts';

/** A clock the tests move; the service reads "today" from it (in each account's time zone). */
export const clock = movableClock('2026-03-10T10:00:00.000Z');

/**
 * The invoice tests' shared setup: one SMTP receiver and one service per test file, and a second account. The
 * bindings are set once `useInvoiceService`'s beforeAll has run, so read them inside tests.
 */
export let t: FileService;
export let other: TestAccount;
export let smtp: SmtpReceiver;

export function useInvoiceService() {
  t = useTestService({ smtp: true, clock, secondAccount: true });
  ({ smtp, other } = t);
}

export const db = () => t.service.storage.db;

let sequence = 0;
export const unique = (label: string) => `${label}-${++sequence}`;
export const uniqueEmail = (label: string) => `${label}.${++sequence}.${Date.now()}@example.com`;

export async function newCustomer(
  account: TestAccount = t,
  body: Record<string, unknown> = {},
): Promise<any> {
  const res = await account.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export const CHARGE = { Descrip: 'Consulting', Qty: 2, UnitCostEx: 50 };

export async function createInvoice(body: Record<string, unknown>, account: TestAccount = t): Promise<any> {
  const res = await account.request('POST', '/v1/invoices', { body: { Charges: [CHARGE], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function read(invoiceID: number, account: TestAccount = t): Promise<any> {
  const res = await account.request('GET', `/v1/invoices/${invoiceID}`);
  expect(res.status).toBe(200);
  return res.body;
}

export const fieldsOf = (body: any): string[] => body.fields.map((f: { field: string }) => f.field);

export async function invoiceCount(account: TestAccount = t): Promise<number> {
  const row = await db()
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setAccount(account: TestAccount, values: Record<string, unknown>): Promise<void> {
  await db().updateTable('accounts').set(values).where('id', '=', account.accountId).execute();
}

export async function pdfText(pdf: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data: pdf });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

export async function fetchPdf(
  invoiceID: number,
  account: TestAccount = t,
): Promise<{ res: { status: number; headers: Headers }; text: string }> {
  const res = await fetchInvoicePdf(t.url, account, invoiceID);
  return { res, text: res.status === 200 ? await pdfText(new Uint8Array(res.body)) : '' };
}

export const mailsTo = (address: string): ReceivedMail[] =>
  smtp.messages.filter((m) => m.to.map((to) => to.toLowerCase()).includes(address.toLowerCase()));

/** The PDF attached to a raw MIME message. */
export function pdfAttachment(raw: string): Buffer | undefined {
  const part = raw.split(/\r?\n--/).find((p) => /content-type:\s*application\/pdf/i.test(p));
  if (!part) return undefined;
  const body = part.slice(part.search(/\r?\n\r?\n/)).replace(/\s+/g, '');
  return Buffer.from(body, 'base64');
}
