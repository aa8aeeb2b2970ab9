import { expect } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { southAfricanPublicHoliday } from '../../src/core/publicHolidays.ts';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { CustomerWithMethod } from '../helpers/invoices.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import type { DebitSetup } from './fixtures.ts';
import { advanceTo, bankAccount, businessDay, debitAccount, debitCustomer, plusDays } from './fixtures.ts';
import { useTestService } from '../helpers/testService.ts';
import { midnightUtc } from '../helpers/clock.ts';

/**
 * What the batch API tests (batches.*.test.ts, batchLines.*.test.ts) share: the file's service, a test account in
 * ZAR per test (its own clock, so that moving it touches no other test), customers with a validated debit-order
 * account, invoices nobody collects by themselves (no CollectionMethod: the bill run never bundles them), batches
 * with a line, and the problem+json checks.
 */

/** The file's service; a live binding, set from the file's beforeAll on (see useBatchService). */
export let t: TestService;

export function useBatchService(): void {
  t = useTestService();
}

export type Customer = CustomerWithMethod;

/** A test account in UTC with ZAR enabled and its test gateway, which collects debit orders in batches. */
export const zarAccount = (): Promise<DebitSetup> => debitAccount(t, 'ZAR');

/** A customer with a validated bank account (primary) on `rail`: ZAR for debit_order, USD for ach, EUR for sepa. */
export const bankCustomer = (setup: DebitSetup, rail: 'debit_order' | 'ach' | 'sepa' = 'debit_order') =>
  debitCustomer(setup, rail);

/** An issued invoice of `amount` (no tax), due in 30 days; no CollectionMethod, so no run collects it. */
export async function owed(
  setup: DebitSetup,
  customerId: number,
  amount = 100,
  invoiceDate = setup.today,
): Promise<{ invoiceID: number; invoiceNum: number }> {
  const invoice = await issuedInvoice(setup.account, {
    customerId,
    invoiceDate,
    dueDate: plusDays(setup.today, 30),
    description: 'Work',
    amount,
  });
  expect(invoice.Total).toBe(amount);
  return { invoiceID: invoice.invoiceID, invoiceNum: invoice.invoiceNum };
}

/** The money figures of an invoice, as GET answers them. */
export async function figures(account: TestAccount, invoiceId: number) {
  const invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
  return {
    TotalActualPaid: invoice.TotalActualPaid,
    TotalPendingPaid: invoice.TotalPendingPaid,
    Balance: invoice.Balance,
    Status: invoice.Status,
  };
}

/** The SA business day `days` after today, or the next one after it: a date a batch may be set to. */
export const batchDay = (setup: DebitSetup, days: number) => businessDay(plusDays(setup.today, days));

/** The body of a valid POST /v1/batches for the account's test gateway, with `extra` over it. */
export const batchBody = (setup: DebitSetup, extra: Record<string, unknown> = {}) => ({
  CurrencyCode: 'ZAR',
  GatewayToken: setup.gatewayToken,
  ActionDate: batchDay(setup, 7),
  ...extra,
});

export const newBatch = async (setup: DebitSetup, extra: Record<string, unknown> = {}) =>
  ok(setup.account, 'POST', '/v1/batches', batchBody(setup, extra));

export const batchOf = (account: TestAccount, token: string) =>
  ok(account, 'GET', `/v1/batches/${encodeURIComponent(token)}`);

/** The body of a line of `amount` from the customer's bank account, applied as `applied` says. */
export const lineBody = (
  batchToken: string,
  customer: Customer,
  amount: unknown,
  applied?: unknown[],
  extra: Record<string, unknown> = {},
) => ({
  BatchToken: batchToken,
  customerID: customer.customerId,
  Amount: amount,
  paymentMethodID: customer.paymentMethodId,
  ...(applied === undefined ? {} : { PaymentApplied: applied }),
  ...extra,
});

export const addLine = (
  account: TestAccount,
  batchToken: string,
  customer: Customer,
  amount: unknown,
  applied: unknown[] = [],
  extra: Record<string, unknown> = {},
) => ok(account, 'POST', '/v1/batches/payments', lineBody(batchToken, customer, amount, applied, extra));

/** The fields of a batch as the spec lists them (the single read adds Payments). */
export const BATCH_FIELDS = [
  'BatchToken',
  'CurrencyCode',
  'GatewayToken',
  'CreatedDate',
  'SubmitDate',
  'ActionDate',
  'State',
  'BuildError',
  'NumberOfPayments',
  'PaymentsTotal',
  'Notes',
].sort();

/** The account's test clock, as GET /v1/account answers it. */
export const clockOf = async (account: TestAccount) =>
  (await ok(account, 'GET', '/v1/account')).TestClockDate as string;
export { midnightUtc as midnight };
/** A batch without its Payments list, to compare a single read with what create answered. */
export const withoutPayments = ({ Payments: _, ...batch }: Record<string, unknown>) => batch;
/** The BatchTokens GET /v1/batches lists, with `query`. */
export const tokensOf = async (account: TestAccount, query = '') =>
  ((await ok(account, 'GET', `/v1/batches${query}`)) as { BatchToken: string }[]).map((b) => b.BatchToken);

/** A batch with one line of 40.00 on a 100.00 invoice. */
export async function batchWithLine(setup: DebitSetup) {
  const customer = await bankCustomer(setup);
  const invoice = await owed(setup, customer.customerId, 100);
  const batch = await newBatch(setup);
  const line = await addLine(setup.account, batch.BatchToken, customer, 40, [
    { invoiceID: invoice.invoiceID, amount: 40 },
  ]);
  return { customer, invoice, batch, token: batch.BatchToken as string, paymentId: line.paymentID as number };
}

/** A ZAR test account with a customer owing one invoice of 100.00, and an open batch. */
export async function scene() {
  const setup = await zarAccount();
  const customer = await bankCustomer(setup);
  const invoice = await owed(setup, customer.customerId, 100);
  const batch = await newBatch(setup);
  return { setup, account: setup.account, customer, invoice, token: batch.BatchToken as string, batch };
}

/** Another bank account of the customer (not primary), on `rail`. */
export async function secondBankAccount(
  setup: DebitSetup,
  customer: Customer,
  rail: 'debit_order' | 'ach' | 'sepa',
): Promise<Customer> {
  const method = await ok(
    setup.account,
    'POST',
    '/v1/paymentmethods/bankaccount',
    { customerID: customer.customerId, isPrimary: false, BankAccount: bankAccount(rail, undefined) },
    200,
  );
  return { customerId: customer.customerId, paymentMethodId: method.paymentMethodID };
}

export const payment = (account: TestAccount, paymentId: number) =>
  ok(account, 'GET', `/v1/payments/${paymentId}`);
export const postLine = (account: TestAccount, body: unknown) =>
  account.request('POST', '/v1/batches/payments', { body });
export const putLine = (account: TestAccount, body: unknown) =>
  account.request('PUT', '/v1/batches/payments', { body });

/** An ordinary payment of 10.00 in cash from the customer, applied to the invoice: no batch line. */
export const cashPayment = (account: TestAccount, customer: Customer, invoiceId: number) =>
  ok(account, 'POST', '/v1/payments', {
    customerID: customer.customerId,
    Amount: 10,
    CurrencyCode: 'ZAR',
    Date: '2026-03-01',
    Method: 'cash',
    allocations: [{ invoiceID: invoiceId, amountApplied: 10 }],
  });

/** The earliest action date a debit-order batch submitted on the account's today may have. */
export const earliestDebitOrder = (setup: DebitSetup) => earliestActionDate('debit_order', setup.today);

/**
 * The next date of the year ("12-25") on or after the earliest action date of a debit order submitted today: a
 * public holiday a test asks a batch for, whatever day the suite runs on.
 */
export function nextOfYear(setup: DebitSetup, monthDay: string): string {
  const earliest = earliestDebitOrder(setup);
  let year = Number(setup.today.slice(0, 4));
  while (`${year}-${monthDay}` < earliest) year += 1;
  return `${year}-${monthDay}`;
}

/** The first Sunday on or after the earliest debit-order action date that is no public holiday. */
export function plainSunday(setup: DebitSetup): string {
  let date = earliestDebitOrder(setup);
  while (new Date(`${date}T00:00:00Z`).getUTCDay() !== 0 || southAfricanPublicHoliday(date)) {
    date = plusDays(date, 1);
  }
  return date;
}

/** Submits the batch for its earliest action date; returns that date. */
export async function submit(setup: DebitSetup, token: string): Promise<string> {
  const actionDate = earliestDebitOrder(setup);
  await ok(setup.account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
  return actionDate;
}

/**
 * Submits the batch and moves the account's clock to its action date: the next day's run hands it to the test
 * gateway (submitted), and the action date makes it processing.
 */
export async function toProcessing(setup: DebitSetup, token: string): Promise<void> {
  const actionDate = await submit(setup, token);
  await advanceTo(setup.account, actionDate);
  expect((await batchOf(setup.account, token)).State).toBe('processing');
}

/** A 422 problem whose fields name `field`. */
export function expectInvalid(res: ApiResponse, field: string): void {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const fields = (res.body.fields ?? []).map((f: { field: string }) => f.field);
  expect(fields, res.text).toContain(field);
}

/** A 409 problem with this code. */
export function expectConflict(res: ApiResponse, code: string): void {
  expect(res.status, res.text).toBe(409);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code, res.text).toBe(code);
}

/** A 404 problem. */
export function expectNotFound(res: ApiResponse): void {
  expect(res.status, res.text).toBe(404);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
}
