import { expect } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { t, useLedgerService } from './fixtures.ts';

/** Starts the file's service (on the system clock), with ZAR enabled beside USD. */
export function useCreditNotesService(): void {
  useLedgerService({ currencies: ['ZAR'] });
}

let sequence = 0;
export const creditNumber = () => `CN-${++sequence}`;

/** An issued invoice of one line (no tax): its Total is `amount`. */
export async function createInvoice(
  customerID: number,
  amount: number,
  body: Record<string, unknown> = {},
  as: TestAccount = t,
): Promise<any> {
  return ok(as, 'POST', '/v1/invoices', {
    customerID,
    InvoiceDate: '2026-03-01',
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
    ...body,
  });
}

export const invoice = (id: number, as: TestAccount = t) => ok(as, 'GET', `/v1/invoices/${id}`);

/** The figures of an invoice that credit notes move. */
export async function figures(id: number) {
  const inv = await invoice(id);
  return {
    TotalNegativeAdjs: inv.TotalNegativeAdjs,
    Balance: inv.Balance,
    ActualBalance: inv.ActualBalance,
    Status: inv.Status,
  };
}

export function creditBody(customerID: number, body: Record<string, unknown> = {}) {
  return {
    customerID,
    Date: '2026-03-05',
    CurrencyCode: 'USD',
    Amount: 40,
    CreditNumber: creditNumber(),
    Memo: 'Goodwill',
    ...body,
  };
}

export const postCredit = (body: unknown, as: TestAccount = t) => as.request('POST', '/v1/credits', { body });

export async function createCredit(body: Record<string, unknown>, as: TestAccount = t): Promise<any> {
  const res = await postCredit(body, as);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A customer with one issued invoice of 100.00. */
export async function customerWithInvoice(total = 100) {
  const customerID = await createCustomer(t);
  const inv = await createInvoice(customerID, total);
  expect(inv.Total).toBe(total);
  return { customerID, invoiceID: inv.invoiceID as number, invoiceNum: inv.invoiceNum as number };
}

export async function creditCount(as: TestAccount = t): Promise<number> {
  const row = await t.service.storage.db
    .selectFrom('credit_notes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', as.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
