import { expect } from 'vitest';
import { addBusinessDays } from '../../src/core/bankingDays.ts';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import { createCustomer } from '../helpers/billing.ts';
import { customerWithBankAccount, issuedInvoice } from '../helpers/invoices.ts';
import { STAGING } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { ok, read } from '../helpers/resourceEvents.ts';
import { charges, plusDays, t } from './catalogueWalk.fixtures.ts';

// The catalogue walk's steps through collecting money: card collections, bank batches, the capture widget and
// eMandates (catalogue.walk.test.ts).

/**
 * Collections: a card that declines, on an account that gives up after one try, two that pay, and a customer paying
 * by card without one; the clock's advance collects them. Returns the customers whose payment to dispute, and to refund, once it has.
 */
export async function walkCollections(account: TestAccount, today: string): Promise<number[]> {
  await ok(account, 'PUT', '/v1/account', { DunningMaxAttempts: 1 });
  const [gateway] = await read(account, '/v1/gateways');
  const cardInvoice = async (name: string, number: string) => {
    const customerID = await createCustomer(account, { Name: name });
    const card = await ok(account, 'POST', '/v1/paymentmethods/creditcard', {
      customerID,
      isPrimary: true,
      CreditCard: {
        CardType: 'Visa',
        Number: number,
        NameOnCard: 'Ada',
        LastNameOnCard: name,
        ExpiryMonth: 12,
        ExpiryYear: Number(today.slice(0, 4)) + 2,
      },
    });
    await ok(account, 'POST', '/v1/invoices', {
      customerID,
      DueDate: today,
      CollectionMethod: 'credit_card',
      gatewayID: gateway.gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
      Charges: charges(20),
    });
    return customerID;
  };
  await cardInvoice('Declined', '4000000000009995');
  // A card that needs 3-D Secure: invoice.payment_action_required; its invoice and the declined one, left to the
  // customer, are reminded by the walk's advance (invoice.payment_reminder).
  await cardInvoice('Confirming', '4000002500003155');
  // A customer set to pay by card with no card on file: its invoice, due today, is reported blocked.
  const cardless = await createCustomer(account, {
    Name: 'Cardless',
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gateway.gatewayID,
  });
  await ok(account, 'POST', '/v1/invoices', { customerID: cardless, DueDate: today, Charges: charges(20) });
  return [
    await cardInvoice('Disputed', '4242424242424242'),
    await cardInvoice('Refunded', '4111111111111111'),
  ];
}

/**
 * Batches: one collected (created, edited, submitted, built, processing, processed as the clock passes its return
 * window) and one whose bank account was never validated (its build fails); the second is cancelled after the
 * walk's advance, by its returned token.
 */
export async function walkBatches(account: TestAccount, today: string): Promise<void> {
  const [gateway] = await read(account, '/v1/gateways');
  const achLine = async (batchToken: string, accountNumber: string, validate: boolean) => {
    const { customerId, paymentMethodId } = await customerWithBankAccount(account, {
      customer: { Name: `ACH ${accountNumber}`, Email: 'ada@example.com' },
      bankAccount: {
        Method: 'ach',
        AccountType: 'Checking',
        AccountHolder: 'Ada Lovelace',
        Bank: 'Test Bank',
        AccountNumber: accountNumber,
        RoutingNumber: '110000000',
      },
      ...(validate ? { validateAt: gateway.gatewayID } : {}),
    });
    const invoice = await issuedInvoice(account, {
      customerId,
      dueDate: today,
      description: 'Work',
      amount: 15,
    });
    await ok(account, 'POST', '/v1/batches/payments', {
      BatchToken: batchToken,
      customerID: customerId,
      Amount: 15,
      paymentMethodID: paymentMethodId,
      PaymentApplied: [{ amount: 15, invoiceID: invoice.invoiceID }],
    });
  };
  const newBatch = async (actionDate: string) =>
    ok(account, 'POST', '/v1/batches', {
      CurrencyCode: 'USD',
      GatewayToken: gateway.GatewayToken,
      ActionDate: actionDate,
    });
  const actionDate = addBusinessDays(today, 1, 'ach');
  const collected = await newBatch(actionDate);
  await ok(account, 'PUT', '/v1/batches', {
    BatchToken: collected.BatchToken,
    CurrencyCode: 'USD',
    GatewayToken: gateway.GatewayToken,
    ActionDate: actionDate,
    Notes: 'First ACH run',
  });
  await achLine(collected.BatchToken, '000123456789', true);
  await ok(account, 'PUT', '/v1/batches/submit', {
    BatchToken: collected.BatchToken,
    ActionDate: actionDate,
  });
  // Its one line cannot be made (a bank account never validated): it leaves, and the emptied batch is cancelled.
  const emptied = await newBatch(actionDate);
  await achLine(emptied.BatchToken, '000123456780', false);
  await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: emptied.BatchToken, ActionDate: actionDate });
  // A batch whose gateway is disabled before its build (the CLI's `gateway disable`) fails whole: a spare gateway,
  // so that the account's own serves the rest of the walk.
  const spare = await addGateway(
    await accountContext(t, account.accountId),
    {
      type: 'test',
      friendlyName: 'Spare simulator',
    },
    STAGING,
  );
  const failing = await ok(account, 'POST', '/v1/batches', {
    CurrencyCode: 'USD',
    GatewayToken: spare.token,
    ActionDate: actionDate,
  });
  await achLine(failing.BatchToken, '000123456781', true);
  await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: failing.BatchToken, ActionDate: actionDate });
  await setGatewayEnabled(await accountContext(t, account.accountId), spare.id, false);
  // A debit-order invoice the run bundles, left waiting: its last safe day is the walk's first day.
  const waiting = await customerWithBankAccount(account, {
    customer: { Name: 'ACH waiting', Email: 'ada@example.com' },
    bankAccount: {
      Method: 'ach',
      AccountType: 'Checking',
      AccountHolder: 'Ada Lovelace',
      Bank: 'Test Bank',
      AccountNumber: '000123456789',
      RoutingNumber: '110000000',
    },
    validateAt: gateway.gatewayID,
  });
  await issuedInvoice(account, {
    customerId: waiting.customerId,
    dueDate: today,
    collect: {
      method: 'debit_order',
      gatewayId: gateway.gatewayID,
      paymentMethodId: waiting.paymentMethodId,
    },
    description: 'Work',
    amount: 15,
  });
}

/**
 * Capture widget sessions: one captured through the frame's submit (as the browser posts it) and completed for a
 * customer; another locked by five declined cards, each a failed attempt.
 */
export async function walkWidgets(account: TestAccount, customerID: number, today: string) {
  const [gateway] = await read(account, '/v1/gateways');
  const session = async () =>
    ok(account, 'POST', '/v1/widgets/capturepaymethod/create', {
      VaultingType: 'VaultGateway',
      SaleType: 'VaultSale',
      ExpiresIn: '00:30:00',
      isVaultOnlyOnSuccess: true,
      CurrencyCode: 'USD',
      GatewayToken: gateway.GatewayToken,
      AuthDomain: 'https://shop.example.com',
      Amount: 25,
      Description: 'Pro plan, first month',
    });
  const submit = (hashToken: string, number: string) =>
    t.request('POST', `/widget/capture/${hashToken}/submit`, {
      auth: false,
      body: {
        number,
        expiry: `12/${Number(today.slice(2, 4)) + 2}`,
        securityCode: '123',
        name: 'Ada Lovelace',
      },
    });
  const captured = await session();
  expect((await submit(captured.HashToken, '4242424242424242')).status).toBe(200);
  await ok(account, 'PUT', '/v1/widgets/capturepaymethod/complete', {
    customerID,
    SessionToken: captured.SessionToken,
  });
  const locked = await session();
  for (let attempt = 0; attempt < 5; attempt++) {
    expect((await submit(locked.HashToken, '4000000000000002')).status).toBe(422);
  }
}

/**
 * emandate: one signed on the hosted page and linked to a bank account, one declined, one left unsigned, which the
 * walk's advance expires, and one signed and then cancelled.
 */
export async function walkMandates(account: TestAccount, today: string) {
  const mandate = (ref: string) => ({
    Name: 'Thandi',
    Lastname: 'Nkosi',
    bank_Name: 'First National Bank',
    bank_BranchCode: '250655',
    bank_AccHolder: 'T Nkosi',
    bank_AccNumber: '62847123459876',
    bank_AccountType: 'Cheque',
    debit_ActionDay: 25,
    debit_StartDate: plusDays(today, 30),
    debit_Frequency: 'Monthly',
    debit_Amt: 299.99,
    debit_NameOnStmt: 'WALK',
    debit_ContractRef: ref,
  });
  const { Token } = await ok(account, 'POST', '/widget/emandate', mandate('WALK-SIGNED'));
  const signed = await fetch(`${t.url}/widget/emandate/${Token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Consent: 'yes', TypedName: 'Thandi Nkosi' }),
    redirect: 'manual',
  });
  expect(signed.status).toBe(303);
  const customerID = await createCustomer(account, { Name: 'Thandi' });
  await ok(account, 'POST', '/v1/paymentmethods/bankaccount', {
    customerID,
    isPrimary: true,
    BankAccount: {
      Method: 'debit_order',
      AccountType: 'Cheque',
      AccountHolder: 'T Nkosi',
      Bank: 'First National Bank',
      AccountNumber: '62847123459876',
      BranchCode: '250655',
      EMandateToken: Token,
    },
  });
  const declined = await ok(account, 'POST', '/widget/emandate', mandate('WALK-DECLINED'));
  const decline = await fetch(`${t.url}/widget/emandate/${declined.Token}/decline`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(decline.status).toBe(303);
  await ok(account, 'POST', '/v1/emandate', mandate('WALK-UNSIGNED'));
  const cancelled = await ok(account, 'POST', '/widget/emandate', mandate('WALK-CANCELLED'));
  const signedToCancel = await fetch(`${t.url}/widget/emandate/${cancelled.Token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Consent: 'yes', TypedName: 'Thandi Nkosi' }),
    redirect: 'manual',
  });
  expect(signedToCancel.status).toBe(303);
  await ok(account, 'PUT', '/v1/emandate/cancel', { Token: cancelled.Token });
}
