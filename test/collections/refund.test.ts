import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { addCard } from './cards.ts';

// A card payment paid back through the gateway that charged it (POST /v1/payments/{id}/refund, beyond the spec):
// the gateway refunds at most what it charged, once per request however often it is sent, and the ledger records
// the refund as a positive refund adjustment the payment is allocated to.

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

/** A test account whose card invoice of 100.00 was collected by the clock's run; the payment is left unallocated. */
async function collectedPayment(
  cardNumber = '4242424242424242',
): Promise<{ account: TestAccount; paymentId: number; invoiceId: number }> {
  const account = await t.newAccount('Refunds', { isTest: true, timeZone: 'UTC' });
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const tomorrow = new Date(Date.parse(`${clock}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  const customer = await ok(account, 'POST', '/v1/customers', { Name: 'Ada', CurrencyCode: 'USD' });
  const card = await addCard(account, customer.customerID, cardNumber);
  const invoice = await ok(account, 'POST', '/v1/invoices', {
    customerID: customer.customerID,
    DueDate: tomorrow,
    CollectionMethod: 'credit_card',
    gatewayID: gateway.gatewayID,
    customerPaymentMethodID: card,
    Charges: [{ Descrip: 'Seats', Qty: 1, UnitCostEx: 100 }],
  });
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${tomorrow}T12:00:00Z` }, 200);
  // A charge whose answer was lost is finished by the next run.
  await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
  const [payment] = await ok(account, 'GET', `/v1/customers/${customer.customerID}/payments`);
  expect(payment).toMatchObject({ Status: 'Allocated', Amount: 100 });
  // The invoice is credited instead: the payment's 100.00 is the customer's, to pay back.
  await ok(account, 'PUT', `/v1/payments/${payment.paymentID}`, {
    customerID: customer.customerID,
    Amount: 100,
    CurrencyCode: 'USD',
    Date: payment.Date,
    Method: 'credit_card',
    Ref: payment.Ref,
    Allocations: [],
  });
  return { account, paymentId: payment.paymentID, invoiceId: invoice.invoiceID };
}

const refund = (account: TestAccount, paymentId: number, body: Record<string, unknown>) =>
  account.request('POST', `/v1/payments/${paymentId}/refund`, { body });

/** The charge a collection attempt made for the payment. */
async function chargeOf(paymentId: number): Promise<string> {
  const attempt = await t.service.storage.db
    .selectFrom('collection_attempts')
    .select('charge_id')
    .where('payment_id', '=', paymentId)
    .executeTakeFirstOrThrow();
  return attempt.charge_id!;
}

/** The refunds the test gateway made of a charge. */
async function refundsAtGateway(chargeId: string) {
  return t.service.storage.db
    .selectFrom('test_gateway_charges')
    .select(['amount_minor', 'outcome'])
    .where('refunds_charge_id', '=', chargeId)
    .execute();
}

describe('POST /v1/payments/{paymentID}/refund', () => {
  it('pays back part of a card payment, then the rest, and no more', async () => {
    const { account, paymentId } = await collectedPayment();
    const charged = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    const first = await refund(account, paymentId, { Amount: 40, Memo: 'Two seats returned' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.Status).toBe('Partial');
    const [allocation] = first.body.Allocations;
    expect(allocation).toMatchObject({ amountApplied: 40, invoiceID: 0 });
    const adjustment = await ok(
      account,
      'GET',
      `/v1/adjustment/get?type=positive&adjustmentID=${allocation.positiveAdjustmentID}&customerID=${charged.customerID}`,
    );
    expect(adjustment.adjustment).toMatchObject({
      positiveAdjustmentType: 'refund',
      Amount: 40,
      Status: 'Paid',
      Memo: 'Two seats returned',
    });

    // More than is left unallocated: 422 naming Amount, nothing refunded.
    const tooMuch = await refund(account, paymentId, { Amount: 60.01 });
    expect(tooMuch.status, tooMuch.text).toBe(422);
    expect(tooMuch.body.fields).toEqual([{ field: 'Amount', message: expect.stringContaining('60.00') }]);
    const rest = await refund(account, paymentId, { Amount: 60 });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body).toMatchObject({ Status: 'Allocated' });
    expect(await refundsAtGateway(charged.Ref)).toEqual([
      { amount_minor: 4000, outcome: 'refunded' },
      { amount_minor: 6000, outcome: 'refunded' },
    ]);
    const none = await refund(account, paymentId, { Amount: 1 });
    expect(none.status).toBe(422);
    const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(2);
    const customer = await ok(account, 'GET', `/v1/customers/${charged.customerID}`);
    // The invoice was left unpaid (its allocation released): the customer owes it; the refunds are settled.
    expect(customer.Balance).toBe(100);
  });

  it('keeps a refund whose answer was lost reserved, and the next run records it once', async () => {
    // A card whose answers are lost: its charge is finished by a second run, its refund likewise.
    const { account, paymentId } = await collectedPayment('4000000000000408');
    const lost = await refund(account, paymentId, { Amount: 25 });
    expect(lost.status, lost.text).toBe(409);
    expect(lost.body.code).toBe('refund_unanswered');
    // Reserved meanwhile: the money is no longer the customer's to refund twice.
    const reserved = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    expect(reserved.Allocations.map((a: any) => a.amountApplied)).toEqual([25]);
    const charge = await chargeOf(paymentId);
    expect(await refundsAtGateway(charge)).toHaveLength(1);

    await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
    expect(await refundsAtGateway(charge)).toHaveLength(1);
    const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(1);
    const adjustmentId = reserved.Allocations[0].positiveAdjustmentID;
    const adjustment = await ok(
      account,
      'GET',
      `/v1/adjustment/get?type=positive&adjustmentID=${adjustmentId}&customerID=${reserved.customerID}`,
    );
    expect(adjustment.adjustment.Ref).toMatch(/^re_test_/);
    // Asked again by another run: nothing more.
    await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
    expect(await refundsAtGateway(charge)).toHaveLength(1);
  });

  it('lets two refunds at once take no more than the money left unallocated', async () => {
    const { account, paymentId, invoiceId } = await collectedPayment();
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    await ok(account, 'PUT', `/v1/payments/${paymentId}`, {
      ...payment,
      Allocations: [{ invoiceID: invoiceId, amountApplied: 50 }],
    });
    const answers = await Promise.all([
      refund(account, paymentId, { Amount: 30 }),
      refund(account, paymentId, { Amount: 40 }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    const refunded = await refundsAtGateway(await chargeOf(paymentId));
    const after = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    const toRefunds = after.Allocations.filter((a: any) => a.positiveAdjustmentID > 0);
    expect(toRefunds).toHaveLength(1);
    expect(refunded.map((r) => r.amount_minor)).toEqual([toRefunds[0].amountApplied * 100]);
  });

  it('refuses a payment recorded by hand, a bad amount, and another account’s payment', async () => {
    const { account, paymentId } = await collectedPayment();
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    const manual = await ok(account, 'POST', '/v1/payments', {
      customerID: payment.customerID,
      Amount: 10,
      CurrencyCode: 'USD',
      Date: payment.Date,
      Method: 'cash',
      AutoApply: true,
    });
    const byHand = await refund(account, manual.paymentID, { Amount: 5 });
    expect(byHand.status).toBe(409);
    expect(byHand.body.code).toBe('payment_not_refundable');
    for (const Amount of [0, -5, 1.001, 'ten']) {
      const bad = await refund(account, paymentId, { Amount });
      expect(bad.status, JSON.stringify(Amount)).toBe(422);
      expect(bad.body.fields[0].field).toBe('Amount');
    }
    const other = await t.newAccount('Elsewhere');
    expect((await refund(other, paymentId, { Amount: 5 })).status).toBe(404);
    expect((await refund(account, 999_999_999, { Amount: 5 })).status).toBe(404);
    expect(await refundsAtGateway(payment.Ref)).toEqual([]);
  });
});
