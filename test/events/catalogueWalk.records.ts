import { expect } from 'vitest';
import { createPlan, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { ok } from '../helpers/resourceEvents.ts';
import { charges, plusDays, receiver } from './catalogueWalk.fixtures.ts';
import {
  meteredComponent,
  meteredSubscription,
  sendEvents,
} from '../subscriptions/meteredBilling.fixtures.ts';

// The catalogue walk's steps through the records an account keeps: its webhook endpoints, customers, catalogue,
// invoices and money, recurring invoices and subscriptions (catalogue.walk.test.ts).

/** webhook_endpoint: a second endpoint lives its whole life before anything it subscribes to happens. */
export async function walkEndpoints(account: TestAccount, mainEndpointId: number) {
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
export async function walkCustomers(account: TestAccount) {
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

/** package_group, package, package_version, component, component_version, billable_metric, tax_setting, currency. */
export async function walkCatalogue(account: TestAccount) {
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

  const metric = await ok(account, 'POST', '/v1/billable-metrics', {
    Code: 'walk_calls',
    Name: 'Calls',
    Aggregation: 'count',
  });
  const metricPath = `/v1/billable-metrics/${metric.billableMetricID}`;
  await ok(account, 'PUT', metricPath, { Name: 'API calls' });
  await ok(account, 'DELETE', metricPath);
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

/** invoice (all but past_due, which time brings), payment, credit_note, adjustment, payment_method. */
export async function walkMoney(account: TestAccount, customerID: number, today: string) {
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
export async function walkRecurringInvoices(account: TestAccount, customerID: number, today: string) {
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
export async function walkSubscriptions(account: TestAccount, customerID: number, today: string) {
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
  // Paused today with the unused days credited; the clock brings its resume (day 2).
  const pausing = await subscribe(account, customerID, monthly, { StartDate: today });
  await ok(account, 'PUT', `/v1/subscriptions/${pausing.subscriptionID}/pause`, {
    Credit: 'prorata',
    ResumeDate: plusDays(today, 2),
  });
  const ending = await subscribe(account, customerID, monthly, { StartDate: plusDays(today, -5) });
  await ok(account, 'PUT', `/v1/subscriptions/${ending.subscriptionID}/changeenddate`, { EndDate: today });

  // Started 25 days ago on a 10-day term: three periods billed at once.
  const backdated = await subscribe(account, customerID, tenDays, { StartDate: plusDays(today, -25) });
  expect(backdated.Warnings).toEqual([expect.objectContaining({ code: 'catch_up' })]);

  const trial = await createPlan(account, { trialPeriod: 5, trialPeriodType: 'days' });
  await subscribe(account, customerID, trial, { StartDate: plusDays(today, 1) });
  await ok(account, 'POST', '/v1/invoices', {
    customerID,
    DueDate: plusDays(today, 1),
    Charges: charges(70),
  });
}

/** feature, feature_value: a feature made, edited, given by a package, its value removed, then deleted. */
export async function walkEntitlements(account: TestAccount) {
  const feature = await ok(account, 'POST', '/v1/features', {
    Code: 'sso',
    Name: 'Single sign-on',
    Type: 'boolean',
  });
  const featurePath = `/v1/features/${feature.featureID}`;
  await ok(account, 'PUT', featurePath, { Code: 'sso', Name: 'SSO', Type: 'boolean' });
  const plan = await createPlan(account);
  const valuePath = `/v1/packages/${plan.packageId}/features/sso`;
  await ok(account, 'PUT', valuePath, { Enabled: true });
  await ok(account, 'DELETE', valuePath);
  await ok(account, 'DELETE', featurePath);
}

/**
 * usage_alert: alerts set on a metered subscription, one replaced and one deleted; the event sent now reaches the
 * one left, which fires (usage.threshold_crossed) when the walk next moves the test clock.
 */
export async function walkUsageAlerts(account: TestAccount, customerID: number, now: string) {
  const { componentId } = await meteredComponent(account, 'alert_calls', 'count');
  const { subscriptionId } = await meteredSubscription(account, [componentId], customerID);
  const path = `/v1/subscriptions/${subscriptionId}/usage-alerts`;
  const alert = await ok(account, 'POST', path, {
    Name: 'First call',
    Kind: 'quantity',
    MetricCode: 'alert_calls',
    Threshold: 2,
  });
  await ok(account, 'PUT', `${path}/${alert.usageAlertID}`, {
    Name: 'First call',
    Kind: 'quantity',
    MetricCode: 'alert_calls',
    Threshold: 1,
  });
  const spend = await ok(account, 'POST', path, { Name: 'Spend', Kind: 'amount', Threshold: 100 });
  await ok(account, 'DELETE', `${path}/${spend.usageAlertID}`);
  await sendEvents(account, [{ customerId: customerID, subscriptionId, code: 'alert_calls', at: now }]);
}

/** coupon: a coupon made, changed, redeemed on the customer, that redemption ended, and the coupon archived. */
export async function walkCoupons(account: TestAccount, customerID: number) {
  const coupon = await ok(account, 'POST', '/v1/coupons', {
    Code: 'SPRING25',
    Name: 'Spring',
    PercentOff: 25,
    Duration: 'repeating',
    DurationPeriods: 3,
  });
  await ok(account, 'PUT', `/v1/coupons/${coupon.couponID}`, { Name: 'Spring sale', MaxRedemptions: 100 });
  const redemption = await ok(account, 'POST', `/v1/customers/${customerID}/coupons`, { Code: 'SPRING25' });
  await ok(account, 'DELETE', `/v1/customers/${customerID}/coupons/${redemption.couponRedemptionID}`);
  await ok(account, 'DELETE', `/v1/coupons/${coupon.couponID}`);
}

/**
 * wallet, credit_grant: a wallet renamed, with an automatic top-up and an alert; a grant that pays an invoice as it is
 * issued (below both thresholds: the alert, and a top-up its customer has no card for) and gets the credit back when
 * the invoice is cancelled; one voided; one that expires when the walk next moves the test clock; a customer with a
 * card whose wallet tops itself up; a top-up paid by hand whose invoice is credited (the credit refunded) and the
 * credit note deleted (the refund undone).
 */
export async function walkCredits(account: TestAccount, today: string) {
  const customerID = (await ok(account, 'POST', '/v1/customers', { Name: 'Credit Co' })).customerID as number;
  const wallet = await ok(account, 'POST', `/v1/customers/${customerID}/wallets`, { CurrencyCode: 'USD' });
  const walletPath = `/v1/wallets/${wallet.walletID}`;
  await ok(account, 'PUT', walletPath, {
    Name: 'Launch credit',
    AutoTopUpThreshold: 15,
    AutoTopUpAmount: 10,
    LowBalanceAlertThreshold: 15,
  });
  await ok(account, 'POST', `${walletPath}/grants`, { Amount: 20, Note: 'Welcome' });
  const voided = await ok(account, 'POST', `${walletPath}/grants`, { Amount: 5, Priority: 50 });
  await ok(account, 'POST', `/v1/credit-grants/${voided.creditGrantID}/void`);
  const paid = await ok(account, 'POST', '/v1/invoices', { customerID, Charges: charges(8) });
  await ok(account, 'DELETE', `/v1/invoices/${paid.invoiceID}`);
  await ok(account, 'POST', `${walletPath}/grants`, { Amount: 3, ExpiresAt: plusDays(today, 2) });
  const carded = (await ok(account, 'POST', '/v1/customers', { Name: 'Topped Co' })).customerID as number;
  await ok(account, 'POST', '/v1/paymentmethods/creditcard', {
    customerID: carded,
    isPrimary: true,
    CreditCard: {
      CardType: 'Visa',
      Number: '4242424242424242',
      NameOnCard: 'Ada',
      LastNameOnCard: 'Lovelace',
      ExpiryMonth: 12,
      ExpiryYear: 2040,
    },
  });
  const topped = await ok(account, 'POST', `/v1/customers/${carded}/wallets`, {
    CurrencyCode: 'USD',
    AutoTopUpThreshold: 5,
    AutoTopUpAmount: 10,
  });
  await ok(account, 'POST', `/v1/wallets/${topped.walletID}/grants`, { Amount: 10 });
  await ok(account, 'POST', '/v1/invoices', { customerID: carded, Charges: charges(8) });
  await walkCreditedTopUp(account, today);
}

async function walkCreditedTopUp(account: TestAccount, today: string) {
  const customerID = (await ok(account, 'POST', '/v1/customers', { Name: 'Refund Co' })).customerID as number;
  const wallet = await ok(account, 'POST', `/v1/customers/${customerID}/wallets`, { CurrencyCode: 'USD' });
  const topUp = await ok(account, 'POST', `/v1/wallets/${wallet.walletID}/top-ups`, { Amount: 10 });
  const money = { customerID, CurrencyCode: 'USD', Date: today };
  const payment = await ok(account, 'POST', '/v1/payments', {
    ...money,
    Amount: 10,
    Method: 'eft',
    allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 10 }],
  });
  await ok(account, 'PUT', `/v1/payments/${payment.paymentID}`, {
    ...money,
    Amount: 10,
    Method: 'eft',
    Allocations: [],
  });
  const credit = await ok(account, 'POST', '/v1/credits', {
    ...money,
    Amount: 4,
    Allocations: [{ invoiceID: topUp.invoiceID, amountApplied: 4 }],
  });
  await ok(account, 'DELETE', `/v1/credits/${credit.creditNoteID}`);
}
