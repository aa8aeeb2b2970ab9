import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';

let refs = 0;
const ref = (prefix: string) => `${prefix}-${++refs}`;

/** An issued invoice of one line (no tax): its Total is `amount`. */
export async function invoice(
  as: TestAccount,
  customerID: number,
  amount: number,
  InvoiceDate: string,
  DueDate: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  return ok(as, 'POST', '/v1/invoices', {
    customerID,
    InvoiceDate,
    DueDate,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
    ...extra,
  });
}

export async function payment(
  as: TestAccount,
  customerID: number,
  Amount: number,
  Date: string,
  allocations: { invoiceID: number; amountApplied: number }[] | 'auto',
): Promise<any> {
  return ok(as, 'POST', '/v1/payments', {
    customerID,
    Amount,
    CurrencyCode: 'USD',
    Date,
    Method: 'eft',
    Ref: ref('PAY'),
    ...(allocations === 'auto' ? { AutoApply: true } : { allocations }),
  });
}

export async function creditNote(
  as: TestAccount,
  customerID: number,
  Amount: number,
  Date: string,
  Allocations: { invoiceID: number; amountApplied: number }[] | 'auto' = [],
): Promise<any> {
  return ok(as, 'POST', '/v1/credits', {
    customerID,
    Date,
    CurrencyCode: 'USD',
    Amount,
    CreditNumber: ref('CN'),
    Memo: 'Goodwill',
    ...(Allocations === 'auto' ? { AutoApply: true } : { Allocations }),
  });
}

export async function positiveAdjustment(
  as: TestAccount,
  customerID: number,
  Amount: number,
  Date: string,
  DueDate: string,
): Promise<number> {
  const body = {
    AdjustmentType: 'interest',
    customerID,
    Type: 'positive',
    Amount,
    Date,
    DueDate,
    Ref: ref('INT'),
    Memo: 'Late interest',
  };
  return (await ok(as, 'POST', '/v1/adjustment/add', body)).AdjustmentID;
}

export async function negativeAdjustment(
  as: TestAccount,
  customerID: number,
  Amount: number,
  Date: string,
  autoApply = false,
): Promise<number> {
  const body = {
    AdjustmentType: 'bad_debt',
    customerID,
    Type: 'negative',
    Amount,
    Date,
    Ref: ref('BD'),
    Memo: 'Written off',
    AutoApply: autoApply,
    Allocations: [],
  };
  return (await ok(as, 'POST', '/v1/adjustment/add', body)).AdjustmentID;
}

export async function statement(as: TestAccount, customerID: number, query = ''): Promise<any> {
  return ok(as, 'GET', `/v1/customers/${customerID}/statement${query}`);
}

/** The statement's PDF as the API serves it. */
export async function fetchStatementPdf(
  baseUrl: string,
  as: TestAccount,
  customerID: number,
  query = '',
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const headers = {
    authorization: `Basic ${Buffer.from(`${as.accountId}:${as.apiKey}`).toString('base64')}`,
  };
  const res = await fetch(`${baseUrl}/v1/customers/${customerID}/statement.pdf${query}`, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** The PDF's text as poppler lays it out, and a PNG of its first page in test-output/pdf/<dialect>/ to look at. */
export function readPdf(pdf: Buffer, name: string): string {
  const dir = path.join('test-output', 'pdf', process.env.TEST_DIALECT ?? 'sqlite');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.pdf`);
  fs.writeFileSync(file, pdf);
  execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', file, path.join(dir, name)]);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}
