import { afterAll, beforeAll, expect } from 'vitest';
import { earliestActionDate } from '../../src/core/batches.ts';
import { ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { CustomerWithMethod } from '../helpers/invoices.ts';
import { startTestService } from '../helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import type { DebitSetup } from './fixtures.ts';
import { advanceTo, debitAccount, debitCustomer, plusDays } from './fixtures.ts';

/**
 * What the batch API tests (batches.api.test.ts, batchLines.api.test.ts) share: the file's service, a test account
 * in ZAR per test (its own clock, so that moving it touches no other test), customers with a validated debit-order
 * account, invoices nobody collects by themselves (no CollectionMethod: the bill run never bundles them), and the
 * problem+json checks.
 */

/** The file's service; a live binding, set from the file's beforeAll on (see useBatchService). */
export let t: TestService;

export function useBatchService(): void {
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.close();
  });
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

/** The body of a valid POST /v1/batches for the account's test gateway, with `extra` over it. */
export const batchBody = (setup: DebitSetup, extra: Record<string, unknown> = {}) => ({
  CurrencyCode: 'ZAR',
  GatewayToken: setup.gatewayToken,
  ActionDate: plusDays(setup.today, 7),
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

/** The earliest action date a debit-order batch submitted on the account's today may have. */
export const earliestDebitOrder = (setup: DebitSetup) => earliestActionDate('debit_order', setup.today);

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
