import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, fieldsOf, t } from './fixtures.ts';
import {
  createCredit,
  createInvoice,
  creditBody,
  creditNumber,
  customerWithInvoice,
  figures,
  invoice,
  useCreditNotesService,
} from './creditNotes.fixtures.ts';

useCreditNotesService();

describe('PUT /v1/credits/{creditNoteID}', () => {
  it('edits the fields and adds, edits and deletes allocations, moving the invoices’ figures', async () => {
    const customerID = await createCustomer(t);
    const a = (await createInvoice(customerID, 100, { InvoiceDate: '2026-01-01' })).invoiceID;
    const b = (await createInvoice(customerID, 100, { InvoiceDate: '2026-01-02' })).invoiceID;
    const c = (await createInvoice(customerID, 100, { InvoiceDate: '2026-01-03' })).invoiceID;
    const created = await createCredit(
      creditBody(customerID, {
        Amount: 60,
        Allocations: [
          { invoiceID: a, amountApplied: 30 },
          { invoiceID: b, amountApplied: 30 },
        ],
      }),
    );
    expect(await customerBalance(customerID)).toBe(240);
    const [onA] = created.Allocations;
    const number = creditNumber();

    // a: 30 → 45 (edited); b: deleted (left out); c: 15 added.
    await ok(t, 'PUT', `/v1/credits/${created.creditNoteID}`, {
      customerID,
      Date: '2026-04-01',
      CurrencyCode: 'USD',
      Amount: 60,
      CreditNumber: number,
      Memo: 'Corrected',
      Allocations: [
        { allocationID: onA.allocationID, invoiceID: a, amountApplied: 45 },
        { invoiceID: c, amountApplied: 15 },
      ],
    });
    const edited = await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`);
    expect(edited).toMatchObject({
      Date: '2026-04-01T00:00:00.000Z',
      CreditNumber: number,
      Memo: 'Corrected',
      Status: 'Allocated',
      Amount: 60,
    });
    expect(
      edited.Allocations.map((x: any) => [x.allocationID === onA.allocationID, x.invoiceID, x.amountApplied]),
    ).toEqual([
      [true, a, 45],
      [false, c, 15],
    ]);
    expect((await figures(a)).TotalNegativeAdjs).toBe(45);
    expect(await figures(b)).toMatchObject({ TotalNegativeAdjs: 0, Balance: 100, ActualBalance: 100 });
    expect((await invoice(b)).NegativeAdjustmentsApplied).toEqual([]);
    expect((await figures(c)).Balance).toBe(85);
    // 300 owed − 60 credited, all of it allocated.
    expect(await customerBalance(customerID)).toBe(240);

    // An empty list removes every allocation: the credit stays the customer's, unallocated.
    await ok(t, 'PUT', `/v1/credits/${created.creditNoteID}`, {
      customerID,
      Date: '2026-04-01',
      CurrencyCode: 'USD',
      Amount: 60,
      CreditNumber: number,
      allocations: [],
    });
    const emptied = await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`);
    expect(emptied).toMatchObject({ Status: 'Unallocated', Allocations: [], Memo: null });
    for (const id of [a, b, c]) expect((await figures(id)).TotalNegativeAdjs).toBe(0);
    expect(await customerBalance(customerID)).toBe(240);
  });

  it('raises the Amount together with larger allocations, and lowers it with smaller ones', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const created = await createCredit(
      creditBody(customerID, { Amount: 20, Allocations: [{ invoiceID, amountApplied: 20 }] }),
    );
    const base = {
      customerID,
      Date: '2026-03-05',
      CurrencyCode: 'USD',
      CreditNumber: created.CreditNumber,
    };
    const allocationID = created.Allocations[0].allocationID;
    await ok(t, 'PUT', `/v1/credits/${created.creditNoteID}`, {
      ...base,
      Amount: 90,
      Allocations: [{ allocationID, invoiceID, amountApplied: 90 }],
    });
    expect((await figures(invoiceID)).Balance).toBe(10);
    await ok(t, 'PUT', `/v1/credits/${created.creditNoteID}`, {
      ...base,
      Amount: 5,
      Allocations: [{ allocationID, invoiceID, amountApplied: 5 }],
    });
    expect(await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`)).toMatchObject({
      Amount: 5,
      Status: 'Allocated',
    });
    expect((await figures(invoiceID)).Balance).toBe(95);
    expect(await customerBalance(customerID)).toBe(95);

    // Lowering the Amount below what stays allocated is refused, and nothing changes.
    const res = await t.request('PUT', `/v1/credits/${created.creditNoteID}`, {
      body: { ...base, Amount: 4, Allocations: [{ allocationID, invoiceID, amountApplied: 5 }] },
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(['Allocations[0]']);
    expect((await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`)).Amount).toBe(5);
    expect((await figures(invoiceID)).Balance).toBe(95);
  });

  it('refuses another customerID, a foreign allocationID, a missing list and bad fields with a 422', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const created = await createCredit(
      creditBody(customerID, { Amount: 20, Allocations: [{ invoiceID, amountApplied: 20 }] }),
    );
    const elsewhere = await createCredit(
      creditBody(customerID, { Amount: 5, Allocations: [{ invoiceID, amountApplied: 5 }] }),
    );
    const otherCustomer = await createCustomer(t);
    const base = {
      customerID,
      Date: '2026-03-05',
      CurrencyCode: 'USD',
      Amount: 20,
      CreditNumber: created.CreditNumber,
      Allocations: [{ allocationID: created.Allocations[0].allocationID, invoiceID, amountApplied: 20 }],
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ customerID: otherCustomer }, 'customerID'],
      [
        {
          Allocations: [{ allocationID: elsewhere.Allocations[0].allocationID, invoiceID, amountApplied: 1 }],
        },
        'Allocations[0].allocationID',
      ],
      [{ Allocations: undefined }, 'Allocations'],
      // Spec, Credit notes: PUT takes no AutoApply; one sent anyway is ignored.
      [{ Allocations: undefined, AutoApply: true }, 'Allocations'],
      [{ Amount: 1.234 }, 'Amount'],
      [{ Date: 'soon' }, 'Date'],
      [{ CreditNumber: '' }, 'CreditNumber'],
      [{ Allocations: [{ invoiceID, amountApplied: 90 }] }, 'Allocations[0]'],
    ];
    for (const [change, field] of cases) {
      const body: Record<string, unknown> = { ...base, ...change };
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const res = await t.request('PUT', `/v1/credits/${created.creditNoteID}`, { body });
      expect(res.status, `${field}: ${res.text}`).toBe(422);
      expect(fieldsOf(res)).toContain(field);
    }
    expect(await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`)).toEqual(created);
    expect((await figures(invoiceID)).TotalNegativeAdjs).toBe(25);
  });

  it('returns 409 when the new CreditNumber belongs to another credit note, and keeps its own', async () => {
    const customerID = await createCustomer(t);
    const mine = await createCredit(creditBody(customerID, { Allocations: [] }));
    const theirs = await createCredit(creditBody(customerID, { Allocations: [] }));
    const body = { customerID, Date: '2026-03-05', CurrencyCode: 'USD', Amount: 40, Allocations: [] };
    const res = await t.request('PUT', `/v1/credits/${mine.creditNoteID}`, {
      body: { ...body, CreditNumber: theirs.CreditNumber },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('credit_number_taken');
    await ok(t, 'PUT', `/v1/credits/${mine.creditNoteID}`, { ...body, CreditNumber: mine.CreditNumber });
  });

  it('is a 404 for an unknown credit note', async () => {
    const customerID = await createCustomer(t);
    const res = await t.request('PUT', '/v1/credits/987654321', {
      body: creditBody(customerID, { Allocations: [] }),
    });
    expect(res.status).toBe(404);
  });
});

describe('DELETE /v1/credits/{creditNoteID}', () => {
  it('deletes the credit note and restores every figure it moved', async () => {
    const customerID = await createCustomer(t);
    const first = (await createInvoice(customerID, 30, { InvoiceDate: '2026-01-01' })).invoiceID;
    const second = (await createInvoice(customerID, 100, { InvoiceDate: '2026-01-02' })).invoiceID;
    const before = { first: await figures(first), second: await figures(second) };
    const balance = await customerBalance(customerID);
    expect(balance).toBe(130);

    const created = await createCredit(creditBody(customerID, { Amount: 80, AutoApply: true }));
    expect(await figures(first)).toMatchObject({ TotalNegativeAdjs: 30, Status: 'Paid' });
    expect((await figures(second)).Balance).toBe(50);
    expect(await customerBalance(customerID)).toBe(50);

    await ok(t, 'DELETE', `/v1/credits/${created.creditNoteID}`);
    expect(await figures(first)).toEqual(before.first);
    expect(await figures(second)).toEqual(before.second);
    for (const id of [first, second]) expect((await invoice(id)).NegativeAdjustmentsApplied).toEqual([]);
    expect(await customerBalance(customerID)).toBe(balance);
    expect((await t.request('GET', `/v1/credits/${created.creditNoteID}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/credits/${created.creditNoteID}`)).status).toBe(404);
    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits`)).toEqual([]);

    // Its CreditNumber is free again.
    await createCredit(creditBody(customerID, { CreditNumber: created.CreditNumber, Allocations: [] }));
  });

  it('deletes an unallocated credit note, giving the customer Balance back', async () => {
    const { customerID } = await customerWithInvoice();
    const created = await createCredit(creditBody(customerID, { Amount: 25, Allocations: [] }));
    expect(await customerBalance(customerID)).toBe(75);
    await ok(t, 'DELETE', `/v1/credits/${created.creditNoteID}`);
    expect(await customerBalance(customerID)).toBe(100);
  });
});
