import { describe, expect, it } from 'vitest';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from './cards.ts';
import { setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { renderPdf } from '../invoicing/pdf.fixtures.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';

// Invoices that name no CollectionMethod of their own (those of subscriptions, and those made through the API
// without one) are collected as their customer's payment settings say, resolved at each attempt
// (docs/gateways.md, "From the customer's settings to the money"). Driven by test clocks over HTTP.

const t = useTestService();

/** The same day `months` later (the test starts on the 1st, so every month has it). */
const plusMonths = (date: string, months: number) => {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
};

interface World {
  account: TestAccount;
  today: string;
  gatewayId: number;
  plan: { packageId: number; rateTermId: number };
}

/** A test account in UTC whose clock stands at midnight on the first of next month, with a 30.00 monthly plan. */
async function world(): Promise<World> {
  const account = await t.newAccount('Subscription collection', { isTest: true, timeZone: 'UTC' });
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const next = new Date(`${clock}T00:00:00.000Z`);
  next.setUTCMonth(next.getUTCMonth() + 1, 1);
  const today = next.toISOString().slice(0, 10);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  const gateways = await ok(account, 'GET', '/v1/gateways');
  const plan = await createPlan(account, { chargePrice: 30 });
  return { account, today, gatewayId: gateways[0].gatewayID as number, plan };
}

async function customer(w: World, body: Record<string, unknown>): Promise<number> {
  const made = await ok(w.account, 'POST', '/v1/customers', {
    Name: 'Ada',
    LastName: 'Lovelace',
    Email: 'ada@example.com',
    ...body,
  });
  return made.customerID as number;
}

const paymentsOf = (w: World, customerId: number) =>
  ok(w.account, 'GET', `/v1/customers/${customerId}/payments`) as Promise<any[]>;

/** The messages queued for `recipient`, their text opened. */
async function mailsTo(accountId: number, recipient: string) {
  const rows = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select(['subject', 'body_sealed'])
    .where('account_id', '=', accountId)
    .where('recipient', '=', recipient)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ subject: row.subject, text: t.service.secrets.open(row.body_sealed) }));
}

describe('a card customer subscribed to a monthly plan', () => {
  it('is charged on every renewal for three months: each invoice Paid by exactly one credit_card payment', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    const cardId = await addCard(w.account, customerId, '4242424242424242');
    await subscribe(w.account, customerId, w.plan);
    for (let month = 1; month <= 3; month += 1) {
      await advanceClock(w.account, `${plusMonths(w.today, month)}T12:00:00.000Z`);
    }
    const invoices = await invoicesOf(w.account, customerId);
    // The start and three renewals: 4 × 30.00.
    expect(invoices).toHaveLength(4);
    const payments = await paymentsOf(w, customerId);
    expect(payments).toHaveLength(4);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({
        Status: 'Paid',
        Balance: 0,
        NumTries: 1,
        CollectionSource: 'customer',
        CollectionMethod: 'credit_card',
        gatewayID: w.gatewayId,
        customerPaymentMethodID: cardId,
        CollectionProblem: null,
      });
      expect(invoice.PaymentsApplied).toHaveLength(1);
    }
    expect(payments.every((p) => p.Method === 'credit_card' && p.Amount === 30)).toBe(true);
    const paidInvoiceIds = payments.flatMap((p) => p.Allocations.map((a: any) => a.invoiceID));
    expect(new Set(paidInvoiceIds).size).toBe(4);
  });

  it('shows before its due date what the settings will do: the card, the gateway and the first try', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card' });
    const cardId = await addCard(w.account, customerId, '4242424242424242');
    const invoice = await issuedInvoice(w.account, {
      customerId,
      dueDate: plusDays(w.today, 5),
      amount: 100,
    });
    // No PrimaryGatewayID: the gateway that keeps the primary card.
    expect(invoice).toMatchObject({
      CollectionSource: 'customer',
      CollectionMethod: 'credit_card',
      gatewayID: w.gatewayId,
      customerPaymentMethodID: cardId,
      NextTryDate: `${plusDays(w.today, 5)}T00:00:00.000Z`,
      NumTries: 0,
    });
    await advanceClock(w.account, `${plusDays(w.today, 4)}T12:00:00.000Z`);
    expect(await paymentsOf(w, customerId)).toHaveLength(0);
    await advanceClock(w.account, `${plusDays(w.today, 5)}T12:00:00.000Z`);
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).toMatchObject({
      Status: 'Paid',
      NumTries: 1,
    });
  });

  it('retries a soft decline on the schedule, and at once when the customer adds a new primary card', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    await addCard(w.account, customerId, '4000000000009995'); // insufficient funds, every time
    await subscribe(w.account, customerId, w.plan);
    await advanceClock(w.account, `${w.today}T12:00:00.000Z`);
    let [invoice] = await invoicesOf(w.account, customerId);
    // The first failure; the default schedule tries again 1 day after it.
    expect(invoice).toMatchObject({ NumTries: 1, NextTryDate: `${plusDays(w.today, 1)}T00:00:00.000Z` });
    await advanceClock(w.account, `${plusDays(w.today, 1)}T12:00:00.000Z`);
    [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ NumTries: 2, NextTryDate: `${plusDays(w.today, 3)}T00:00:00.000Z` });
    const failed = await paymentsOf(w, customerId);
    expect(failed.map((p) => [p.Status, p.FailureReason])).toEqual([
      ['Failed', 'insufficient_funds'],
      ['Failed', 'insufficient_funds'],
    ]);

    // A new primary card: tried at once (NextTryDate now), charged by the next step of the clock.
    const newCard = await addCard(w.account, customerId, '5555555555554444');
    [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ customerPaymentMethodID: newCard, NumTries: 2 });
    expect(Date.parse(invoice.NextTryDate)).toBeLessThan(Date.parse(`${plusDays(w.today, 3)}T00:00:00.000Z`));
    await advanceClock(w.account, `${plusDays(w.today, 1)}T13:00:00.000Z`);
    [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Paid', NumTries: 3, NextTryDate: null });
    const collected = (await paymentsOf(w, customerId)).filter((p) => p.Status !== 'Failed');
    expect(collected).toHaveLength(1);
    expect(collected[0]).toMatchObject({ Amount: 30, Allocations: [{ invoiceID: invoice.invoiceID }] });
  });

  it('stops at a hard decline: the card becomes invalid, no retry, and the next renewal is reported blocked', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    const cardId = await addCard(w.account, customerId, '4000000000000085'); // reported lost since it was added
    await subscribe(w.account, customerId, w.plan);
    await advanceClock(w.account, `${w.today}T12:00:00.000Z`);
    let [first] = await invoicesOf(w.account, customerId);
    expect(first).toMatchObject({ NumTries: 1, NextTryDate: null, Status: 'Due' });
    expect(await ok(w.account, 'GET', `/v1/paymentmethods/${cardId}`)).toMatchObject({ isValid: false });
    await advanceClock(w.account, `${plusMonths(w.today, 1)}T12:00:00.000Z`);
    const invoices = await invoicesOf(w.account, customerId);
    expect(invoices).toHaveLength(2);
    [first] = invoices;
    expect(first).toMatchObject({ NumTries: 1 });
    expect(invoices[1]).toMatchObject({
      NumTries: 0,
      CollectionSource: 'customer',
      CollectionProblem: `the primary payment method ${cardId} is not valid`,
      customerPaymentMethodID: null,
    });
    expect(await paymentsOf(w, customerId)).toHaveLength(1);
  });
});

describe('what the invoice tells the customer', () => {
  it('its PDF and e-mail say the card it will be charged to, instead of the payment instructions', async () => {
    const w = await world();
    await ok(w.account, 'PUT', '/v1/account', {
      PaymentInstructions: 'Pay into account 123 at Example Bank',
    });
    const customerId = await customer(w, { PaymentMethod: 'credit_card', Email: 'note@example.com' });
    await addCard(w.account, customerId, '4242424242424242');
    const invoice = await issuedInvoice(w.account, {
      customerId,
      dueDate: plusDays(w.today, 5),
      amount: 100,
    });
    const day = Number(plusDays(w.today, 5).slice(8, 10));
    const month = new Date(`${plusDays(w.today, 5)}T00:00:00Z`).toLocaleString('en-GB', {
      month: 'short',
      timeZone: 'UTC',
    });
    const note = `This amount will be charged to Visa ending 4242 on or after ${day} ${month} ${plusDays(w.today, 5).slice(0, 4)}.`;

    const res = await fetch(`${t.url}/v1/invoices/${invoice.invoiceID}/pdf`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${w.account.accountId}:${w.account.apiKey}`).toString('base64')}`,
      },
    });
    expect(res.status).toBe(200);
    const rendered = renderPdf(Buffer.from(await res.arrayBuffer()), 'collection-note');
    expect(rendered.text.replace(/\s+/g, ' ')).toContain(note);
    expect(rendered.text).not.toContain('Example Bank');

    await ok(w.account, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`);
    const [mail] = await mailsTo(w.account.accountId, 'note@example.com');
    expect(mail!.text).toContain(note);

    // An eft customer's invoice carries the payment instructions.
    await ok(w.account, 'PUT', `/v1/customers/${customerId}`, { PaymentMethod: 'eft' });
    const eft = await fetch(`${t.url}/v1/invoices/${invoice.invoiceID}/pdf`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${w.account.accountId}:${w.account.apiKey}`).toString('base64')}`,
      },
    });
    const eftText = renderPdf(Buffer.from(await eft.arrayBuffer()), 'collection-note-eft').text;
    expect(eftText).toContain('Example Bank');
    expect(eftText).not.toContain('will be charged');
  });
});

describe('NextTryDate of an invoice that follows its customer', () => {
  it('is the first try only while one is planned: none once paid, none while the first charge is in flight', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    await addCard(w.account, customerId, '4000000000000408'); // charged, the answer never comes
    const invoice = (dueIn: number) =>
      issuedInvoice(w.account, { customerId, dueDate: plusDays(w.today, dueIn), amount: 10 });
    const read = async (id: number) => (await ok(w.account, 'GET', `/v1/invoices/${id}`)).NextTryDate;

    // Paid before its due date: nothing is left to try.
    const paid = await invoice(5);
    expect(paid.NextTryDate).toBe(`${plusDays(w.today, 5)}T00:00:00.000Z`);
    await ok(w.account, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 10,
      CurrencyCode: 'USD',
      Date: w.today,
      Method: 'eft',
      allocations: [{ invoiceID: paid.invoiceID, amountApplied: 10 }],
    });
    expect(await read(paid.invoiceID)).toBeNull();

    // Its first charge in flight: no next try until it is answered.
    const charged = await invoice(0);
    await advanceClock(w.account, `${w.today}T12:00:00.000Z`);
    const attempts = await t.service.storage.db
      .selectFrom('collection_attempts')
      .select('state')
      .where('invoice_id', '=', charged.invoiceID)
      .execute();
    expect(attempts).toEqual([{ state: 'started' }]);
    expect(await read(charged.invoiceID)).toBeNull();
  });

  it('shows no retry while the customer pays by eft, and the one scheduled when it pays by card again', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    await addCard(w.account, customerId, '4000000000009995'); // insufficient funds, every time
    const { invoiceID } = await issuedInvoice(w.account, { customerId, dueDate: w.today, amount: 10 });
    await advanceClock(w.account, `${w.today}T12:00:00.000Z`);
    const retry = `${plusDays(w.today, 1)}T00:00:00.000Z`;
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoiceID}`)).toMatchObject({
      NumTries: 1,
      NextTryDate: retry,
    });
    await ok(w.account, 'PUT', `/v1/customers/${customerId}`, { PaymentMethod: 'eft' });
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoiceID}`)).toMatchObject({
      CollectionMethod: 'eft',
      NextTryDate: null,
    });
    await advanceClock(w.account, `${plusDays(w.today, 2)}T12:00:00.000Z`);
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoiceID}`)).toMatchObject({
      NumTries: 1,
      NextTryDate: null,
    });
    await ok(w.account, 'PUT', `/v1/customers/${customerId}`, { PaymentMethod: 'credit_card' });
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoiceID}`)).toMatchObject({ NextTryDate: retry });
    await advanceClock(w.account, `${plusDays(w.today, 2)}T13:00:00.000Z`);
    expect(await ok(w.account, 'GET', `/v1/invoices/${invoiceID}`)).toMatchObject({ NumTries: 2 });
  });
});

describe('customers who do not pay by card or debit order', () => {
  it('an eft customer with a valid card on file is never charged', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'eft', PrimaryGatewayID: w.gatewayId });
    await addCard(w.account, customerId, '4242424242424242');
    await subscribe(w.account, customerId, w.plan);
    await advanceClock(w.account, `${plusMonths(w.today, 2)}T12:00:00.000Z`);
    const invoices = await invoicesOf(w.account, customerId);
    expect(invoices).toHaveLength(3);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({
        CollectionSource: 'customer',
        CollectionMethod: 'eft',
        gatewayID: null,
        customerPaymentMethodID: null,
        NumTries: 0,
        NextTryDate: null,
        CollectionProblem: null,
      });
    }
    expect(await paymentsOf(w, customerId)).toHaveLength(0);
  });

  it('a customer switching from eft to credit_card has its open invoices collected by the next run', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'eft' });
    await addCard(w.account, customerId, '4242424242424242');
    await subscribe(w.account, customerId, w.plan);
    await advanceClock(w.account, `${plusDays(w.today, 3)}T12:00:00.000Z`);
    let [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Past Due', NumTries: 0 });
    await ok(w.account, 'PUT', `/v1/customers/${customerId}`, { PaymentMethod: 'credit_card' });
    [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ CollectionMethod: 'credit_card', gatewayID: w.gatewayId });
    await advanceClock(w.account, `${plusDays(w.today, 4)}T12:00:00.000Z`);
    [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({ Status: 'Paid', NumTries: 1 });
    expect(await paymentsOf(w, customerId)).toHaveLength(1);
  });
});

describe('a subscription that names its own collection', () => {
  it('overrides its customer: its invoices keep their own card although the customer pays by eft', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'eft' });
    const primary = await addCard(w.account, customerId, '4242424242424242');
    const other = await addCard(w.account, customerId, '5555555555554444', { isPrimary: false });
    const subscription = await subscribe(w.account, customerId, w.plan, {
      CollectionMethod: 'credit_card',
      gatewayID: w.gatewayId,
      customerPaymentMethodID: other,
    });
    expect(subscription).toMatchObject({
      CollectionMethod: 'credit_card',
      gatewayID: w.gatewayId,
      customerPaymentMethodID: other,
    });
    await advanceClock(w.account, `${plusMonths(w.today, 1)}T12:00:00.000Z`);
    const invoices = await invoicesOf(w.account, customerId);
    expect(invoices).toHaveLength(2);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({
        Status: 'Paid',
        CollectionSource: 'invoice',
        customerPaymentMethodID: other,
      });
    }
    const payments = await paymentsOf(w, customerId);
    expect(payments).toHaveLength(2);
    expect(payments.every((p) => p.customerPaymentMethodID !== primary)).toBe(true);
  });

  it('is held with a CollectionProblem when its own gateway cannot charge, and the staff are told once', async () => {
    const w = await world();
    await ok(w.account, 'PUT', '/v1/account', { StaffEmail: 'staff@example.com' }, 204);
    const customerId = await customer(w, { PaymentMethod: 'eft' });
    const card = await addCard(w.account, customerId, '4242424242424242');
    await subscribe(w.account, customerId, w.plan, {
      CollectionMethod: 'credit_card',
      gatewayID: w.gatewayId,
      customerPaymentMethodID: card,
    });
    await setGatewayEnabled(await accountContext(t, w.account.accountId), w.gatewayId, false);
    await advanceClock(w.account, `${plusDays(w.today, 1)}T12:00:00.000Z`);
    await advanceClock(w.account, `${plusDays(w.today, 2)}T12:00:00.000Z`);
    const [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({
      Status: 'Past Due',
      NumTries: 0,
      NextTryDate: null,
      CollectionProblem: `gateway ${w.gatewayId} is disabled or retired`,
    });
    const types = (await eventsOf(w.account, 'invoice', invoice.invoiceID)).map((e) => e.type);
    expect(types.filter((type) => type === 'invoice.collection_blocked')).toHaveLength(1);
    const told = await mailsTo(w.account.accountId, 'staff@example.com');
    expect(told.map((mail) => mail.subject)).toEqual([
      `Invoice ${invoice.invoiceNum} cannot be charged: gateway ${w.gatewayId} is disabled or retired`,
    ]);
    expect(await paymentsOf(w, customerId)).toEqual([]);
  });

  it('is refused with the rules of a recurring invoice: a gateway is required for credit_card', async () => {
    const w = await world();
    const customerId = await customer(w, {});
    const res = await w.account.request('POST', '/v1/subscriptions', {
      body: {
        customerID: customerId,
        packageID: w.plan.packageId,
        packageRateTermID: w.plan.rateTermId,
        CollectionMethod: 'credit_card',
      },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('gatewayID');
    expect(await ok(w.account, 'GET', '/v1/subscriptions')).toHaveLength(0);
  });
});

describe('a card customer without a usable method', () => {
  it('still gets the invoice; it records why, emits invoice.collection_blocked and e-mails the customer once', async () => {
    const w = await world();
    const customerId = await customer(w, {
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: w.gatewayId,
      Email: 'nocard@example.com',
    });
    await subscribe(w.account, customerId, w.plan);
    await advanceClock(w.account, `${plusDays(w.today, 2)}T12:00:00.000Z`);
    const [invoice] = await invoicesOf(w.account, customerId);
    expect(invoice).toMatchObject({
      Status: 'Past Due',
      NumTries: 0,
      CollectionMethod: 'credit_card',
      CollectionProblem: 'the customer has no primary payment method',
    });
    const types = (await eventsOf(w.account, 'invoice', invoice.invoiceID)).map((e) => e.type);
    expect(types.filter((type) => type === 'invoice.collection_blocked')).toHaveLength(1);
    const mails = await mailsTo(w.account.accountId, 'nocard@example.com');
    const asking = mails.filter((mail) => mail.subject.includes('we need a payment method'));
    expect(asking).toHaveLength(1);
    expect(asking[0]!.text).toContain('add a payment method');

    // Adding a card answers it: the next run charges the invoice.
    await addCard(w.account, customerId, '4242424242424242');
    await advanceClock(w.account, `${plusDays(w.today, 3)}T12:00:00.000Z`);
    const [paid] = await invoicesOf(w.account, customerId);
    expect(paid).toMatchObject({ Status: 'Paid', CollectionProblem: null });
    expect(
      (await mailsTo(w.account.accountId, 'nocard@example.com')).filter((mail) =>
        mail.subject.includes('we need a payment method'),
      ),
    ).toHaveLength(1);
  });

  it('a primary bank account for a credit_card customer is the wrong kind, told as such', async () => {
    const w = await world();
    const customerId = await customer(w, { PaymentMethod: 'credit_card', PrimaryGatewayID: w.gatewayId });
    const bank = await ok(
      w.account,
      'POST',
      '/v1/paymentmethods/bankaccount',
      {
        customerID: customerId,
        isPrimary: true,
        BankAccount: {
          Method: 'debit_order',
          AccountType: 'Savings',
          AccountHolder: 'Ada Lovelace',
          Bank: 'Standard Bank',
          AccountNumber: '62001234567',
          BranchCode: '051001',
        },
      },
      200,
    );
    const invoice = await issuedInvoice(w.account, { customerId, dueDate: w.today, amount: 10 });
    expect(invoice.CollectionProblem).toBe(
      `PaymentMethod is credit_card but the primary payment method ${bank.paymentMethodID} is a bank account`,
    );
  });
});

describe('tenant isolation', () => {
  it('a subscription cannot name another account’s gateway or payment method', async () => {
    const w = await world();
    const other = await world();
    const otherCustomer = await customer(other, {});
    const otherCard = await addCard(other.account, otherCustomer, '4242424242424242');
    const customerId = await customer(w, {});
    const res = await w.account.request('POST', '/v1/subscriptions', {
      body: {
        customerID: customerId,
        packageID: w.plan.packageId,
        packageRateTermID: w.plan.rateTermId,
        CollectionMethod: 'credit_card',
        gatewayID: other.gatewayId,
        customerPaymentMethodID: otherCard,
      },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('gatewayID');
  });
});
