import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import {
  DECLINED_AT_VAULT,
  DECLINED_ON_CHARGE,
  VISA,
  clock,
  complete,
  createSession,
  db,
  expectProblem,
  other,
  submit,
  t,
  useWidgetService,
} from './fixtures.ts';

useWidgetService();

const get = (token: string) => ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${token}`);

describe('capturing a card in the frame', () => {
  it('vaults the card, marks the session captured and tells the frame only a summary', async () => {
    const session = await createSession(t);
    const res = await submit(session.HashToken);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      type: 'card',
      cardType: 'Visa',
      lastFour: '4242',
      expiryMonth: 12,
      expiryYear: 2029,
      charged: false,
    });
    const read = await get(session.SessionToken);
    expect(read.State).toBe('captured');
    expect(read.paymentMethodToken).toMatch(/\S/);
    expect(read.transactionID).toBeNull();
  });

  it('audits the customer’s submit as the widget’s, by the route and never the token', async () => {
    const session = await createSession(t);
    await submit(session.HashToken);
    const entries = await ok(
      t,
      'GET',
      `/v1/auditlog?resourceType=capture_session&resourceID=${session.iframeCapturePayID}&actorType=widget`,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      ActorType: 'widget',
      apiKeyID: null,
      ClientAddress: '127.0.0.1',
      Operation: 'POST /widget/capture/:HashToken/submit',
      EventType: 'capture_session.captured',
    });
    expect(JSON.stringify(entries)).not.toContain(session.HashToken);
  });

  it('names each field it refuses, and counts the attempt', async () => {
    const session = await createSession(t);
    const res = await submit(session.HashToken, {
      number: '4242424242424241',
      expiry: '02/26',
      securityCode: '12',
      name: ' ',
    });
    expectProblem(res, 422);
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([
      'number',
      'expiry',
      'securityCode',
      'name',
    ]);
    expect(res.body.attemptsLeft).toBe(4);
    expect(JSON.stringify(res.body)).not.toContain('4242424242424241');
  });

  it('locks the session after five failed submits, and takes no card after', async () => {
    const session = await createSession(t);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const res = await submit(session.HashToken, { number: DECLINED_AT_VAULT });
      expectProblem(res, 422, 'number');
      expect(res.body.attemptsLeft).toBe(5 - attempt);
    }
    const locked = await submit(session.HashToken);
    expectProblem(locked, 409);
    expect(locked.body.code).toBe('capture_session_locked');
    expect((await get(session.SessionToken)).State).toBe('locked');
  });

  it('answers 404 for a HashToken no session has', async () => {
    expectProblem(await submit('0'.repeat(64)), 404);
  });
});

const ACH = {
  kind: 'bank_account',
  accountHolder: 'Ada Lovelace',
  bank: 'Test Bank',
  accountType: 'Checking',
  accountNumber: '000123456789',
  routingNumber: '110000000',
};

describe('capturing a bank account in the frame', () => {
  it('keeps the details sealed until complete makes them the customer’s bank account', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t);
    const res = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: ACH,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ type: 'bank_account', bank: 'Test Bank', lastFour: '6789', charged: false });
    const row = await db()
      .selectFrom('capture_sessions')
      .selectAll()
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(ACH.accountNumber);
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const read = await get(session.SessionToken);
    const method = await ok(t, 'GET', `/v1/paymentmethods/${read.paymentMethodID}`);
    expect(method).toMatchObject({
      customerID: customerId,
      PaymentMethodType: 'bank_account',
      isValid: false,
      BankAccount: {
        DebitMethod: 'ach',
        AccountType: 'Checking',
        AccountHolder: 'Ada Lovelace',
        Bank: 'Test Bank',
        AccountNumber: '000123456789',
        RoutingNumber: '110000000',
        LastFourDigits: '6789',
      },
    });
  });

  it('names the bank field it refuses', async () => {
    const session = await createSession(t);
    const res = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: { ...ACH, routingNumber: '110000001' },
    });
    expectProblem(res, 422, 'routingNumber');
    expect(res.body.attemptsLeft).toBe(4);
  });

  it('takes no bank account in a session that sells', async () => {
    const session = await createSession(t, { SaleType: 'VaultSale', Amount: 10 });
    const res = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: ACH,
    });
    expectProblem(res, 422, 'kind');
    expect((await get(session.SessionToken)).State).toBe('open');
  });
});

describe('PUT /v1/widgets/capturepaymethod/complete', () => {
  it('makes the captured card a payment method of the customer; again for the same customer is a 204', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t);
    await submit(session.HashToken);
    const res = await complete(t, customerId, session.SessionToken);
    expect(res.status, res.text).toBe(204);
    const read = await get(session.SessionToken);
    expect(read).toMatchObject({ State: 'completed', customerID: customerId, paymentID: null });
    const method = await ok(t, 'GET', `/v1/paymentmethods/${read.paymentMethodID}`);
    expect(method).toMatchObject({
      customerID: customerId,
      PaymentMethodType: 'credit_card',
      isPrimary: true,
      isValid: true,
      CreditCard: { CardType: 'Visa', LastFourDigits: '4242', ExpiryMonth: 12, ExpiryYear: 2029 },
    });
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const methods = await ok(t, 'GET', `/v1/customers/${customerId}/paymentmethods`);
    expect(methods).toHaveLength(1);
  });

  it('answers 409 for another customer, and for a session that captured nothing', async () => {
    const first = await createCustomer(t);
    const second = await createCustomer(t, { Name: 'Grace' });
    const session = await createSession(t);
    expectProblem(await complete(t, first, session.SessionToken), 409);
    await submit(session.HashToken);
    expect((await complete(t, first, session.SessionToken)).status).toBe(204);
    const res = await complete(t, second, session.SessionToken);
    expectProblem(res, 409);
    expect(res.body.code).toBe('capture_session_completed');
  });

  it('answers 404 for another account’s session or customer, and changes nothing', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t);
    await submit(session.HashToken);
    const otherCustomer = await createCustomer(other);
    expectProblem(await complete(other, otherCustomer, session.SessionToken), 404);
    expectProblem(await complete(t, otherCustomer, session.SessionToken), 404);
    expect((await get(session.SessionToken)).State).toBe('captured');
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
  });

  it('records a sale as a payment of the customer, allocated to the invoice the session names', async () => {
    const customerId = await createCustomer(t);
    const invoice = await issuedInvoice(t, { customerId, amount: 25 });
    const session = await createSession(t, {
      SaleType: 'VaultSale',
      Amount: 30,
      isVaultOnlyOnSuccess: true,
      invoiceID: invoice.invoiceID,
      Description: 'Invoice payment',
    });
    const res = await submit(session.HashToken);
    expect(res.body.charged).toBe(true);
    const captured = await get(session.SessionToken);
    expect(captured.transactionID).toMatch(/\S/);
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const read = await get(session.SessionToken);
    const payment = await ok(t, 'GET', `/v1/payments/${read.paymentID}`);
    // 30.00 charged: 25.00 pays the invoice, 5.00 stays unallocated.
    expect(payment).toMatchObject({
      customerID: customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Method: 'credit_card',
      Ref: captured.transactionID,
      Status: 'Partial',
    });
    expect(payment.Allocations).toEqual([
      expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 25 }),
    ]);
    const paid = await ok(t, 'GET', `/v1/invoices/${invoice.invoiceID}`);
    expect(paid.Balance).toBe(0);
  });

  it('a declined sale with isVaultOnlyOnSuccess keeps nothing and counts the attempt', async () => {
    const session = await createSession(t, { SaleType: 'VaultSale', Amount: 30, isVaultOnlyOnSuccess: true });
    const res = await submit(session.HashToken, { number: DECLINED_ON_CHARGE });
    expectProblem(res, 422, 'number');
    expect(res.body.attemptsLeft).toBe(4);
    // Worded as a card the vault refused: a card tester learns nothing of how far the number got.
    const atVault = await submit(session.HashToken, { number: DECLINED_AT_VAULT });
    expect(res.body.fields).toEqual(atVault.body.fields);
    expect(res.body.code).toBe(atVault.body.code);
    const read = await get(session.SessionToken);
    expect(read).toMatchObject({ State: 'open', paymentMethodToken: null, transactionID: null });
  });

  it('a declined sale without isVaultOnlyOnSuccess keeps the card, charges nothing', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t, {
      SaleType: 'VaultSale',
      Amount: 30,
      isVaultOnlyOnSuccess: false,
    });
    const res = await submit(session.HashToken, { number: DECLINED_ON_CHARGE });
    expect(res.status, res.text).toBe(200);
    expect(res.body.charged).toBe(false);
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const read = await get(session.SessionToken);
    expect(read.paymentMethodID).toBeGreaterThan(0);
    expect(read.paymentID).toBeNull();
  });

  it('a Sale keeps no card: the payment is recorded without a method', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t, { VaultingType: 'None', SaleType: 'Sale', Amount: '12.50' });
    expect((await submit(session.HashToken)).body.charged).toBe(true);
    expect((await get(session.SessionToken)).paymentMethodToken).toBeNull();
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const read = await get(session.SessionToken);
    expect(read.paymentMethodID).toBeNull();
    const payment = await ok(t, 'GET', `/v1/payments/${read.paymentID}`);
    expect(payment).toMatchObject({ Amount: 12.5, Status: 'Unallocated' });
    expect(await ok(t, 'GET', `/v1/customers/${customerId}/paymentmethods`)).toEqual([]);
  });

  it('keeps no card number in the database or the logs', async () => {
    const dumps: unknown[] = [];
    for (const table of [
      'capture_sessions',
      'gateway_calls',
      'payment_methods',
      'events',
      'test_gateway_vault',
    ] as const) {
      dumps.push(await db().selectFrom(table).selectAll().execute());
    }
    const text = JSON.stringify(dumps) + t.logs.join('');
    for (const number of [VISA, DECLINED_AT_VAULT, DECLINED_ON_CHARGE, ACH.accountNumber]) {
      expect(text).not.toContain(number);
    }
  });
});

describe('expiry, on the service clock', () => {
  it('takes no card after Expires; complete works for a day after, then is a 410', async () => {
    const customerId = await createCustomer(t);
    clock.set('2026-03-16T10:00:00.000Z');
    const captured = await createSession(t, { ExpiresIn: '01:00:00' });
    const idle = await createSession(t, { ExpiresIn: '01:00:00' });
    await submit(captured.HashToken);
    clock.set('2026-03-16T11:00:00.000Z');
    expect((await get(idle.SessionToken)).State).toBe('expired');
    const late = await submit(idle.HashToken);
    expectProblem(late, 410);
    expect(late.body.code).toBe('capture_session_expired');
    clock.set('2026-03-17T10:59:59.000Z');
    expect((await complete(t, customerId, captured.SessionToken)).status).toBe(204);
    const another = await createSession(t, { ExpiresIn: '01:00:00' });
    await submit(another.HashToken);
    clock.set('2026-03-18T12:00:00.000Z');
    expectProblem(await complete(t, customerId, another.SessionToken), 410);
  });

  it('completes a session that took money however late, so the charge is recorded', async () => {
    const customerId = await createCustomer(t);
    clock.set('2026-03-20T10:00:00.000Z');
    const sale = await createSession(t, { ExpiresIn: '01:00:00', SaleType: 'VaultSale', Amount: 40 });
    expect((await submit(sale.HashToken)).status).toBe(200);
    clock.set('2026-04-20T10:00:00.000Z');
    expect((await complete(t, customerId, sale.SessionToken)).status).toBe(204);
    const read = await get(sale.SessionToken);
    expect(read.State).toBe('completed');
    expect(await ok(t, 'GET', `/v1/payments/${read.paymentID}`)).toMatchObject({ Amount: 40 });
  });
});
