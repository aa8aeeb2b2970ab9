import { expect } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { invoicesOf } from '../helpers/billing.ts';
import { plusDays } from '../helpers/clock.ts';
import { advanceBilling } from '../helpers/clock.ts';

/* What the trial tests share: reading a subscription's upcoming invoice and comparing it with a stored one. */

export const day = (wire: string | null) => (wire === null ? null : wire.slice(0, 10));

export { plusDays as addDays };

/** Moves the test account's clock to 10:00 (UTC) on `date`, running the bill run for every day passed. */
export { advanceBilling as advanceTo };

/** The upcoming invoice, or null on the 404 that says none is coming. */
export async function upcomingOf(as: TestAccount, subscriptionId: number): Promise<any> {
  const res = await as.request('GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
  if (res.status === 404) {
    expect(res.body.code, res.text).toBe('upcoming_invoice_not_found');
    return null;
  }
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ invoiceID: null, invoiceNum: null });
  return res.body;
}

/**
 * An invoice as the preview can know it: what the bill run decides (date, due date, lines, taxes, totals,
 * status), without what storing it assigns (ids, number, timestamps) or the customer's figures it changes.
 */
export function billedContent(invoice: any) {
  return {
    customerID: invoice.customerID,
    CurrencyCode: invoice.CurrencyCode,
    InvoiceDate: invoice.InvoiceDate,
    DueDate: invoice.DueDate,
    Source: invoice.Source,
    isDraft: invoice.isDraft,
    isCancelled: invoice.isCancelled,
    Status: invoice.Status,
    Total: invoice.Total,
    TotalActualPaid: invoice.TotalActualPaid,
    Balance: invoice.Balance,
    ActualBalance: invoice.ActualBalance,
    Taxes: invoice.Taxes.map(({ Name, Perc }: any) => ({ Name, Perc })),
    Charges: invoice.Charges.map(({ chargeID: _c, invoiceID: _i, ...charge }: any) => charge),
  };
}

/** The customer's invoices not in `known` (ids), oldest first. */
export async function newInvoices(as: TestAccount, customerId: number, known: Set<number>): Promise<any[]> {
  return (await invoicesOf(as, customerId)).filter((i) => !known.has(i.invoiceID));
}
