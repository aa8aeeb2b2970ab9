import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  addLine,
  bankCustomer,
  batchDay,
  batchOf,
  expectConflict,
  expectInvalid,
  expectNotFound,
  figures,
  lineBody,
  midnight,
  newBatch,
  owed,
  payment,
  postLine,
  putLine,
  scene,
  secondBankAccount,
  submit,
  useBatchService,
  zarAccount,
} from './batchApi.fixtures.ts';
import { plusDays } from './fixtures.ts';

// The lines of a payment batch through the HTTP API (spec part 2, "Batches": POST /v1/batches/payments and its
// Rules): each is a Pending payment from a customer's bank account whose allocations count in the invoices'
// TotalPendingPaid until the bank answers; and bad input on the line endpoints. Editing and deleting lines are in
// batchLines.edit-delete.test.ts, the batch itself in batches.*.test.ts.

useBatchService();

const PAYMENT_FIELDS = [
  'paymentID',
  'customerID',
  'Status',
  'Date',
  'CurrencyCode',
  'Amount',
  'Method',
  'Ref',
  'Memo',
  'PaymentApplied',
].sort();

describe('POST /v1/batches/payments', () => {
  it("answers 201 with the spec's payment: Pending, dated the batch's ActionDate, applied by invoiceID", async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const res = await postLine(
      account,
      lineBody(token, customer, '30.00', [{ invoiceID: invoice.invoiceID, amount: 30 }], {
        Ref: 'DO-1',
        Memo: 'November',
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PAYMENT_FIELDS);
    expect(res.body).toEqual({
      paymentID: expect.any(Number),
      customerID: customer.customerId,
      Status: 'Pending',
      Date: midnight(batchDay(setup, 7)),
      CurrencyCode: 'ZAR',
      Amount: 30,
      Method: 'debit_order',
      Ref: 'DO-1',
      Memo: 'November',
      PaymentApplied: [
        {
          allocationID: expect.any(Number),
          invoiceID: invoice.invoiceID,
          paymentID: res.body.paymentID,
          amount: 30,
        },
      ],
    });
    expect(await payment(account, res.body.paymentID)).toMatchObject({
      Status: 'Pending',
      Method: 'debit_order',
      Amount: 30,
    });
  });

  it("counts in the invoice's TotalPendingPaid (Balance falls, not Paid) and in the batch's count and total", async () => {
    const { account, customer, invoice, token } = await scene();
    await addLine(account, token, customer, 30, [{ invoiceID: invoice.invoiceID, amount: 30 }]);
    await addLine(account, token, customer, '12.50', [{ invoiceID: invoice.invoiceID, amount: '12.50' }]);
    // 100 − 30 − 12.50 = 57.50 still owed; nothing paid yet.
    const owedNow = await figures(account, invoice.invoiceID);
    expect(owedNow).toMatchObject({ TotalPendingPaid: 42.5, TotalActualPaid: 0, Balance: 57.5 });
    expect(owedNow.Status).not.toBe('Paid');
    expect(await batchOf(account, token)).toMatchObject({ NumberOfPayments: 2, PaymentsTotal: '42.50' });
  });

  it('applies by invoiceNumber (number or text), and invoiceID takes priority over it', async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const second = await owed(setup, customer.customerId, 100);
    const byNumber = await addLine(account, token, customer, 10, [
      { invoiceNumber: invoice.invoiceNum, amount: 10 },
    ]);
    expect(byNumber.PaymentApplied).toMatchObject([{ invoiceID: invoice.invoiceID, amount: 10 }]);
    const byText = await addLine(account, token, customer, 5, [
      { invoiceNumber: String(invoice.invoiceNum), amount: 5 },
    ]);
    expect(byText.PaymentApplied).toMatchObject([{ invoiceID: invoice.invoiceID, amount: 5 }]);
    const both = await addLine(account, token, customer, 7, [
      { invoiceID: second.invoiceID, invoiceNumber: invoice.invoiceNum, amount: 7 },
    ]);
    expect(both.PaymentApplied).toMatchObject([{ invoiceID: second.invoiceID, amount: 7 }]);
    expect((await figures(account, invoice.invoiceID)).TotalPendingPaid).toBe(15);
    expect((await figures(account, second.invoiceID)).TotalPendingPaid).toBe(7);
  });

  it('with isAutoApply, applies to the earliest invoices first and does not use PaymentApplied', async () => {
    const { setup, account, customer, invoice: later, token } = await scene();
    const earlier = await owed(setup, customer.customerId, 100, plusDays(setup.today, -10));
    const line = await addLine(account, token, customer, 150, [{ invoiceID: later.invoiceID, amount: 5 }], {
      isAutoApply: true,
    });
    // 150 = 100 to the invoice dated ten days ago + 50 to today's.
    expect(
      line.PaymentApplied.map((a: { invoiceID: number; amount: number }) => [a.invoiceID, a.amount]),
    ).toEqual([
      [earlier.invoiceID, 100],
      [later.invoiceID, 50],
    ]);
    expect(await figures(account, earlier.invoiceID)).toMatchObject({ TotalPendingPaid: 100, Balance: 0 });
    expect(await figures(account, later.invoiceID)).toMatchObject({ TotalPendingPaid: 50, Balance: 50 });
  });

  it('refuses a line without PaymentApplied when isAutoApply is false or left out, with 422 naming it', async () => {
    const { account, customer, token } = await scene();
    expectInvalid(await postLine(account, lineBody(token, customer, 10)), 'PaymentApplied');
    expectInvalid(
      await postLine(account, lineBody(token, customer, 10, undefined, { isAutoApply: false })),
      'PaymentApplied',
    );
    expect((await batchOf(account, token)).NumberOfPayments).toBe(0);
  });

  it("refuses another customer's bank account, a card, an unknown one and another account's with 422 naming paymentMethodID", async () => {
    const { setup, account, customer, token } = await scene();
    const neighbour = await bankCustomer(setup);
    const card = await ok(
      account,
      'POST',
      '/v1/paymentmethods/creditcard',
      {
        customerID: customer.customerId,
        isPrimary: false,
        CreditCard: {
          CardType: 'Visa',
          Number: '4111111111111111',
          NameOnCard: 'Ada',
          LastNameOnCard: 'Lovelace',
          ExpiryMonth: 12,
          ExpiryYear: 2035,
        },
      },
      200,
    );
    const stranger = await bankCustomer(await zarAccount());
    for (const paymentMethodID of [
      neighbour.paymentMethodId,
      card.paymentMethodID,
      999_999,
      stranger.paymentMethodId,
    ]) {
      const res = await postLine(
        account,
        lineBody(token, { ...customer, paymentMethodId: paymentMethodID }, 10, []),
      );
      expectInvalid(res, 'paymentMethodID');
    }
    expect((await batchOf(account, token)).NumberOfPayments).toBe(0);
  });

  it("refuses more than the invoice's balance, or applying more than the Amount, with 422", async () => {
    const { account, customer, invoice, token } = await scene();
    await addLine(account, token, customer, 80, [{ invoiceID: invoice.invoiceID, amount: 80 }]);
    // 20 is left open on the invoice: 30 is too much.
    const over = await postLine(
      account,
      lineBody(token, customer, 30, [{ invoiceID: invoice.invoiceID, amount: 30 }]),
    );
    expect(over.status, over.text).toBe(422);
    expect(over.body.fields.map((f: { field: string }) => f.field).join()).toContain('PaymentApplied[0]');
    const beyondAmount = await postLine(
      account,
      lineBody(token, customer, 5, [{ invoiceID: invoice.invoiceID, amount: 10 }]),
    );
    expect(beyondAmount.status, beyondAmount.text).toBe(422);
    expect(await figures(account, invoice.invoiceID)).toMatchObject({ TotalPendingPaid: 80, Balance: 20 });
    expect(await batchOf(account, token)).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '80.00' });
  });

  it('names a refused PaymentApplied amount by its wire key, amount', async () => {
    const { account, customer, invoice, token } = await scene();
    for (const amount of [0, 'ten', '1.234']) {
      const res = await postLine(
        account,
        lineBody(token, customer, 10, [{ invoiceID: invoice.invoiceID, amount }]),
      );
      expectInvalid(res, 'PaymentApplied[0].amount');
    }
  });

  it('refuses a bad Amount with 422 naming Amount', async () => {
    const { account, customer, token } = await scene();
    for (const Amount of [0, -5, '1.234', 'ten', null]) {
      expectInvalid(await postLine(account, lineBody(token, customer, Amount, [])), 'Amount');
    }
    const { Amount: _, ...withoutAmount } = lineBody(token, customer, 1, []);
    expectInvalid(await postLine(account, withoutAmount), 'Amount');
    expect((await batchOf(account, token)).NumberOfPayments).toBe(0);
  });

  it("refuses a bank account on another rail than the batch's with 422 naming paymentMethodID", async () => {
    const { setup, account, customer, token } = await scene();
    await addLine(account, token, customer, 10, []);
    const achCustomer = await bankCustomer(setup, 'ach');
    const sepaAccount = await secondBankAccount(setup, customer, 'sepa');
    for (const other of [achCustomer, sepaAccount]) {
      expectInvalid(await postLine(account, lineBody(token, other, 10, [])), 'paymentMethodID');
    }
    expect(await batchOf(account, token)).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '10.00' });
  });

  it('refuses a line for a batch no longer open with 409 batch_not_open, and an unknown batch with 404', async () => {
    const { setup, account, customer, invoice, token } = await scene();
    await addLine(account, token, customer, 10, []);
    await submit(setup, token);
    const cancelled = (await newBatch(setup)).BatchToken;
    await ok(account, 'PUT', '/v1/batches/cancel', { BatchToken: cancelled });
    for (const batchToken of [token, cancelled]) {
      const res = await postLine(
        account,
        lineBody(batchToken, customer, 10, [{ invoiceID: invoice.invoiceID, amount: 10 }]),
      );
      expectConflict(res, 'batch_not_open');
    }
    expectNotFound(await postLine(account, lineBody(crypto.randomUUID(), customer, 10, [])));
    expect((await batchOf(account, token)).NumberOfPayments).toBe(1);
    expect((await figures(account, invoice.invoiceID)).TotalPendingPaid).toBe(0);
  });

  // 500 lines of one batch are added one at a time (each holds the batch's row): 90 s, as other long walks.
  it(
    'holds at most 500 payments: the 501st is refused with 409 batch_full',
    { timeout: 90_000 },
    async () => {
      const { account, customer, token } = await scene();
      for (let chunk = 0; chunk < 20; chunk += 1) {
        const added = await Promise.all(
          Array.from({ length: 25 }, () => postLine(account, lineBody(token, customer, 1, []))),
        );
        for (const res of added) expect(res.status, res.text).toBe(201);
      }
      expect(await batchOf(account, token)).toMatchObject({ NumberOfPayments: 500, PaymentsTotal: '500.00' });
      expectConflict(await postLine(account, lineBody(token, customer, 1, [])), 'batch_full');
      expect((await batchOf(account, token)).NumberOfPayments).toBe(500);
    },
  );

  it('replays the first line for the same Idempotency-Key', async () => {
    const { account, customer, token } = await scene();
    const headers = { 'Idempotency-Key': `line-${crypto.randomUUID()}` };
    const body = lineBody(token, customer, 10, []);
    const first = await account.request('POST', '/v1/batches/payments', { body, headers });
    expect(first.status, first.text).toBe(201);
    const again = await account.request('POST', '/v1/batches/payments', { body, headers });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await batchOf(account, token)).NumberOfPayments).toBe(1);
  });
});

describe('bad input on the line endpoints', () => {
  it('refuses an invoiceID or allocationID beyond the largest id with 422, not 500', async () => {
    const { account, customer, token } = await scene();
    const huge = 1e20;
    const line = await addLine(account, token, customer, 3, []);
    const edit = { paymentID: line.paymentID, BatchToken: token, customerID: customer.customerId, Amount: 3 };
    const answers = {
      'POST invoiceID': await postLine(
        account,
        lineBody(token, customer, 3, [{ invoiceID: huge, amount: 3 }]),
      ),
      'PUT invoiceID': await putLine(account, { ...edit, PaymentApplied: [{ invoiceID: huge, amount: 1 }] }),
      'PUT allocationID': await putLine(account, {
        ...edit,
        PaymentApplied: [{ allocationID: huge, invoiceID: huge, amount: 1 }],
      }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([what, res]) => [what, res.status]))).toEqual({
      'POST invoiceID': 422,
      'PUT invoiceID': 422,
      'PUT allocationID': 422,
    });
    expect((await batchOf(account, token)).NumberOfPayments).toBe(1);
  });

  it('is answered 4xx, never 500', async () => {
    const { account, customer, invoice, token } = await scene();
    const line = await addLine(account, token, customer, 10, [{ invoiceID: invoice.invoiceID, amount: 10 }]);
    const valid = lineBody(token, customer, 5, [{ invoiceID: invoice.invoiceID, amount: 5 }]);
    const edit = {
      paymentID: line.paymentID,
      BatchToken: token,
      customerID: customer.customerId,
      Amount: 10,
    };
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/batches/payments', []],
      ['POST', '/v1/batches/payments', null],
      ['POST', '/v1/batches/payments', { ...valid, BatchToken: 7 }],
      ['POST', '/v1/batches/payments', { ...valid, customerID: '1' }],
      ['POST', '/v1/batches/payments', { ...valid, customerID: 0 }],
      ['POST', '/v1/batches/payments', { ...valid, customerID: 999_999 }],
      ['POST', '/v1/batches/payments', { ...valid, paymentMethodID: -1 }],
      ['POST', '/v1/batches/payments', { ...valid, paymentMethodID: 1.5 }],
      ['POST', '/v1/batches/payments', { ...valid, Amount: '1e309' }],
      ['POST', '/v1/batches/payments', { ...valid, Amount: 1e300 }],
      ['POST', '/v1/batches/payments', { ...valid, Amount: '9'.repeat(40) }],
      ['POST', '/v1/batches/payments', { ...valid, isAutoApply: 'yes' }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: {} }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [null] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ amount: 5 }] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ invoiceID: -1, amount: 5 }] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ invoiceID: 'one', amount: 5 }] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ invoiceNumber: 'INV-1', amount: 5 }] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ invoiceNumber: 1e300, amount: 5 }] }],
      ['POST', '/v1/batches/payments', { ...valid, PaymentApplied: [{ invoiceID: invoice.invoiceID }] }],
      ['POST', '/v1/batches/payments', { ...valid, Ref: 'r'.repeat(256) }],
      ['POST', '/v1/batches/payments', { ...valid, Memo: 'm'.repeat(1001) }],
      ['PUT', '/v1/batches/payments', { ...edit }],
      ['PUT', '/v1/batches/payments', { ...edit, paymentID: 'x', PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, paymentID: 1e20, PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, Date: 'someday', PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, Date: '2026-02-30', PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, CurrencyCode: 'ZA', PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, CurrencyCode: 'XYZ', PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, Method: 7, PaymentApplied: [] }],
      ['PUT', '/v1/batches/payments', { ...edit, PaymentApplied: [{ allocationID: -1, amount: 1 }] }],
      ['PUT', '/v1/batches/payments', { ...edit, PaymentApplied: [{ allocationID: 999_999, amount: 1 }] }],
      ['DELETE', '/v1/batches/payments/0', undefined],
      ['DELETE', '/v1/batches/payments/-3', undefined],
      ['DELETE', '/v1/batches/payments/1.5', undefined],
      ['DELETE', '/v1/batches/payments/99999999999999999999', undefined],
      ['DELETE', '/v1/batches/payments/abc', undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await account.request(method, path, body === undefined ? {} : { body });
      const what = `${method} ${path} ${JSON.stringify(body)}: ${res.text}`;
      expect(res.status, what).toBeGreaterThanOrEqual(400);
      expect(res.status, what).toBeLessThan(500);
    }
    expect(await batchOf(account, token)).toMatchObject({
      NumberOfPayments: 1,
      Payments: [{ paymentID: line.paymentID, Amount: 10 }],
    });
    expect((await figures(account, invoice.invoiceID)).TotalPendingPaid).toBe(10);
  });
});
