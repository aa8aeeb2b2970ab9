import { describe, expect, it } from 'vitest';
import { addGateway } from '../../../src/modules/gateways/index.ts';
import { plusDays } from '../../batches/fixtures.ts';
import { advanceTo, debitAccount } from '../../batches/fixtures.ts';
import type { DebitSetup } from '../../batches/fixtures.ts';
import { ok } from '../../helpers/billing.ts';
import { accountContext } from '../../helpers/context.ts';
import { issuedInvoice } from '../../helpers/invoices.ts';
import { eventsOf } from '../../helpers/resourceEvents.ts';
import type { TestAccount } from '../../helpers/service.ts';
import { useTestService } from '../../helpers/testService.ts';
import { AvsBank, BULK_ONLY_BRANCH, SOMEONE_ELSES_ACCOUNT, avsLayouts } from './avsLayouts.ts';
import { NiwsStandIn } from './niwsStandIn.ts';

// A new SA debit-order account verified with the debtor's bank before its first debit, through Netcash's AVS
// (docs/gateways/netcash.md, "Account verification"), against the NIWS stand-in: a full match makes it valid, a
// refusal keeps it from every debit and asks the customer to check it, a bank that answers in bulk is asked again by
// the run. The debtor's ID number is sent to the bank and shown nowhere else but by its last three characters.

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const RISK_KEY = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
// 1 January 1980 and 29 February 2000: valid SA ID numbers (birth date, citizenship digit, Luhn check digit).
const ID_NUMBER = '8001015009087';
const OTHER_ID_NUMBER = '0002295009084';

const bank = new AvsBank();
const standIn = new NiwsStandIn(avsLayouts(bank));
const t = useTestService({ providerFetch: standIn.fetch, smtp: true });
const { smtp } = t;

/** A test account billing ZAR with a netcash gateway set up for AVS, and a customer of it that pays by debit order. */
async function netcashCustomer(): Promise<{ setup: DebitSetup; customerId: number; gatewayId: number }> {
  const setup = await debitAccount(t, 'ZAR');
  const ctx = await accountContext(t, setup.account.accountId);
  const gateway = await addGateway(ctx, {
    type: 'netcash',
    friendlyName: 'Netcash',
    settings: { serviceKey: SERVICE_KEY, riskServiceKey: RISK_KEY, uploadThroughWebService: false },
  });
  const customer = await ok(setup.account, 'POST', '/v1/customers', {
    Name: 'Thandi',
    LastName: 'Nkosi',
    Email: `thandi.${setup.account.accountId}@example.com`,
    CurrencyCode: 'ZAR',
    PrimaryGatewayID: gateway.id,
    PaymentMethod: 'debit_order',
  });
  return { setup, customerId: customer.customerID, gatewayId: gateway.id };
}

const saAccount = (accountNumber: string, extra: Record<string, unknown> = {}) => ({
  Method: 'debit_order',
  AccountType: 'Cheque',
  AccountHolder: 'Thandi Nkosi',
  Bank: 'First National Bank',
  AccountNumber: accountNumber,
  BranchCode: '250655',
  IdNumber: ID_NUMBER,
  ...extra,
});

const addAccount = (account: TestAccount, customerId: number, details: Record<string, unknown>) =>
  account.request('POST', '/v1/paymentmethods/bankaccount', {
    body: { customerID: customerId, isPrimary: true, BankAccount: details },
  });

const reference = (paymentMethodId: number) => `PM${String(paymentMethodId).padStart(6, '0')}`;

describe('account verification through Netcash (AVS)', () => {
  it('verifies a new account with its ID number at once: valid, and the ID number shown by its last three', async () => {
    const { setup, customerId } = await netcashCustomer();
    const res = await addAccount(setup.account, customerId, saAccount('62001234567'));
    expect(res.status, res.text).toBe(200);
    const id = res.body.paymentMethodID;
    expect(res.body).toMatchObject({
      isValid: true,
      BankAccount: {
        IdType: 'sa_id',
        IdNumberLastThree: '087',
        Verification: { Status: 'verified', Date: expect.any(String), Reason: null },
      },
    });
    expect(standIn.problems).toEqual([]);
    expect(standIn.callsOf('AVSRealtimeQuery').at(-1)?.values).toEqual({
      ServiceKey: RISK_KEY,
      AccountReference: reference(id),
      BankAccountNumber: '62001234567',
      BranchCode: '250655',
      BankAccountType: 'Current',
      EnquiryName: 'Thandi Nkosi',
      IdNumber: ID_NUMBER,
      IsIdNumber: 'true',
    });
    const read = await setup.account.request('GET', `/v1/paymentmethods/${id}`);
    expect(read.body.BankAccount).toMatchObject({ AccountNumber: '62001234567', IdNumberLastThree: '087' });
    for (const answer of [res.text, read.text]) expect(answer).not.toContain(ID_NUMBER);

    // An edit that leaves the ID number out keeps it, and the new details are verified again with it.
    const { IdNumber: _left, ...withoutId } = saAccount('62001234568');
    const asked = standIn.callsOf('AVSRealtimeQuery').length;
    await ok(setup.account, 'PUT', `/v1/paymentmethods/bankaccount/${id}`, {
      customerID: customerId,
      isPrimary: true,
      BankAccount: withoutId,
    });
    expect(
      standIn
        .callsOf('AVSRealtimeQuery')
        .slice(asked)
        .map((call) => call.values.IdNumber),
    ).toEqual([ID_NUMBER]);
    expect(await ok(setup.account, 'GET', `/v1/paymentmethods/${id}`)).toMatchObject({
      isValid: true,
      BankAccount: { IdNumberLastThree: '087', LastFourDigits: '4568', Verification: { Status: 'verified' } },
    });
  });

  it('refuses a bad ID number with a 422 naming the field, and stores nothing', async () => {
    const { setup, customerId } = await netcashCustomer();
    const asked = standIn.requests.length;
    const res = await addAccount(
      setup.account,
      customerId,
      saAccount('62001234567', { IdNumber: '8001015009088' }),
    );
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field: 'BankAccount.IdNumber', message: 'has a wrong check digit' }]);
    expect(res.text).not.toContain('8001015009088');
    const passport = await addAccount(
      setup.account,
      customerId,
      saAccount('62001234567', { IdType: 'visa' }),
    );
    expect(passport.body.fields.map((p: { field: string }) => p.field)).toEqual(['BankAccount.IdType']);
    expect(await ok(setup.account, 'GET', `/v1/customers/${customerId}/paymentmethods`)).toEqual([]);
    expect(standIn.requests.length).toBe(asked);
  });

  it("keeps an account whose ID number is someone else's from every debit; the customer is asked to check it", async () => {
    const { setup, customerId } = await netcashCustomer();
    const { account } = setup;
    const res = await addAccount(
      account,
      customerId,
      saAccount(SOMEONE_ELSES_ACCOUNT, { IdNumber: OTHER_ID_NUMBER }),
    );
    expect(res.status, res.text).toBe(200);
    const id = res.body.paymentMethodID;
    expect(res.body).toMatchObject({
      isValid: false,
      BankAccount: {
        IdNumberLastThree: '084',
        Verification: { Status: 'failed', Reason: 'account_holder_mismatch' },
      },
    });
    const email = `thandi.${account.accountId}@example.com`;
    await expect.poll(() => smtp.messages.filter((m) => m.to.includes(email)).length).toBe(1);
    const mail = smtp.messages.find((m) => m.to.includes(email))!.raw;
    expect(mail).toContain('Please check your bank account details');
    expect(mail).toContain('ending 0013');
    expect(mail).not.toContain(OTHER_ID_NUMBER);

    // Due today and following its customer: not debited, and the invoice tells the staff why.
    const invoice = await issuedInvoice(account, {
      customerId,
      invoiceDate: setup.today,
      dueDate: setup.today,
    });
    await advanceTo(account, setup.today);
    expect(await ok(account, 'GET', '/v1/batches')).toEqual([]);
    expect((await ok(account, 'GET', `/v1/invoices/${invoice.invoiceID}`)).CollectionProblem).toBe(
      `the primary payment method ${id} is not valid`,
    );

    // The events, their webhooks' objects and the audit log show the ID number by its last three only.
    const events = await eventsOf(account, 'payment_method', id);
    expect(events.map((e) => e.type)).toEqual(['payment_method.created', 'payment_method.updated']);
    expect(events.at(-1)!.data.object.BankAccount).toMatchObject({
      IdNumberLastThree: '084',
      Verification: { Status: 'failed' },
    });
    const audit = await account.request('GET', '/v1/auditlog?page_size=100');
    for (const text of [JSON.stringify(events), audit.text]) expect(text).not.toContain(OTHER_ID_NUMBER);
  });

  it('waits for a bank that answers in bulk: the run asks for the report until it comes', async () => {
    const { setup, customerId } = await netcashCustomer();
    const { account } = setup;
    const res = await addAccount(
      account,
      customerId,
      saAccount('62001234567', { BranchCode: BULK_ONLY_BRANCH }),
    );
    expect(res.status, res.text).toBe(200);
    const id = res.body.paymentMethodID;
    expect(res.body).toMatchObject({ isValid: false, BankAccount: { Verification: { Status: 'pending' } } });
    expect(standIn.callsOf('AVSRealtimeQuery').at(-1)!.values.AccountReference).toBe(reference(id));

    // The next day's run asks: FILE NOT READY. The bank answers; the run after reads the report.
    await advanceTo(account, setup.today);
    expect((await ok(account, 'GET', `/v1/paymentmethods/${id}`)).BankAccount.Verification.Status).toBe(
      'pending',
    );
    const reports = standIn.callsOf('RequestAVSReport');
    expect(reports.at(-1)!.values).toEqual({ ServiceKey: RISK_KEY, FileToken: expect.any(String) });
    bank.answerBulk();
    await advanceTo(account, plusDays(setup.today, 1));
    const verified = await ok(account, 'GET', `/v1/paymentmethods/${id}`);
    expect(verified).toMatchObject({ isValid: true, BankAccount: { Verification: { Status: 'verified' } } });
    expect(standIn.problems).toEqual([]);
  });

  it('asks in the run about an account captured in the widget’s frame, with the ID number given there', async () => {
    // The frame is the test gateway's (a netcash gateway captures no cards); the customer's gateway is Netcash.
    const { setup, customerId } = await netcashCustomer();
    const session = await ok(
      setup.account,
      'POST',
      '/v1/widgets/capturepaymethod/create',
      {
        VaultingType: 'VaultGateway',
        SaleType: 'VaultOnly',
        ExpiresIn: '00:30:00',
        isVaultOnlyOnSuccess: false,
        CurrencyCode: 'ZAR',
        GatewayToken: setup.gatewayToken,
        AuthDomain: 'https://shop.example.com',
      },
      200,
    );
    const submitted = await t.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: {
        kind: 'bank_account',
        accountHolder: 'Thandi Nkosi',
        bank: 'First National Bank',
        accountType: 'Cheque',
        accountNumber: '62001234567',
        branchCode: '250655',
        idType: 'South-African ID',
        idNumber: ID_NUMBER,
      },
    });
    expect(submitted.status, submitted.text).toBe(200);
    // Complete adds it inside its own transaction: the question waits for the run.
    await ok(setup.account, 'PUT', '/v1/widgets/capturepaymethod/complete', {
      customerID: customerId,
      SessionToken: session.SessionToken,
    });
    const [listed] = await ok(setup.account, 'GET', `/v1/customers/${customerId}/paymentmethods`);
    const id = listed.paymentMethodID;
    expect(await ok(setup.account, 'GET', `/v1/paymentmethods/${id}`)).toMatchObject({
      isValid: false,
      BankAccount: { IdNumberLastThree: '087', Verification: { Status: 'pending', Date: null } },
    });
    await advanceTo(setup.account, setup.today);
    expect(await ok(setup.account, 'GET', `/v1/paymentmethods/${id}`)).toMatchObject({
      isValid: true,
      BankAccount: { Verification: { Status: 'verified' } },
    });
    expect(standIn.callsOf('AVSRealtimeQuery').at(-1)!.values).toMatchObject({
      AccountReference: reference(id),
      IdNumber: ID_NUMBER,
    });
  });

  it('keeps the ID numbers out of the gateway calls it records and out of the logs', async () => {
    const rows = await t.service.storage.db
      .selectFrom('gateway_calls')
      .select(['operation', 'request', 'result'])
      .where('operation', 'in', ['validate_bank_account', 'bank_validation_outcome'])
      .execute();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const recorded = JSON.stringify(rows) + t.logs.join('');
    for (const secret of [ID_NUMBER, OTHER_ID_NUMBER]) expect(recorded).not.toContain(secret);
  });
});
