import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, fieldsOf, other, t } from './fixtures.ts';
import {
  createCredit,
  createInvoice,
  creditBody,
  creditCount,
  creditNumber,
  customerWithInvoice,
  figures,
  invoice,
  postCredit,
  useCreditNotesService,
} from './creditNotes.fixtures.ts';

useCreditNotesService();

describe('POST /v1/credits', () => {
  it('issues a credit note allocated by invoiceID, with exactly the spec fields', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const number = creditNumber();
    const created = await createCredit(
      creditBody(customerID, {
        Date: '05 Mar 2026',
        Amount: 40,
        CreditNumber: number,
        Allocations: [{ invoiceID, amountApplied: 40 }],
      }),
    );
    expect(Object.keys(created).sort()).toEqual(
      [
        'creditNoteID',
        'customerID',
        'Status',
        'Date',
        'CurrencyCode',
        'Amount',
        'CreditNumber',
        'Memo',
        'Allocations',
      ].sort(),
    );
    expect(created).toMatchObject({
      customerID,
      Status: 'Allocated',
      Date: '2026-03-05T00:00:00.000Z',
      CurrencyCode: 'USD',
      Amount: 40,
      CreditNumber: number,
      Memo: 'Goodwill',
    });
    expect(created.Allocations).toEqual([
      {
        allocationID: expect.any(Number),
        amountApplied: 40,
        invoiceID,
        creditNoteID: created.creditNoteID,
      },
    ]);
    expect(await ok(t, 'GET', `/v1/credits/${created.creditNoteID}`)).toEqual(created);
  });

  it('counts in the invoice TotalNegativeAdjs and lists the allocation with its creditNoteID', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    expect(await customerBalance(customerID)).toBe(100);
    const created = await createCredit(
      creditBody(customerID, { Amount: 40, Allocations: [{ invoiceID, amountApplied: 40 }] }),
    );
    const inv = await invoice(invoiceID);
    // 100.00 owed − 40.00 credited = 60.00, nothing paid.
    expect(inv).toMatchObject({
      Total: 100,
      TotalActualPaid: 0,
      TotalPendingPaid: 0,
      TotalNegativeAdjs: 40,
      Balance: 60,
      ActualBalance: 60,
      PaymentsApplied: [],
    });
    expect(inv.Status).not.toBe('Paid');
    expect(inv.NegativeAdjustmentsApplied).toEqual([
      {
        allocationID: created.Allocations[0].allocationID,
        objectID: invoiceID,
        NegativeAdjustmentID: 0,
        creditNoteID: created.creditNoteID,
        amountApplied: 40,
      },
    ]);
    expect(await customerBalance(customerID)).toBe(60);
  });

  it('marks the invoice Paid when credit notes cover it, and lists each of them', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const first = await createCredit(
      creditBody(customerID, { Amount: 30, Allocations: [{ invoiceID, amountApplied: 30 }] }),
    );
    const second = await createCredit(
      creditBody(customerID, { Amount: 70, Allocations: [{ invoiceID, amountApplied: 70 }] }),
    );
    expect(await figures(invoiceID)).toEqual({
      TotalNegativeAdjs: 100,
      Balance: 0,
      ActualBalance: 0,
      Status: 'Paid',
    });
    expect(
      (await invoice(invoiceID)).NegativeAdjustmentsApplied.map((a: any) => [
        a.creditNoteID,
        a.amountApplied,
      ]),
    ).toEqual([
      [first.creditNoteID, 30],
      [second.creditNoteID, 70],
    ]);
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('is Partial when part of it is allocated and Unallocated with an empty list; the rest lowers the customer Balance', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const partial = await createCredit(
      creditBody(customerID, { Amount: 60, Allocations: [{ invoiceID, amountApplied: 25 }] }),
    );
    expect(partial.Status).toBe('Partial');
    // Invoice 100 − 25 allocated = 75 open; the 35 unallocated credit is the customer's: 75 − 35 = 40.
    expect(await customerBalance(customerID)).toBe(40);
    const unallocated = await createCredit(creditBody(customerID, { Amount: 15, Allocations: [] }));
    expect(unallocated).toMatchObject({ Status: 'Unallocated', Allocations: [] });
    expect(await customerBalance(customerID)).toBe(25);
  });

  it('allocates by invoiceNumber, and invoiceID takes priority over invoiceNumber', async () => {
    const { customerID, invoiceID, invoiceNum } = await customerWithInvoice();
    const second = await createInvoice(customerID, 50);
    const byNumber = await createCredit(
      creditBody(customerID, { Amount: 10, Allocations: [{ invoiceNumber: invoiceNum, amountApplied: 10 }] }),
    );
    expect(byNumber.Allocations[0].invoiceID).toBe(invoiceID);
    const asText = await createCredit(
      creditBody(customerID, {
        Amount: 5,
        Allocations: [{ invoiceNumber: String(second.invoiceNum), amountApplied: '5.00' }],
      }),
    );
    expect(asText.Allocations[0]).toMatchObject({ invoiceID: second.invoiceID, amountApplied: 5 });
    // Spec, Credit notes: invoiceID has priority; the invoiceNumber of another invoice is not used.
    const both = await createCredit(
      creditBody(customerID, {
        Amount: 20,
        Allocations: [{ invoiceID: second.invoiceID, invoiceNumber: invoiceNum, amountApplied: 20 }],
      }),
    );
    expect(both.Allocations[0].invoiceID).toBe(second.invoiceID);
    expect((await figures(invoiceID)).TotalNegativeAdjs).toBe(10);
    expect((await figures(second.invoiceID)).TotalNegativeAdjs).toBe(25);
  });

  it('accepts the list as allocations too', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const created = await createCredit(
      creditBody(customerID, { Amount: 12.5, allocations: [{ invoiceID, amountApplied: 12.5 }] }),
    );
    expect(created).toMatchObject({ Status: 'Allocated', Amount: 12.5 });
    expect((await figures(invoiceID)).Balance).toBe(87.5);
  });

  it('applies with AutoApply to the earliest open invoices by InvoiceDate, on to the next', async () => {
    const customerID = await createCustomer(t);
    // Created out of date order, so the order is InvoiceDate's, not creation's.
    const march = await createInvoice(customerID, 100, { InvoiceDate: '2026-03-03' });
    const january = await createInvoice(customerID, 30, { InvoiceDate: '2026-01-05' });
    const february = await createInvoice(customerID, 50, { InvoiceDate: '2026-02-10' });
    const draft = await createInvoice(customerID, 10, { InvoiceDate: '2025-12-01', isDraft: true });
    const cancelled = await createInvoice(customerID, 10, { InvoiceDate: '2025-12-02' });
    await ok(t, 'DELETE', `/v1/invoices/${cancelled.invoiceID}`);
    const rand = await createInvoice(customerID, 10, { InvoiceDate: '2025-12-03', CurrencyCode: 'ZAR' });

    // 100 = 30 (January, in full) + 50 (February, in full) + 20 (March, in part); the draft, the cancelled
    // and the ZAR invoice are passed over. The Allocations list sent alongside is not used.
    const created = await createCredit(
      creditBody(customerID, {
        Amount: 100,
        AutoApply: true,
        Allocations: [{ invoiceID: march.invoiceID, amountApplied: 100 }],
      }),
    );
    expect(created.Status).toBe('Allocated');
    expect(created.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [january.invoiceID, 30],
      [february.invoiceID, 50],
      [march.invoiceID, 20],
    ]);
    expect((await figures(january.invoiceID)).Status).toBe('Paid');
    expect((await figures(february.invoiceID)).Status).toBe('Paid');
    expect(await figures(march.invoiceID)).toMatchObject({ TotalNegativeAdjs: 20, Balance: 80 });
    for (const untouched of [draft, cancelled, rand]) {
      expect((await invoice(untouched.invoiceID)).TotalNegativeAdjs).toBe(0);
    }

    // isAutoApply is the same switch; what is left over stays unallocated.
    const rest = await createCredit(creditBody(customerID, { Amount: 90, isAutoApply: true }));
    expect(rest.Status).toBe('Partial');
    expect(rest.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([[march.invoiceID, 80]]);
    // Every USD invoice is credited in full; 10 of the credit is left: the customer is owed 10.
    expect(await customerBalance(customerID)).toBe(-10);
  });

  it('is Unallocated with AutoApply when nothing is open in its currency', async () => {
    const { customerID } = await customerWithInvoice();
    const created = await createCredit(
      creditBody(customerID, { CurrencyCode: 'ZAR', Amount: 10, AutoApply: true }),
    );
    expect(created).toMatchObject({ Status: 'Unallocated', Allocations: [], CurrencyCode: 'ZAR' });
  });

  it('counts payments already applied when checking what is open on the invoice', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    await ok(t, 'POST', '/v1/payments', {
      customerID,
      Amount: 70,
      CurrencyCode: 'USD',
      Date: '2026-03-04',
      Method: 'eft',
      allocations: [{ invoiceID, amountApplied: 70 }],
    });
    const over = await postCredit(
      creditBody(customerID, { Amount: 40, Allocations: [{ invoiceID, amountApplied: 40 }] }),
    );
    expect(over.status).toBe(422);
    await createCredit(
      creditBody(customerID, { Amount: 30, Allocations: [{ invoiceID, amountApplied: 30 }] }),
    );
    expect(await invoice(invoiceID)).toMatchObject({
      TotalActualPaid: 70,
      TotalNegativeAdjs: 30,
      Balance: 0,
      ActualBalance: 0,
      Status: 'Paid',
    });
  });

  describe('refuses with a 422 naming the field, and writes nothing', () => {
    let customerID: number;
    let invoiceID: number;
    let draftID: number;
    let cancelledID: number;
    let strangerInvoiceID: number;
    let otherAccountInvoiceID: number;

    beforeAll(async () => {
      ({ customerID, invoiceID } = await customerWithInvoice());
      draftID = (await createInvoice(customerID, 10, { isDraft: true })).invoiceID;
      cancelledID = (await createInvoice(customerID, 10)).invoiceID;
      await ok(t, 'DELETE', `/v1/invoices/${cancelledID}`);
      strangerInvoiceID = (await customerWithInvoice()).invoiceID;
      const otherCustomer = await createCustomer(other);
      otherAccountInvoiceID = (await createInvoice(otherCustomer, 10, {}, other)).invoiceID;
    });

    const cases: [string, (ids: Record<string, number>) => Record<string, unknown>, string, RegExp?][] = [
      [
        'an allocation above what is open on the invoice',
        ({ invoiceID }) => ({ Amount: 150, Allocations: [{ invoiceID, amountApplied: 100.01 }] }),
        'Allocations[0]',
        /exceeds what is open on invoice/,
      ],
      [
        'allocations above the Amount',
        ({ invoiceID }) => ({
          Amount: 20,
          Allocations: [
            { invoiceID, amountApplied: 15 },
            { invoiceID, amountApplied: 10 },
          ],
        }),
        'Allocations[1]',
        /exceed the amount of credit note/,
      ],
      [
        'an invoice in another currency',
        ({ invoiceID }) => ({ CurrencyCode: 'ZAR', Allocations: [{ invoiceID, amountApplied: 10 }] }),
        'Allocations[0]',
        /is in USD, credit note \d+ in ZAR/,
      ],
      [
        'a draft invoice',
        ({ draftID }) => ({ Allocations: [{ invoiceID: draftID, amountApplied: 5 }] }),
        'Allocations[0]',
        /is a draft/,
      ],
      [
        'a cancelled invoice',
        ({ cancelledID }) => ({ Allocations: [{ invoiceID: cancelledID, amountApplied: 5 }] }),
        'Allocations[0]',
        /is cancelled/,
      ],
      [
        'an unknown invoiceID',
        () => ({ Allocations: [{ invoiceID: 987654321, amountApplied: 5 }] }),
        'Allocations[0].invoiceID',
        /no such invoice/,
      ],
      [
        'an unknown invoiceNumber',
        () => ({ Allocations: [{ invoiceNumber: 987654321, amountApplied: 5 }] }),
        'Allocations[0].invoiceNumber',
      ],
      [
        'another customer’s invoice',
        ({ strangerInvoiceID }) => ({ Allocations: [{ invoiceID: strangerInvoiceID, amountApplied: 5 }] }),
        'Allocations[0]',
        /belongs to another customer/,
      ],
      [
        'another account’s invoice',
        ({ otherAccountInvoiceID }) => ({
          Allocations: [{ invoiceID: otherAccountInvoiceID, amountApplied: 5 }],
        }),
        'Allocations[0].invoiceID',
      ],
      [
        'an allocation naming no invoice',
        () => ({ Allocations: [{ amountApplied: 5 }] }),
        'Allocations[0].invoiceID',
      ],
      [
        'an allocation to a positive adjustment (credit notes credit invoices only)',
        () => ({ Allocations: [{ positiveAdjustmentID: 1, amountApplied: 5 }] }),
        'Allocations[0].invoiceID',
      ],
      [
        'an allocation without amountApplied',
        ({ invoiceID }) => ({ Allocations: [{ invoiceID }] }),
        'Allocations[0].amountApplied',
      ],
      [
        'an amountApplied with too many decimals',
        ({ invoiceID }) => ({ Allocations: [{ invoiceID, amountApplied: 1.005 }] }),
        'Allocations[0].amountApplied',
      ],
      ['no Allocations without AutoApply', () => ({ Allocations: undefined }), 'Allocations'],
      [
        'no allocations with AutoApply false',
        () => ({ Allocations: undefined, AutoApply: false }),
        'Allocations',
      ],
      ['an Amount with too many decimals', () => ({ Amount: 10.005 }), 'Amount', /at most 2 decimals/],
      ['an Amount of 0', () => ({ Amount: 0 }), 'Amount'],
      ['a negative Amount', () => ({ Amount: -5 }), 'Amount'],
      ['an Amount that is not a number', () => ({ Amount: 'ten' }), 'Amount'],
      ['a Date that is not a date', () => ({ Date: '2026-02-30' }), 'Date'],
      ['a Date in no accepted shape', () => ({ Date: '03/05/2026' }), 'Date'],
      ['a blank CreditNumber', () => ({ CreditNumber: '   ' }), 'CreditNumber'],
      ['no Date', () => ({ Date: undefined }), 'Date'],
      ['no CurrencyCode', () => ({ CurrencyCode: undefined }), 'CurrencyCode'],
      ['a currency not enabled', () => ({ CurrencyCode: 'EUR' }), 'CurrencyCode'],
      ['no customerID', () => ({ customerID: undefined }), 'customerID'],
    ];

    it.each(cases)('%s', async (_name, build, field, message) => {
      const ids = { invoiceID, draftID, cancelledID, strangerInvoiceID, otherAccountInvoiceID };
      const before = { count: await creditCount(), invoice: await figures(invoiceID) };
      const body: Record<string, unknown> = creditBody(customerID, {
        Allocations: [{ invoiceID, amountApplied: 5 }],
        ...build(ids),
      });
      for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
      const res = await postCredit(body);
      expect(res.status, res.text).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(fieldsOf(res)).toContain(field);
      if (message) {
        const problem = res.body.fields.find((f: { field: string }) => f.field === field);
        expect(problem.message).toMatch(message);
      }
      expect(await creditCount()).toBe(before.count);
      expect(await figures(invoiceID)).toEqual(before.invoice);
      expect(await customerBalance(customerID)).toBe(100);
    });
  });

  it('is a 404 for an unknown customer and for another account’s customer', async () => {
    expect((await postCredit(creditBody(987654321, { Allocations: [] }))).status).toBe(404);
    const theirs = await createCustomer(other);
    const res = await postCredit(creditBody(theirs, { Allocations: [] }));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('customer_not_found');
  });

  it('returns 409 when the CreditNumber is taken in the account, by any customer', async () => {
    const { customerID } = await customerWithInvoice();
    const number = creditNumber();
    await createCredit(creditBody(customerID, { CreditNumber: number, Allocations: [] }));
    const count = await creditCount();
    const otherCustomer = await createCustomer(t);
    for (const customer of [customerID, otherCustomer]) {
      const res = await postCredit(creditBody(customer, { CreditNumber: number, Allocations: [] }));
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('credit_number_taken');
      expect(res.body.detail).toContain(number);
    }
    expect(await creditCount()).toBe(count);
    // Another account keeps its own numbers.
    const theirs = await createCustomer(other);
    await createCredit(creditBody(theirs, { CreditNumber: number, Allocations: [] }), other);
  });

  it('returns 409 to one of two concurrent requests for the same CreditNumber', async () => {
    const first = await createCustomer(t);
    const second = await createCustomer(t);
    const number = creditNumber();
    const results = await Promise.all(
      [first, second].map((customer) =>
        postCredit(creditBody(customer, { CreditNumber: number, Allocations: [] })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('credit_number_taken');
    const listed = [
      ...(await ok(t, 'GET', `/v1/customers/${first}/credits`)),
      ...(await ok(t, 'GET', `/v1/customers/${second}/credits`)),
    ];
    expect(listed.map((c: any) => c.CreditNumber)).toEqual([number]);
  });

  it('replays the first response for the same Idempotency-Key and body, and refuses another body', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const body = creditBody(customerID, { Amount: 10, Allocations: [{ invoiceID, amountApplied: 10 }] });
    const headers = { 'Idempotency-Key': `credit-${creditNumber()}` };
    const first = await t.request('POST', '/v1/credits', { body, headers });
    expect(first.status).toBe(201);
    const count = await creditCount();
    const again = await t.request('POST', '/v1/credits', { body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await creditCount()).toBe(count);
    expect((await figures(invoiceID)).TotalNegativeAdjs).toBe(10);
    const changed = await t.request('POST', '/v1/credits', { body: { ...body, Amount: 11 }, headers });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('idempotency_key_reused');
  });
});
