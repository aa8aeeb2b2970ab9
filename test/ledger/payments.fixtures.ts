import { expect } from 'vitest';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { t, useLedgerService } from './fixtures.ts';

// Today is 2026-03-10 for the service: invoices due 2026-03-31 are Due, not Past Due, while unpaid.
export const clock = movableClock('2026-03-10T10:00:00.000Z');

/** Starts the file's service on `clock`, with EUR and JPY enabled beside USD. */
export function usePaymentsService(): void {
  useLedgerService({ clock, currencies: ['EUR', 'JPY'] });
}

export const PAYMENT_FIELDS = [
  'paymentID',
  'customerID',
  'Amount',
  'CurrencyCode',
  'Date',
  'Memo',
  'Ref',
  'Method',
  'Status',
  // Beyond the spec: why a payment collected through a gateway failed (docs/gateways.md); null otherwise.
  'FailureReason',
  'Allocations',
].sort();

interface InvoiceOptions {
  date?: string;
  isDraft?: boolean;
  account?: TestAccount;
}

/** An issued invoice of one line (no tax): its Total is `amount`. */
export async function newInvoice(
  customerId: number,
  amount: number,
  options: InvoiceOptions = {},
): Promise<any> {
  const invoice = await ok(options.account ?? t, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: options.date ?? '2026-03-01',
    DueDate: '2026-03-31',
    isDraft: options.isDraft ?? false,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
  });
  expect(invoice.Total).toBe(amount);
  return invoice;
}

/** The money figures of an invoice, as GET answers them. */
export async function figures(invoiceId: number, as: TestAccount = t) {
  const invoice = await ok(as, 'GET', `/v1/invoices/${invoiceId}`);
  return {
    TotalActualPaid: invoice.TotalActualPaid,
    TotalPendingPaid: invoice.TotalPendingPaid,
    Balance: invoice.Balance,
    ActualBalance: invoice.ActualBalance,
    Status: invoice.Status,
    PaymentsApplied: invoice.PaymentsApplied,
  };
}

/** A cash payment of `amount` USD dated 2026-03-05, with these allocations. */
export function paymentBody(
  customerId: number,
  amount: unknown,
  allocations: unknown[] | undefined,
  extra: Record<string, unknown> = {},
) {
  return {
    customerID: customerId,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: '2026-03-05',
    Method: 'cash',
    ...(allocations === undefined ? {} : { allocations }),
    ...extra,
  };
}

export const postPayment = (body: unknown, as: TestAccount = t) =>
  as.request('POST', '/v1/payments', { body });

export async function pay(body: unknown, as: TestAccount = t): Promise<any> {
  return ok(as, 'POST', '/v1/payments', body);
}

/**
 * A customer owing an invoice of 100.00 and a payment of `amount` allocating `applied` (all of it unless told) to
 * that invoice, with the id of that allocation: how most payment tests start.
 */
export async function paidInvoice(amount: unknown, applied: unknown = amount) {
  const customerId = await createCustomer(t);
  const invoice = await newInvoice(customerId, 100);
  const payment = await pay(
    paymentBody(customerId, amount, [{ invoiceID: invoice.invoiceID, amountApplied: applied }]),
  );
  return { customerId, invoice, payment, allocationID: payment.Allocations[0].allocationID as number };
}

/** A 422 whose field list names `field` (and, when given, says something containing `message` about it). */
export function expectInvalid(res: ApiResponse, field: string, message?: string): void {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const problem = (res.body.fields as { field: string; message: string }[]).find((f) => f.field === field);
  expect(problem, `no problem for ${field} in ${res.text}`).toBeDefined();
  if (message !== undefined) expect(problem!.message).toContain(message);
}

export const paymentsOf = async (customerId: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerId}/payments?page_size=200`)) as any[];
