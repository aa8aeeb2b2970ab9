import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, t } from './fixtures.ts';
import {
  expectInvalid,
  figures,
  newInvoice,
  paidInvoice,
  pay,
  paymentBody,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

describe('PUT /v1/payments/{paymentID}', () => {
  it("answers 204 with no body and replaces the payment's fields", async () => {
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(20);
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
    const [onA, onB] = created.Allocations;
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
    expect(payment.Allocations.map((x: any) => [x.invoiceID, x.amountApplied])).toEqual([
      [a.invoiceID, 30],
      [b.invoiceID, 20],
      [c.invoiceID, 10],
    ]);
    const onC = payment.Allocations[2];
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
    expect(payment.Allocations.find((x: any) => x.allocationID === onA.allocationID).amountApplied).toBe(45);
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
    expect(payment.Allocations.map((x: any) => x.allocationID)).toEqual([onA.allocationID, onC.allocationID]);
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
    const allocationID = created.Allocations[0].allocationID;
    await ok(
      t,
      'PUT',
      `/v1/payments/${created.paymentID}`,
      paymentBody(customerId, 40, [{ allocationID, invoiceID: to.invoiceID, amountApplied: 40 }]),
    );
    const payment = await ok(t, 'GET', `/v1/payments/${created.paymentID}`);
    expect(payment.Allocations).toEqual([
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
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(150, 100);
    expect((await figures(invoice.invoiceID)).Status).toBe('Paid');
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
    const { customerId, invoice, payment: mine } = await paidInvoice(20);
    const another = await pay(
      paymentBody(customerId, 20, [{ invoiceID: invoice.invoiceID, amountApplied: 20 }]),
    );
    const before = await figures(invoice.invoiceID);
    for (const allocationID of [999_999, another.Allocations[0].allocationID]) {
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
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(20);
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
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(50);
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
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(50);
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
    const { customerId, invoice, payment: created } = await paidInvoice(50);
    const url = `/v1/payments/${created.paymentID}`;
    expectInvalid(
      await t.request('PUT', url, { body: paymentBody(customerId, 50, undefined) }),
      'allocations',
    );
    expect((await figures(invoice.invoiceID)).TotalActualPaid).toBe(50);
    await ok(t, 'PUT', url, { ...paymentBody(customerId, 50, undefined), Allocations: [] });
    expect(await ok(t, 'GET', url)).toMatchObject({ Status: 'Unallocated', Allocations: [] });
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalActualPaid: 0,
      Balance: 100,
      PaymentsApplied: [],
    });
  });

  it('refuses to carry allocations into another currency', async () => {
    const { customerId, invoice, payment: created, allocationID } = await paidInvoice(50);
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
