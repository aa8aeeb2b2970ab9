import { describe, expect, it } from 'vitest';
import {
  clock,
  createInvoice,
  db,
  fieldsOf,
  newCustomer,
  other,
  read,
  t,
  unique,
  useInvoiceService,
} from './invoices.fixtures.ts';

useInvoiceService();

describe('PUT /v1/invoices/{invoiceID}', () => {
  it('changes the fields sent on a draft and keeps the others; Charges and Taxes replace the lists', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({
      customerID,
      isDraft: true,
      Reference: unique('E'),
      Notes: 'n',
      Taxes: [{ Name: 'VAT', Perc: 0.15 }],
    });
    clock.set('2026-03-10T11:00:00.000Z');
    try {
      const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
        body: { Notes: null, poNumber: 9, Charges: [{ Descrip: 'Hours', Qty: 1.5, UnitCostEx: 80 }] },
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    } finally {
      clock.set('2026-03-10T10:00:00.000Z');
    }
    const after = await read(draft.invoiceID);
    expect(after).toMatchObject({
      Reference: draft.Reference,
      Notes: null,
      poNumber: '9',
      isDraft: true,
      LastUpdated: '2026-03-10T11:00:00.000Z',
      // 1.5 × 80 = 120.00, VAT 18.00 (the taxes were kept).
      Total: 138,
    });
    expect(after.Charges.map((c: any) => [c.Descrip, c.Line, c.AmountEx, c.AmountInc])).toEqual([
      ['Hours', 1, 120, 138],
    ]);
    expect(after.Taxes.map((x: any) => x.Name)).toEqual(['VAT']);

    expect((await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { Taxes: [] } })).status).toBe(
      204,
    );
    expect(await read(draft.invoiceID)).toMatchObject({ Total: 120, Taxes: [] });
  });

  it('reprices the lines when the currency changes, and moves the draft to another customer', async () => {
    const account = await t.newAccount('Reprice');
    expect((await account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'JPY' } })).status).toBe(
      201,
    );
    const a = await newCustomer(account);
    const b = await newCustomer(account, { Name: 'Bob' });
    const draft = await createInvoice(
      { customerID: a.customerID, isDraft: true, Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 10.5 }] },
      account,
    );
    expect(draft.Total).toBe(10.5);
    const res = await account.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { CurrencyCode: 'JPY', customerID: b.customerID },
    });
    expect(res.status).toBe(204);
    // 10.5 yen rounds half away from zero to 11.
    expect(await read(draft.invoiceID, account)).toMatchObject({
      CurrencyCode: 'JPY',
      Total: 11,
      customerID: b.customerID,
      Name: 'Bob',
    });
  });

  it('accepts the invoice as read back, and issues it when isDraft is false', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { ...draft, Notes: 'x' } })).status,
    ).toBe(204);
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { isDraft: false } })).status,
    ).toBe(204);
    const issued = await read(draft.invoiceID);
    expect(issued).toMatchObject({
      isDraft: false,
      Notes: 'x',
      invoiceNum: expect.any(Number),
      Status: 'Due',
    });
  });

  it('answers 409 for an issued or cancelled invoice and changes nothing', async () => {
    const { customerID } = await newCustomer();
    const issued = await createInvoice({ customerID, Notes: 'keep' });
    const res = await t.request('PUT', `/v1/invoices/${issued.invoiceID}`, { body: { Notes: 'changed' } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('invoice_not_draft');
    expect((await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`)).status).toBe(204);
    expect(
      (await t.request('PUT', `/v1/invoices/${issued.invoiceID}`, { body: { Notes: 'changed' } })).status,
    ).toBe(409);
    expect((await read(issued.invoiceID)).Notes).toBe('keep');
  });

  it('refuses bad values with 422 and changes nothing', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({
      customerID,
      isDraft: true,
      InvoiceDate: '2026-03-01',
      DueDate: '2026-03-05',
    });
    for (const [body, field] of [
      [{ InvoiceDate: '2026-03-06' }, 'DueDate'],
      [{ Charges: [{ Descrip: 'x', Qty: 1, UnitCostEx: 1.00001 }], Notes: 'no' }, 'Charges[0].UnitCostEx'],
      [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
      [{ Taxes: [{ Name: 'T', Perc: 1.5 }] }, 'Taxes[0].Perc'],
    ] as const) {
      const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body });
      expect(res.status).toBe(422);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    expect(await read(draft.invoiceID)).toEqual(draft);
  });

  it('answers 409 when the new Reference belongs to another invoice, and allows keeping its own', async () => {
    const { customerID } = await newCustomer();
    const taken = await createInvoice({ customerID, Reference: unique('T') });
    const draft = await createInvoice({ customerID, isDraft: true, Reference: unique('T') });
    const res = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { Reference: taken.Reference },
    });
    expect(res.status).toBe(409);
    expect(
      (await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, { body: { Reference: draft.Reference } }))
        .status,
    ).toBe(204);
  });

  it("answers 404 for an unknown invoice, another account's invoice, or another account's customer", async () => {
    const theirs = await newCustomer(other);
    const theirDraft = await createInvoice({ customerID: theirs.customerID, isDraft: true }, other);
    expect((await t.request('PUT', '/v1/invoices/987654321', { body: { Notes: 'x' } })).status).toBe(404);
    expect(
      (await t.request('PUT', `/v1/invoices/${theirDraft.invoiceID}`, { body: { Notes: 'x' } })).status,
    ).toBe(404);
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    const moved = await t.request('PUT', `/v1/invoices/${draft.invoiceID}`, {
      body: { customerID: theirs.customerID },
    });
    expect(moved.status).toBe(404);
  });
});

describe('PUT /v1/invoices/{invoiceID}/finalize', () => {
  it('issues a draft with the next number, then answers 409', async () => {
    const account = await t.newAccount('Finalize');
    const { customerID } = await newCustomer(account);
    const first = await createInvoice({ customerID }, account);
    const draft = await createInvoice({ customerID, isDraft: true }, account);
    const res = await account.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    expect(res.status).toBe(204);
    expect(await read(draft.invoiceID, account)).toMatchObject({
      isDraft: false,
      invoiceNum: first.invoiceNum + 1,
      Status: 'Due',
    });
    const again = await account.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invoice_not_draft');
    expect((await account.request('PUT', '/v1/invoices/987654321/finalize')).status).toBe(404);
    expect((await other.request('PUT', `/v1/invoices/${draft.invoiceID}/finalize`)).status).toBe(404);
  });
});

describe('DELETE /v1/invoices/{invoiceID}', () => {
  it('deletes a draft', async () => {
    const { customerID } = await newCustomer();
    const draft = await createInvoice({ customerID, isDraft: true });
    expect((await t.request('DELETE', `/v1/invoices/${draft.invoiceID}`)).status).toBe(204);
    expect((await t.request('GET', `/v1/invoices/${draft.invoiceID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/invoices/${draft.invoiceID}`)).status).toBe(404);
  });

  it('cancels an issued invoice, which then owes nothing, and answers 409 to a second cancel', async () => {
    const customer = await newCustomer();
    const issued = await createInvoice({ customerID: customer.customerID });
    clock.set('2026-03-10T12:00:00.000Z');
    try {
      expect((await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`)).status).toBe(204);
    } finally {
      clock.set('2026-03-10T10:00:00.000Z');
    }
    const cancelled = await read(issued.invoiceID);
    expect(cancelled).toMatchObject({
      isCancelled: true,
      Status: 'Cancelled',
      invoiceNum: issued.invoiceNum,
      LastUpdated: '2026-03-10T12:00:00.000Z',
    });
    expect(cancelled.Customer.Balance).toBe(0);
    const again = await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invoice_cancelled');
  });

  it('refuses to cancel an invoice that money is allocated to', async () => {
    const { customerID } = await newCustomer();
    for (const column of ['paid_actual_minor', 'paid_pending_minor', 'negative_adjs_minor'] as const) {
      const issued = await createInvoice({ customerID });
      await db()
        .updateTable('invoices')
        .set({ [column]: 100 })
        .where('id', '=', issued.invoiceID)
        .execute();
      const res = await t.request('DELETE', `/v1/invoices/${issued.invoiceID}`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invoice_has_allocations');
      expect((await read(issued.invoiceID)).isCancelled).toBe(false);
    }
  });

  it("answers 404 for another account's invoice and leaves it", async () => {
    const theirs = await newCustomer(other);
    const invoice = await createInvoice({ customerID: theirs.customerID }, other);
    expect((await t.request('DELETE', `/v1/invoices/${invoice.invoiceID}`)).status).toBe(404);
    expect((await read(invoice.invoiceID, other)).isCancelled).toBe(false);
  });
});
