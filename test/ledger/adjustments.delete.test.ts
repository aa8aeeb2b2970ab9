import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { customerBalance, fieldsOf, t } from './fixtures.ts';
import {
  addNegative,
  addPositive,
  createInvoice,
  detail,
  figures,
  getRes,
  pay,
  useAdjustmentsService,
} from './adjustments.fixtures.ts';

useAdjustmentsService();

describe('DELETE /v1/adjustment/delete', () => {
  const del = (options: { query?: string; body?: unknown }, as: TestAccount = t) =>
    as.request('DELETE', `/v1/adjustment/delete${options.query ? `?${options.query}` : ''}`, {
      ...(options.body !== undefined ? { body: options.body } : {}),
    });

  it('deletes a negative adjustment (parameters in the query) and restores every figure', async () => {
    const customerID = await createCustomer(t);
    const invoice = await createInvoice(customerID, 100);
    const positive = await addPositive(customerID, { Amount: 50 });
    const before = { invoice: await figures(invoice.invoiceID), balance: await customerBalance(customerID) };
    const id = await addNegative(customerID, { Amount: 200, AutoApply: true, Allocations: undefined });
    // 100 to the invoice (03-01) and 50 to the positive adjustment (03-02); 50 left: −50 owed.
    expect(await figures(invoice.invoiceID)).toMatchObject({
      TotalNegativeAdjs: 100,
      Balance: 0,
      Status: 'Paid',
    });
    expect((await detail('positive', positive, customerID)).Status).toBe('Paid');
    expect(await customerBalance(customerID)).toBe(-50);

    const res = await del({ query: `type=negative&adjustmentID=${id}&customerID=${customerID}` });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await figures(invoice.invoiceID)).toEqual(before.invoice);
    expect((await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`)).NegativeAdjustmentsApplied).toEqual([]);
    expect(await detail('positive', positive, customerID)).toMatchObject({
      Status: 'Unpaid',
      allocations: [],
    });
    expect(await customerBalance(customerID)).toBe(before.balance);
    expect((await getRes('negative', id, customerID)).status).toBe(404);
  });

  it('reads the parameters from a JSON body, and prefers the query’s when both are sent', async () => {
    const customerID = await createCustomer(t);
    const a = await addNegative(customerID);
    const b = await addNegative(customerID);
    expect(await customerBalance(customerID)).toBe(-60);
    const byBody = await del({ body: { type: 'negative', adjustmentID: a, customerID } });
    expect(byBody.status, byBody.text).toBe(204);
    expect((await getRes('negative', a, customerID)).status).toBe(404);
    // The body names the deleted one; the query's id wins and deletes b.
    const both = await del({
      query: `adjustmentID=${b}`,
      body: { type: 'negative', adjustmentID: a, customerID },
    });
    expect(both.status, both.text).toBe(204);
    expect((await getRes('negative', b, customerID)).status).toBe(404);
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('deletes a positive adjustment nothing is allocated to', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID);
    expect(await customerBalance(customerID)).toBe(50);
    expect((await del({ query: `type=positive&adjustmentID=${id}&customerID=${customerID}` })).status).toBe(
      204,
    );
    expect(await customerBalance(customerID)).toBe(0);
  });

  it('answers 409 for a positive adjustment that money is allocated to, until the allocations are removed', async () => {
    const customerID = await createCustomer(t);
    const id = await addPositive(customerID, { Amount: 50 });
    const payment = await pay(customerID, 20, [{ positiveAdjustmentID: id, amountApplied: 20 }]);
    const negative = await addNegative(customerID, {
      Amount: 10,
      Allocations: [{ objectID: id, AmtAllocated: 10, isAdjustment: true }],
    });
    const query = `type=positive&adjustmentID=${id}&customerID=${customerID}`;
    const refused = await del({ query });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('adjustment_has_allocations');
    expect(await detail('positive', id, customerID)).toMatchObject({ Status: 'Partially Paid', Amount: 50 });

    await ok(t, 'PUT', `/v1/payments/${payment.paymentID}`, {
      customerID,
      Amount: 20,
      CurrencyCode: 'USD',
      Date: '2026-03-06',
      Method: 'cash',
      allocations: [],
    });
    expect((await del({ query })).status).toBe(409);
    await ok(
      t,
      'DELETE',
      `/v1/adjustment/delete?type=negative&adjustmentID=${negative}&customerID=${customerID}`,
    );
    expect((await del({ query })).status).toBe(204);
    // What is left: the unallocated payment.
    expect(await customerBalance(customerID)).toBe(-20);
  });

  it.each([
    ['', undefined, ['type', 'adjustmentID', 'customerID']],
    ['type=positive', undefined, ['adjustmentID', 'customerID']],
    ['type=positive&adjustmentID=1', {}, ['customerID']],
    ['', { type: 'positive', adjustmentID: 1 }, ['customerID']],
    ['type=all&adjustmentID=1&customerID=1', undefined, ['type']],
    ['', { type: 'positive', adjustmentID: '1', customerID: 1 }, ['adjustmentID']],
  ])('answers 422 for ?%s with body %o naming %s', async (query, body, fields) => {
    const res = await del({ query, body });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res).sort()).toEqual([...fields].sort());
  });

  it('answers 404 when the type or the customer is not the adjustment’s, and deletes nothing', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const id = await addNegative(customerID);
    for (const query of [
      `type=positive&adjustmentID=${id}&customerID=${customerID}`,
      `type=negative&adjustmentID=${id}&customerID=${otherCustomer}`,
      `type=negative&adjustmentID=99999999&customerID=${customerID}`,
    ]) {
      const res = await del({ query });
      expect(res.status, query).toBe(404);
      expect(res.body.code).toBe('adjustment_not_found');
    }
    expect((await getRes('negative', id, customerID)).status).toBe(200);
  });
});
