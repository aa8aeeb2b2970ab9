import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from './helpers/billing.ts';
import { api, killAll, startServer } from './helpers/cli.ts';
import { startTestService } from './helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from './helpers/service.ts';

let t: TestService;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestService();
  other = await t.newAccount();
  await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'ZAR' });
});
afterAll(async () => {
  await killAll();
  await t?.close();
});

let sequence = 0;
const creditNumber = () => `CN-${++sequence}`;

const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);

/** An issued invoice of one line (no tax): its Total is `amount`. */
async function createInvoice(
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

const invoice = (id: number, as: TestAccount = t) => ok(as, 'GET', `/v1/invoices/${id}`);

/** The figures of an invoice that credit notes move. */
async function figures(id: number) {
  const inv = await invoice(id);
  return {
    TotalNegativeAdjs: inv.TotalNegativeAdjs,
    Balance: inv.Balance,
    ActualBalance: inv.ActualBalance,
    Status: inv.Status,
  };
}

const customerBalance = async (customerID: number) =>
  (await ok(t, 'GET', `/v1/customers/${customerID}`)).Balance as number;

function creditBody(customerID: number, body: Record<string, unknown> = {}) {
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

const postCredit = (body: unknown, as: TestAccount = t) => as.request('POST', '/v1/credits', { body });

async function createCredit(body: Record<string, unknown>, as: TestAccount = t): Promise<any> {
  const res = await postCredit(body, as);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A customer with one issued invoice of 100.00. */
async function customerWithInvoice(total = 100) {
  const customerID = await createCustomer(t);
  const inv = await createInvoice(customerID, total);
  expect(inv.Total).toBe(total);
  return { customerID, invoiceID: inv.invoiceID as number, invoiceNum: inv.invoiceNum as number };
}

async function creditCount(as: TestAccount = t): Promise<number> {
  const row = await t.service.storage.db
    .selectFrom('credit_notes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', as.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

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
      ['no CreditNumber', () => ({ CreditNumber: undefined }), 'CreditNumber'],
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

describe('GET /v1/credits and /v1/customers/{customerID}/credits', () => {
  it('lists a customer’s credit notes and the account’s, in creation order, page by page', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const mine = [];
    for (let i = 1; i <= 3; i++) {
      mine.push(await createCredit(creditBody(customerID, { Amount: i, Allocations: [] })));
    }
    const theirs = await createCredit(creditBody(otherCustomer, { Allocations: [] }));

    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits`)).toEqual(mine);
    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits?page=2&page_size=2`)).toEqual([mine[2]]);
    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits?page=3&page_size=2`)).toEqual([]);

    const all = await ok(t, 'GET', '/v1/credits?page_size=200');
    const ids = all.map((c: any) => c.creditNoteID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toEqual(expect.arrayContaining([...mine, theirs].map((c) => c.creditNoteID)));
    const [one] = await ok(t, 'GET', '/v1/credits?page=2&page_size=1');
    expect(one).toEqual(all[1]);
  });

  it.each(['/v1/credits', '/v1/customers/1/credits'])(
    'refuses page_size 0 or 201 and page 0 on %s',
    async (path) => {
      for (const query of ['page_size=0', 'page_size=201', 'page=0', 'page_size=abc']) {
        const res = await t.request('GET', `${path}?${query}`);
        expect(res.status, `${query}: ${res.text}`).toBe(422);
        expect(fieldsOf(res)).toContain(query.split('=')[0]);
      }
    },
  );

  it('is a 404 for an unknown customer, another account’s customer, and an unknown credit note', async () => {
    expect((await t.request('GET', '/v1/customers/987654321/credits')).status).toBe(404);
    const theirs = await createCustomer(other);
    expect((await t.request('GET', `/v1/customers/${theirs}/credits`)).status).toBe(404);
    const res = await t.request('GET', '/v1/credits/987654321');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('credit_note_not_found');
  });
});

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
      [{ CreditNumber: undefined }, 'CreditNumber'],
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

describe('tenant isolation', () => {
  it('cannot see, change or delete another account’s credit notes', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const mine = await createCredit(
      creditBody(customerID, { Amount: 10, Allocations: [{ invoiceID, amountApplied: 10 }] }),
    );
    const theirCustomer = await createCustomer(other);
    const path = `/v1/credits/${mine.creditNoteID}`;

    expect((await other.request('GET', path)).status).toBe(404);
    expect(
      (
        await other.request('PUT', path, {
          body: creditBody(theirCustomer, { Amount: 1, CreditNumber: mine.CreditNumber, Allocations: [] }),
        })
      ).status,
    ).toBe(404);
    expect((await other.request('DELETE', path)).status).toBe(404);
    expect((await other.request('GET', `/v1/customers/${customerID}/credits`)).status).toBe(404);
    expect(
      (await ok(other, 'GET', '/v1/credits?page_size=200')).map((c: any) => c.creditNoteID),
    ).not.toContain(mine.creditNoteID);
    expect(await ok(t, 'GET', path)).toEqual(mine);
    expect((await figures(invoiceID)).TotalNegativeAdjs).toBe(10);
  });
});

describe('concurrent credit notes from two service processes', () => {
  it('creates, edits and deletes one customer’s credit notes through two processes at once, one at a time', async () => {
    const server = await startServer(t.env);
    const as = await t.newAccount('Two processes');
    const viaChild = (method: string, path: string, body?: unknown) =>
      api(server.url, as, method, path, body).then((r) => ({ ...r, text: JSON.stringify(r.body) }));
    const both = (k: number, method: string, path: string, body?: unknown) =>
      k % 2 === 0
        ? as.request(method, path, body === undefined ? {} : { body })
        : viaChild(method, path, body);
    const customerID = await createCustomer(as);
    const invoiceIDs: number[] = [];
    for (let i = 0; i < 8; i++) {
      invoiceIDs.push(
        (await createInvoice(customerID, 50, { InvoiceDate: `2026-01-0${i + 1}` }, as)).invoiceID,
      );
    }
    const statuses = (responses: { status: number; text: string }[]) =>
      responses.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.text}`);

    // 16 credits of 20.00 with AutoApply: 320.00 over 400.00 of invoices, earliest first.
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, k) =>
        both(k, 'POST', '/v1/credits', creditBody(customerID, { Amount: 20, AutoApply: true })),
      ),
    );
    expect(statuses(created)).toEqual([]);
    const ledger = async () => {
      const invoices = await Promise.all(invoiceIDs.map((id) => invoice(id, as)));
      const credits = await ok(as, 'GET', `/v1/customers/${customerID}/credits?page_size=200`);
      return { invoices, credits };
    };
    let { invoices, credits } = await ledger();
    // 320.00 fills the first six invoices (300.00) and 20.00 of the seventh.
    expect(invoices.map((i: any) => i.TotalNegativeAdjs)).toEqual([50, 50, 50, 50, 50, 50, 20, 0]);
    expect(credits.every((c: any) => c.Status === 'Allocated')).toBe(true);

    // Deletions and edits (which read the credit note before taking the customer's lock), across both.
    const changed = await Promise.all([
      ...created.slice(0, 6).map((r, k) => both(k, 'DELETE', `/v1/credits/${r.body.creditNoteID}`)),
      ...created.slice(6, 12).map((r, k) =>
        both(k, 'PUT', `/v1/credits/${r.body.creditNoteID}`, {
          customerID,
          Date: '2026-03-05',
          CurrencyCode: 'USD',
          Amount: 20,
          CreditNumber: r.body.CreditNumber,
          Allocations: [],
        }),
      ),
    ]);
    expect(statuses(changed)).toEqual([]);
    ({ invoices, credits } = await ledger());
    expect(credits).toHaveLength(10);
    const allocated = credits.flatMap((c: any) => c.Allocations);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    // 4 credits keep their allocations (80.00); 6 are unallocated (120.00).
    expect(sum(invoices.map((i: any) => i.TotalNegativeAdjs))).toBe(80);
    expect(sum(allocated.map((a: any) => a.amountApplied))).toBe(80);
    for (const inv of invoices) {
      expect(inv.NegativeAdjustmentsApplied.map((a: any) => a.allocationID).sort()).toEqual(
        allocated
          .filter((a: any) => a.invoiceID === inv.invoiceID)
          .map((a: any) => a.allocationID)
          .sort(),
      );
    }
    // 400.00 owed − 80.00 credited − 120.00 unallocated credit.
    expect((await ok(as, 'GET', `/v1/customers/${customerID}`)).Balance).toBe(200);
  });
});
