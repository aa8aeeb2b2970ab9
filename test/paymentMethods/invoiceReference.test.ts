import { describe, expect, it } from 'vitest';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  addBank,
  addCard,
  clock,
  fieldsOf,
  newCustomer,
  t,
  testGatewayId,
  usePaymentMethodsService,
} from './fixtures.ts';
import { STAGING } from '../helpers/service.ts';

usePaymentMethodsService();

describe("an invoice's customerPaymentMethodID", () => {
  const CHARGE = { Descrip: 'Consulting', Qty: 1, UnitCostEx: 10 };
  const invoice = (body: Record<string, unknown>, as: TestAccount = t) =>
    as.request('POST', '/v1/invoices', { body: { Charges: [CHARGE], ...body } });
  const recurring = (body: Record<string, unknown>) =>
    t.request('POST', '/v1/recurring-invoices', {
      body: { StartDate: '2026-04-01', RecurInvoiceCharges: [CHARGE], ...body },
    });

  it("is accepted when it is the customer's and suits the collection method and gateway", async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    const card = await addCard(customerID);
    const bank = await addBank(customerID);
    const byCard = await invoice({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(byCard.status, byCard.text).toBe(201);
    expect(byCard.body.customerPaymentMethodID).toBe(card.paymentMethodID);
    const byDebit = await invoice({
      customerID,
      CollectionMethod: 'debit_order',
      gatewayID,
      customerPaymentMethodID: bank.paymentMethodID,
    });
    expect(byDebit.status, byDebit.text).toBe(201);
    const repeating = await recurring({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(repeating.status, repeating.text).toBe(201);
    expect(repeating.body.customerPaymentMethodID).toBe(card.paymentMethodID);
  });

  it("is refused (422) when it is another customer's or account's, of the wrong kind, or kept by another gateway", async () => {
    const account = await t.newAccount('Invoice methods');
    const ctx = await accountContext(t, account.accountId, clock);
    const gatewayID = await testGatewayId(account);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' }, STAGING);
    const customerID = await newCustomer(account);
    const neighbour = await newCustomer(account);
    const onSecond = await newCustomer(account, { PrimaryGatewayID: second.id });
    const card = await addCard(customerID, {}, {}, account);
    const bank = await addBank(customerID, 'debit_order', {}, {}, account);
    const neighbours = await addCard(neighbour, {}, {}, account);
    const secondsCard = await addCard(onSecond, {}, {}, account);
    const theirs = await addCard(await newCustomer(), {}, {}, t);

    const attempt = async (customer: number, CollectionMethod: string, methodId: number) => {
      const res = await invoice(
        { customerID: customer, CollectionMethod, gatewayID, customerPaymentMethodID: methodId },
        account,
      );
      expect(res.status, res.text).toBe(422);
      expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
      return res.body.fields[0].message;
    };
    expect(await attempt(customerID, 'credit_card', neighbours.paymentMethodID)).toBe(
      `customer ${customerID} has no payment method ${neighbours.paymentMethodID}`,
    );
    expect(await attempt(customerID, 'credit_card', theirs.paymentMethodID)).toBe(
      `customer ${customerID} has no payment method ${theirs.paymentMethodID}`,
    );
    expect(await attempt(customerID, 'credit_card', bank.paymentMethodID)).toContain('is a bank account');
    expect(await attempt(customerID, 'debit_order', card.paymentMethodID)).toContain('is a credit card');
    expect(await attempt(onSecond, 'credit_card', secondsCard.paymentMethodID)).toBe(
      `payment method ${secondsCard.paymentMethodID} is kept by gateway ${second.id} and cannot be charged through gateway ${gatewayID}`,
    );
    const res = await account.request('POST', '/v1/recurring-invoices', {
      body: {
        customerID,
        StartDate: '2026-04-01',
        RecurInvoiceCharges: [CHARGE],
        CollectionMethod: 'debit_order',
        gatewayID,
        customerPaymentMethodID: neighbours.paymentMethodID,
      },
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
  });

  it('is checked again when a recurring invoice changes its collection method but keeps the method', async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    const card = await addCard(customerID);
    const created = await recurring({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(created.status, created.text).toBe(201);
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.body.recurInvoiceID}`, {
      body: { CollectionMethod: 'debit_order' },
    });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
  });
});
