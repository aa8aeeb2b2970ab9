import { describe, expect, it } from 'vitest';
import {
  create,
  day,
  fieldsOf,
  read,
  setToday,
  t,
  useRecurringInvoiceService,
} from './recurringInvoices.fixtures.ts';

useRecurringInvoiceService();

let referenceSeq = 0;

describe('PUT /v1/recurring-invoices/{id}', () => {
  it('changes the fields sent, keeps the others, and clears those sent as null', async () => {
    const created = await create({
      Reference: `E-${++referenceSeq}`,
      EndDate: '2027-01-01',
      InvoiceNotes: 'n',
    });
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { EndDate: null, InvoiceNotes: null, InvoiceTerms: 'Net 7', numDaysBeforeToInv: 3 },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await read(created.recurInvoiceID);
    expect(after).toMatchObject({
      EndDate: null,
      InvoiceNotes: null,
      InvoiceTerms: 'Net 7',
      numDaysBeforeToInv: 3,
      Reference: created.Reference,
      RecurInvoiceCharges: created.RecurInvoiceCharges,
    });
  });

  it('replaces the charges and the taxes when sent, pricing the charges with the new taxes', async () => {
    const created = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }] });
    const id = created.recurInvoiceID;
    await t.request('PUT', `/v1/recurring-invoices/${id}`, {
      body: { RecurInvoiceCharges: [{ Descrip: 'Licence', Qty: 2, UnitCostEx: 12.5 }] },
    });
    let after = await read(id);
    expect(after.RecurInvoiceCharges).toEqual([
      expect.objectContaining({
        Line: 1,
        Descrip: 'Licence',
        Qty: 2,
        UnitCostEx: 12.5,
        AmountEx: 25,
        AmountInc: 28.75,
      }),
    ]);
    // Taxes alone: 25.00 × 0.1 = 2.50 → AmountInc 27.50.
    await t.request('PUT', `/v1/recurring-invoices/${id}`, {
      body: { Taxes: [{ Name: 'Levy', Perc: 0.1 }] },
    });
    after = await read(id);
    expect(after.Taxes).toEqual([expect.objectContaining({ Name: 'Levy', Perc: 0.1 })]);
    expect(after.RecurInvoiceCharges[0]).toMatchObject({ AmountEx: 25, AmountInc: 27.5 });
    await t.request('PUT', `/v1/recurring-invoices/${id}`, { body: { Taxes: [] } });
    expect((await read(id)).RecurInvoiceCharges[0]).toMatchObject({ AmountInc: 25 });
  });

  it('accepts the whole object as read back, including read-only fields, and changes nothing', async () => {
    const created = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }], EndDate: '2027-04-01' });
    setToday('2026-03-11');
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, { body: created });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const after = await read(created.recurInvoiceID);
    // Sent back, the lists are written anew (new line ids); everything else reads as before but LastModified.
    const withoutIds = (r: any) => ({
      ...r,
      LastModified: undefined,
      Taxes: r.Taxes.map(({ recurringinvoiceTaxID: _, ...tax }: any) => tax),
      RecurInvoiceCharges: r.RecurInvoiceCharges.map(({ recurInvoiceChargeID: _, ...charge }: any) => charge),
      RecurInvoiceCharge: undefined,
    });
    expect(withoutIds(after)).toEqual(withoutIds(created));
    expect(after.LastModified).toBe('2026-03-11T09:00:00.000Z');
  });

  it('moves the schedule before the first invoice', async () => {
    const created = await create({ StartDate: '2026-04-01' });
    await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { StartDate: '2026-05-15', Term: 14, TermType: 'DAYS' },
    });
    expect(await read(created.recurInvoiceID)).toMatchObject({
      StartDate: day('2026-05-15'),
      nextRenewDate: day('2026-05-15'),
      Term: 14,
      TermType: 'days',
    });
  });

  it.each([
    [{ EndDate: '2026-04-01' }, 'EndDate'],
    [{ StartDate: '2027-05-01' }, 'EndDate'],
    [{ TermType: 'years' }, 'TermType'],
    [{ RecurInvoiceCharges: [{ Descrip: 'x', Qty: 0, UnitCostEx: 1 }] }, 'RecurInvoiceCharges[0].Qty'],
    [{ customerID: 987654 }, 'customerID'],
    [{ CurrencyCode: 'EUR' }, 'CurrencyCode'],
    [{ CollectionMethod: 'credit_card' }, 'gatewayID'],
  ])('refuses %j with 422 naming %s and changes nothing', async (bad, field) => {
    const created = await create({ EndDate: '2027-04-01', InvoiceNotes: 'kept' });
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`, {
      body: { InvoiceNotes: 'changed', ...bad },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect(await read(created.recurInvoiceID)).toEqual(created);
  });

  it('answers 409 when the new Reference belongs to another one, and allows keeping its own', async () => {
    const first = await create({ Reference: `P-${++referenceSeq}` });
    const second = await create({ Reference: `P-${++referenceSeq}` });
    const path = `/v1/recurring-invoices/${second.recurInvoiceID}`;
    const res = await t.request('PUT', path, { body: { reference: first.Reference } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('reference_taken');
    expect((await t.request('PUT', path, { body: { Reference: second.Reference } })).status).toBe(204);
  });

  it('accepts an edit with no body as an edit of nothing, and answers 404 for an unknown id', async () => {
    const created = await create();
    expect((await t.request('PUT', `/v1/recurring-invoices/${created.recurInvoiceID}`)).status).toBe(204);
    expect((await t.request('PUT', '/v1/recurring-invoices/987654', { body: { Term: 2 } })).status).toBe(404);
    expect((await t.request('PUT', '/v1/recurring-invoices/abc', { body: {} })).status).toBe(422);
  });
});

describe('cancel, reactivate, delete', () => {
  it('cancels (no next dates, Cancelled), refuses a second cancel, and reactivates', async () => {
    const { recurInvoiceID } = await create();
    const path = `/v1/recurring-invoices/${recurInvoiceID}`;
    expect((await t.request('PUT', `${path}/cancel`)).status).toBe(204);
    expect(await read(recurInvoiceID)).toMatchObject({
      isCancelled: true,
      comp_Status: 'Cancelled',
      nextRenewDate: null,
    });
    const again = await t.request('PUT', `${path}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('recurring_invoice_cancelled');
    expect((await t.request('PUT', `${path}/reactivate`, { rawBody: '' })).status).toBe(204);
    expect(await read(recurInvoiceID)).toMatchObject({
      isCancelled: false,
      comp_Status: 'Future',
      nextRenewDate: day('2026-04-01'),
    });
    const notCancelled = await t.request('PUT', `${path}/reactivate`);
    expect(notCancelled.status).toBe(409);
    expect(notCancelled.body.code).toBe('recurring_invoice_not_cancelled');
  });

  it('deletes one that made no invoice', async () => {
    const { recurInvoiceID } = await create({ Taxes: [{ Name: 'VAT', Perc: 0.15 }] });
    expect((await t.request('DELETE', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(204);
    expect((await t.request('GET', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/recurring-invoices/${recurInvoiceID}`)).status).toBe(404);
  });

  it.each(['cancel', 'reactivate'])('answers 404 to %s of an unknown id', async (path) => {
    expect((await t.request('PUT', `/v1/recurring-invoices/987654/${path}`)).status).toBe(404);
  });
});
