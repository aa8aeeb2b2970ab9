import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import {
  createInvoice,
  fetchPdf,
  fieldsOf,
  invoiceCount,
  mailsTo,
  newCustomer,
  other,
  read,
  t,
  uniqueEmail,
  useInvoiceService,
} from './invoices.fixtures.ts';

useInvoiceService();

// One-off invoices with tax-inclusive charges (docs/pricing.md, "Tax-inclusive prices"): a charge sent with
// UnitCostInc is priced from its gross; one sent with UnitCostEx only is priced as it always was.

const TAXES = [
  { Name: 'VAT', Perc: 0.15 },
  { Name: 'Levy', Perc: 0.02 },
];

describe('tax-inclusive charges on one-off invoices', () => {
  it('splits Qty × UnitCostInc into AmountEx and taxes that add up to it exactly', async () => {
    const customer = await newCustomer();
    const invoice = await createInvoice({
      customerID: customer.customerID,
      Charges: [
        { Descrip: 'Seats', Qty: 3, UnitCostInc: 10 },
        { Descrip: 'Support', Qty: 1, UnitCostEx: 10 },
      ],
      Taxes: TAXES,
    });
    // Seats: 3 × 10.00 = 30.00 with the taxes in it; 30.00 / 1.17 = 25.641… → 25.64; tax 4.36, shared
    // 15 : 2 → 3.847… and 0.512…: 3.84 + 0.51 leave 0.01, to the larger remainder (VAT): 3.85 and 0.51.
    // UnitCostEx shown: 10 / 1.17 = 8.547008… → 8.547.
    // Support, exclusive as before: 10.00 + 1.50 + 0.20 = 11.70. Total 30.00 + 11.70 = 41.70.
    expect(
      invoice.Charges.map((c: any) => [
        c.UnitCostEx,
        c.UnitCostInc,
        c.isTaxInclusive,
        c.AmountEx,
        c.AmountInc,
      ]),
    ).toEqual([
      [8.547, 10, true, 25.64, 30],
      [10, undefined, undefined, 10, 11.7],
    ]);
    expect(invoice.Total).toBe(41.7);
    expect(await read(invoice.invoiceID)).toEqual(invoice);
  });

  it('prices a charge sent with UnitCostEx only as before, even when the account’s prices include tax', async () => {
    const as = await t.newAccount('Gross shop');
    expect((await as.request('PUT', '/v1/account', { body: { isTaxInclusive: true } })).status).toBe(204);
    const customerID = (await as.request('POST', '/v1/customers', { body: { Name: 'Ada' } })).body.customerID;
    const res = await as.request('POST', '/v1/invoices', {
      body: { customerID, Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 100 }], Taxes: [TAXES[0]] },
    });
    expect(res.status, res.text).toBe(201);
    // 100.00 + 15.00: the account's setting is for its catalogue prices, not for what a client sends.
    expect(res.body.Charges[0]).not.toHaveProperty('isTaxInclusive');
    expect(res.body.Total).toBe(115);
  });

  it('keeps a draft’s figures when its charges are sent back as read, and reprices on new taxes', async () => {
    const customer = await newCustomer();
    const draft = await createInvoice({
      customerID: customer.customerID,
      isDraft: true,
      Charges: [{ Descrip: 'Plan', Qty: 1, UnitCostInc: 9.99 }],
      Taxes: [TAXES[0]],
    });
    // 9.99 / 1.15 = 8.6869… → 8.69; VAT 1.30.
    expect(draft.Charges[0]).toMatchObject({ AmountEx: 8.69, AmountInc: 9.99 });
    const put = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { Charges: draft.Charges, Taxes: TAXES },
    });
    expect(put.status, put.text).toBe(204);
    // Same price, now with both taxes in it: 9.99 / 1.17 = 8.538… → 8.54; tax 1.45, 15 : 2 → 1.279… and
    // 0.170…: 1.27 + 0.17 leave 0.01, to the larger remainder (VAT): 1.28 and 0.17. Still 9.99 to pay.
    const after = await read(draft.invoiceID);
    expect(after.Charges[0]).toMatchObject({
      UnitCostInc: 9.99,
      isTaxInclusive: true,
      AmountEx: 8.54,
      AmountInc: 9.99,
    });
    expect(after.Total).toBe(9.99);
  });

  it.each([
    [{ Descrip: 'X', Qty: 1, isTaxInclusive: true, UnitCostEx: 5 }, 'Charges[0].UnitCostInc'],
    [{ Descrip: 'X', Qty: 1, isTaxInclusive: false, UnitCostInc: 5 }, 'Charges[0].isTaxInclusive'],
    [{ Descrip: 'X', Qty: 1 }, 'Charges[0].UnitCostEx'],
    [{ Descrip: 'X', Qty: 1, UnitCostInc: 1.23456 }, 'Charges[0].UnitCostInc'],
    [{ Descrip: 'X', Qty: 1, UnitCostInc: 'abc' }, 'Charges[0].UnitCostInc'],
  ])('refuses %j with 422 naming %s, and makes nothing', async (charge, field) => {
    const customer = await newCustomer();
    const before = await invoiceCount();
    const res = await t.request('POST', '/v1/invoices', {
      body: { customerID: customer.customerID, Charges: [charge], Taxes: TAXES },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(res.body)).toContain(field);
    expect(await invoiceCount()).toBe(before);
  });

  it('says on the PDF and in the e-mail that the prices include tax', async () => {
    const Email = uniqueEmail('gross');
    const customer = await newCustomer(t, { Email });
    const invoice = await createInvoice({
      customerID: customer.customerID,
      Charges: [
        { Descrip: 'Seats', Qty: 3, UnitCostInc: 10 },
        { Descrip: 'Support', Qty: 1, UnitCostEx: 10 },
      ],
      Taxes: TAXES,
    });
    const { text } = await fetchPdf(invoice.invoiceID);
    expect(text).toContain('10.00 *');
    expect(text).toMatch(/Unit prices marked \* include tax/);
    expect(text).toContain('Total USD 41.70');
    expect((await t.request('PUT', `/v1/invoices/${invoice.invoiceID}/send`)).status).toBe(204);
    const mail = await eventually(() => mailsTo(Email)[0]);
    expect(mail.raw).toContain('The prices on it include tax.');

    const exclusive = await createInvoice({
      customerID: customer.customerID,
      Charges: [{ Descrip: 'Support', Qty: 1, UnitCostEx: 10 }],
    });
    expect((await fetchPdf(exclusive.invoiceID)).text).not.toMatch(/include tax/);
  });

  it('another account’s invoice stays 404', async () => {
    const customer = await newCustomer();
    const invoice = await createInvoice({
      customerID: customer.customerID,
      Charges: [{ Descrip: 'Seats', Qty: 1, UnitCostInc: 10 }],
    });
    expect((await other.request('GET', `/v1/invoices/${invoice.invoiceID}`)).status).toBe(404);
  });
});
