import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, movableClock, ok } from './helpers/billing.ts';
import { startTestService } from './helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from './helpers/service.ts';

// Today is 2026-03-10 for the service: invoices due 2026-03-31 are Due, not Past Due, while unpaid.
const clock = movableClock('2026-03-10T10:00:00.000Z');
let t: TestService;
let other: TestAccount;

beforeAll(async () => {
  t = await startTestService({ clock });
  other = await t.newAccount('Other Account');
  await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
  await ok(t, 'POST', '/v1/currencies', { CurrencyCode: 'JPY' });
});
afterAll(() => t?.close());

const PAYMENT_FIELDS = [
  'paymentID',
  'customerID',
  'Amount',
  'CurrencyCode',
  'Date',
  'Memo',
  'Ref',
  'Method',
  'Status',
  'allocations',
].sort();

interface InvoiceOptions {
  date?: string;
  isDraft?: boolean;
  account?: TestAccount;
}

/** An issued invoice of one line (no tax): its Total is `amount`. */
async function newInvoice(customerId: number, amount: number, options: InvoiceOptions = {}): Promise<any> {
  const invoice = await ok(options.account ?? t, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: options.date ?? '2026-03-01',
    DueDate: '2026-03-31',
    isDraft: options.isDraft ?? false,
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }],
  });
  expect(invoice.Total).toBe(amount);
  return invoice;
}

/** The money figures of an invoice, as GET answers them. */
async function figures(invoiceId: number, as: TestAccount = t) {
  const invoice = await ok(as, 'GET', `/v1/invoices/${invoiceId}`);
  return {
    TotalActualPaid: invoice.TotalActualPaid,
    TotalPendingPaid: invoice.TotalPendingPaid,
    Balance: invoice.Balance,
    ActualBalance: invoice.ActualBalance,
    Status: invoice.Status,
    PaymentsApplied: invoice.PaymentsApplied,
  };
}

const customerBalance = async (customerId: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance as number;

/** A cash payment of `amount` USD dated 2026-03-05, with these allocations. */
function paymentBody(
  customerId: number,
  amount: unknown,
  allocations: unknown[] | undefined,
  extra: Record<string, unknown> = {},
) {
  return {
    customerID: customerId,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: '2026-03-05',
    Method: 'cash',
    ...(allocations === undefined ? {} : { allocations }),
    ...extra,
  };
}

const postPayment = (body: unknown, as: TestAccount = t) => as.request('POST', '/v1/payments', { body });

async function pay(body: unknown, as: TestAccount = t): Promise<any> {
  return ok(as, 'POST', '/v1/payments', body);
}

/** A 422 whose field list names `field` (and, when given, says something containing `message` about it). */
function expectInvalid(res: ApiResponse, field: string, message?: string): void {
  expect(res.status, res.text).toBe(422);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const problem = (res.body.fields as { field: string; message: string }[]).find((f) => f.field === field);
  expect(problem, `no problem for ${field} in ${res.text}`).toBeDefined();
  if (message !== undefined) expect(problem!.message).toContain(message);
}

const paymentsOf = async (customerId: number, as: TestAccount = t) =>
  (await ok(as, 'GET', `/v1/customers/${customerId}/payments?page_size=200`)) as any[];

describe('POST /v1/payments', () => {
  it('answers 201 with the payment and exactly the spec fields, allocations included', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const res = await postPayment(
      paymentBody(customerId, 60.5, [{ invoiceID: invoice.invoiceID, amountApplied: 60.5 }], {
        Memo: 'March',
        Ref: 'CHQ-1',
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PAYMENT_FIELDS);
    const paymentId = res.body.paymentID;
    expect(paymentId).toEqual(expect.any(Number));
    expect(res.body).toEqual({
      paymentID: paymentId,
      customerID: customerId,
      Amount: 60.5,
      CurrencyCode: 'USD',
      Date: '2026-03-05T00:00:00.000Z',
      Memo: 'March',
      Ref: 'CHQ-1',
      Method: 'cash',
      Status: 'Allocated',
      allocations: [
        {
          allocationID: expect.any(Number),
          amountApplied: 60.5,
          invoiceID: invoice.invoiceID,
          positiveAdjustmentID: 0,
          paymentID: paymentId,
        },
      ],
    });
  });

  it('lowers the invoice Balance and ActualBalance, counts TotalActualPaid and lists the payment in PaymentsApplied', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay(
      paymentBody(customerId, 60.5, [{ invoiceID: invoice.invoiceID, amountApplied: 60.5 }]),
    );
    // 100 − 60.50 = 39.50 still due; nothing pending, so Balance and ActualBalance agree.
    expect(await figures(invoice.invoiceID)).toEqual({
      TotalActualPaid: 60.5,
      TotalPendingPaid: 0,
      Balance: 39.5,
      ActualBalance: 39.5,
      Status: 'Due',
      PaymentsApplied: [
        {
          allocationID: payment.allocations[0].allocationID,
          invoiceID: invoice.invoiceID,
          paymentID: payment.paymentID,
          amountApplied: 60.5,
        },
      ],
    });
    expect(await customerBalance(customerId)).toBe(39.5);
  });

  it('marks the invoice Paid once payments cover it', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const first = await pay(
      paymentBody(customerId, 60, [{ invoiceID: invoice.invoiceID, amountApplied: 60 }]),
    );
    const second = await pay(
      paymentBody(customerId, 40, [{ invoiceID: invoice.invoiceID, amountApplied: 40 }]),
    );
    const after = await figures(invoice.invoiceID);
    expect(after).toMatchObject({ TotalActualPaid: 100, Balance: 0, ActualBalance: 0, Status: 'Paid' });
    expect(after.PaymentsApplied.map((p: any) => [p.paymentID, p.amountApplied])).toEqual([
      [first.paymentID, 60],
      [second.paymentID, 40],
    ]);
    expect(await customerBalance(customerId)).toBe(0);
  });

  it('is Partial when allocations cover part of the amount; the rest lowers the customer Balance', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay(
      paymentBody(customerId, 100, [{ invoiceID: invoice.invoiceID, amountApplied: 30 }]),
    );
    expect(payment.Status).toBe('Partial');
    expect(await figures(invoice.invoiceID)).toMatchObject({ TotalActualPaid: 30, Balance: 70 });
    // Invoice 70 still due − 70 paid and not allocated = 0.
    expect(await customerBalance(customerId)).toBe(0);
  });

  it('is Unallocated with an empty allocation list', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay(paymentBody(customerId, 50, []));
    expect(payment.Status).toBe('Unallocated');
    expect(payment.allocations).toEqual([]);
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalActualPaid: 0,
      Balance: 100,
      Status: 'Due',
    });
    // 100 owed − 50 paid on account.
    expect(await customerBalance(customerId)).toBe(50);
  });

  it.each([
    ['strings', '10.50', '10.5'],
    ['numbers', 10.5, 10.5],
    ['a string amount with a number applied', '10.5', 10.5],
  ])('accepts amounts as %s and answers numbers', async (_kind, amount, applied) => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay(
      paymentBody(customerId, amount, [{ invoiceID: invoice.invoiceID, amountApplied: applied }]),
    );
    expect(payment.Amount).toBe(10.5);
    expect(payment.allocations[0].amountApplied).toBe(10.5);
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(10.5);
  });

  it('accepts the list under Allocations and amounts as AmtAllocated', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay({
      ...paymentBody(customerId, 25, undefined),
      Allocations: [{ invoiceID: invoice.invoiceID, AmtAllocated: 25 }],
    });
    expect(payment.allocations).toMatchObject([{ invoiceID: invoice.invoiceID, amountApplied: 25 }]);
  });

  it('accepts a Date as DD Mon YYYY and leaves Memo and Ref null when not sent', async () => {
    const customerId = await createCustomer(t);
    const payment = await pay(paymentBody(customerId, 5, [], { Date: '05 Feb 2026' }));
    expect(payment.Date).toBe('2026-02-05T00:00:00.000Z');
    expect(payment.Memo).toBeNull();
    expect(payment.Ref).toBeNull();
  });

  it('answers 404 for an unknown customer and for a customer of another account', async () => {
    const unknown = await postPayment(paymentBody(999_999, 5, []));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('customer_not_found');
    const theirs = await createCustomer(other);
    expect((await postPayment(paymentBody(theirs, 5, []))).status).toBe(404);
    expect(await paymentsOf(theirs, other)).toEqual([]);
  });
});

describe('Payments rule 1: AutoApply', () => {
  it('applies the payment to the earliest invoice by InvoiceDate, then on to the next', async () => {
    const customerId = await createCustomer(t);
    const march = await newInvoice(customerId, 50, { date: '2026-03-01' });
    const january = await newInvoice(customerId, 30, { date: '2026-01-15' });
    const february = await newInvoice(customerId, 40, { date: '2026-02-01' });
    // 60: January's 30 in full, then 30 of February's 40; nothing left for March.
    const payment = await pay(paymentBody(customerId, 60, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Allocated');
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [january.invoiceID, 30],
      [february.invoiceID, 30],
    ]);
    expect(await figures(january.invoiceID)).toMatchObject({ Balance: 0, Status: 'Paid' });
    expect(await figures(february.invoiceID)).toMatchObject({ TotalActualPaid: 30, Balance: 10 });
    expect(await figures(march.invoiceID)).toMatchObject({ TotalActualPaid: 0, Balance: 50 });
  });

  it('orders invoices of the same InvoiceDate by invoiceNum, not by when they were created', async () => {
    const customerId = await createCustomer(t);
    // The draft is created first but numbered last, when it is finalized.
    const draft = await newInvoice(customerId, 20, { isDraft: true });
    const issued = await newInvoice(customerId, 20);
    await ok(t, 'PUT', `/v1/invoices/${draft.invoiceID}/finalize`, {});
    const finalized = await ok(t, 'GET', `/v1/invoices/${draft.invoiceID}`);
    expect(finalized.invoiceNum).toBeGreaterThan(issued.invoiceNum);
    const payment = await pay(paymentBody(customerId, 25, undefined, { AutoApply: true }));
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [issued.invoiceID, 20],
      [draft.invoiceID, 5],
    ]);
  });

  it('passes over drafts, cancelled and paid invoices, other currencies and other customers', async () => {
    const customerId = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    await newInvoice(customerId, 10, { date: '2026-01-01', isDraft: true });
    const cancelled = await newInvoice(customerId, 10, { date: '2026-01-02' });
    await ok(t, 'DELETE', `/v1/invoices/${cancelled.invoiceID}`);
    const paid = await newInvoice(customerId, 10, { date: '2026-01-03' });
    await pay(paymentBody(customerId, 10, [{ invoiceID: paid.invoiceID, amountApplied: 10 }]));
    await newInvoice(otherCustomer, 10, { date: '2026-01-01' });
    const eurCustomer = await createCustomer(t, { CurrencyCode: 'EUR' });
    await newInvoice(eurCustomer, 10, { date: '2026-01-01' });
    const open = await newInvoice(customerId, 10, { date: '2026-02-01' });
    const payment = await pay(paymentBody(customerId, 10, undefined, { AutoApply: true }));
    expect(payment.allocations.map((a: any) => a.invoiceID)).toEqual([open.invoiceID]);
  });

  it('ignores the allocations sent with AutoApply, even ones that would be refused', async () => {
    const customerId = await createCustomer(t);
    const earliest = await newInvoice(customerId, 40, { date: '2026-01-01' });
    const later = await newInvoice(customerId, 40, { date: '2026-02-01' });
    const payment = await pay(
      paymentBody(
        customerId,
        30,
        [
          { invoiceID: later.invoiceID, amountApplied: 30 },
          { invoiceID: 999_999, amountApplied: 1 },
        ],
        { AutoApply: true },
      ),
    );
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [earliest.invoiceID, 30],
    ]);
    expect((await figures(later.invoiceID)).TotalActualPaid).toBe(0);
  });

  it('accepts isAutoApply for AutoApply', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    const payment = await pay(paymentBody(customerId, 15, undefined, { isAutoApply: true }));
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [invoice.invoiceID, 15],
    ]);
  });

  it('leaves what is beyond every open invoice unallocated: Partial, and a credit on the customer Balance', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    const payment = await pay(paymentBody(customerId, 100, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Partial');
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [invoice.invoiceID, 40],
    ]);
    // 0 owed − 60 paid and not allocated.
    expect(await customerBalance(customerId)).toBe(-60);
  });

  it('records the payment Unallocated when nothing is open', async () => {
    const customerId = await createCustomer(t);
    const payment = await pay(paymentBody(customerId, 15, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Unallocated');
    expect(payment.allocations).toEqual([]);
  });

  it.each([
    ['AutoApply is absent', {}],
    ['AutoApply is false', { AutoApply: false }],
    ['isAutoApply is false', { isAutoApply: false }],
  ])('requires allocations when %s', async (_case, extra) => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 15, undefined, extra)),
      'allocations',
      'is required',
    );
    expect(await paymentsOf(customerId)).toEqual([]);
  });
});

describe('Payments rule 2: naming the invoice', () => {
  it('uses invoiceID over invoiceNumber when both are sent', async () => {
    const customerId = await createCustomer(t);
    const byId = await newInvoice(customerId, 40);
    const byNumber = await newInvoice(customerId, 40);
    const payment = await pay(
      paymentBody(customerId, 10, [
        { invoiceID: byId.invoiceID, invoiceNumber: byNumber.invoiceNum, amountApplied: 10 },
      ]),
    );
    expect(payment.allocations[0].invoiceID).toBe(byId.invoiceID);
    expect((await figures(byNumber.invoiceID)).TotalActualPaid).toBe(0);
  });

  it.each([
    ['a number', (n: number) => n],
    ['a string', (n: number) => String(n)],
  ])('finds the invoice by invoiceNumber given as %s when invoiceID is empty', async (_kind, spell) => {
    const customerId = await createCustomer(t);
    await newInvoice(customerId, 40);
    const target = await newInvoice(customerId, 40);
    const payment = await pay(
      paymentBody(customerId, 10, [
        { invoiceID: 0, invoiceNumber: spell(target.invoiceNum), amountApplied: 10 },
      ]),
    );
    expect(payment.allocations[0].invoiceID).toBe(target.invoiceID);
    expect((await figures(target.invoiceID)).TotalActualPaid).toBe(10);
  });

  it('answers 422 naming invoiceNumber when no invoice has that number', async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ invoiceNumber: 987_654, amountApplied: 10 }])),
      'allocations[0].invoiceNumber',
      '987654',
    );
  });

  it('answers 422 naming invoiceNumber when it is not a number', async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ invoiceNumber: 'INV-1', amountApplied: 10 }])),
      'allocations[0].invoiceNumber',
    );
  });

  it('answers 422 when an allocation names neither an invoice nor a positive adjustment', async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ amountApplied: 10 }])),
      'allocations[0].invoiceID',
      'invoiceID, invoiceNumber or positiveAdjustmentID is required',
    );
  });
});

describe('Payments rule 3: an invoice or a positive adjustment, not both', () => {
  it('answers 422 when an allocation names an invoice and a positiveAdjustmentID', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    const res = await postPayment(
      paymentBody(customerId, 10, [
        { invoiceID: invoice.invoiceID, positiveAdjustmentID: 1, amountApplied: 10 },
      ]),
    );
    expectInvalid(res, 'allocations[0].positiveAdjustmentID', 'not both');
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(0);
  });

  it('answers 422 for an invoiceNumber with a positiveAdjustmentID too', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 10, [
          { invoiceNumber: invoice.invoiceNum, positiveAdjustmentID: 1, amountApplied: 10 },
        ]),
      ),
      'allocations[0].positiveAdjustmentID',
    );
  });
});

describe('refused allocations: a 422 naming the allocation, and nothing changed', () => {
  it('refuses more than is still due on an invoice, counting other payments', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    await pay(paymentBody(customerId, 60, [{ invoiceID: invoice.invoiceID, amountApplied: 60 }]));
    const res = await postPayment(
      paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 40.01 }]),
    );
    expectInvalid(
      res,
      'allocations[0]',
      `exceeds what is open on invoice ${invoice.invoiceID}: 40.00 can be applied, 40.01 was asked`,
    );
    // Exactly what is left is accepted.
    await pay(paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 40 }]));
    expect((await figures(invoice.invoiceID)).Status).toBe('Paid');
  });

  it('refuses two allocations to one invoice that together exceed what is due, naming the second', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 50);
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 60, [
          { invoiceID: invoice.invoiceID, amountApplied: 30 },
          { invoiceID: invoice.invoiceID, amountApplied: 30 },
        ]),
      ),
      'allocations[1]',
      'exceeds what is open',
    );
  });

  it('refuses allocations adding up to more than the Amount', async () => {
    const customerId = await createCustomer(t);
    const first = await newInvoice(customerId, 100);
    const second = await newInvoice(customerId, 100);
    const res = await postPayment(
      paymentBody(customerId, 50, [
        { invoiceID: first.invoiceID, amountApplied: 30 },
        { invoiceID: second.invoiceID, amountApplied: 30 },
      ]),
    );
    expectInvalid(res, 'allocations[1]', 'exceed the amount of payment');
    expect(await paymentsOf(customerId)).toEqual([]);
  });

  it('refuses an invoice in another currency than the payment', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const res = await postPayment(
      paymentBody(customerId, 10, [{ invoiceID: invoice.invoiceID, amountApplied: 10 }], {
        CurrencyCode: 'EUR',
      }),
    );
    expectInvalid(res, 'allocations[0]', `invoice ${invoice.invoiceID} is in USD`);
  });

  it.each([
    ['a draft', 'is a draft', async (customerId: number) => newInvoice(customerId, 100, { isDraft: true })],
    [
      'a cancelled invoice',
      'is cancelled',
      async (customerId: number) => {
        const invoice = await newInvoice(customerId, 100);
        await ok(t, 'DELETE', `/v1/invoices/${invoice.invoiceID}`);
        return invoice;
      },
    ],
    [
      "another customer's invoice",
      'belongs to another customer',
      async () => newInvoice(await createCustomer(t), 100),
    ],
  ])('refuses %s', async (_kind, message, makeInvoice) => {
    const customerId = await createCustomer(t);
    const invoice = await makeInvoice(customerId);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ invoiceID: invoice.invoiceID, amountApplied: 10 }])),
      'allocations[0]',
      `invoice ${invoice.invoiceID} ${message}`,
    );
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(0);
  });

  it("refuses an unknown invoice, and another account's invoice as unknown", async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ invoiceID: 999_999, amountApplied: 10 }])),
      'allocations[0].invoiceID',
      'no such invoice: 999999',
    );
    const theirInvoice = await newInvoice(await createCustomer(other), 100, { account: other });
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 10, [{ invoiceID: theirInvoice.invoiceID, amountApplied: 10 }]),
      ),
      'allocations[0].invoiceID',
      'no such invoice',
    );
    expect((await figures(theirInvoice.invoiceID, other)).TotalActualPaid).toBe(0);
  });

  it.each([
    [0, 'must be greater than 0'],
    [-5, 'must be greater than 0'],
    ['10.505', 'must have at most 2 decimals in USD'],
    [10.505, 'must have at most 2 decimals in USD'],
    ['abc', 'must be a decimal number'],
    ['1e1', 'must be a decimal number'],
    [null, 'is required'],
  ])('refuses the amountApplied %j', async (amountApplied, message) => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    expectInvalid(
      await postPayment(paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied }])),
      'allocations[0].amountApplied',
      message,
    );
  });

  it('refuses an allocation without amountApplied', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    expectInvalid(
      await postPayment(paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID }])),
      'allocations[0].amountApplied',
      'is required',
    );
  });

  it('changes nothing when one allocation of several is refused', async () => {
    const customerId = await createCustomer(t);
    const good = await newInvoice(customerId, 100);
    const draft = await newInvoice(customerId, 100, { isDraft: true });
    await pay(paymentBody(customerId, 10, [{ invoiceID: good.invoiceID, amountApplied: 10 }]));
    const invoiceBefore = await figures(good.invoiceID);
    const paymentsBefore = await paymentsOf(customerId);
    const balanceBefore = await customerBalance(customerId);
    const res = await postPayment(
      paymentBody(customerId, 50, [
        { invoiceID: good.invoiceID, amountApplied: 20 },
        { invoiceID: draft.invoiceID, amountApplied: 20 },
      ]),
    );
    expectInvalid(res, 'allocations[1]', 'is a draft');
    expect(res.body.fields).toHaveLength(1);
    expect(await figures(good.invoiceID)).toEqual(invoiceBefore);
    expect(await paymentsOf(customerId)).toEqual(paymentsBefore);
    expect(await ok(t, 'GET', '/v1/payments?page_size=200')).not.toContainEqual(
      expect.objectContaining({ customerID: customerId, Amount: 50 }),
    );
    expect(await customerBalance(customerId)).toBe(balanceBefore);
  });
});

describe('refused payment fields', () => {
  it.each([
    [0, 'must be greater than 0'],
    ['0.00', 'must be greater than 0'],
    [-1, 'must be greater than 0'],
    [10.001, 'must have at most 2 decimals in USD'],
    ['1e3', 'must be a decimal number'],
    ['ten', 'must be a decimal number'],
    ['100000000000', 'must be at most 99999999999.99'],
    [true, 'must be a number or a string'],
  ])('refuses the Amount %j', async (amount, message) => {
    const customerId = await createCustomer(t);
    expectInvalid(await postPayment(paymentBody(customerId, amount, [])), 'Amount', message);
    expect(await paymentsOf(customerId)).toEqual([]);
  });

  it('accepts the largest Amount', async () => {
    const customerId = await createCustomer(t);
    expect((await pay(paymentBody(customerId, '99999999999.99', []))).Amount).toBe(99999999999.99);
  });

  it.each([['2026-02-30'], ['tomorrow'], [''], ['05/03/2026'], [20260305]])(
    'refuses the Date %j',
    async (date) => {
      const customerId = await createCustomer(t);
      expectInvalid(await postPayment(paymentBody(customerId, 10, [], { Date: date })), 'Date');
    },
  );

  it.each([['bitcoin'], ['Cash'], ['']])('refuses the Method %j', async (method) => {
    const customerId = await createCustomer(t);
    expectInvalid(await postPayment(paymentBody(customerId, 10, [], { Method: method })), 'Method');
  });

  it.each([['cash'], ['cheque'], ['credit_card'], ['bank_account'], ['eft'], ['debit_order']])(
    'accepts the Method %s',
    async (method) => {
      const customerId = await createCustomer(t);
      expect((await pay(paymentBody(customerId, 10, [], { Method: method }))).Method).toBe(method);
    },
  );

  it('refuses a currency the account has not enabled, and an unknown one', async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [], { CurrencyCode: 'GBP' })),
      'CurrencyCode',
    );
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [], { CurrencyCode: 'ABC' })),
      'CurrencyCode',
    );
  });

  it.each(['customerID', 'Amount', 'CurrencyCode', 'Date', 'Method'])('requires %s', async (field) => {
    const customerId = await createCustomer(t);
    const body: Record<string, unknown> = paymentBody(customerId, 10, []);
    delete body[field];
    expectInvalid(await postPayment(body), field, 'is required');
  });
});

describe('payments in a currency without decimals (JPY)', () => {
  it('takes whole yen and refuses fractions', async () => {
    const customerId = await createCustomer(t, { CurrencyCode: 'JPY' });
    const invoice = await newInvoice(customerId, 1500);
    const payment = await pay(
      paymentBody(customerId, '1000', [{ invoiceID: invoice.invoiceID, amountApplied: 1000 }], {
        CurrencyCode: 'JPY',
      }),
    );
    expect(payment).toMatchObject({ Amount: 1000, CurrencyCode: 'JPY', Status: 'Allocated' });
    expect(await figures(invoice.invoiceID)).toMatchObject({ TotalActualPaid: 1000, Balance: 500 });
    expect(await customerBalance(customerId)).toBe(500);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10.5, [], { CurrencyCode: 'JPY' })),
      'Amount',
      'must have at most 0 decimals in JPY',
    );
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 600, [{ invoiceID: invoice.invoiceID, amountApplied: 501 }], {
          CurrencyCode: 'JPY',
        }),
      ),
      'allocations[0]',
      '500 can be applied, 501 was asked',
    );
  });
});

describe('GET /v1/payments/{paymentID}', () => {
  it('answers the payment as POST answered it', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 70, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }], {
        Memo: 'm',
        Ref: 'r',
      }),
    );
    expect(await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).toEqual(created);
  });

  it('answers 404 for an unknown payment', async () => {
    const res = await t.request('GET', '/v1/payments/999999');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('GET /v1/payments and /v1/customers/{customerID}/payments', () => {
  it("lists a customer's payments in the order recorded, and only theirs", async () => {
    const customerId = await createCustomer(t);
    const someoneElse = await createCustomer(t);
    const first = await pay(paymentBody(customerId, 1, []));
    await pay(paymentBody(someoneElse, 2, []));
    const second = await pay(paymentBody(customerId, 3, []));
    expect(await paymentsOf(customerId)).toEqual([first, second]);
  });

  it('pages with page and page_size', async () => {
    const customerId = await createCustomer(t);
    const created = [];
    for (let i = 1; i <= 5; i++) created.push(await pay(paymentBody(customerId, i, [])));
    const path = `/v1/customers/${customerId}/payments`;
    expect(await ok(t, 'GET', `${path}?page=1&page_size=2`)).toEqual(created.slice(0, 2));
    expect(await ok(t, 'GET', `${path}?page=2&page_size=2`)).toEqual(created.slice(2, 4));
    expect(await ok(t, 'GET', `${path}?page=3&page_size=2`)).toEqual(created.slice(4));
    expect(await ok(t, 'GET', `${path}?page=4&page_size=2`)).toEqual([]);
    expect(await ok(t, 'GET', path)).toEqual(created);
  });

  it("lists the account's payments across customers, paged", async () => {
    const account = await t.newAccount('Lister');
    const a = await createCustomer(account);
    const b = await createCustomer(account);
    const created = [
      await pay(paymentBody(a, 1, []), account),
      await pay(paymentBody(b, 2, []), account),
      await pay(paymentBody(a, 3, []), account),
    ];
    expect(await ok(account, 'GET', '/v1/payments')).toEqual(created);
    expect(await ok(account, 'GET', '/v1/payments?page=2&page_size=2')).toEqual(created.slice(2));
  });

  it.each([['page_size=0'], ['page_size=201'], ['page=0'], ['page_size=abc']])(
    'answers 422 for %s',
    async (query) => {
      const customerId = await createCustomer(t);
      const field = query.split('=')[0]!;
      expectInvalid(await t.request('GET', `/v1/payments?${query}`), field);
      expectInvalid(await t.request('GET', `/v1/customers/${customerId}/payments?${query}`), field);
    },
  );

  it('accepts page_size 200', async () => {
    expect((await t.request('GET', '/v1/payments?page_size=200')).status).toBe(200);
  });

  it('answers 404 for the payments of an unknown customer', async () => {
    expect((await t.request('GET', '/v1/customers/999999/payments')).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("keeps each account's payments from the other, both ways", async () => {
    const mine = await createCustomer(t);
    const theirs = await createCustomer(other);
    const myPayment = await pay(paymentBody(mine, 11, []));
    const theirPayment = await pay(paymentBody(theirs, 22, []), other);

    for (const [as, foreign, foreignCustomer, ownId] of [
      [t, theirPayment, theirs, myPayment.paymentID],
      [other, myPayment, mine, theirPayment.paymentID],
    ] as const) {
      const id = foreign.paymentID;
      expect((await as.request('GET', `/v1/payments/${id}`)).status).toBe(404);
      expect(
        (await as.request('PUT', `/v1/payments/${id}`, { body: paymentBody(foreignCustomer, 1, []) })).status,
      ).toBe(404);
      expect((await as.request('DELETE', `/v1/payments/${id}`)).status).toBe(404);
      expect((await as.request('GET', `/v1/customers/${foreignCustomer}/payments`)).status).toBe(404);
      const listed = (await ok(as, 'GET', '/v1/payments?page_size=200')).map((p: any) => p.paymentID);
      expect(listed).toContain(ownId);
      expect(listed).not.toContain(id);
    }
    // Nothing the other account tried changed them.
    expect(await ok(t, 'GET', `/v1/payments/${myPayment.paymentID}`)).toEqual(myPayment);
    expect(await ok(other, 'GET', `/v1/payments/${theirPayment.paymentID}`)).toEqual(theirPayment);
  });
});

describe('PUT /v1/payments/{paymentID}', () => {
  it("answers 204 with no body and replaces the payment's fields", async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    const res = await t.request('PUT', `/v1/payments/${created.paymentID}`, {
      body: paymentBody(
        customerId,
        '25.00',
        [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 20 }],
        {
          Date: '2026-03-07',
          Method: 'eft',
          Memo: 'corrected',
          Ref: 'EFT-9',
        },
      ),
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).toEqual({
      ...created,
      Amount: 25,
      Date: '2026-03-07T00:00:00.000Z',
      Method: 'eft',
      Memo: 'corrected',
      Ref: 'EFT-9',
      Status: 'Partial',
    });
  });

  it('adds an allocation without allocationID, edits one with it and deletes one left out (rule 4)', async () => {
    const customerId = await createCustomer(t);
    const a = await newInvoice(customerId, 100);
    const b = await newInvoice(customerId, 100);
    const c = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 100, [
        { invoiceID: a.invoiceID, amountApplied: 30 },
        { invoiceID: b.invoiceID, amountApplied: 20 },
      ]),
    );
    const [onA, onB] = created.allocations;
    const url = `/v1/payments/${created.paymentID}`;

    // Add 10 to c.
    await ok(
      t,
      'PUT',
      url,
      paymentBody(customerId, 100, [
        { allocationID: onA.allocationID, invoiceID: a.invoiceID, amountApplied: 30 },
        { allocationID: onB.allocationID, invoiceID: b.invoiceID, amountApplied: 20 },
        { invoiceID: c.invoiceID, amountApplied: 10 },
      ]),
    );
    let payment = await ok(t, 'GET', url);
    expect(payment.allocations.map((x: any) => [x.invoiceID, x.amountApplied])).toEqual([
      [a.invoiceID, 30],
      [b.invoiceID, 20],
      [c.invoiceID, 10],
    ]);
    const onC = payment.allocations[2];
    expect(await figures(c.invoiceID)).toMatchObject({ TotalActualPaid: 10, Balance: 90 });

    // Edit a: 30 → 45; keep b and c.
    await ok(
      t,
      'PUT',
      url,
      paymentBody(customerId, 100, [
        { allocationID: onA.allocationID, invoiceID: a.invoiceID, amountApplied: 45 },
        { allocationID: onB.allocationID, invoiceID: b.invoiceID, amountApplied: 20 },
        { allocationID: onC.allocationID, invoiceID: c.invoiceID, amountApplied: 10 },
      ]),
    );
    payment = await ok(t, 'GET', url);
    expect(payment.allocations.find((x: any) => x.allocationID === onA.allocationID).amountApplied).toBe(45);
    expect(await figures(a.invoiceID)).toMatchObject({ TotalActualPaid: 45, Balance: 55 });
    expect((await figures(a.invoiceID)).PaymentsApplied).toEqual([
      {
        allocationID: onA.allocationID,
        invoiceID: a.invoiceID,
        paymentID: created.paymentID,
        amountApplied: 45,
      },
    ]);

    // Delete b by leaving it out.
    await ok(
      t,
      'PUT',
      url,
      paymentBody(customerId, 100, [
        { allocationID: onA.allocationID, invoiceID: a.invoiceID, amountApplied: 45 },
        { allocationID: onC.allocationID, invoiceID: c.invoiceID, amountApplied: 10 },
      ]),
    );
    payment = await ok(t, 'GET', url);
    expect(payment.allocations.map((x: any) => x.allocationID)).toEqual([onA.allocationID, onC.allocationID]);
    expect(payment.Status).toBe('Partial');
    expect(await figures(b.invoiceID)).toMatchObject({
      TotalActualPaid: 0,
      Balance: 100,
      ActualBalance: 100,
      PaymentsApplied: [],
    });
    // Owed: 55 + 100 + 90 = 245; paid and not allocated: 100 − 55 = 45; Balance 245 − 45 = 200.
    expect(await customerBalance(customerId)).toBe(200);
  });

  it('moves an allocation to another invoice by its allocationID', async () => {
    const customerId = await createCustomer(t);
    const from = await newInvoice(customerId, 100);
    const to = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 40, [{ invoiceID: from.invoiceID, amountApplied: 40 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    await ok(
      t,
      'PUT',
      `/v1/payments/${created.paymentID}`,
      paymentBody(customerId, 40, [{ allocationID, invoiceID: to.invoiceID, amountApplied: 40 }]),
    );
    const payment = await ok(t, 'GET', `/v1/payments/${created.paymentID}`);
    expect(payment.allocations).toEqual([
      {
        allocationID,
        amountApplied: 40,
        invoiceID: to.invoiceID,
        positiveAdjustmentID: 0,
        paymentID: created.paymentID,
      },
    ]);
    expect(await figures(from.invoiceID)).toMatchObject({
      TotalActualPaid: 0,
      Balance: 100,
      PaymentsApplied: [],
    });
    expect(await figures(to.invoiceID)).toMatchObject({ TotalActualPaid: 40, Balance: 60 });
  });

  it('lets an edit use again what the payment itself holds on a paid invoice', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 150, [{ invoiceID: invoice.invoiceID, amountApplied: 100 }]),
    );
    expect((await figures(invoice.invoiceID)).Status).toBe('Paid');
    const allocationID = created.allocations[0].allocationID;
    const url = `/v1/payments/${created.paymentID}`;
    // The 100 it holds is open to it again, and no more.
    await ok(
      t,
      'PUT',
      url,
      paymentBody(customerId, 150, [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 100 }]),
    );
    expectInvalid(
      await t.request('PUT', url, {
        body: paymentBody(customerId, 150, [
          { allocationID, invoiceID: invoice.invoiceID, amountApplied: 100.01 },
        ]),
      }),
      'allocations[0]',
      '100.00 can be applied, 100.01 was asked',
    );
  });

  it('answers 422 for an allocationID that is not one of this payment, and changes nothing', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const mine = await pay(
      paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }]),
    );
    const another = await pay(
      paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }]),
    );
    const before = await figures(invoice.invoiceID);
    for (const allocationID of [999_999, another.allocations[0].allocationID]) {
      expectInvalid(
        await t.request('PUT', `/v1/payments/${mine.paymentID}`, {
          body: paymentBody(customerId, 20, [
            { allocationID, invoiceID: invoice.invoiceID, amountApplied: 10 },
          ]),
        }),
        'allocations[0].allocationID',
        `${allocationID} is not an allocation of payment ${mine.paymentID}`,
      );
    }
    expect(await ok(t, 'GET', `/v1/payments/${mine.paymentID}`)).toEqual(mine);
    expect(await ok(t, 'GET', `/v1/payments/${another.paymentID}`)).toEqual(another);
    expect(await figures(invoice.invoiceID)).toEqual(before);
  });

  it('answers 422 for an allocationID listed twice', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    expectInvalid(
      await t.request('PUT', `/v1/payments/${created.paymentID}`, {
        body: paymentBody(customerId, 20, [
          { allocationID, invoiceID: invoice.invoiceID, amountApplied: 10 },
          { allocationID, invoiceID: invoice.invoiceID, amountApplied: 10 },
        ]),
      }),
      'allocations[1].allocationID',
      'listed twice',
    );
  });

  it('answers 422 naming customerID when the customer changes', async () => {
    const customerId = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const created = await pay(paymentBody(customerId, 20, []));
    expectInvalid(
      await t.request('PUT', `/v1/payments/${created.paymentID}`, {
        body: paymentBody(otherCustomer, 20, []),
      }),
      'customerID',
    );
    expect((await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).customerID).toBe(customerId);
  });

  it('answers 422 when a lower Amount no longer covers the allocations, and changes nothing', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 50 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    expectInvalid(
      await t.request('PUT', `/v1/payments/${created.paymentID}`, {
        body: paymentBody(customerId, 40, [
          { allocationID, invoiceID: invoice.invoiceID, amountApplied: 50 },
        ]),
      }),
      'allocations[0]',
      'exceed the amount of payment',
    );
    expect(await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).toEqual(created);
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(50);
  });

  it('lowers the Amount together with its allocation', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 50 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    await ok(
      t,
      'PUT',
      `/v1/payments/${created.paymentID}`,
      paymentBody(customerId, 30, [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 30 }]),
    );
    expect(await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).toMatchObject({
      Amount: 30,
      Status: 'Allocated',
    });
    expect(await figures(invoice.invoiceID)).toMatchObject({ TotalActualPaid: 30, Balance: 70 });
  });

  it('requires the allocation list, and an empty one removes every allocation', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 50 }]),
    );
    const url = `/v1/payments/${created.paymentID}`;
    expectInvalid(
      await t.request('PUT', url, { body: paymentBody(customerId, 50, undefined) }),
      'allocations',
    );
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(50);
    await ok(t, 'PUT', url, { ...paymentBody(customerId, 50, undefined), Allocations: [] });
    expect(await ok(t, 'GET', url)).toMatchObject({ Status: 'Unallocated', allocations: [] });
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalActualPaid: 0,
      Balance: 100,
      PaymentsApplied: [],
    });
  });

  it('refuses to carry allocations into another currency', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 50, [{ invoiceID: invoice.invoiceID, amountApplied: 50 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    expectInvalid(
      await t.request('PUT', `/v1/payments/${created.paymentID}`, {
        body: paymentBody(
          customerId,
          50,
          [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 50 }],
          {
            CurrencyCode: 'EUR',
          },
        ),
      }),
      'allocations[0]',
      'is in USD',
    );
  });

  it('answers 404 for an unknown payment', async () => {
    const customerId = await createCustomer(t);
    expect(
      (await t.request('PUT', '/v1/payments/999999', { body: paymentBody(customerId, 1, []) })).status,
    ).toBe(404);
  });
});

describe('DELETE /v1/payments/{paymentID}', () => {
  it('answers 204 and gives every invoice it paid its figures back', async () => {
    const customerId = await createCustomer(t);
    const a = await newInvoice(customerId, 100);
    const b = await newInvoice(customerId, 40);
    const aBefore = await figures(a.invoiceID);
    const bBefore = await figures(b.invoiceID);
    const balanceBefore = await customerBalance(customerId);
    const created = await pay(
      paymentBody(customerId, 90, [
        { invoiceID: a.invoiceID, amountApplied: 50 },
        { invoiceID: b.invoiceID, amountApplied: 40 },
      ]),
    );
    expect((await figures(b.invoiceID)).Status).toBe('Paid');
    expect(await customerBalance(customerId)).toBe(50);

    const res = await t.request('DELETE', `/v1/payments/${created.paymentID}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.request('GET', `/v1/payments/${created.paymentID}`)).status).toBe(404);
    expect(await figures(a.invoiceID)).toEqual(aBefore);
    expect(await figures(b.invoiceID)).toEqual({ ...bBefore, Status: 'Due' });
    expect(await customerBalance(customerId)).toBe(balanceBefore);
    expect(await paymentsOf(customerId)).toEqual([]);
  });

  it('deletes an unallocated payment, and the customer owes its amount again', async () => {
    const customerId = await createCustomer(t);
    await newInvoice(customerId, 100);
    const created = await pay(paymentBody(customerId, 30, []));
    expect(await customerBalance(customerId)).toBe(70);
    await ok(t, 'DELETE', `/v1/payments/${created.paymentID}`);
    expect(await customerBalance(customerId)).toBe(100);
  });

  it('answers 404 for an unknown payment and for one deleted already', async () => {
    const customerId = await createCustomer(t);
    const created = await pay(paymentBody(customerId, 30, []));
    await ok(t, 'DELETE', `/v1/payments/${created.paymentID}`);
    expect((await t.request('DELETE', `/v1/payments/${created.paymentID}`)).status).toBe(404);
    expect((await t.request('DELETE', '/v1/payments/999999')).status).toBe(404);
  });
});

describe('invoices with payments allocated', () => {
  it('cannot be cancelled (409) until the payment lets go of them', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 30, [{ invoiceID: invoice.invoiceID, amountApplied: 30 }]),
    );
    const refused = await t.request('DELETE', `/v1/invoices/${invoice.invoiceID}`);
    expect(refused.status).toBe(409);
    expect(await figures(invoice.invoiceID)).toMatchObject({ Status: 'Due', TotalActualPaid: 30 });

    await ok(t, 'PUT', `/v1/payments/${created.paymentID}`, paymentBody(customerId, 30, []));
    await ok(t, 'DELETE', `/v1/invoices/${invoice.invoiceID}`);
    expect((await figures(invoice.invoiceID)).Status).toBe('Cancelled');
  });
});

describe('concurrent payments', () => {
  it('let only one of several simultaneous payments take what is due on an invoice', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        postPayment(paymentBody(customerId, 100, [{ invoiceID: invoice.invoiceID, amountApplied: 100 }])),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
    for (const refused of results.filter((r) => r.status === 422)) {
      expectInvalid(refused, 'allocations[0]', 'exceeds what is open');
    }
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalActualPaid: 100,
      Balance: 0,
      Status: 'Paid',
    });
    expect(await paymentsOf(customerId)).toHaveLength(1);
  });
});

describe('Idempotency-Key on POST /v1/payments', () => {
  it('replays the first response for the same body and records the payment once', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const body = paymentBody(customerId, 25, [{ invoiceID: invoice.invoiceID, amountApplied: 25 }]);
    const headers = { 'Idempotency-Key': `pay-${customerId}` };
    const first = await t.request('POST', '/v1/payments', { body, headers });
    expect(first.status).toBe(201);
    const again = await t.request('POST', '/v1/payments', { body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await paymentsOf(customerId)).toEqual([first.body]);
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(25);
  });

  it('answers 409 for the same key with a different body, and records nothing', async () => {
    const customerId = await createCustomer(t);
    const headers = { 'Idempotency-Key': `pay-conflict-${customerId}` };
    const first = await t.request('POST', '/v1/payments', { body: paymentBody(customerId, 25, []), headers });
    expect(first.status).toBe(201);
    const changed = await t.request('POST', '/v1/payments', {
      body: paymentBody(customerId, 26, []),
      headers,
    });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('idempotency_key_reused');
    expect(await paymentsOf(customerId)).toEqual([first.body]);
  });

  it('does not share keys between accounts', async () => {
    const mine = await createCustomer(t);
    const theirs = await createCustomer(other);
    const headers = { 'Idempotency-Key': `shared-${mine}-${theirs}` };
    const a = await t.request('POST', '/v1/payments', { body: paymentBody(mine, 5, []), headers });
    const b = await other.request('POST', '/v1/payments', { body: paymentBody(theirs, 5, []), headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.customerID).toBe(theirs);
  });
});

// Positive adjustments come from POST /v1/adjustment/add (the adjustments module).
describe('allocations to positive adjustments', () => {
  async function positiveAdjustment(
    customerId: number,
    amount: number,
    as: TestAccount = t,
  ): Promise<number> {
    const adjustment = await ok(as, 'POST', '/v1/adjustment/add', {
      AdjustmentType: 'opening_balance',
      customerID: customerId,
      Type: 'positive',
      Amount: amount,
      Date: '2026-02-01',
      DueDate: '2026-03-31',
      Ref: `OB-${customerId}-${amount}`,
    });
    expect(adjustment.AdjustmentID).toEqual(expect.any(Number));
    return adjustment.AdjustmentID as number;
  }

  const adjustmentDetail = async (customerId: number, adjustmentId: number) =>
    (
      await ok(
        t,
        'GET',
        `/v1/adjustment/get?type=positive&adjustmentID=${adjustmentId}&customerID=${customerId}`,
      )
    ).adjustment;

  it('allocates to a positiveAdjustmentID, with invoiceID 0, and the customer owes that much less', async () => {
    const customerId = await createCustomer(t);
    const adjustmentId = await positiveAdjustment(customerId, 80);
    expect(await customerBalance(customerId)).toBe(80);
    const payment = await pay(
      paymentBody(customerId, 30, [{ positiveAdjustmentID: adjustmentId, amountApplied: 30 }]),
    );
    expect(payment.Status).toBe('Allocated');
    expect(payment.allocations).toEqual([
      {
        allocationID: expect.any(Number),
        amountApplied: 30,
        invoiceID: 0,
        positiveAdjustmentID: adjustmentId,
        paymentID: payment.paymentID,
      },
    ]);
    expect(await customerBalance(customerId)).toBe(50);
    expect(await adjustmentDetail(customerId, adjustmentId)).toMatchObject({
      Status: 'Partially Paid',
      allocations: [
        {
          allocationID: payment.allocations[0].allocationID,
          objectID: payment.paymentID,
          amountApplied: 30,
          isAdjustment: false,
        },
      ],
    });
    await ok(t, 'DELETE', `/v1/payments/${payment.paymentID}`);
    expect(await customerBalance(customerId)).toBe(80);
    expect(await adjustmentDetail(customerId, adjustmentId)).toMatchObject({
      Status: 'Unpaid',
      allocations: [],
    });
  });

  it('refuses more than is open on the adjustment', async () => {
    const customerId = await createCustomer(t);
    const adjustmentId = await positiveAdjustment(customerId, 80);
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 100, [{ positiveAdjustmentID: adjustmentId, amountApplied: 80.01 }]),
      ),
      'allocations[0]',
      `exceeds what is open on positive adjustment ${adjustmentId}`,
    );
  });

  it("refuses an unknown adjustment, another account's as unknown, and another customer's", async () => {
    const customerId = await createCustomer(t);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ positiveAdjustmentID: 999_999, amountApplied: 10 }])),
      'allocations[0]',
      'no such positive adjustment',
    );
    const theirs = await positiveAdjustment(await createCustomer(other), 50, other);
    expectInvalid(
      await postPayment(paymentBody(customerId, 10, [{ positiveAdjustmentID: theirs, amountApplied: 10 }])),
      'allocations[0]',
      'no such positive adjustment',
    );
    const someoneElses = await positiveAdjustment(await createCustomer(t), 50);
    expectInvalid(
      await postPayment(
        paymentBody(customerId, 10, [{ positiveAdjustmentID: someoneElses, amountApplied: 10 }]),
      ),
      'allocations[0]',
      'belongs to another customer',
    );
  });

  it('moves an allocation from an adjustment to an invoice on PUT', async () => {
    const customerId = await createCustomer(t);
    const adjustmentId = await positiveAdjustment(customerId, 80);
    const invoice = await newInvoice(customerId, 100);
    const created = await pay(
      paymentBody(customerId, 30, [{ positiveAdjustmentID: adjustmentId, amountApplied: 30 }]),
    );
    const allocationID = created.allocations[0].allocationID;
    await ok(
      t,
      'PUT',
      `/v1/payments/${created.paymentID}`,
      paymentBody(customerId, 30, [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 30 }]),
    );
    expect((await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).allocations).toMatchObject([
      { allocationID, invoiceID: invoice.invoiceID, positiveAdjustmentID: 0 },
    ]);
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(30);
    // Owed 80 + 70; nothing unallocated.
    expect(await customerBalance(customerId)).toBe(150);
  });

  it('leaves positive adjustments to explicit allocations: AutoApply pays invoices only', async () => {
    const customerId = await createCustomer(t);
    await positiveAdjustment(customerId, 80);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay(paymentBody(customerId, 30, undefined, { AutoApply: true }));
    expect(payment.allocations.map((a: any) => [a.invoiceID, a.positiveAdjustmentID])).toEqual([
      [invoice.invoiceID, 0],
    ]);
  });
});
