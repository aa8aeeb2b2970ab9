import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, other, t } from './fixtures.ts';
import {
  expectInvalid,
  figures,
  newInvoice,
  pay,
  paymentBody,
  paymentsOf,
  postPayment,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

describe('Payments rule 1: AutoApply', () => {
  it('applies the payment to the earliest invoice by InvoiceDate, then on to the next', async () => {
    const customerId = await createCustomer(t);
    const march = await newInvoice(customerId, 50, { date: '2026-03-01' });
    const january = await newInvoice(customerId, 30, { date: '2026-01-15' });
    const february = await newInvoice(customerId, 40, { date: '2026-02-01' });
    // 60: January's 30 in full, then 30 of February's 40; nothing left for March.
    const payment = await pay(paymentBody(customerId, 60, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Allocated');
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
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
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
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
    expect(payment.Allocations.map((a: any) => a.invoiceID)).toEqual([open.invoiceID]);
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
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [earliest.invoiceID, 30],
    ]);
    expect((await figures(later.invoiceID)).TotalActualPaid).toBe(0);
  });

  it('accepts isAutoApply for AutoApply', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    const payment = await pay(paymentBody(customerId, 15, undefined, { isAutoApply: true }));
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [invoice.invoiceID, 15],
    ]);
  });

  it('leaves what is beyond every open invoice unallocated: Partial, and a credit on the customer Balance', async () => {
    const customerId = await createCustomer(t);
    const invoice = await newInvoice(customerId, 40);
    const payment = await pay(paymentBody(customerId, 100, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Partial');
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([
      [invoice.invoiceID, 40],
    ]);
    // 0 owed − 60 paid and not allocated.
    expect(await customerBalance(customerId)).toBe(-60);
  });

  it('records the payment Unallocated when nothing is open', async () => {
    const customerId = await createCustomer(t);
    const payment = await pay(paymentBody(customerId, 15, undefined, { AutoApply: true }));
    expect(payment.Status).toBe('Unallocated');
    expect(payment.Allocations).toEqual([]);
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
    expect(payment.Allocations[0].invoiceID).toBe(byId.invoiceID);
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
    expect(payment.Allocations[0].invoiceID).toBe(target.invoiceID);
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
