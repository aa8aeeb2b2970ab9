import crypto from 'node:crypto';
import { expect } from 'vitest';
import { onBusinessDay } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { advanceClock } from '../helpers/clock.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { WireEvent } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { debitInvoice, plusDays } from '../batches/fixtures.ts';
import type { DebitSetup } from '../batches/fixtures.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService, FileServiceOptions } from '../helpers/testService.ts';

// What the eMandate tests share: a service of their own per file, accounts to make mandates in, a valid request
// body, the signee's signature, a bank account linked to a signed mandate, and reads.

export let t: FileService;

export function useMandatesService(options: FileServiceOptions = {}): void {
  t = useTestService(options);
}

export { plusDays };

/** The account's today, as its clock shows it (a test account's test clock). */
export async function accountToday(account: TestAccount): Promise<string> {
  const res = await account.request('GET', '/v1/account');
  expect(res.status, res.text).toBe(200);
  const at = (res.body.TestClockDate as string | null) ?? new Date().toISOString();
  return at.slice(0, 10);
}

/** The beneficiary most tests show: the account's seller details (docs/spec-decisions.md, "eMandates"). */
export const NORTHWIND = { LegalName: 'Northwind Software Ltd' };

export interface MandateAccount {
  account: TestAccount;
  /** The account's today. */
  today: string;
  /** A debit_StartDate a week ahead: far enough for every test to sign before it. */
  start: string;
}

/** A test account on its own clock, with `seller` as its seller details when given. */
export async function mandateAccount(
  name: string,
  options: { seller?: Record<string, unknown>; timeZone?: string } = {},
): Promise<MandateAccount> {
  const account = await t.newAccount(name, {
    isTest: true,
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
  });
  if (options.seller) await ok(account, 'PUT', '/v1/account', options.seller);
  const today = await accountToday(account);
  return { account, today, start: plusDays(today, 7) };
}

/**
 * A test account billing in ZAR, in UTC, its clock moved to tomorrow's midnight (so that the days a test advances
 * to are still ahead), with its test gateway: where debit orders under a mandate are collected.
 */
export async function debitOrderAccount(name: string): Promise<DebitSetup> {
  const account = await t.newAccount(name, { isTest: true, timeZone: 'UTC', currencyCode: 'ZAR' });
  const today = plusDays(await accountToday(account), 1);
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  return { account, today, gatewayId: gateway.gatewayID, gatewayToken: gateway.GatewayToken };
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

/** Creates an eMandate in the redirect flow, to be signed on the hosted page; answers its token. */
export const createPageMandate = (account: TestAccount, body: Record<string, unknown>) =>
  createMandate(account, body, '/widget/emandate');

/** What the signee of mandateBody sends to sign: the box ticked and their full name typed. */
export const SIGNATURE = { Consent: 'yes', TypedName: 'Thandi Nkosi' };

/** Signs the mandate on its hosted page as the signee would (SIGNATURE), from a browser saying `userAgent`. */
export async function signMandate(token: string, userAgent?: string): Promise<void> {
  const signed = await postSign(token, SIGNATURE, userAgent ? { userAgent } : {});
  expect(signed.status, signed.html).toBe(303);
}

/** A mandate created in the redirect flow and signed on its page; its token. */
export async function signedMandate(
  account: TestAccount,
  body: Record<string, unknown>,
  userAgent?: string,
): Promise<string> {
  const token = await createPageMandate(account, body);
  await signMandate(token, userAgent);
  return token;
}

export async function readMandate(account: TestAccount, token: string): Promise<Record<string, any>> {
  const res = await account.request('GET', `/v1/emandate?Token=${encodeURIComponent(token)}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** What is stored of a token: its SHA-256 (docs/spec-decisions.md, "eMandate tokens at rest"). */
export const tokenDigest = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** The stored row of the mandate `token` names, found by the token's digest. */
export async function mandateRow(token: string) {
  return t.service.storage.db
    .selectFrom('emandates')
    .selectAll()
    .where('token_sha256', '=', tokenDigest(token))
    .executeTakeFirstOrThrow();
}

/** The mandate's events, oldest first. */
export async function mandateEvents(account: TestAccount, token: string): Promise<WireEvent[]> {
  return eventsOf(account, 'emandate', (await mandateRow(token)).id);
}

/** A customer of the account; its customerID. */
export async function newCustomer(
  account: TestAccount,
  fields: Record<string, unknown> = {},
): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Thandi',
    LastName: 'Nkosi',
    ...fields,
  });
  return customer.customerID as number;
}

/** A POST /v1/paymentmethods/bankaccount body for mandateBody's bank account, under `token` (null: none). */
export const bankAccountBody = (
  customerID: number,
  token: string | null,
  fields: Record<string, unknown> = {},
) => ({
  customerID,
  isPrimary: true,
  BankAccount: {
    Method: 'debit_order',
    AccountType: 'Cheque',
    AccountHolder: 'T Nkosi',
    Bank: 'First National Bank',
    AccountNumber: ACCOUNT_NUMBER,
    BranchCode: '250655',
    EMandateToken: token,
    ...fields,
  },
});

export interface MandatedCustomer {
  token: string;
  customerId: number;
  paymentMethodId: number;
}

/**
 * A customer (billed in `currency`) whose bank account is linked to a mandate of this body, signed on its page:
 * valid for collection at once (docs/spec-decisions.md, "Bank accounts under an eMandate").
 */
export async function mandatedCustomer(
  account: TestAccount,
  body: Record<string, unknown>,
  currency = 'ZAR',
): Promise<MandatedCustomer> {
  const token = await signedMandate(account, body);
  const customerId = await newCustomer(account, { CurrencyCode: currency });
  const method = await ok(
    account,
    'POST',
    '/v1/paymentmethods/bankaccount',
    bankAccountBody(customerId, token),
    200,
  );
  expect(method.isValid).toBe(true);
  return { token, customerId, paymentMethodId: method.paymentMethodID };
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

/** Fetches the signed PDF by its public download link, with GET or (the token in the form) POST. */
export async function downloadPdf(token: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(
    `${t.url}/widget/emandate/download${method === 'GET' ? `?token=${encodeURIComponent(token)}` : ''}`,
    method === 'GET'
      ? {}
      : {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token }),
        },
  );
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/**
 * An open batch of the account's test gateway, in ZAR, acting today, or the next SA business day when today is none
 * (docs/gateways.md, "Action dates a person sets"); its BatchToken.
 */
export async function openDebitBatch(setup: DebitSetup): Promise<string> {
  const batch = await ok(setup.account, 'POST', '/v1/batches', {
    CurrencyCode: 'ZAR',
    GatewayToken: setup.gatewayToken,
    ActionDate: onBusinessDay(setup.today, 'debit_order'),
  });
  return batch.BatchToken as string;
}

/**
 * A line of the batch collecting `amount` from the mandated customer, for a fresh invoice of that amount: its
 * paymentID, and the body it was added with.
 */
export async function addMandatedLine(
  setup: DebitSetup,
  batchToken: string,
  who: MandatedCustomer,
  amount: number,
): Promise<{ paymentId: number; body: Record<string, unknown> }> {
  const customer = { customerId: who.customerId, paymentMethodId: who.paymentMethodId };
  const invoiceId = await debitInvoice(setup, customer, { dueIn: 30, amount });
  const body = {
    BatchToken: batchToken,
    customerID: who.customerId,
    Amount: amount,
    paymentMethodID: who.paymentMethodId,
    PaymentApplied: [{ amount, invoiceID: invoiceId }],
  };
  const line = await ok(setup.account, 'POST', '/v1/batches/payments', body);
  return { paymentId: line.paymentID as number, body };
}

/** Fetches the signed PDF with the account's API key: GET /v1/emandate/download?Token= (docs/spec-decisions.md). */
export async function downloadPdfWithKey(account: TestAccount, token: string) {
  const res = await fetch(`${t.url}/v1/emandate/download?Token=${encodeURIComponent(token)}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${account.accountId}:${account.apiKey}`).toString('base64')}`,
    },
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Moves a test account's clock on to the instant `to`. */
export { advanceClock };
