import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { customerBalance, t } from './fixtures.ts';
import {
  figures,
  newInvoice,
  paidInvoice,
  pay,
  paymentBody,
  paymentsOf,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

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
    const { customerId, invoice, payment: created } = await paidInvoice(30);
    const refused = await t.request('DELETE', `/v1/invoices/${invoice.invoiceID}`);
    expect(refused.status).toBe(409);
    expect(await figures(invoice.invoiceID)).toMatchObject({ Status: 'Due', TotalActualPaid: 30 });

    await ok(t, 'PUT', `/v1/payments/${created.paymentID}`, paymentBody(customerId, 30, []));
    await ok(t, 'DELETE', `/v1/invoices/${invoice.invoiceID}`);
    expect((await figures(invoice.invoiceID)).Status).toBe('Cancelled');
  });
});
