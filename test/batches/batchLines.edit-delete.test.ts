import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  addLine,
  bankCustomer,
  batchOf,
  cashPayment,
  expectConflict,
  expectInvalid,
  expectNotFound,
  figures,
  midnight,
  newBatch,
  owed,
  payment,
  putLine,
  scene,
  secondBankAccount,
  submit,
  useBatchService,
} from './batchApi.fixtures.ts';
import type { DebitSetup } from './fixtures.ts';
import { plusDays } from './fixtures.ts';

// The lines of a payment batch through the HTTP API (spec part 2, "Batches": PUT and DELETE /v1/batches/payments
// and their Rules): a line changes only while it is pending and its batch open, and never through /v1/payments.

useBatchService();

describe('PUT /v1/batches/payments', () => {
  it('answers 204 and edits the amount and the allocations: edited by allocationID, added without, deleted when left out', async () => {
    const { setup, account, customer, invoice: a, token } = await scene();
    const b = await owed(setup, customer.customerId, 100);
    const c = await owed(setup, customer.customerId, 100);
    const line = await addLine(account, token, customer, 60, [
      { invoiceID: a.invoiceID, amount: 30 },
      { invoiceID: b.invoiceID, amount: 20 },
    ]);
    const onA = line.PaymentApplied[0].allocationID;
    const res = await putLine(account, {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 70,
      paymentMethodID: customer.paymentMethodId,
      PaymentApplied: [
        { allocationID: onA, invoiceID: a.invoiceID, amount: 45 },
        { invoiceID: c.invoiceID, amount: 10 },
      ],
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    const edited = await payment(account, line.paymentID);
    expect(edited).toMatchObject({ Amount: 70, Status: 'Pending' });
    expect(
      edited.Allocations.map((x: { allocationID: number; invoiceID: number; amountApplied: number }) => [
        x.invoiceID,
        x.amountApplied,
      ]),
    ).toEqual([
      [a.invoiceID, 45],
      [c.invoiceID, 10],
    ]);
    expect(edited.Allocations[0].allocationID).toBe(onA);
    expect(await figures(account, a.invoiceID)).toMatchObject({ TotalPendingPaid: 45, Balance: 55 });
    expect(await figures(account, b.invoiceID)).toMatchObject({ TotalPendingPaid: 0, Balance: 100 });
    expect(await figures(account, c.invoiceID)).toMatchObject({ TotalPendingPaid: 10, Balance: 90 });
    expect(await batchOf(account, token)).toMatchObject({
      NumberOfPayments: 1,
      PaymentsTotal: '70.00',
      Payments: [{ paymentID: line.paymentID, Amount: 70 }],
    });
  });

  it("takes the spec example's shape: paymentMethodID instead of Method, CurrencyCode and Date", async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const line = await addLine(account, token, customer, 20, [{ invoiceID: invoice.invoiceID, amount: 20 }]);
    const another = await secondBankAccount(setup, customer, 'debit_order');
    await ok(account, 'PUT', '/v1/batches/payments', {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 25,
      paymentMethodID: another.paymentMethodId,
      Memo: 'second account',
      Ref: 'DO-2',
      PaymentApplied: [
        { allocationID: line.PaymentApplied[0].allocationID, invoiceID: invoice.invoiceID, amount: 25 },
      ],
    });
    expect(await payment(account, line.paymentID)).toMatchObject({
      Amount: 25,
      Method: 'debit_order',
      CurrencyCode: 'ZAR',
      Memo: 'second account',
      Ref: 'DO-2',
      Status: 'Pending',
    });
    expect((await figures(account, invoice.invoiceID)).TotalPendingPaid).toBe(25);
  });

  it('takes the listed shape: CurrencyCode, Date and Method that agree with the batch and the bank account', async () => {
    const { setup, account, customer, token } = await scene();
    const line = await addLine(account, token, customer, 20, []);
    await ok(account, 'PUT', '/v1/batches/payments', {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 20,
      CurrencyCode: 'ZAR',
      Date: plusDays(setup.today, 9),
      Method: 'debit_order',
      PaymentApplied: [],
    });
    expect((await payment(account, line.paymentID)).Date).toBe(midnight(plusDays(setup.today, 9)));
  });

  it("refuses a CurrencyCode other than the batch's, a Method not the account's rail, and another rail's account", async () => {
    const { setup, account, customer, token } = await scene();
    const line = await addLine(account, token, customer, 20, []);
    const sepa = await secondBankAccount(setup, customer, 'sepa');
    const edit = {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 99,
    };
    expectInvalid(
      await putLine(account, { ...edit, CurrencyCode: 'USD', PaymentApplied: [] }),
      'CurrencyCode',
    );
    expectInvalid(await putLine(account, { ...edit, Method: 'ach', PaymentApplied: [] }), 'Method');
    expectInvalid(await putLine(account, { ...edit, Method: 'cash', PaymentApplied: [] }), 'Method');
    expectInvalid(
      await putLine(account, { ...edit, paymentMethodID: sepa.paymentMethodId, PaymentApplied: [] }),
      'paymentMethodID',
    );
    expect((await payment(account, line.paymentID)).Amount).toBe(20);
  });

  it.each([
    {
      what: 'a customerID not the line’s',
      field: 'customerID',
      change: async (setup: DebitSetup) => ({ customerID: (await bankCustomer(setup)).customerId }),
    },
    {
      what: 'a paymentID that is not in the named batch',
      field: 'BatchToken',
      change: async (setup: DebitSetup) => ({ BatchToken: (await newBatch(setup)).BatchToken }),
    },
  ])('refuses $what with 422 naming $field', async ({ field, change }) => {
    const { setup, account, customer, token } = await scene();
    const line = await addLine(account, token, customer, 20, []);
    const res = await putLine(account, {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 30,
      PaymentApplied: [],
      ...(await change(setup)),
    });
    expectInvalid(res, field);
    expect((await payment(account, line.paymentID)).Amount).toBe(20);
  });

  it('refuses an edit once the batch is submitted (409 batch_not_open) or cancelled (409)', async () => {
    const { setup, account, customer, token } = await scene();
    const line = await addLine(account, token, customer, 20, []);
    const cancelledToken = (await newBatch(setup)).BatchToken;
    const cancelledLine = await addLine(account, cancelledToken, customer, 20, []);
    await ok(account, 'PUT', '/v1/batches/cancel', { BatchToken: cancelledToken });
    await submit(setup, token);
    const edit = { customerID: customer.customerId, Amount: 30, PaymentApplied: [] };
    expectConflict(
      await putLine(account, { ...edit, paymentID: line.paymentID, BatchToken: token }),
      'batch_not_open',
    );
    const cancelled = await putLine(account, {
      ...edit,
      paymentID: cancelledLine.paymentID,
      BatchToken: cancelledToken,
    });
    expect(cancelled.status, cancelled.text).toBe(409);
    expect((await payment(account, line.paymentID)).Amount).toBe(20);
  });

  it('answers 404 for an ordinary payment and an unknown paymentID', async () => {
    const { account, customer, invoice, token } = await scene();
    const cash = await cashPayment(account, customer, invoice.invoiceID);
    for (const paymentID of [cash.paymentID, 999_999]) {
      const res = await putLine(account, {
        paymentID,
        BatchToken: token,
        customerID: customer.customerId,
        Amount: 5,
        PaymentApplied: [],
      });
      expectNotFound(res);
    }
    expect((await payment(account, cash.paymentID)).Amount).toBe(10);
  });
});

describe('DELETE /v1/batches/payments/{paymentID}', () => {
  it('answers 204, removes the payment from the batch, and its invoice owes the money again', async () => {
    const { account, customer, invoice, token } = await scene();
    const kept = await addLine(account, token, customer, 10, []);
    const line = await addLine(account, token, customer, 40, [{ invoiceID: invoice.invoiceID, amount: 40 }]);
    const res = await account.request('DELETE', `/v1/batches/payments/${line.paymentID}`);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await figures(account, invoice.invoiceID)).toMatchObject({ TotalPendingPaid: 0, Balance: 100 });
    expect(await batchOf(account, token)).toMatchObject({
      NumberOfPayments: 1,
      PaymentsTotal: '10.00',
      Payments: [{ paymentID: kept.paymentID, Amount: 10 }],
    });
    expectNotFound(await account.request('GET', `/v1/payments/${line.paymentID}`));
    expectNotFound(await account.request('DELETE', `/v1/batches/payments/${line.paymentID}`));
  });

  it('answers 404 for an ordinary payment, which stays', async () => {
    const { account, customer, invoice } = await scene();
    const cash = await cashPayment(account, customer, invoice.invoiceID);
    expectNotFound(await account.request('DELETE', `/v1/batches/payments/${cash.paymentID}`));
    expectNotFound(await account.request('DELETE', '/v1/batches/payments/999999'));
    expect((await payment(account, cash.paymentID)).Amount).toBe(10);
  });

  it('refuses a line of a submitted batch with 409 batch_not_open', async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const line = await addLine(account, token, customer, 40, [{ invoiceID: invoice.invoiceID, amount: 40 }]);
    await submit(setup, token);
    expectConflict(
      await account.request('DELETE', `/v1/batches/payments/${line.paymentID}`),
      'batch_not_open',
    );
    expect((await batchOf(account, token)).NumberOfPayments).toBe(1);
    expect((await figures(account, invoice.invoiceID)).TotalPendingPaid).toBe(40);
  });
});

describe('a batch line through /v1/payments', () => {
  it('cannot be edited or deleted while pending: 409 payment_in_collection', async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const line = await addLine(account, token, customer, 40, [{ invoiceID: invoice.invoiceID, amount: 40 }]);
    const before = await payment(account, line.paymentID);
    const edit = await account.request('PUT', `/v1/payments/${line.paymentID}`, {
      body: {
        customerID: customer.customerId,
        Amount: 40,
        CurrencyCode: 'ZAR',
        Date: setup.today,
        Method: 'eft',
        Allocations: [],
      },
    });
    expectConflict(edit, 'payment_in_collection');
    expectConflict(
      await account.request('DELETE', `/v1/payments/${line.paymentID}`),
      'payment_in_collection',
    );
    expect(await payment(account, line.paymentID)).toEqual(before);
    expect((await batchOf(account, token)).NumberOfPayments).toBe(1);
  });
});
