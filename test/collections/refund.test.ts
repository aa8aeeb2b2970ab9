import { describe, expect, it } from 'vitest';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { editPayment, ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from './cards.ts';
import { testGatewayCharges } from '../helpers/outside.ts';

// A card payment paid back through the gateway that charged it (POST /v1/payments/{id}/refund, beyond the spec):
// the gateway refunds at most what it charged, once per request however often it is sent, and the ledger records
// the refund as a positive refund adjustment the payment is allocated to. Money that paid invoices is taken in the
// same call: the invoices are credited by a credit note (the default) or reopened (docs/gateways.md "Refunds").

const t = useTestService();

/**
 * A test account whose card invoice of 100.00 was collected by the clock's run: the payment is allocated to it, as
 * collection leaves it; `release` takes that allocation back first (the payment's 100.00 is then the customer's).
 */
async function collectedPayment(
  cardNumber = '4242424242424242',
  options: { release?: boolean } = {},
): Promise<{ account: TestAccount; paymentId: number; invoiceId: number; customerId: number }> {
  const account = await t.newAccount('Refunds', { isTest: true, timeZone: 'UTC' });
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const tomorrow = new Date(Date.parse(`${clock}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  const customer = await ok(account, 'POST', '/v1/customers', { Name: 'Ada', CurrencyCode: 'USD' });
  const card = await addCard(account, customer.customerID, cardNumber);
  const invoice = await issuedInvoice(account, {
    customerId: customer.customerID,
    dueDate: tomorrow,
    collect: { method: 'credit_card', gatewayId: gateway.gatewayID, paymentMethodId: card },
    description: 'Seats',
    amount: 100,
  });
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${tomorrow}T12:00:00Z` }, 200);
  // A charge whose answer was lost is finished by the next run.
  await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
  const [payment] = await ok(account, 'GET', `/v1/customers/${customer.customerID}/payments`);
  expect(payment).toMatchObject({ Status: 'Allocated', Amount: 100 });
  expect(payment.Allocations).toEqual([
    expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 100 }),
  ]);
  if (options.release) await editPayment(account, payment.paymentID, { Allocations: [] });
  return {
    account,
    paymentId: payment.paymentID,
    invoiceId: invoice.invoiceID,
    customerId: customer.customerID,
  };
}

/** What a refund may change, as the API shows it (allocations by target, not by id). */
async function ledgerOf(account: TestAccount, customerId: number, paymentId: number, invoiceIds: number[]) {
  const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
  return {
    payment: {
      Status: payment.Status,
      Allocations: payment.Allocations.map((a: any) => [
        a.invoiceID,
        a.positiveAdjustmentID,
        a.amountApplied,
      ]),
    },
    invoices: await Promise.all(
      invoiceIds.map(async (id) => {
        const invoice = await ok(account, 'GET', `/v1/invoices/${id}`);
        return {
          Status: invoice.Status,
          Balance: invoice.Balance,
          TotalActualPaid: invoice.TotalActualPaid,
          TotalNegativeAdjs: invoice.TotalNegativeAdjs,
        };
      }),
    ),
    credits: await ok(account, 'GET', `/v1/customers/${customerId}/credits`),
    adjustments: await ok(account, 'GET', `/v1/adjustment/list?type=all&customerID=${customerId}`),
    balance: (await ok(account, 'GET', `/v1/customers/${customerId}`)).Balance,
  };
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
  return (await testGatewayCharges(t, { refundsChargeId: chargeId })).map(({ amountMinor, outcome }) => ({
    amountMinor,
    outcome,
  }));
}

describe('POST /v1/payments/{paymentID}/refund', () => {
  it('pays back part of a card payment, then the rest, and no more', async () => {
    const { account, paymentId } = await collectedPayment('4242424242424242', { release: true });
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
      { amountMinor: 4000, outcome: 'refunded' },
      { amountMinor: 6000, outcome: 'refunded' },
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
    const { account, paymentId } = await collectedPayment('4000000000000408', { release: true });
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

  it('lets two refunds at once take no more than the payment has left', async () => {
    const { account, paymentId } = await collectedPayment();
    const answers = await Promise.all([
      refund(account, paymentId, { Amount: 60 }),
      refund(account, paymentId, { Amount: 50, PaidInvoices: 'reopen' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    const refunded = await refundsAtGateway(await chargeOf(paymentId));
    const after = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    const toRefunds = after.Allocations.filter((a: any) => a.positiveAdjustmentID > 0);
    expect(toRefunds).toHaveLength(1);
    expect(refunded.map((r) => r.amountMinor)).toEqual([toRefunds[0].amountApplied * 100]);
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

/** The types of the invoice's events after the `skip` it had. */
async function invoiceEventsSince(account: TestAccount, invoiceId: number, skip: number): Promise<string[]> {
  return (await eventsOf(account, 'invoice', invoiceId)).slice(skip).map((event) => event.type);
}

describe('POST /v1/payments/{paymentID}/refund of money that paid invoices', () => {
  it('refunds a collected invoice in one call; by default a credit note keeps the invoice Paid', async () => {
    const { account, paymentId, invoiceId, customerId } = await collectedPayment();
    const invoiceEventsBefore = (await eventsOf(account, 'invoice', invoiceId)).length;
    const res = await refund(account, paymentId, { Memo: 'Cancelled within the trial' });
    expect(res.status, res.text).toBe(200);
    // All of it, to the refund adjustment: nothing is left on the invoice.
    expect(res.body).toMatchObject({ Status: 'Allocated', Amount: 100 });
    expect(res.body.Allocations).toEqual([
      expect.objectContaining({ invoiceID: 0, positiveAdjustmentID: expect.any(Number), amountApplied: 100 }),
    ]);
    const [credit] = await ok(account, 'GET', `/v1/customers/${customerId}/credits`);
    expect(credit).toMatchObject({
      Amount: 100,
      Status: 'Allocated',
      // The account's first credit note: numbered from its sequence.
      CreditNumber: 'CN-0001',
      Memo: `Refund of payment ${paymentId}: Cancelled within the trial`,
    });
    expect(credit.Allocations).toEqual([
      expect.objectContaining({ invoiceID: invoiceId, amountApplied: 100 }),
    ]);
    const invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, TotalActualPaid: 0, TotalNegativeAdjs: 100 });
    expect((await ok(account, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
    expect(await refundsAtGateway(await chargeOf(paymentId))).toEqual([
      { amountMinor: 10000, outcome: 'refunded' },
    ]);

    // Recorded: the payment refunded once, the credit note created, the invoice updated once (not paid again).
    const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(1);
    expect((await eventsOf(account, 'credit_note', credit.creditNoteID)).map((e) => e.type)).toEqual([
      'credit_note.created',
    ]);
    expect(await invoiceEventsSince(account, invoiceId, invoiceEventsBefore)).toEqual(['invoice.updated']);

    // Nothing is left: a second refund is a conflict, an amount is a 422 naming it.
    const again = await refund(account, paymentId, {});
    expect(again.status, again.text).toBe(409);
    expect(again.body.code).toBe('payment_refunded');
    const more = await refund(account, paymentId, { Amount: 1 });
    expect(more.status).toBe(422);
    expect(more.body.fields).toEqual([{ field: 'Amount', message: expect.stringContaining('at most 0.00') }]);
    expect(await refundsAtGateway(await chargeOf(paymentId))).toHaveLength(1);
  });

  it('reopens the invoice when asked: it owes the money again, and is not charged again', async () => {
    const { account, paymentId, invoiceId, customerId } = await collectedPayment();
    const invoiceEventsBefore = (await eventsOf(account, 'invoice', invoiceId)).length;
    const res = await refund(account, paymentId, { Amount: 100, PaidInvoices: 'reopen' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.Allocations.map((a: any) => [a.invoiceID, a.amountApplied])).toEqual([[0, 100]]);
    const invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ Balance: 100, TotalActualPaid: 0, TotalNegativeAdjs: 0 });
    expect(invoice.Status).not.toBe('Paid');
    expect(await ok(account, 'GET', `/v1/customers/${customerId}/credits`)).toEqual([]);
    expect((await ok(account, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(100);
    expect(await invoiceEventsSince(account, invoiceId, invoiceEventsBefore)).toEqual(['invoice.updated']);
    const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(1);

    // The refund was asked for: the run does not charge the card again for the reopened invoice.
    await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
    expect(await ok(account, 'GET', `/v1/customers/${customerId}/payments`)).toHaveLength(1);
  });

  it('takes a partial refund from the unallocated money first, then from the latest invoice', async () => {
    const { account, paymentId, invoiceId: older, customerId } = await collectedPayment();
    // A later invoice of 40.00, not collected by card; the payment is spread by hand: 50.00 on the older invoice,
    // 40.00 on the later, 10.00 left unallocated.
    const later = (await issuedInvoice(account, { customerId, description: 'Support', amount: 40 }))
      .invoiceID;
    await editPayment(account, paymentId, {
      Allocations: [
        { invoiceID: older, amountApplied: 50 },
        { invoiceID: later, amountApplied: 40 },
      ],
    });

    // 30.00 reopened: the 10.00 unallocated, then 20.00 of the later invoice.
    const first = await refund(account, paymentId, { Amount: 30, PaidInvoices: 'reopen' });
    expect(first.status, first.text).toBe(200);
    let ledger = await ledgerOf(account, customerId, paymentId, [older, later]);
    expect(ledger.invoices.map((i) => i.Balance)).toEqual([50, 20]);
    expect(ledger.credits).toEqual([]);

    // 50.00 credited: the later invoice's last 20.00, then 30.00 of the older; the credit note covers both.
    const second = await refund(account, paymentId, { Amount: 50, CreditNumber: 'CN-R-7' });
    expect(second.status, second.text).toBe(200);
    ledger = await ledgerOf(account, customerId, paymentId, [older, later]);
    expect(ledger.invoices).toEqual([
      { Status: expect.any(String), Balance: 50, TotalActualPaid: 20, TotalNegativeAdjs: 30 },
      { Status: expect.any(String), Balance: 20, TotalActualPaid: 0, TotalNegativeAdjs: 20 },
    ]);
    expect(ledger.credits).toHaveLength(1);
    expect(ledger.credits[0]).toMatchObject({ CreditNumber: 'CN-R-7', Amount: 50 });
    expect(
      ledger.credits[0].Allocations.map((a: any) => [a.invoiceID, a.amountApplied]).sort(
        (a: number[], b: number[]) => a[0]! - b[0]!,
      ),
    ).toEqual([
      [older, 30],
      [later, 20],
    ]);
    expect(ledger.payment.Allocations.filter((a: number[]) => a[0] !== 0)).toEqual([[older, 0, 20]]);
    expect(ledger.payment.Allocations.filter((a: number[]) => a[0] === 0).map((a: number[]) => a[2])).toEqual(
      [30, 50],
    );
    expect(ledger.balance).toBe(70);
    expect((await refundsAtGateway(await chargeOf(paymentId))).map((r) => r.amountMinor)).toEqual([
      3000, 5000,
    ]);

    // 20.00 is left to refund, no more.
    const tooMuch = await refund(account, paymentId, { Amount: 20.01 });
    expect(tooMuch.status, tooMuch.text).toBe(422);
    expect(tooMuch.body.fields).toEqual([
      { field: 'Amount', message: expect.stringContaining('at most 20.00') },
    ]);
  });

  it('changes nothing when the gateway refuses the refund, whichever the choice', async () => {
    for (const PaidInvoices of ['credit', 'reopen']) {
      const { account, paymentId, invoiceId, customerId } = await collectedPayment();
      // The payment's Amount raised by hand to 150.00 (the card was charged 100.00): the 50.00 more is
      // unallocated, and the gateway refuses to pay back more than it took.
      await editPayment(account, paymentId, { Amount: 150 });
      const before = await ledgerOf(account, customerId, paymentId, [invoiceId]);
      const res = await refund(account, paymentId, { PaidInvoices });
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('refund_declined');
      expect(await ledgerOf(account, customerId, paymentId, [invoiceId]), PaidInvoices).toEqual(before);
      const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
      expect(types).not.toContain('payment.refunded');
      // Asked again by the run: the attempt is finished, nothing more happens.
      await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
      expect(await ledgerOf(account, customerId, paymentId, [invoiceId])).toEqual(before);
      expect(await refundsAtGateway(await chargeOf(paymentId))).toEqual([]);
    }
  });

  it('keeps a credited refund whose answer was lost reserved, and the next run finishes it once', async () => {
    const { account, paymentId, invoiceId, customerId } = await collectedPayment('4000000000000408');
    const lost = await refund(account, paymentId, {});
    expect(lost.status, lost.text).toBe(409);
    expect(lost.body.code).toBe('refund_unanswered');
    // Reserved meanwhile: the money is the refund's, and the credit note keeps the invoice settled (so no run
    // collects it again while the answer is awaited).
    const reserved = await ledgerOf(account, customerId, paymentId, [invoiceId]);
    expect(reserved.payment.Allocations).toEqual([[0, expect.any(Number), 100]]);
    expect(reserved.invoices[0]).toMatchObject({ Status: 'Paid', Balance: 0 });
    expect(reserved.credits).toHaveLength(1);
    const charge = await chargeOf(paymentId);
    expect(await refundsAtGateway(charge)).toHaveLength(1);

    await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
    await collectDueInvoices(await accountContext(t, account.accountId), { staleAfterMs: 0 });
    expect(await refundsAtGateway(charge)).toHaveLength(1);
    const types = (await eventsOf(account, 'payment', paymentId)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.refunded')).toHaveLength(1);
    // Confirmed as reserved: only the refund adjustment's Ref, the provider's refund id, is new.
    const after = await ledgerOf(account, customerId, paymentId, [invoiceId]);
    expect({ ...after, adjustments: null }).toEqual({ ...reserved, adjustments: null });
    const adjustmentId = reserved.payment.Allocations[0][1];
    const adjustment = await ok(
      account,
      'GET',
      `/v1/adjustment/get?type=positive&adjustmentID=${adjustmentId}&customerID=${customerId}`,
    );
    expect(adjustment.adjustment.Ref).toMatch(/^re_test_/);
    expect(await ok(account, 'GET', `/v1/customers/${customerId}/payments`)).toHaveLength(1);
  });

  it('refuses a bad choice, a CreditNumber without a credit note or taken, and changes nothing', async () => {
    const { account, paymentId, invoiceId, customerId } = await collectedPayment();
    const before = await ledgerOf(account, customerId, paymentId, [invoiceId]);
    const bad = await refund(account, paymentId, { PaidInvoices: 'refund' });
    expect(bad.status).toBe(422);
    expect(bad.body.fields[0].field).toBe('PaidInvoices');
    const reopened = await refund(account, paymentId, { PaidInvoices: 'reopen', CreditNumber: 'CN-1' });
    expect(reopened.status).toBe(422);
    expect(reopened.body.fields[0].field).toBe('CreditNumber');
    await ok(account, 'POST', '/v1/credits', {
      customerID: customerId,
      Date: '2026-01-01',
      CurrencyCode: 'USD',
      Amount: 1,
      CreditNumber: 'CN-TAKEN',
      AutoApply: false,
      Allocations: [],
    });
    const taken = await refund(account, paymentId, { CreditNumber: 'CN-TAKEN' });
    expect(taken.status, taken.text).toBe(409);
    expect(taken.body.code).toBe('credit_number_taken');
    const after = await ledgerOf(account, customerId, paymentId, [invoiceId]);
    expect({
      ...after,
      credits: after.credits.filter((c: any) => c.CreditNumber !== 'CN-TAKEN'),
      balance: 0,
    }).toEqual({
      ...before,
      balance: 0,
    });
    expect(await refundsAtGateway(await chargeOf(paymentId))).toEqual([]);
    // Another account's payment is not found, whatever the body.
    const other = await t.newAccount('Elsewhere');
    expect((await refund(other, paymentId, { PaidInvoices: 'reopen' })).status).toBe(404);
  });
});
