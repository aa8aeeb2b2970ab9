import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { addCard } from './cards.ts';
import { advanceTo, debitAccount, debitCustomer, debitInvoice } from '../batches/fixtures.ts';
import { fixedClock } from '../../src/clock.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { accountContext } from '../helpers/context.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';

// Credit first (docs/gateways.md, "Credit first"): before a card invoice is charged, the customer's own money not
// yet applied pays it, and only the remainder is charged. Driven by the test clock over HTTP, through the test
// gateway and the capture widget.

const t = useTestService();

interface Setup {
  account: TestAccount;
  today: string;
  gatewayId: number;
  customerId: number;
  cardId: number;
}

/** A test account in UTC (clock at the start of tomorrow) and a customer with `cardNumber` as primary card. */
async function customerWithCard(cardNumber = '4242424242424242', settings?: object): Promise<Setup> {
  const account = await t.newAccount('Credit first', { isTest: true, timeZone: 'UTC' });
  if (settings) await ok(account, 'PUT', '/v1/account', settings);
  const today = plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const customerId = await createCustomer(account);
  const cardId = await addCard(account, customerId, cardNumber);
  return { account, today, gatewayId, customerId, cardId };
}

/** A card invoice of `amount` (no tax) due on `dueDate`, charged to the customer's card. */
async function cardInvoice(s: Setup, amount: number | string, dueDate: string, cardId = s.cardId) {
  const invoice = await issuedInvoice(s.account, {
    customerId: s.customerId,
    invoiceDate: dueDate,
    dueDate,
    collect: { method: 'credit_card', gatewayId: s.gatewayId, paymentMethodId: cardId },
    amount,
  });
  return invoice.invoiceID as number;
}

/**
 * A sale through the capture widget of a fixed amount: naming no invoice, the customer's money, unallocated (a widget
 * Sale); naming one, a payment of it.
 */
async function widgetSale(s: Setup, amount: string, invoiceId?: number): Promise<number> {
  const gateways = await ok(s.account, 'GET', '/v1/gateways');
  const session = await ok(
    s.account,
    'POST',
    '/v1/widgets/capturepaymethod/create',
    {
      VaultingType: 'None',
      SaleType: 'Sale',
      Amount: amount,
      ExpiresIn: '00:30:00',
      isVaultOnlyOnSuccess: false,
      CurrencyCode: 'USD',
      GatewayToken: gateways.find((g: { GatewayType: string }) => g.GatewayType === 'test').GatewayToken,
      AuthDomain: 'https://shop.example.com',
      ...(invoiceId === undefined ? {} : { invoiceID: invoiceId }),
    },
    200,
  );
  const submitted = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
    auth: false,
    body: { number: '4242424242424242', expiry: '12/39', securityCode: '123', name: 'Ada Lovelace' },
  });
  expect(submitted.body.charged).toBe(true);
  const completed = await s.account.request('PUT', '/v1/widgets/capturepaymethod/complete', {
    body: { customerID: s.customerId, SessionToken: session.SessionToken },
  });
  expect(completed.status).toBe(204);
  const read = await ok(s.account, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
  return read.paymentID as number;
}

const paymentsOf = (s: Setup) =>
  ok(s.account, 'GET', `/v1/customers/${s.customerId}/payments`) as Promise<any[]>;
const invoiceOf = (s: Setup, id: number) => ok(s.account, 'GET', `/v1/invoices/${id}`);
const customerOf = (s: Setup) => ok(s.account, 'GET', `/v1/customers/${s.customerId}`);
/** The card charges automatic collection made (not the widget's sale): recorded as collected through the gateway. */
const invoiceCharges = async (s: Setup) =>
  (await paymentsOf(s)).filter((p) => String(p.Memo).startsWith('Collected through gateway'));

async function eventTypes(s: Setup): Promise<string[]> {
  const events = await ok(s.account, 'GET', '/v1/events?limit=200');
  return (events as { type?: string; Type?: string }[]).map((e) => e.type ?? e.Type ?? '');
}

describe('credit first, before a card is charged', () => {
  it('pays a 114.80 invoice from a 180.00 widget sale with no charge, then charges only the remainder of the next', async () => {
    const s = await customerWithCard();
    const saleId = await widgetSale(s, '180.00');
    expect(await ok(s.account, 'GET', `/v1/payments/${saleId}`)).toMatchObject({
      Amount: 180,
      Status: 'Unallocated',
    });
    const first = await cardInvoice(s, '114.80', s.today);
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    // 180.00 − 114.80 = 65.20 left; no attempt, no charge.
    expect(await invoiceOf(s, first)).toMatchObject({ Status: 'Paid', Balance: 0, NumTries: 0 });
    expect(await invoiceCharges(s)).toEqual([]);
    expect(await ok(s.account, 'GET', `/v1/payments/${saleId}`)).toMatchObject({
      Status: 'Partial',
      Allocations: [expect.objectContaining({ invoiceID: first, amountApplied: 114.8 })],
    });
    expect(await eventTypes(s)).toEqual(expect.arrayContaining(['payment.allocated', 'invoice.paid']));

    // The next 114.80: 65.20 from the sale, 114.80 − 65.20 = 49.60 charged to the card.
    const tomorrow = plusDays(s.today, 1);
    const second = await cardInvoice(s, '114.80', tomorrow);
    await advanceClock(s.account, `${tomorrow}T12:00:00Z`);
    expect(await invoiceOf(s, second)).toMatchObject({ Status: 'Paid', Balance: 0, NumTries: 1 });
    const charges = await invoiceCharges(s);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      Amount: 49.6,
      Status: 'Allocated',
      Allocations: [expect.objectContaining({ invoiceID: second, amountApplied: 49.6 })],
    });
    expect(await ok(s.account, 'GET', `/v1/payments/${saleId}`)).toMatchObject({ Status: 'Allocated' });
    // Nothing owed, no credit left: 229.60 invoiced, 180.00 + 49.60 paid.
    expect((await customerOf(s)).Balance).toBe(0);
  });

  it('applies no credit before a merchant’s fixed-amount widget sale of an invoice: the sale pays it, the credit stays', async () => {
    const s = await customerWithCard();
    const creditId = await widgetSale(s, '50.00');
    // Not the account's collection: an invoice the customer pays itself, sold for its whole amount by the merchant.
    const invoice = await ok(s.account, 'POST', '/v1/invoices', {
      customerID: s.customerId,
      InvoiceDate: s.today,
      DueDate: plusDays(s.today, 30),
      CollectionMethod: 'eft',
      Charges: [{ Descrip: 'Beans', Qty: 1, UnitCostEx: 100 }],
    });
    const saleId = await widgetSale(s, '100.00', invoice.invoiceID as number);
    expect(await ok(s.account, 'GET', `/v1/payments/${saleId}`)).toMatchObject({
      Amount: 100,
      Status: 'Allocated',
      Allocations: [expect.objectContaining({ invoiceID: invoice.invoiceID, amountApplied: 100 })],
    });
    expect(await ok(s.account, 'GET', `/v1/payments/${creditId}`)).toMatchObject({ Status: 'Unallocated' });
    expect((await customerOf(s)).Balance).toBe(-50);
  });

  it('with ApplyCreditBeforeCollecting false charges the invoice in full and leaves the credit unapplied', async () => {
    const s = await customerWithCard('4242424242424242', { ApplyCreditBeforeCollecting: false });
    const saleId = await widgetSale(s, '180.00');
    const invoiceId = await cardInvoice(s, '114.80', s.today);
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(await invoiceOf(s, invoiceId)).toMatchObject({ Status: 'Paid', NumTries: 1 });
    expect(await invoiceCharges(s)).toEqual([expect.objectContaining({ Amount: 114.8 })]);
    expect(await ok(s.account, 'GET', `/v1/payments/${saleId}`)).toMatchObject({ Status: 'Unallocated' });
    expect((await customerOf(s)).Balance).toBe(-180);
  });

  it('takes a credit note and a negative adjustment, oldest first, before the card', async () => {
    const s = await customerWithCard();
    await ok(s.account, 'POST', '/v1/credits', {
      customerID: s.customerId,
      Amount: 30,
      CurrencyCode: 'USD',
      Date: s.today,
      CreditNumber: 'CN-1',
      AutoApply: false,
      Allocations: [],
    });
    await ok(s.account, 'POST', '/v1/adjustment/add', {
      AdjustmentType: 'credit_note',
      customerID: s.customerId,
      Type: 'negative',
      Amount: 20,
      Date: s.today,
      Ref: 'goodwill',
      AutoApply: false,
      Allocations: [],
    });
    const invoiceId = await cardInvoice(s, 100, s.today);
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    // 100.00 − 30.00 − 20.00 = 50.00 charged.
    expect(await invoiceCharges(s)).toEqual([expect.objectContaining({ Amount: 50 })]);
    const invoice = await invoiceOf(s, invoiceId);
    expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0 });
    const types = await eventTypes(s);
    expect(types).toEqual(expect.arrayContaining(['credit_note.allocated', 'adjustment.updated']));
  });

  it('does not take a failed payment as credit: the other invoice is charged in full', async () => {
    const s = await customerWithCard('4000000000009995');
    const declined = await cardInvoice(s, 100, s.today);
    await advanceClock(s.account, `${s.today}T12:00:00Z`);
    expect(await paymentsOf(s)).toEqual([expect.objectContaining({ Status: 'Failed', Amount: 100 })]);
    const goodCard = await addCard(s.account, s.customerId, '5555555555554444', { isPrimary: false });
    const tomorrow = plusDays(s.today, 1);
    const other = await cardInvoice(s, 40, tomorrow, goodCard);
    await advanceClock(s.account, `${tomorrow}T12:00:00Z`);
    expect(await invoiceOf(s, other)).toMatchObject({ Status: 'Paid' });
    const settled = (await paymentsOf(s)).filter((p) => p.Status !== 'Failed');
    expect(settled).toEqual([expect.objectContaining({ Amount: 40, Status: 'Allocated' })]);
    // The failed payment paid nothing, and the declined invoice still owes its 100.00.
    expect(await invoiceOf(s, declined)).toMatchObject({ Balance: 100 });
  });
});

describe('credit first, before a debit order is bundled', () => {
  it('makes the batch line for what a credit note leaves of the invoice', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await debitCustomer(setup, 'debit_order');
    await ok(setup.account, 'POST', '/v1/credits', {
      customerID: customer.customerId,
      Amount: 35.5,
      CurrencyCode: 'ZAR',
      Date: setup.today,
      CreditNumber: 'CN-ZAR-1',
      AutoApply: false,
      Allocations: [],
    });
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 3 });
    // Bundled within the rail's two-day lead: by then the credit note has paid 35.50 of it.
    for (let day = 0; day <= 3; day += 1) await advanceTo(setup.account, plusDays(setup.today, day));
    const [batch] = await ok(setup.account, 'GET', '/v1/batches');
    // 100.00 − 35.50 = 64.50 debited.
    expect(batch).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '64.50' });
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ TotalNegativeAdjs: 35.5, TotalPendingPaid: 64.5, Balance: 0 });
  });
});

describe('credit first under the customer’s lock', () => {
  it('never over-allocates a payment that a card run and a manual allocation both reach for', async () => {
    for (let round = 0; round < 3; round += 1) {
      const s = await customerWithCard();
      const payment = await ok(s.account, 'POST', '/v1/payments', {
        customerID: s.customerId,
        Amount: 100,
        CurrencyCode: 'USD',
        Date: s.today,
        Method: 'eft',
        AutoApply: false,
        Allocations: [],
      });
      const carded = await cardInvoice(s, 100, s.today);
      const manual = (
        await issuedInvoice(s.account, { customerId: s.customerId, invoiceDate: s.today, amount: 100 })
      ).invoiceID as number;
      // The run applies the 100.00 to the card invoice while the request gives it to the other one; the
      // customer's lock makes one of them first, and the other sees what is left.
      const ctx = await accountContext(t, s.account.accountId, fixedClock(`${s.today}T12:30:00.000Z`));
      const [, put] = await Promise.all([
        collectDueInvoices(ctx),
        s.account.request('PUT', `/v1/payments/${payment.paymentID}`, {
          body: {
            customerID: s.customerId,
            Amount: 100,
            CurrencyCode: 'USD',
            Date: s.today,
            Method: 'eft',
            Allocations: [{ invoiceID: manual, amountApplied: 100 }],
          },
        }),
      ]);
      const read = await ok(s.account, 'GET', `/v1/payments/${payment.paymentID}`);
      const allocated = read.Allocations.reduce((sum: number, a: any) => sum + a.amountApplied, 0);
      expect(allocated).toBeLessThanOrEqual(100);
      const invoices = [await invoiceOf(s, carded), await invoiceOf(s, manual)];
      for (const invoice of invoices) expect(invoice.Balance).toBeGreaterThanOrEqual(0);
      // Either the manual allocation came first (the card invoice is then charged in full) or the run did (the
      // PUT then finds the payment holding 100.00 elsewhere, which its list replaces, or is refused).
      expect([204, 422]).toContain(put.status);
      const charged = (await invoiceCharges(s)).reduce((sum, p) => sum + p.Amount, 0);
      const paid = invoices.reduce((sum, i) => sum + (i.Total - i.Balance), 0);
      // Nothing is paid twice: what the invoices received is the payment's allocations and the card's charges.
      expect(paid).toBeCloseTo(allocated + charged, 2);
      expect((await customerOf(s)).Balance).toBeCloseTo(200 - paid - (100 - allocated), 2);
    }
  });
});
