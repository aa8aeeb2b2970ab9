import { describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { customerBalance, other, t } from './fixtures.ts';
import {
  expectInvalid,
  figures,
  newInvoice,
  paidInvoice,
  pay,
  PAYMENT_FIELDS,
  paymentBody,
  paymentsOf,
  postPayment,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

describe('POST /v1/payments', () => {
  it('answers 201 with the payment and exactly the spec fields (and FailureReason), allocations included', async () => {
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
      FailureReason: null,
      Allocations: [
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
    const { customerId, invoice, payment } = await paidInvoice(60.5);
    // 100 − 60.50 = 39.50 still due; nothing pending, so Balance and ActualBalance agree.
    expect(await figures(invoice.invoiceID)).toEqual({
      TotalActualPaid: 60.5,
      TotalPendingPaid: 0,
      Balance: 39.5,
      ActualBalance: 39.5,
      Status: 'Due',
      PaymentsApplied: [
        {
          allocationID: payment.Allocations[0].allocationID,
          invoiceID: invoice.invoiceID,
          paymentID: payment.paymentID,
          amountApplied: 60.5,
        },
      ],
    });
    expect(await customerBalance(customerId)).toBe(39.5);
  });

  it('marks the invoice Paid once payments cover it', async () => {
    const { customerId, invoice, payment: first } = await paidInvoice(60);
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
    const { customerId, invoice, payment } = await paidInvoice(100, 30);
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
    expect(payment.Allocations).toEqual([]);
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
    const { invoice, payment } = await paidInvoice(amount, applied);
    expect(payment.Amount).toBe(10.5);
    expect(payment.Allocations[0].amountApplied).toBe(10.5);
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(10.5);
  });

  it('accepts the list under Allocations and amounts as AmtAllocated', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const payment = await pay({
      ...paymentBody(customerId, 25, undefined),
      Allocations: [{ invoiceID: invoice.invoiceID, AmtAllocated: 25 }],
    });
    expect(payment.Allocations).toMatchObject([{ invoiceID: invoice.invoiceID, amountApplied: 25 }]);
  });

  it('accepts a Date as DD Mon YYYY and leaves Memo and Ref null when not sent', async () => {
    const customerId = await createCustomer(t);
    const payment = await pay(paymentBody(customerId, 5, [], { Date: '05 Feb 2026' }));
    expect(payment.Date).toBe('2026-02-05T00:00:00.000Z');
    expect(payment.Memo).toBeNull();
    expect(payment.Ref).toBeNull();
  });

  it('renders the new payment from what it wrote, without reading it back, and sends the rendering its payment.created carries', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 100);
    const next = await newInvoice(customerId, 100, { date: '2026-03-02' });
    t.queries.length = 0;
    const res = await postPayment(paymentBody(customerId, 170, undefined, { AutoApply: true }));
    expect(res.status, res.text).toBe(201);
    const sql = t.queries.map((text) => text.replace(/\s+/g, ' '));
    // Neither the payment's row nor its allocations are read: the insert's values and RETURNING give them.
    expect(
      sql.filter((text) => /^select .* from "payments" where "account_id" = \S+ and "id" in/.test(text)),
    ).toEqual([]);
    expect(sql.filter((text) => /^select .* from "allocations" where .*"source_type" =/.test(text))).toEqual(
      [],
    );
    // What a later read answers is what was sent.
    expect((await t.request('GET', `/v1/payments/${res.body.paymentID}`)).body).toEqual(res.body);
    const [created] = await eventsOf(t, 'payment', res.body.paymentID);
    expect(created!.type).toBe('payment.created');
    expect(created!.data.object).toEqual(res.body);
    expect(res.body.Allocations).toEqual([
      expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 100 }),
      expect.objectContaining({ invoiceID: next.invoiceID, amountApplied: 70 }),
    ]);
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

  it.each([['bitcoin'], ['Cash!'], ['']])('refuses the Method %j', async (method) => {
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

  it.each([
    ['Cash', 'cash'],
    ['EFT', 'eft'],
    ['Debit_Order', 'debit_order'],
  ])('accepts the Method %s in any letter case, as %s', async (method, stored) => {
    const customerId = await createCustomer(t);
    expect((await pay(paymentBody(customerId, 10, [], { Method: method }))).Method).toBe(stored);
  });

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
