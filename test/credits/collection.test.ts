import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { plusDays } from '../helpers/clock.ts';

// docs/credits.md, "Consumption order": credit granted after an invoice was issued pays it at the next credit-first
// moment, before its card is charged, and only the rest is charged; the customer's own money goes first.
const t = useTestService();

describe('credit at collection', () => {
  it('pays a card invoice before the card is charged, after the customer’s own money', async () => {
    const account = await t.newAccount('Credit collection', { isTest: true, timeZone: 'UTC' });
    const today = plusDays(
      ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10),
      1,
    );
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
    const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const customerId = await createCustomer(account);
    const cardId = await addCard(account, customerId, '4242424242424242');
    const other = await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: today,
      DueDate: plusDays(today, 7),
      CollectionMethod: 'eft',
      Charges: [{ Descrip: 'Setup', Qty: 1, UnitCostEx: 30 }],
    });
    // Granted when the invoice was not yet issued, the credit paid another then, whose cancellation gives it back
    // (docs/credits.md, "Consumption order"): nothing has paid the card invoice from it before its collection.
    const wallet = await ok(account, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
    const grant = await ok(account, 'POST', `/v1/wallets/${wallet.walletID}/grants`, { Amount: 30 });
    expect((await ok(account, 'GET', `/v1/invoices/${other.invoiceID}`)).Balance).toBe(0);
    const invoice = await issuedInvoice(account, {
      customerId,
      invoiceDate: today,
      dueDate: today,
      collect: { method: 'credit_card', gatewayId, paymentMethodId: cardId },
      amount: '50.00',
    });
    await ok(account, 'DELETE', `/v1/invoices/${other.invoiceID}`, undefined, 204);
    await ok(account, 'POST', '/v1/payments', {
      customerID: customerId,
      Amount: 5,
      CurrencyCode: 'USD',
      Date: today,
      Method: 'cash',
      allocations: [],
    });
    expect((await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).Balance).toBe(50);

    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T12:00:00.000Z` }, 200);
    // 50.00: 5.00 of the customer's cash, then 30.00 of credit, and 50.00 − 35.00 = 15.00 charged to the card.
    const paid = await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`);
    expect(paid).toMatchObject({ Status: 'Paid', Balance: 0, TotalNegativeAdjs: 30 });
    const charges = ((await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[]).filter(
      (p) => String(p.Memo).startsWith('Collected through gateway'),
    );
    expect(charges.map((p) => p.Amount)).toEqual([15]);
    expect(await ok(account, 'GET', `/v1/credit-grants/${grant.creditGrantID}`)).toMatchObject({
      Remaining: 0,
      Invoices: [{ invoiceID: invoice.invoiceID, Amount: 30 }],
    });
  });

  it('a disputed card payment of a top-up voids its remaining credit', async () => {
    const account = await t.newAccount('Disputed top-up', { isTest: true, timeZone: 'UTC' });
    const today = plusDays(
      ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10),
      1,
    );
    const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const customerId = await createCustomer(account, {
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: gatewayId,
      autoSendInvoice: false,
    });
    await addCard(account, customerId, '4242424242424242');
    const wallet = await ok(account, 'POST', `/v1/customers/${customerId}/wallets`, { CurrencyCode: 'USD' });
    const topUp = await ok(account, 'POST', `/v1/wallets/${wallet.walletID}/top-ups`, { Amount: 60 });
    // The collection run charges the top-up's 60.00 to the card: a paid grant of 60.00; an invoice of 25.00 uses it.
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T12:00:00.000Z` }, 200);
    const [paid] = await ok(account, 'GET', `/v1/wallets/${wallet.walletID}/grants`);
    expect(paid).toMatchObject({ Kind: 'paid', Amount: 60, TopUpInvoiceID: topUp.invoiceID });
    await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      CollectionMethod: 'eft',
      Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 25 }],
    });
    const [payment] = (await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[];
    const res = await account.request('POST', '/v1/test/simulate', {
      body: { paymentID: payment.paymentID, scenario: 'dispute' },
    });
    expect(res.status, res.text).toBe(200);
    // 60.00 − 25.00 consumed = 35.00 voided; the top-up owes its 60.00 again.
    expect(await ok(account, 'GET', `/v1/credit-grants/${paid.creditGrantID}`)).toMatchObject({
      Status: 'voided',
      Consumed: 25,
      Voided: 35,
      Remaining: 0,
    });
    expect((await ok(account, 'GET', `/v1/invoices/${topUp.invoiceID}`)).Balance).toBe(60);
  });
});
