import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { addCard } from './cards.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';
import { queuedMail } from '../helpers/outside.ts';

// Automatic card collection through the built-in test gateway, driven by test clocks (docs/gateways.md, "Automatic
// collection of card invoices"). Cards choose the outcome (docs/gateways.md, "The test gateway's cards"); the
// amounts are ordinary.

const t = useTestService();

interface Setup {
  account: TestAccount;
  today: string;
  customerId: number;
  invoiceId: number;
}

/** A test account in UTC with one card invoice of 100.00 due today (or in `dueInDays`), paid by `cardNumber`. */
async function cardInvoice(
  cardNumber: string,
  settings?: Record<string, unknown>,
  dueInDays = 0,
): Promise<Setup> {
  const account = await t.newAccount('Collections', { isTest: true, timeZone: 'UTC' });
  if (settings) await ok(account, 'PUT', '/v1/account', settings);
  // Tomorrow at midnight: the times of day the tests advance to are then still ahead of the clock, whenever they run.
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  const gateways = await ok(account, 'GET', '/v1/gateways');
  const gatewayId = gateways[0].gatewayID as number;
  const customerId = await createCustomer(account);
  const paymentMethodID = await addCard(account, customerId, cardNumber);
  const invoice = await issuedInvoice(account, {
    customerId,
    invoiceDate: today,
    dueDate: plusDays(today, dueInDays),
    collect: { method: 'credit_card', gatewayId, paymentMethodId: paymentMethodID },
    amount: 100,
  });
  return { account, today, customerId, invoiceId: invoice.invoiceID as number };
}

const invoiceOf = (s: Setup) => ok(s.account, 'GET', `/v1/invoices/${s.invoiceId}`);
const paymentsOf = (s: Setup) =>
  ok(s.account, 'GET', `/v1/customers/${s.customerId}/payments`) as Promise<any[]>;

describe('collecting a due card invoice', () => {
  it('charges an approving card once: the invoice is Paid by an Allocated credit_card payment, NumTries 1', async () => {
    const s = await cardInvoice('4242424242424242');
    // Before the first try, NextTryDate is that try: the start of the due date in the account's zone.
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 0, NextTryDate: `${s.today}T00:00:00.000Z` });
    const advanced = await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(advanced.Billed).toMatchObject({ collectionAttempts: 1, collected: 1 });
    const invoice = await invoiceOf(s);
    expect(invoice).toMatchObject({ Status: 'Paid', NumTries: 1, NextTryDate: null, Balance: 0 });
    const payments = await paymentsOf(s);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      Amount: 100,
      Method: 'credit_card',
      Status: 'Allocated',
      FailureReason: null,
    });
    expect(payments[0].Ref).toMatch(/^ch_test_/);
    expect(payments[0].Allocations).toEqual([
      expect.objectContaining({ invoiceID: s.invoiceId, amountApplied: 100 }),
    ]);

    // A later run finds nothing more to collect: one charge per invoice.
    await advanceClock(s.account, `${plusDays(s.today, 3)}T12:00:00Z`);
    expect(await paymentsOf(s)).toHaveLength(1);
  });

  it('retries a soft decline at +1, +3, +7 and +14 days after the first failure, then stops after 5 tries', async () => {
    const s = await cardInvoice('4000000000009995');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    let invoice = await invoiceOf(s);
    // First failure today: the next try is at the start of tomorrow.
    expect(invoice).toMatchObject({
      Status: 'Due',
      NumTries: 1,
      NextTryDate: `${plusDays(s.today, 1)}T00:00:00.000Z`,
    });
    const failed = await paymentsOf(s);
    expect(failed).toEqual([
      expect.objectContaining({ Status: 'Failed', FailureReason: 'insufficient_funds', Allocations: [] }),
    ]);

    const schedule = [
      [1, 2, plusDays(s.today, 3)],
      [3, 3, plusDays(s.today, 7)],
      [7, 4, plusDays(s.today, 14)],
    ] as const;
    for (const [day, tries, next] of schedule) {
      // The day before the retry nothing happens.
      await advanceClock(s.account, `${plusDays(s.today, day)}T00:00:00.000Z`);
      invoice = await invoiceOf(s);
      expect(invoice).toMatchObject({ NumTries: tries, NextTryDate: `${next}T00:00:00.000Z` });
    }
    await advanceClock(s.account, `${plusDays(s.today, 14)}T06:00:00Z`);
    invoice = await invoiceOf(s);
    expect(invoice).toMatchObject({ Status: 'Past Due', NumTries: 5, NextTryDate: null });
    expect(await paymentsOf(s)).toHaveLength(5);

    // Exhausted: nothing more, however long we wait.
    await advanceClock(s.account, `${plusDays(s.today, 40)}T00:00:00.000Z`);
    expect((await invoiceOf(s)).NumTries).toBe(5);
  });

  it('stops at a card that needs the customer (authentication required): one try, no next', async () => {
    const s = await cardInvoice('4000002500003155');
    await advanceClock(s.account, `${plusDays(s.today, 5)}T12:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 1, NextTryDate: null, Status: 'Past Due' });
    expect((await paymentsOf(s))[0]).toMatchObject({
      Status: 'Failed',
      FailureReason: 'authentication_required',
    });
  });

  it('backs off a technical error without counting a try or recording a payment', async () => {
    const s = await cardInvoice('4000000000000119');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    const invoice = await invoiceOf(s);
    // 5 minutes after the attempt, on the account's clock.
    expect(invoice).toMatchObject({ NumTries: 0, NextTryDate: `${s.today}T12:05:00.000Z` });
    expect(await paymentsOf(s)).toEqual([]);
  });

  it('finishes a charge whose answer was lost by asking again with its key: charged once, recorded once', async () => {
    const s = await cardInvoice('4000000000000408');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    // No answer: the attempt stays open, nothing recorded, no next try while it is in flight.
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 0, NextTryDate: null, Status: 'Due' });
    expect(await paymentsOf(s)).toEqual([]);

    // The next run (here at once: the attempt counts as stale from 0 ms) asks the gateway again with the same key.
    const ctx = await accountContext(t, s.account.accountId, fixedClock(`${s.today}T12:30:00.000Z`));
    const summary = await collectDueInvoices(ctx, { staleAfterMs: 0 });
    expect(summary).toMatchObject({ attempts: 1, succeeded: 1, unanswered: 0 });
    expect(await invoiceOf(s)).toMatchObject({ Status: 'Paid', NumTries: 1 });
    expect(await paymentsOf(s)).toHaveLength(1);
    const charges = await t.service.storage.db
      .selectFrom('test_gateway_charges')
      .select(['idempotency_key'])
      .where('idempotency_key', 'like', `inv_${s.invoiceId}_%`)
      .execute();
    expect(charges).toEqual([{ idempotency_key: `inv_${s.invoiceId}_try_1` }]);
    // Both calls are on record, the lost one as a timeout.
    const calls = await t.service.storage.db
      .selectFrom('gateway_calls')
      .select(['operation', 'outcome', 'undo_operation'])
      .where('idempotency_key', '=', `inv_${s.invoiceId}_try_1`)
      .orderBy('id')
      .execute();
    expect(calls).toEqual([
      { operation: 'charge', outcome: 'timeout', undo_operation: 'refund' },
      { operation: 'charge', outcome: 'succeeded', undo_operation: 'refund' },
    ]);
  });

  it('refuses at add a card the test gateway declines when vaulting (422 naming CreditCard)', async () => {
    const account = await t.newAccount('Vault', { isTest: true, timeZone: 'UTC' });
    const customerId = await createCustomer(account);
    const res = await account.request('POST', '/v1/paymentmethods/creditcard', {
      body: {
        customerID: customerId,
        isPrimary: true,
        CreditCard: {
          CardType: 'Visa',
          Number: '4000000000009979',
          NameOnCard: 'Ada',
          LastNameOnCard: 'Lovelace',
          ExpiryMonth: 12,
          ExpiryYear: 2040,
        },
      },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('stolen_card');
    expect(JSON.stringify(res.body)).not.toContain('4000000000009979');
    expect(await ok(account, 'GET', `/v1/customers/${customerId}/paymentmethods`)).toEqual([]);
  });

  it('when retries run out: an event, an e-mail to the customer and its active contacts, and the actions the account asks for', async () => {
    const s = await cardInvoice('4000000000009995', {
      DunningRetryDays: [2],
      DunningMaxAttempts: 2,
      DunningSuspendCustomer: true,
      DunningCancelSubscriptions: true,
    });
    await ok(s.account, 'POST', '/v1/customercontacts', {
      customerID: s.customerId,
      Name: 'Grace',
      LastName: 'Hopper',
      Email: 'grace@example.com',
    });
    const plan = await createPlan(s.account, { chargePrice: 0 });
    const subscription = await subscribe(s.account, s.customerId, plan, { StartDate: s.today });

    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    // The account's schedule: the one retry two days after the first failure.
    expect(await invoiceOf(s)).toMatchObject({
      NumTries: 1,
      NextTryDate: `${plusDays(s.today, 2)}T00:00:00.000Z`,
    });
    await advanceClock(s.account, `${plusDays(s.today, 2)}T12:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 2, NextTryDate: null });

    const types = (await eventsOf(s.account, 'invoice', s.invoiceId)).map((event) => event.type);
    expect(types.filter((type) => type === 'invoice.payment_failed')).toHaveLength(2);
    expect(types.filter((type) => type === 'invoice.collection_exhausted')).toHaveLength(1);

    const mails = await queuedMail(t, s.account, { subjectLike: 'Payment of invoice%' });
    // One notice per failure to each recipient: the first decline's, then the last one's (never a second e-mail
    // for the failure that ended the retries).
    expect(mails.map((mail) => mail.recipient)).toEqual([
      'ada@example.com',
      'grace@example.com',
      'ada@example.com',
      'grace@example.com',
    ]);

    const customer = await ok(s.account, 'GET', `/v1/customers/${s.customerId}`);
    expect(customer).toMatchObject({ comp_status: 'Suspended', isSuspended: true });
    const cancelled = await ok(s.account, 'GET', `/v1/subscriptions/${subscription.subscriptionID}`);
    // At the end of its paid period, not at once.
    expect(cancelled).toMatchObject({ isFutureChange: true, isCancelled: false });
    expect(cancelled.CancelDate).not.toBeNull();
  });

  it('leaves the customer and its subscriptions alone when retries run out by default', async () => {
    const s = await cardInvoice('4000000000009995', { DunningMaxAttempts: 1 });
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 1, NextTryDate: null });
    const types = (await eventsOf(s.account, 'invoice', s.invoiceId)).map((event) => event.type);
    expect(types).toContain('invoice.collection_exhausted');
    expect((await ok(s.account, 'GET', `/v1/customers/${s.customerId}`)).comp_status).toBe('Active');
  });

  it('never retries a hard decline, and the card it declined is no longer valid', async () => {
    const s = await cardInvoice('4000000000000085');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 1, NextTryDate: null });
    const [payment] = await paymentsOf(s);
    expect(payment).toMatchObject({ Status: 'Failed', FailureReason: 'lost_card' });
    const invoice = await invoiceOf(s);
    const card = await ok(s.account, 'GET', `/v1/paymentmethods/${invoice.customerPaymentMethodID}`);
    expect(card.isValid).toBe(false);
    // Stopped, not exhausted: a new card starts the schedule again (below).
    const types = (await eventsOf(s.account, 'invoice', s.invoiceId)).map((event) => event.type);
    expect(types).toContain('invoice.payment_failed');
    expect(types).not.toContain('invoice.collection_exhausted');
    const methodEvents = (await eventsOf(s.account, 'payment_method', card.paymentMethodID)).map(
      (e) => e.type,
    );
    expect(methodEvents).toEqual(['payment_method.created', 'payment_method.updated']);
  });

  it('reverses a payment its gateway reports disputed a week later, by itself, once', async () => {
    const s = await cardInvoice('4000000000000259');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect((await invoiceOf(s)).Status).toBe('Paid');
    await advanceClock(s.account, `${plusDays(s.today, 6)}T12:00:00Z`);
    expect((await paymentsOf(s))[0].Status).toBe('Allocated');
    await advanceClock(s.account, `${plusDays(s.today, 7)}T12:00:00Z`);
    const [payment] = await paymentsOf(s);
    expect(payment).toMatchObject({ Status: 'Failed', FailureReason: 'disputed' });
    expect(await invoiceOf(s)).toMatchObject({ Balance: 100, NextTryDate: null });
    await advanceClock(s.account, `${plusDays(s.today, 9)}T12:00:00Z`);
    const types = (await eventsOf(s.account, 'payment', payment.paymentID)).map((event) => event.type);
    expect(types.filter((type) => type === 'payment.reversed')).toHaveLength(1);
  });

  it('tries again at once with a new primary card after a failure that needed the customer', async () => {
    const s = await cardInvoice('4000002500003155');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ NumTries: 1, NextTryDate: null });

    const card = await addCard(s.account, s.customerId, '5555555555554444');
    // The account's clock stands at noon: the retry is due now, from the new card.
    expect(await invoiceOf(s)).toMatchObject({
      customerPaymentMethodID: card,
      NextTryDate: `${s.today}T12:00:00.000Z`,
    });
    await advanceClock(s.account, `${s.today}T12:01:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ Status: 'Paid', NumTries: 2, NextTryDate: null });
    const types = (await eventsOf(s.account, 'invoice', s.invoiceId)).map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(['invoice.payment_failed', 'invoice.updated', 'invoice.paid']),
    );
  });

  it('leaves an invoice never tried to its due date when a new primary card comes', async () => {
    const s = await cardInvoice('4242424242424242', undefined, 5);
    await addCard(s.account, s.customerId, '4012888888881881');
    // Its first try stays on its due date.
    expect(await invoiceOf(s)).toMatchObject({
      NumTries: 0,
      NextTryDate: `${plusDays(s.today, 5)}T00:00:00.000Z`,
    });
    await advanceClock(s.account, `${plusDays(s.today, 4)}T12:00:00Z`);
    expect((await invoiceOf(s)).NumTries).toBe(0);
    await advanceClock(s.account, `${plusDays(s.today, 5)}T00:00:00Z`);
    expect(await invoiceOf(s)).toMatchObject({ Status: 'Paid', NumTries: 1 });
  });
});

describe('records a collection leaves behind', () => {
  it('refuses to edit a failed payment (409): money never received pays nothing', async () => {
    const s = await cardInvoice('4000000000009995');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    const [failed] = await paymentsOf(s);
    const res = await s.account.request('PUT', `/v1/payments/${failed.paymentID}`, {
      body: {
        customerID: s.customerId,
        Amount: 100,
        CurrencyCode: 'USD',
        Date: s.today,
        Method: 'credit_card',
        Allocations: [{ invoiceID: s.invoiceId, amountApplied: 100 }],
      },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('payment_failed');
    expect(await invoiceOf(s)).toMatchObject({ Status: 'Due', Balance: 100, TotalActualPaid: 0 });
  });

  it('keeps a card whose charge still waits for its answer (409 on delete), and records the answer once it comes', async () => {
    const s = await cardInvoice('4000000000000408');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    const [old] = await ok(s.account, 'GET', `/v1/customers/${s.customerId}/paymentmethods`);
    await addCard(s.account, s.customerId, '4012888888881881');
    const removed = await s.account.request('DELETE', `/v1/paymentmethods/${old.paymentMethodID}`);
    expect(removed.status, removed.text).toBe(409);
    expect(removed.body.code).toBe('payment_method_in_use');

    const ctx = await accountContext(t, s.account.accountId, fixedClock(`${s.today}T12:30:00.000Z`));
    expect(await collectDueInvoices(ctx, { staleAfterMs: 0 })).toMatchObject({ attempts: 1, succeeded: 1 });
    const payments = await paymentsOf(s);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ Status: 'Allocated' });
    expect(await invoiceOf(s)).toMatchObject({ Status: 'Paid', NumTries: 1, NextTryDate: null });
    // Answered: now the payment it made names it.
    const still = await s.account.request('DELETE', `/v1/paymentmethods/${old.paymentMethodID}`);
    expect(still.body.detail).toMatch(/used by payments/);
  });
});

describe('POST /v1/test/simulate', () => {
  const simulate = (account: TestAccount, body: Record<string, unknown>) =>
    account.request('POST', '/v1/test/simulate', { body });

  it('reverses a collected payment on a dispute: Failed, its invoice owes the money again, payment.reversed', async () => {
    const s = await cardInvoice('4242424242424242');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    const [payment] = await paymentsOf(s);
    const res = await simulate(s.account, { paymentID: payment.paymentID, scenario: 'dispute' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ Status: 'Failed', FailureReason: 'disputed', Allocations: [] });
    expect(await invoiceOf(s)).toMatchObject({
      Status: 'Due',
      Balance: 100,
      TotalActualPaid: 0,
      PaymentsApplied: [],
    });
    const types = (await eventsOf(s.account, 'payment', payment.paymentID)).map((event) => event.type);
    expect(types).toEqual(['payment.created', 'payment.reversed']);
    const invoiceTypes = (await eventsOf(s.account, 'invoice', s.invoiceId)).map((event) => event.type);
    expect(invoiceTypes.at(-1)).toBe('invoice.updated');

    // Once failed, it cannot fail again; a settled payment is not pending.
    const again = await simulate(s.account, { paymentID: payment.paymentID, scenario: 'refund' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('payment_failed');
  });

  it('fails a collected payment with the rail’s code on unpaid:<code>', async () => {
    const s = await cardInvoice('4242424242424242');
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    const [payment] = await paymentsOf(s);
    const paid = await simulate(s.account, { paymentID: payment.paymentID, scenario: 'paid' });
    expect(paid.status).toBe(409);
    expect(paid.body.code).toBe('payment_not_pending');
    const res = await simulate(s.account, { paymentID: payment.paymentID, scenario: 'unpaid:R01' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ Status: 'Failed', FailureReason: 'unpaid' });
    expect((await invoiceOf(s)).Balance).toBe(100);
  });

  it('refuses a payment recorded by hand (409), an unknown scenario (422 naming scenario), and another account’s payment (404)', async () => {
    const s = await cardInvoice('4242424242424242');
    const cash = await ok(s.account, 'POST', '/v1/payments', {
      customerID: s.customerId,
      Amount: 10,
      CurrencyCode: 'USD',
      Date: s.today,
      Method: 'cash',
      allocations: [{ invoiceID: s.invoiceId, amountApplied: 10 }],
    });
    const manual = await simulate(s.account, { paymentID: cash.paymentID, scenario: 'dispute' });
    expect(manual.status).toBe(409);
    expect(manual.body.code).toBe('payment_not_collected');
    const bad = await simulate(s.account, { paymentID: cash.paymentID, scenario: 'lost' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('scenario');
    const stranger = await t.newAccount('Stranger', { isTest: true });
    expect((await simulate(stranger, { paymentID: cash.paymentID, scenario: 'dispute' })).status).toBe(404);
    expect((await invoiceOf(s)).Balance).toBe(90);
  });

  it('refuses a live account with 403 not_a_test_account, even for its test gateway’s charge: nothing changes', async () => {
    // A live account's test gateway is in test mode too, but the account's payments are its books.
    const account = await t.newAccount('Live', { timeZone: 'UTC' });
    const today = new Date().toISOString().slice(0, 10);
    const [gateway] = await ok(account, 'GET', '/v1/gateways');
    expect(gateway.isTestMode).toBe(true);
    const customerId = await createCustomer(account);
    const invoice = await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: today,
      DueDate: today,
      CollectionMethod: 'credit_card',
      gatewayID: gateway.gatewayID,
      customerPaymentMethodID: await addCard(account, customerId, '4242424242424242'),
      Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 100 }],
    });
    const ctx = await accountContext(t, account.accountId);
    expect(await collectDueInvoices(ctx, { staleAfterMs: 0 })).toMatchObject({ attempts: 1, succeeded: 1 });
    const [payment] = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
    const invoiceBefore = await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`);
    expect(invoiceBefore).toMatchObject({ Status: 'Paid', Balance: 0 });

    for (const scenario of ['dispute', 'refund', 'unpaid:R01', 'paid']) {
      const res = await simulate(account, { paymentID: payment.paymentID, scenario });
      expect(res.status, res.text).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('not_a_test_account');
      expect(res.body.detail).toContain('billing account create --test');
    }
    expect(await ok(account, 'GET', `/v1/payments/${payment.paymentID}`)).toEqual(payment);
    expect(await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toEqual(invoiceBefore);
    expect((await eventsOf(account, 'payment', payment.paymentID)).map((event) => event.type)).toEqual([
      'payment.created',
    ]);
  });
});
