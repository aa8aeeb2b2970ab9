import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  addBank,
  addCard,
  db,
  newCustomer,
  other,
  primaries,
  read,
  t,
  testGatewayId,
  usePaymentMethodsService,
} from './fixtures.ts';

usePaymentMethodsService();

describe('DELETE /v1/paymentmethods/{paymentMethodID}', () => {
  it('deletes a method that is not primary', async () => {
    const customerID = await newCustomer();
    const primary = await addCard(customerID);
    const spare = await addBank(customerID);
    await ok(t, 'DELETE', `/v1/paymentmethods/${spare.paymentMethodID}`);
    expect((await t.request('GET', `/v1/paymentmethods/${spare.paymentMethodID}`)).status).toBe(404);
    const list = await ok(t, 'GET', `/v1/customers/${customerID}/paymentmethods`);
    expect(list.map((m: any) => m.paymentMethodID)).toEqual([primary.paymentMethodID]);
    expect((await t.request('DELETE', `/v1/paymentmethods/${spare.paymentMethodID}`)).status).toBe(404);
  });

  it('refuses the primary (409) until another one is made primary', async () => {
    const customerID = await newCustomer();
    const primary = await addCard(customerID);
    const res = await t.request('DELETE', `/v1/paymentmethods/${primary.paymentMethodID}`);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('payment_method_is_primary');
    expect((await read(primary.paymentMethodID)).isPrimary).toBe(true);

    const next = await addBank(customerID);
    await ok(t, 'PUT', `/v1/paymentmethods/${next.paymentMethodID}/setprimary`);
    await ok(t, 'DELETE', `/v1/paymentmethods/${primary.paymentMethodID}`);
    expect(await primaries(customerID)).toEqual([next.paymentMethodID]);
  });

  it('refuses (409) a method an invoice, a recurring invoice or a payment refers to', async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    await addCard(customerID);
    const byInvoice = await addCard(customerID);
    const byRecurring = await addBank(customerID);
    const byPayment = await addBank(customerID);
    await ok(t, 'POST', '/v1/invoices', {
      customerID,
      Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 10 }],
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: byInvoice.paymentMethodID,
    });
    await ok(t, 'POST', '/v1/recurring-invoices', {
      customerID,
      StartDate: '2026-04-01',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
      CollectionMethod: 'debit_order',
      gatewayID,
      customerPaymentMethodID: byRecurring.paymentMethodID,
    });
    // Payments have no endpoint in this file's scope: one is recorded directly, as the ledger will.
    const now = '2026-03-15T10:00:00.000Z';
    await db()
      .insertInto('payments')
      .values({
        account_id: t.accountId,
        customer_id: customerID,
        currency_code: 'USD',
        amount_minor: 1000,
        payment_date: '2026-03-15',
        method: 'debit_order',
        state: 'settled',
        payment_method_id: byPayment.paymentMethodID,
        created_at: now,
        updated_at: now,
      })
      .execute();
    for (const [id, what] of [
      [byInvoice.paymentMethodID, 'invoice'],
      [byRecurring.paymentMethodID, 'recurring invoice'],
      [byPayment.paymentMethodID, 'payments'],
    ] as const) {
      const res = await t.request('DELETE', `/v1/paymentmethods/${id}`);
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('payment_method_in_use');
      expect(res.body.detail).toContain(what);
      expect((await read(id)).paymentMethodID).toBe(id);
    }
  });

  it("answers 404 for a method that does not exist or is another account's, leaving theirs", async () => {
    const theirCustomer = await newCustomer(other);
    await addCard(theirCustomer, {}, {}, other);
    const theirs = await addCard(theirCustomer, {}, {}, other);
    for (const id of [987654321, theirs.paymentMethodID]) {
      const res = await t.request('DELETE', `/v1/paymentmethods/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('payment_method_not_found');
    }
    expect((await read(theirs.paymentMethodID, other)).paymentMethodID).toBe(theirs.paymentMethodID);
  });

  it('go with their customer when the customer is deleted, the primary too', async () => {
    const customerID = await newCustomer();
    const a = await addCard(customerID);
    const b = await addBank(customerID);
    await ok(t, 'DELETE', `/v1/customers/${customerID}`);
    for (const m of [a, b])
      expect((await t.request('GET', `/v1/paymentmethods/${m.paymentMethodID}`)).status).toBe(404);
  });
});
