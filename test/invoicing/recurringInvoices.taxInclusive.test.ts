import { describe, expect, it } from 'vitest';
import { billRecurringInvoice } from '../../src/modules/invoicing/index.ts';
import { accountContext } from '../helpers/context.ts';
import {
  clock,
  create,
  read,
  setToday,
  t,
  useRecurringInvoiceService,
} from './recurringInvoices.fixtures.ts';

useRecurringInvoiceService();

// A recurring invoice's tax-inclusive charge (docs/pricing.md, "Tax-inclusive prices"): priced as its invoices
// will be, and every invoice it makes keeps it tax-inclusive.

describe('recurring invoices with a tax-inclusive charge', () => {
  it('shows and bills the charge at its price including tax', async () => {
    setToday('2026-01-15');
    const account = await t.newAccount('Recurring gross');
    const customerID = (
      await account.request('POST', '/v1/customers', { body: { Name: 'Bill', autoSendInvoice: false } })
    ).body.customerID;
    const ri = await create(
      {
        customerID,
        StartDate: '2026-01-31',
        RecurInvoiceCharges: [
          { Descrip: 'Hosting', Qty: 1, UnitCostInc: 11.5 },
          { Descrip: 'Support', Qty: 1, UnitCostEx: 10 },
        ],
        Taxes: [{ Name: 'VAT', Perc: 0.15 }],
      },
      account,
    );
    // Hosting: 11.50 / 1.15 = 10.00, VAT 1.50, 11.50 to pay. Support as before: 10.00 + 1.50 = 11.50.
    const shown = (await read(ri.recurInvoiceID, account)).RecurInvoiceCharges.map((c: any) => [
      c.UnitCostEx,
      c.UnitCostInc,
      c.isTaxInclusive,
      c.AmountEx,
      c.AmountInc,
    ]);
    expect(shown).toEqual([
      [10, 11.5, true, 10, 11.5],
      [10, undefined, undefined, 10, 11.5],
    ]);

    setToday('2026-01-31');
    const ctx = await accountContext(t, account.accountId, clock);
    const [invoiceId] = await billRecurringInvoice(ctx, ri.recurInvoiceID);
    const invoice = (await account.request('GET', `/v1/invoices/${invoiceId}`)).body;
    expect(invoice.Charges.map((c: any) => [c.isTaxInclusive ?? false, c.AmountEx, c.AmountInc])).toEqual([
      [true, 10, 11.5],
      [false, 10, 11.5],
    ]);
    expect(invoice.Total).toBe(23);
  });
});
