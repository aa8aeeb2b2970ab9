import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { other, t } from './fixtures.ts';
import {
  expectInvalid,
  newInvoice,
  pay,
  paymentBody,
  paymentsOf,
  usePaymentsService,
} from './payments.fixtures.ts';

usePaymentsService();

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
