import { afterAll, beforeAll, expect } from 'vitest';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';

// What the eMandate tests share: a service of their own per file, a valid request body, and reads.

export let t: TestService;

export function useMandatesService(options: Parameters<typeof startTestService>[0] = {}): void {
  beforeAll(async () => {
    t = await startTestService(options);
  });
  afterAll(async () => {
    await t?.close();
  });
}

/** The account's today, as its clock shows it (a test account's test clock). */
export async function accountToday(account: TestAccount): Promise<string> {
  const res = await account.request('GET', '/v1/account');
  expect(res.status, res.text).toBe(200);
  const at = (res.body.TestClockDate as string | null) ?? new Date().toISOString();
  return at.slice(0, 10);
}

export const ACCOUNT_NUMBER = '62847123459876';

let refs = 0;

/** A body with every field of spec part 2, eMandates, valid; `fields` override. */
export function mandateBody(
  startDate: string,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  refs += 1;
  return {
    Name: 'Thandi',
    Lastname: 'Nkosi',
    Company: 'Nkosi Trading (Pty) Ltd',
    TradingAs: 'Nkosi Fresh',
    Tel: '+27 21 555 0100',
    Email: 'thandi@nkosi.example',
    Address1: '12 Long Street',
    Address2: 'Unit 4',
    City: 'Cape Town',
    State: 'Western Cape',
    CountryISOCode: 'ZAF',
    PostalCode: '8001',
    bank_Name: 'First National Bank',
    bank_BranchCode: '250655',
    bank_AccHolder: 'T Nkosi',
    bank_AccNumber: ACCOUNT_NUMBER,
    bank_AccountType: 'Cheque',
    debit_ActionDay: 25,
    debit_StartDate: startDate,
    debit_EndDate: null,
    debit_Frequency: 'Monthly',
    debit_Escalation: 5,
    debit_Amt: 299.99,
    debit_MaxAmt: 449.98,
    debit_NameOnStmt: 'NORTHWIND',
    debit_ContractRef: `CTR-${process.pid}-${refs}`,
    debit_VariableAmts: false,
    isCustomerEditable: true,
    isCompanySignee: false,
    ...fields,
  };
}

/** Creates an eMandate (embedded flow unless `path` says otherwise); answers its token. */
export async function createMandate(
  account: TestAccount,
  body: Record<string, unknown>,
  path = '/v1/emandate',
): Promise<string> {
  const res = await account.request('POST', path, { body });
  expect(res.status, res.text).toBe(200);
  return res.body.Token as string;
}

export async function readMandate(account: TestAccount, token: string): Promise<Record<string, any>> {
  const res = await account.request('GET', `/v1/emandate?Token=${encodeURIComponent(token)}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The fields a 422 names. */
export function fieldsOf(res: { body: any }): string[] {
  return (res.body?.fields ?? []).map((f: { field: string }) => f.field);
}

/** Loads a hosted page as a browser would (no API key). */
export async function getPage(path: string): Promise<{ status: number; headers: Headers; html: string }> {
  const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** Posts the signing form as a browser would. */
export async function postSign(
  token: string,
  fields: Record<string, string>,
  options: { query?: string; userAgent?: string } = {},
): Promise<{ status: number; headers: Headers; html: string }> {
  return postForm(`/widget/emandate/${token}/sign${options.query ?? ''}`, fields, options.userAgent);
}

/** Posts a form of the hosted pages as a browser would from the page itself (or, given `from`, from elsewhere). */
export async function postForm(
  path: string,
  fields: Record<string, string>,
  userAgent = 'MandateTest/1.0',
  from: { origin: string; site: string } = { origin: t.url, site: 'same-origin' },
): Promise<{ status: number; headers: Headers; html: string }> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': userAgent,
      origin: from.origin,
      'sec-fetch-site': from.site,
    },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: res.status, headers: res.headers, html: await res.text() };
}
