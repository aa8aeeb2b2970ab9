import { beforeAll, describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/batches.ts';
import { ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { advanceTo, debitInvoice, plusDays } from '../batches/fixtures.ts';
import {
  ACCOUNT_NUMBER,
  createMandate,
  fieldsOf,
  mandateBody,
  postSign,
  readMandate,
  t,
  useMandatesService,
} from './fixtures.ts';

// docs/spec-decisions.md, "Cancelling an eMandate": PUT /v1/emandate/cancel (beyond the spec) ends a signed
// mandate; its bank account becomes invalid and nothing is collected under it again; the signed PDF stays.

useMandatesService();

let account: TestAccount;
let today: string;
let gatewayToken: string;
let gatewayId: number;

beforeAll(async () => {
  account = await t.newAccount('Cancelling', { isTest: true, timeZone: 'UTC', currencyCode: 'ZAR' });
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  today = plusDays(clock, 1);
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  gatewayToken = gateway.GatewayToken;
  gatewayId = gateway.gatewayID;
});

const actionDay = () => Number(earliestActionDate('debit_order', today).slice(8, 10));

async function signed(as: TestAccount = account): Promise<string> {
  const token = await createMandate(
    as,
    mandateBody(today, { debit_ActionDay: actionDay() }),
    '/widget/emandate',
  );
  expect((await postSign(token, { Consent: 'yes', TypedName: 'Thandi Nkosi' })).status).toBe(303);
  return token;
}

const bankAccountBody = (customerID: number, token: string) => ({
  customerID,
  isPrimary: true,
  BankAccount: {
    Method: 'debit_order',
    AccountType: 'Cheque',
    AccountHolder: 'T Nkosi',
    Bank: 'First National Bank',
    AccountNumber: ACCOUNT_NUMBER,
    BranchCode: '250655',
    EMandateToken: token,
  },
});

/** A customer with a bank account linked to a fresh signed mandate. */
async function linked(): Promise<{ token: string; customerId: number; paymentMethodId: number }> {
  const token = await signed();
  const customer = await ok(account, 'POST', '/v1/customers', {
    Name: 'Thandi',
    LastName: 'Nkosi',
    CurrencyCode: 'ZAR',
  });
  const method = await ok(
    account,
    'POST',
    '/v1/paymentmethods/bankaccount',
    bankAccountBody(customer.customerID, token),
    200,
  );
  return { token, customerId: customer.customerID, paymentMethodId: method.paymentMethodID };
}

const cancel = (token: unknown, as: TestAccount = account) =>
  as.request('PUT', '/v1/emandate/cancel', { body: { Token: token } });

describe('PUT /v1/emandate/cancel', () => {
  it('cancels a signed mandate, invalidates its bank account and keeps its PDF', async () => {
    const { token, paymentMethodId } = await linked();
    const res = await cancel(token);
    expect(res.status, res.text).toBe(200);
    expect(res.body.Status).toBe('cancelled');
    expect(res.body.DateCancelled).toEqual(expect.any(String));
    expect(res.body.customerPaymentMethodID).toBe(paymentMethodId);
    expect(await readMandate(account, token)).toMatchObject({ Status: 'cancelled' });

    const events = await mandateEvents(token);
    const cancelled = events.filter((e) => e.type === 'emandate.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.data.previous).toMatchObject({ Status: 'signed', DateCancelled: null });

    const method = await ok(account, 'GET', `/v1/paymentmethods/${paymentMethodId}`);
    expect(method.isValid).toBe(false);
    const methodEvents = await eventsOf(account, 'payment_method', paymentMethodId);
    expect(methodEvents.at(-1)?.type).toBe('payment_method.updated');
    expect(methodEvents.at(-1)?.data.previous).toMatchObject({ isValid: true });

    const pdf = await fetch(`${t.url}/widget/emandate/download?token=${token}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
  });

  it('changes nothing when the mandate is cancelled already', async () => {
    const { token } = await linked();
    expect((await cancel(token)).status).toBe(200);
    const again = await cancel(token);
    expect(again.status, again.text).toBe(200);
    expect(again.body.Status).toBe('cancelled');
    const events = await mandateEvents(token);
    expect(events.filter((e) => e.type === 'emandate.cancelled')).toHaveLength(1);
  });

  it('refuses an unsigned mandate with 409 emandate_not_signed', async () => {
    const token = await createMandate(account, mandateBody(today));
    const res = await cancel(token);
    expect(res.status, res.text).toBe(409);
    expect(res.body.code).toBe('emandate_not_signed');
    expect((await readMandate(account, token)).Status).toBe('pending_signature');
  });

  it('answers 422 naming Token when it is missing, and 404 for another account’s', async () => {
    const missing = await account.request('PUT', '/v1/emandate/cancel', { body: {} });
    expect(missing.status, missing.text).toBe(422);
    expect(fieldsOf(missing)).toContain('Token');

    const other = await t.newAccount('Other', { isTest: true, currencyCode: 'ZAR' });
    const theirs = await createMandate(other, mandateBody(await otherToday(other)));
    const res = await cancel(theirs);
    expect(res.status, res.text).toBe(404);
    expect((await readMandate(other, theirs)).Status).toBe('pending_signature');
  });

  it('refuses the bank account for batch lines and linking again', async () => {
    const { token, customerId, paymentMethodId } = await linked();
    const invoiceId = await debitInvoice(
      { account, today, gatewayId, gatewayToken },
      { customerId, paymentMethodId },
      { dueIn: 30, amount: 299.99 },
    );
    const batch = await ok(account, 'POST', '/v1/batches', {
      CurrencyCode: 'ZAR',
      GatewayToken: gatewayToken,
      ActionDate: today,
    });
    const line = {
      BatchToken: batch.BatchToken,
      customerID: customerId,
      Amount: 299.99,
      paymentMethodID: paymentMethodId,
      PaymentApplied: [{ amount: 299.99, invoiceID: invoiceId }],
    };
    // A line added while the mandate was signed, then the mandate cancelled: the build refuses it.
    const added = await ok(account, 'POST', '/v1/batches/payments', line);
    expect((await cancel(token)).status).toBe(200);
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: batch.BatchToken,
      ActionDate: earliestActionDate('debit_order', today),
    });
    await advanceTo(account, plusDays(today, 1));
    const built = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    expect(built.State).toBe('open');
    expect(built.BuildError).toContain(
      `payment ${added.paymentID}: bank account ${paymentMethodId} is not valid`,
    );
    expect(built.BuildError).toMatch(
      new RegExp(
        `payment ${added.paymentID} \\(customer ${customerId}\\): .*the mandate is cancelled, not signed`,
      ),
    );

    // No new line may name it.
    const refused = await account.request('POST', '/v1/batches/payments', { body: line });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.fields).toEqual([
      expect.objectContaining({ field: 'paymentMethodID', message: expect.stringMatching(/was cancelled$/) }),
    ]);

    // Nor may another bank account be linked to it.
    const again = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccountBody(customerId, token),
    });
    expect(again.status, again.text).toBe(422);
    expect(fieldsOf(again)).toEqual(['BankAccount.EMandateToken']);
  });
});

async function mandateEvents(token: string) {
  const row = await t.service.storage.db
    .selectFrom('emandates')
    .select('id')
    .where('token', '=', token)
    .executeTakeFirstOrThrow();
  return eventsOf(account, 'emandate', row.id);
}

async function otherToday(other: TestAccount): Promise<string> {
  return ((await ok(other, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
}
