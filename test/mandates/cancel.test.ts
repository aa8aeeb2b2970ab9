import { beforeAll, describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { advanceTo } from '../batches/fixtures.ts';
import type { DebitSetup } from '../batches/fixtures.ts';
import {
  accountToday,
  addMandatedLine,
  bankAccountBody,
  createMandate,
  debitOrderAccount,
  downloadPdf,
  fieldsOf,
  getPage,
  mandateBody,
  mandateEvents,
  mandatedCustomer,
  openDebitBatch,
  plusDays,
  postSign,
  readMandate,
  SIGNATURE,
  t,
  useMandatesService,
} from './fixtures.ts';

// docs/spec-decisions.md, "Cancelling an eMandate": PUT /v1/emandate/cancel (beyond the spec) ends a signed
// mandate; its bank account becomes invalid and nothing is collected under it again; the signed PDF stays.

useMandatesService();

let setup: DebitSetup;
let account: TestAccount;
let today: string;

beforeAll(async () => {
  setup = await debitOrderAccount('Cancelling');
  ({ account, today } = setup);
});

/** A customer with a bank account linked to a fresh signed mandate, collecting on the earliest action day. */
const linked = () =>
  mandatedCustomer(
    account,
    mandateBody(today, { debit_ActionDay: Number(earliestActionDate('debit_order', today).slice(8, 10)) }),
  );

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

    const events = await mandateEvents(account, token);
    const cancelled = events.filter((e) => e.type === 'emandate.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.data.previous).toMatchObject({ Status: 'signed', DateCancelled: null });

    const method = await ok(account, 'GET', `/v1/paymentmethods/${paymentMethodId}`);
    expect(method.isValid).toBe(false);
    const methodEvents = await eventsOf(account, 'payment_method', paymentMethodId);
    expect(methodEvents.at(-1)?.type).toBe('payment_method.updated');
    expect(methodEvents.at(-1)?.data.previous).toMatchObject({ isValid: true });

    const pdf = await downloadPdf(token);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
  });

  it('shows the signee the mandate cancelled, with nothing to sign or decline', async () => {
    const { token } = await linked();
    expect((await cancel(token)).status).toBe(200);
    const page = await getPage(`/widget/emandate/${token}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Mandate cancelled</h1>');
    expect(page.html).toContain('nothing more will be debited under it');
    expect(page.html).toContain(`/widget/emandate/download?token=${token}`);
    expect(page.html).not.toContain('<form');
    expect((await postSign(token, SIGNATURE)).status).toBe(409);
    expect((await readMandate(account, token)).Status).toBe('cancelled');
  });

  it('changes nothing when the mandate is cancelled already', async () => {
    const { token } = await linked();
    expect((await cancel(token)).status).toBe(200);
    const again = await cancel(token);
    expect(again.status, again.text).toBe(200);
    expect(again.body.Status).toBe('cancelled');
    const events = await mandateEvents(account, token);
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
    const theirs = await createMandate(other, mandateBody(await accountToday(other)));
    const res = await cancel(theirs);
    expect(res.status, res.text).toBe(404);
    expect((await readMandate(other, theirs)).Status).toBe('pending_signature');
  });

  it('refuses the bank account for batch lines and linking again', async () => {
    const who = await linked();
    const { token, customerId, paymentMethodId } = who;
    const batch = await openDebitBatch(setup);
    // A line added while the mandate was signed, then the mandate cancelled: the build refuses it.
    const added = await addMandatedLine(setup, batch, who, 299.99);
    expect((await cancel(token)).status).toBe(200);
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: batch,
      ActionDate: earliestActionDate('debit_order', today),
    });
    await advanceTo(account, plusDays(today, 1));
    // Its only line leaves the batch with both reasons, and the batch, left empty, is cancelled.
    const built = await ok(account, 'GET', `/v1/batches/${batch}`);
    expect(built.State).toBe('cancelled');
    expect(built.BuildError).toMatch(
      new RegExp(
        `^payment ${added.paymentId} \\(customer ${customerId}\\): bank account ${paymentMethodId} is not valid .*; ` +
          `eMandate .*: the mandate is cancelled, not signed$`,
      ),
    );
    expect((await account.request('GET', `/v1/payments/${added.paymentId}`)).status).toBe(404);
    const invoiceId = (added.body.PaymentApplied as { invoiceID: number }[])[0]!.invoiceID;
    const invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice.CollectionProblem).toMatch(/is not valid .*the mandate is cancelled, not signed$/);

    // No new line may name it, in a batch still open.
    const open = await openDebitBatch({ ...setup, today: plusDays(today, 1) });
    const refused = await account.request('POST', '/v1/batches/payments', {
      body: { ...added.body, BatchToken: open },
    });
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
