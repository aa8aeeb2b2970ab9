import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { customerBalance, other, t } from './fixtures.ts';
import {
  expectInvalid,
  figures,
  newInvoice,
  pay,
  paymentBody,
  postPayment,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

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
    expect(payment.Allocations).toEqual([
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
          allocationID: payment.Allocations[0].allocationID,
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
    const allocationID = created.Allocations[0].allocationID;
    await ok(
      t,
      'PUT',
      `/v1/payments/${created.paymentID}`,
      paymentBody(customerId, 30, [{ allocationID, invoiceID: invoice.invoiceID, amountApplied: 30 }]),
    );
    expect((await ok(t, 'GET', `/v1/payments/${created.paymentID}`)).Allocations).toMatchObject([
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
    expect(payment.Allocations.map((a: any) => [a.invoiceID, a.positiveAdjustmentID])).toEqual([
      [invoice.invoiceID, 0],
    ]);
  });
});
