import { signPayLinkToken } from '../../src/modules/collections/index.ts';
import { ok } from './billing.ts';
import type { TestAccount, TestService } from './service.ts';

/**
 * The money fixtures most tests start from: a customer with a bank account or a card to collect from, and an
 * issued invoice, made through the API as a client makes them. Each option left out is left out of the request,
 * so the service's own default applies (an InvoiceDate of the account's today, no collection).
 */

/** How an invoice collects itself: the method, the gateway and the customer's payment method it charges. */
export interface Collection {
  method: 'credit_card' | 'debit_order';
  gatewayId: number;
  paymentMethodId: number;
}

export interface IssuedInvoiceOptions {
  customerId: number;
  /** One charge of this unit price (Qty 1), described as `description`; ignored when `charges` is given. */
  amount?: number | string;
  description?: string;
  /** The charges in full, as the wire takes them. */
  charges?: readonly Record<string, unknown>[];
  invoiceDate?: string;
  dueDate?: string;
  collect?: Collection;
}

/** The body of POST /v1/invoices for an issued (not draft) invoice. */
export function issuedInvoiceBody(options: IssuedInvoiceOptions): Record<string, unknown> {
  const { collect } = options;
  return {
    customerID: options.customerId,
    ...(options.invoiceDate === undefined ? {} : { InvoiceDate: options.invoiceDate }),
    ...(options.dueDate === undefined ? {} : { DueDate: options.dueDate }),
    ...(collect
      ? {
          CollectionMethod: collect.method,
          gatewayID: collect.gatewayId,
          customerPaymentMethodID: collect.paymentMethodId,
        }
      : {}),
    Charges: options.charges ?? [
      { Descrip: options.description ?? 'Consulting', Qty: 1, UnitCostEx: options.amount ?? 10 },
    ],
  };
}

/** An issued invoice, as POST /v1/invoices answers it (201). */
export async function issuedInvoice(as: TestAccount, options: IssuedInvoiceOptions): Promise<any> {
  return ok(as, 'POST', '/v1/invoices', issuedInvoiceBody(options));
}

export interface CustomerWithMethod {
  customerId: number;
  paymentMethodId: number;
}

/**
 * A customer (`customer` is the body of POST /v1/customers) with `bankAccount` as its primary payment method,
 * validated at gateway `validateAt` when given: the gateway then takes its debits.
 */
export async function customerWithBankAccount(
  as: TestAccount,
  options: { customer: Record<string, unknown>; bankAccount: Record<string, unknown>; validateAt?: number },
): Promise<CustomerWithMethod> {
  const customer = await ok(as, 'POST', '/v1/customers', options.customer);
  const method = await ok(
    as,
    'POST',
    '/v1/paymentmethods/bankaccount',
    { customerID: customer.customerID, isPrimary: true, BankAccount: options.bankAccount },
    200,
  );
  if (options.validateAt !== undefined) {
    await ok(
      as,
      'POST',
      `/v1/ValidateBankAccount/${options.validateAt}`,
      { customerID: customer.customerID, BankAccount: options.bankAccount },
      204,
    );
  }
  return { customerId: customer.customerID, paymentMethodId: method.paymentMethodID };
}

/** What a document is asked with: an account's id and API key (a TestAccount, or a served process's account). */
type Credentials = Pick<TestAccount, 'accountId' | 'apiKey'>;

/** The invoice's PDF as the API serves it to the account: its status, headers and bytes. */
export function fetchInvoicePdf(
  baseUrl: string,
  as: Credentials,
  invoiceId: number,
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  return fetchApiBytes(baseUrl, as, `/v1/invoices/${invoiceId}/pdf`);
}

/** A document of the API (a PDF, a CSV) as bytes, asked as the account. */
export async function fetchApiBytes(
  baseUrl: string,
  as: Credentials,
  urlPath: string,
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const headers = {
    authorization: `Basic ${Buffer.from(`${as.accountId}:${as.apiKey}`).toString('base64')}`,
  };
  const res = await fetch(`${baseUrl}${urlPath}`, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

/**
 * The token of an invoice's pay page link (`/pay/{token}`; docs/hosted-pages.md, "Paying one invoice"), as its
 * e-mail carries it: signed by the service, good for a day (a link's expiry is in whole seconds).
 */
export function payLinkToken(t: TestService, accountId: number, invoiceId: number): string {
  return signPayLinkToken(t.service.secrets, {
    accountId,
    invoiceId,
    expiresAt: new Date(Math.floor(Date.now() / 1000 + 86_400) * 1000).toISOString(),
  });
}
