import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addBusinessDays } from '../../src/core/batches.ts';
import { killAll, runCli } from '../helpers/cli.ts';
import { createCustomer, createPlan, subscribe } from '../helpers/billing.ts';
import { customerWithBankAccount, issuedInvoice } from '../helpers/invoices.ts';
import { dialect, eventually, startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { ok, read } from '../helpers/resourceEvents.ts';
import type { WireEvent } from '../helpers/resourceEvents.ts';
import { startWebhookReceiver, verifyWebhook } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import {
  CATALOGUE_PATH,
  DECLARED_EVENT_TYPES,
  EVENT_DESCRIPTIONS,
  catalogueHeadings,
  renderEventCatalogue,
} from './eventCatalogue.ts';

// One walk through the whole service on a test account: every declared event type triggered through the real API,
// the CLI (a child process) where only the CLI does it, and the test clock for what time does. Then the events the
// account has are exactly the declared types, and every one written while the `*` endpoint existed reached the
// receiver once, signed. With UPDATE_EVENT_CATALOGUE=1 (on SQLite) the walk writes docs/event-catalogue.md from
// the payloads it captured; otherwise it checks the catalogue still has one heading per declared type.

let t: TestService;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestService({
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', WORKER_INTERVAL_MS: '50' },
  });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await killAll();
  await receiver?.close();
  await t?.close();
});

const DAY = 86_400_000;
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

async function billing(...args: string[]): Promise<string> {
  const result = await runCli(args, t.env, 60_000);
  expect(result.code, `billing ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Every event of the account, oldest first, through every page of GET /v1/events. */
async function allEvents(account: TestAccount): Promise<WireEvent[]> {
  const events: WireEvent[] = [];
  for (let page = 1; ; page += 1) {
    const batch = (await read(account, `/v1/events?page=${page}&page_size=200`)) as WireEvent[];
    events.push(...batch);
    if (batch.length < 200) return events.reverse();
  }
}

/** webhook_endpoint: a second endpoint lives its whole life before anything it subscribes to happens. */
async function walkEndpoints(account: TestAccount, mainEndpointId: number) {
  const other = await ok(account, 'POST', '/v1/webhookendpoints', {
    Url: `${receiver.url}/other`,
    EnabledEvents: ['customer.deleted'],
  });
  const path = `/v1/webhookendpoints/${other.webhookEndpointID}`;
  await ok(account, 'PUT', path, { Description: 'Second endpoint' });
  await ok(account, 'PUT', path, { Status: 'disabled' });
  await ok(account, 'POST', `${path}/rotatesecret`, { PreviousSecretExpiresIn: 0 });
  await ok(account, 'DELETE', path);
  const test = await account.request('POST', `/v1/webhookendpoints/${mainEndpointId}/test`);
  expect(test.status, test.text).toBe(202);
}

/** customer, customer_contact, customer_note, custom_field. */
async function walkCustomers(account: TestAccount) {
  const field = await ok(account, 'POST', '/v1/customfields', { Key: 'Region' });
  const id = (await ok(account, 'POST', '/v1/customers', { Name: 'Grace', Email: 'grace@example.com' }))
    .customerID as number;
  await ok(account, 'PUT', `/v1/customers/${id}`, { City: 'London' });
  for (const move of ['archive', 'reopen', 'suspend', 'unsuspend'])
    await ok(account, 'PUT', `/v1/customers/${id}/${move}`);

  const contact = { customerID: id, Name: 'Grace', LastName: 'Hopper', Email: 'grace@example.com' };
  const { customerContactID } = await ok(account, 'POST', '/v1/customercontacts', contact);
  const contactPath = `/v1/customercontacts/${customerContactID}`;
  await ok(account, 'PUT', contactPath, { ...contact, Cell: '0821234567' });
  await ok(account, 'PUT', contactPath, { ...contact, Cell: '0821234567', Password: 'n3wPassword' });

  const { customerNoteID } = await ok(account, 'POST', '/v1/customernotes', {
    customerID: id,
    Note: 'Called',
  });
  await ok(account, 'PUT', `/v1/customernotes/${customerNoteID}`, { customerID: id, Note: 'Called twice' });
  await ok(account, 'DELETE', `/v1/customernotes/${customerNoteID}`);
  await ok(account, 'DELETE', contactPath);
  await ok(account, 'DELETE', `/v1/customfields/${field.customFieldID}`);
  await ok(account, 'DELETE', `/v1/customers/${id}`);
}

const packageVersion = (name: string) => ({
  VersionName: name,
  isActive: true,
  isDefault: true,
  packageVersionRates: [
    {
      CurrencyCode: 'USD',
      SetupFee: 10,
      TrialFee: 0,
      TrialPeriod: 0,
      TrialPeriodType: 'days',
      PackageRateTerms: [{ ChargePrice: 99.99, ChargeTerm: 1, ChargeTermType: 'months' }],
    },
  ],
});

const prices = [{ CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 1, QtyFrom: 1, QtyTill: null }] }];

/** package_group, package, package_version, component, component_version, tax_setting, currency. */
async function walkCatalogue(account: TestAccount) {
  const groupId = (await ok(account, 'POST', '/v1/packagegroups', { GroupName: 'Walk' })).packageGroupID;
  await ok(account, 'PUT', `/v1/packagegroups/${groupId}`, { GroupName: 'Walked' });

  const fields = { packageGroupID: groupId, packageCode: 'WALK', Name: 'Walk', isActive: true };
  const pkg = await ok(account, 'POST', '/v1/packages', { ...fields, PackageVersion: packageVersion('One') });
  const packagePath = `/v1/packages/${pkg.packageID}`;
  await ok(account, 'PUT', packagePath, { ...fields, Name: 'Walk plus' });
  await ok(account, 'POST', `${packagePath}/versions`, packageVersion('Two'));
  await ok(account, 'DELETE', `${packagePath}/versions/1`);
  await ok(account, 'DELETE', packagePath);

  const component = await ok(account, 'POST', '/v1/components', {
    ComponentCode: 'WALK-SMS',
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: groupId,
    Term: 1,
    TermType: 'months',
    ComponentVersion: { VersionName: 'One', ComponentVersionCurrencies: prices },
  });
  const componentPath = `/v1/components/${component.componentID}`;
  await ok(account, 'PUT', componentPath, {
    ComponentCode: 'WALK-SMS',
    Name: 'SMS pack',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: groupId,
    Term: 1,
    TermType: 'months',
  });
  await ok(account, 'POST', `${componentPath}/versions`, {
    VersionName: 'Two',
    isActive: true,
    isDefault: true,
    ComponentVersionCurrencies: prices,
  });
  await ok(account, 'PUT', `${componentPath}/versions/2`, { VersionName: 'Two, renamed', isActive: true });
  await ok(account, 'DELETE', `${componentPath}/versions/1`);
  await ok(account, 'DELETE', componentPath);
  await ok(account, 'DELETE', `/v1/packagegroups/${groupId}`);

  const tax = await ok(account, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  await ok(account, 'PUT', `/v1/tax/${tax.taxSettingID}`, {
    Name: 'VAT',
    rules: [{ taxRuleID: tax.rules[0].taxRuleID, Perc: 0.16 }],
  });
  await ok(account, 'DELETE', `/v1/tax/${tax.taxSettingID}`);
  await ok(account, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
  await ok(account, 'DELETE', '/v1/currencies?CurrencyCode=EUR');
}

const charges = (amount: number) => [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }];

/** invoice (all but past_due, which time brings), payment, credit_note, adjustment, payment_method. */
async function walkMoney(account: TestAccount, customerID: number, today: string) {
  const money = (amount: number, allocations: unknown[], extra = {}) => ({
    customerID,
    Amount: amount,
    CurrencyCode: 'USD',
    Date: today,
    Method: 'cash',
    allocations,
    ...extra,
  });
  const draft = await ok(account, 'POST', '/v1/invoices', {
    customerID,
    isDraft: true,
    Charges: charges(100),
  });
  const invoicePath = `/v1/invoices/${draft.invoiceID}`;
  await ok(account, 'PUT', invoicePath, { poNumber: 'PO-7' });
  await ok(account, 'PUT', `${invoicePath}/finalize`);
  await ok(account, 'PUT', `${invoicePath}/send`);
  await ok(account, 'POST', '/v1/payments', money(40, [{ invoiceID: draft.invoiceID, amountApplied: 40 }]));
  await ok(account, 'POST', '/v1/payments', money(60, [{ invoiceID: draft.invoiceID, amountApplied: 60 }]));
  const cancelled = await ok(account, 'POST', '/v1/invoices', { customerID, Charges: charges(5) });
  await ok(account, 'DELETE', `/v1/invoices/${cancelled.invoiceID}`);
  const deleted = await ok(account, 'POST', '/v1/invoices', {
    customerID,
    isDraft: true,
    Charges: charges(5),
  });
  await ok(account, 'DELETE', `/v1/invoices/${deleted.invoiceID}`);

  const target = (await ok(account, 'POST', '/v1/invoices', { customerID, Charges: charges(100) })).invoiceID;
  const payment = (await ok(account, 'POST', '/v1/payments', money(100, []))).paymentID;
  await ok(account, 'PUT', `/v1/payments/${payment}`, money(100, [], { Memo: 'wire' }));
  await ok(
    account,
    'PUT',
    `/v1/payments/${payment}`,
    money(100, [{ invoiceID: target, amountApplied: 30 }], { Memo: 'wire' }),
  );
  await ok(account, 'DELETE', `/v1/payments/${payment}`);

  const credit = (amount: number, number: string, allocations: unknown[]) => ({
    customerID,
    Date: today,
    CurrencyCode: 'USD',
    Amount: amount,
    CreditNumber: number,
    Allocations: allocations,
  });
  const note = await ok(account, 'POST', '/v1/credits', credit(40, 'CN-1', []));
  await ok(account, 'PUT', `/v1/credits/${note.creditNoteID}`, credit(40, 'CN-2', []));
  await ok(
    account,
    'PUT',
    `/v1/credits/${note.creditNoteID}`,
    credit(40, 'CN-2', [{ invoiceID: target, amountApplied: 25 }]),
  );
  await ok(account, 'DELETE', `/v1/credits/${note.creditNoteID}`);

  const adjustment = {
    AdjustmentType: 'opening_balance',
    customerID,
    Type: 'positive',
    Amount: 50,
    Date: today,
    DueDate: plusDays(today, 20),
    Ref: 'OB-1',
  };
  const { AdjustmentID } = await ok(account, 'POST', '/v1/adjustment/add', adjustment);
  await ok(account, 'PUT', '/v1/adjustment/edit', {
    ...adjustment,
    AdjustmentID,
    AdjustmentType: 'interest',
    isAutoApply: false,
    LinkedAllocations: [],
  });
  await ok(
    account,
    'DELETE',
    `/v1/adjustment/delete?type=positive&adjustmentID=${AdjustmentID}&customerID=${customerID}`,
  );

  const bank = {
    Method: 'debit_order',
    AccountType: 'Savings',
    AccountHolder: 'Grace Hopper',
    Bank: 'Standard Bank',
    AccountNumber: '62001234567',
    BranchCode: '051001',
  };
  const { paymentMethodID: bankId } = await ok(account, 'POST', '/v1/paymentmethods/bankaccount', {
    customerID,
    isPrimary: false,
    BankAccount: bank,
  });
  const { paymentMethodID: cardId } = await ok(account, 'POST', '/v1/paymentmethods/creditcard', {
    customerID,
    isPrimary: false,
    CreditCard: {
      CardType: 'Visa',
      Number: '4111111111111111',
      NameOnCard: 'Grace',
      LastNameOnCard: 'Hopper',
      ExpiryMonth: 12,
      ExpiryYear: 2030,
    },
  });
  await ok(account, 'PUT', `/v1/paymentmethods/${cardId}/setprimary`);
  await ok(account, 'PUT', `/v1/paymentmethods/bankaccount/${bankId}`, {
    customerID,
    isPrimary: false,
    BankAccount: { ...bank, AccountHolder: 'G. Hopper' },
  });
  await ok(account, 'DELETE', `/v1/paymentmethods/${bankId}`);
}

/** recurring_invoice: the API's moves now; a start, a renewal and an end that the clock brings (days 0, 3, 4). */
async function walkRecurringInvoices(account: TestAccount, customerID: number, today: string) {
  const body = (extra: Record<string, unknown>) => ({
    customerID,
    Term: 1,
    TermType: 'months',
    RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
    ...extra,
  });
  const { recurInvoiceID } = await ok(
    account,
    'POST',
    '/v1/recurring-invoices',
    body({ StartDate: plusDays(today, 40) }),
  );
  const path = `/v1/recurring-invoices/${recurInvoiceID}`;
  await ok(account, 'PUT', path, { Reference: 'HOST-1' });
  await ok(account, 'PUT', `${path}/cancel`);
  await ok(account, 'PUT', `${path}/reactivate`);
  await ok(account, 'DELETE', path);
  await ok(account, 'POST', '/v1/recurring-invoices', body({ StartDate: plusDays(today, 3) }));
  await ok(
    account,
    'POST',
    '/v1/recurring-invoices',
    body({ StartDate: today, EndDate: plusDays(today, 4) }),
  );
}

/**
 * subscription: the API's moves now; then the clock brings a renewal with the package change scheduled for it
 * (day 10), a trial that starts (day 1), is about to end (day 3) and ends (day 6), and a past-due invoice (day 2).
 */
async function walkSubscriptions(account: TestAccount, customerID: number, today: string) {
  const tenDays = await createPlan(account, { chargePrice: 30, chargeTerm: 10, chargeTermType: 'days' });
  const gold = await createPlan(account, { chargePrice: 60, chargeTerm: 10, chargeTermType: 'days' });
  const group = await ok(account, 'POST', '/v1/packagegroups', { GroupName: 'Add-ons' });
  const sms = await ok(account, 'POST', '/v1/components', {
    ComponentCode: 'SMS',
    Name: 'SMS bundle',
    Type: 'quantity',
    Scheme: 'unit',
    UnitName: 'per sms',
    packageGroupID: group.packageGroupID,
    Term: 1,
    TermType: 'months',
    ComponentVersion: { VersionName: 'Launch', ComponentVersionCurrencies: prices },
  });
  const renewing = await subscribe(account, customerID, tenDays, {
    StartDate: today,
    componentUsage: [{ componentID: sms.componentID }],
  });
  const path = `/v1/subscriptions/${renewing.subscriptionID}`;
  await ok(account, 'PUT', `${path}/components/recordusage`, [{ componentID: sms.componentID, NumUnits: 5 }]);
  await ok(account, 'PUT', `${path}/components/modify`, {
    componentUsage: [{ componentID: sms.componentID, NumUnits: 5, Memo: 'checked' }],
  });
  await ok(account, 'PUT', `${path}/changePackage`, {
    packageID: gold.packageId,
    packageRateTermID: gold.rateTermId,
    isFutureChange: true,
  });

  const monthly = await createPlan(account);
  const cancelling = await subscribe(account, customerID, monthly, { StartDate: today });
  await ok(account, 'PUT', `/v1/subscriptions/${cancelling.subscriptionID}/cancel/norefund`);
  await ok(account, 'PUT', `/v1/subscriptions/${cancelling.subscriptionID}/reactivate`);
  const ending = await subscribe(account, customerID, monthly, { StartDate: plusDays(today, -5) });
  await ok(account, 'PUT', `/v1/subscriptions/${ending.subscriptionID}/changeenddate`, { EndDate: today });

  const trial = await createPlan(account, { trialPeriod: 5, trialPeriodType: 'days' });
  await subscribe(account, customerID, trial, { StartDate: plusDays(today, 1) });
  await ok(account, 'POST', '/v1/invoices', {
    customerID,
    DueDate: plusDays(today, 1),
    Charges: charges(70),
  });
}

/**
 * Collections: a card that declines, on an account that gives up after one try, two that pay, and a customer paying
 * by card without one; the clock's advance collects them. Returns the customers whose payment to dispute, and to refund, once it has.
 */
async function walkCollections(account: TestAccount, today: string): Promise<number[]> {
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
async function walkBatches(account: TestAccount, today: string): Promise<string> {
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
  const actionDate = addBusinessDays(today, 1);
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
  const failing = await newBatch(actionDate);
  await achLine(failing.BatchToken, '000123456780', false);
  await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: failing.BatchToken, ActionDate: actionDate });
  return failing.BatchToken;
}

/**
 * Capture widget sessions: one captured through the frame's submit (as the browser posts it) and completed for a
 * customer; another locked by five declined cards, each a failed attempt.
 */
async function walkWidgets(account: TestAccount, customerID: number, today: string) {
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
async function walkMandates(account: TestAccount, today: string) {
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

describe('the event catalogue', () => {
  it('has every declared type triggered by one walk, delivered once and signed, and documented', async () => {
    const undescribed = DECLARED_EVENT_TYPES.filter((type) => !EVENT_DESCRIPTIONS[type]);
    expect(undescribed, 'declared types without a description in eventCatalogue.ts').toEqual([]);
    expect(Object.keys(EVENT_DESCRIPTIONS).sort()).toEqual([...new Set(DECLARED_EVENT_TYPES)].sort());

    const account = await t.newAccount('Catalogue walk', { isTest: true });
    const clock = (await read(account, '/v1/account')).TestClockDate as string;
    const today = clock.slice(0, 10);
    const endpoint = await ok(account, 'POST', '/v1/webhookendpoints', {
      Url: `${receiver.url}/all`,
      EnabledEvents: ['*'],
    });

    await walkEndpoints(account, endpoint.webhookEndpointID);
    await ok(account, 'PUT', '/v1/account', { LegalName: 'Walk Ltd' });
    await walkCustomers(account);
    await walkCatalogue(account);
    const customerID = await createCustomer(account, { Name: 'Ada' });
    await walkMoney(account, customerID, today);
    await walkRecurringInvoices(account, customerID, today);
    await walkSubscriptions(account, customerID, today);
    const [disputedCustomer, refundedCustomer] = await walkCollections(account, today);
    const failedBatch = await walkBatches(account, today);
    await walkWidgets(account, customerID, today);
    await walkMandates(account, today);
    await ok(account, 'POST', '/v1/test-clock/advance', { To: `${plusDays(today, 10)}T09:00:00.000Z` });
    await ok(account, 'PUT', '/v1/batches/cancel', { BatchToken: failedBatch });
    const [collected] = await read(account, `/v1/customers/${disputedCustomer}/payments`);
    await ok(account, 'POST', '/v1/test/simulate', { paymentID: collected.paymentID, scenario: 'dispute' });
    const [refunded] = await read(account, `/v1/customers/${refundedCustomer}/payments`);
    await ok(account, 'PUT', `/v1/payments/${refunded.paymentID}`, { ...refunded, Allocations: [] });
    await ok(account, 'POST', `/v1/payments/${refunded.paymentID}/refund`, { Amount: 5 });

    // Only the CLI revokes keys and changes gateways; it writes to the same database, as another process.
    const key = JSON.parse(await billing('key', 'create', '--account', String(account.accountId), '--json'));
    await billing('key', 'revoke', String(key.keyID));
    const [testGateway] = await read(account, '/v1/gateways');
    await billing('gateway', 'disable', String(testGateway.gatewayID));

    const events = await allEvents(account);
    const emitted = new Set(events.map((event) => event.type));
    const declared = new Set(DECLARED_EVENT_TYPES);
    expect(
      [...declared].filter((type) => !emitted.has(type)),
      'declared types the walk never triggered',
    ).toEqual([]);
    expect(
      [...emitted].filter((type) => !declared.has(type)),
      'emitted types no module declares',
    ).toEqual([]);
    for (const event of events) {
      const object = event.data?.object;
      expect(typeof object === 'object' && object !== null && !Array.isArray(object), event.type).toBe(true);
      expect(Object.keys(object).length, `${event.type} has an empty object`).toBeGreaterThan(0);
    }

    // Every event from the endpoint's own creation on reached it, once, signed with its secret.
    const from = events.findIndex(
      (e) => e.type === 'webhook_endpoint.created' && e.resource.id === endpoint.webhookEndpointID,
    );
    expect(from).toBeGreaterThanOrEqual(0);
    const expected = events.slice(from).map((event) => event.id);
    await eventually(() => {
      const got = new Set(receiver.received.map((request) => request.id));
      return expected.every((id) => got.has(id)) ? true : undefined;
    }, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((request) => request.id).sort()).toEqual([...expected].sort());
    expect([...receiver.countById().values()].every((count) => count === 1)).toBe(true);
    const byId = new Map(events.map((event) => [event.id, event]));
    for (const request of receiver.received) {
      expect(request.path).toBe('/all');
      expect(verifyWebhook(endpoint.Secret, request)).toEqual(byId.get(request.id));
    }

    const examples = new Map<string, WireEvent>();
    for (const event of events) if (!examples.has(event.type)) examples.set(event.type, event);
    if (process.env.UPDATE_EVENT_CATALOGUE === '1' && dialect === 'sqlite')
      fs.writeFileSync(CATALOGUE_PATH, await renderEventCatalogue(examples));
    const headings = catalogueHeadings(fs.readFileSync(CATALOGUE_PATH, 'utf8'));
    expect(headings.length, 'one ### heading per type').toBe(new Set(headings).size);
    expect([...headings].sort()).toEqual([...declared].sort());
  }, 60_000);
});
