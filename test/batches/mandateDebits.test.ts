import { describe, expect, it } from 'vitest';
import { lastSubmitDate, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { submissionNoticeDate } from '../../src/modules/batches/index.ts';
import { setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import { createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { customerWithBankAccount, fetchInvoicePdf, issuedInvoice } from '../helpers/invoices.ts';
import { pdfText } from '../invoicing/invoices.fixtures.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { advanceTo, bankAccount, debitCustomer, plusDays } from './fixtures.ts';
import type { DebitSetup } from './fixtures.ts';
import {
  bankAccountBody,
  debitOrderAccount,
  mandateBody,
  newCustomer,
  signedMandate,
  t,
  useMandatesService,
} from '../mandates/fixtures.ts';
import { STAGING } from '../helpers/service.ts';
import { midnightUtc } from '../helpers/clock.ts';

// docs/gateways.md, "Debit orders on the mandate's day", "Batches that go out", "One customer never holds up a
// batch" and "Returns presented again", over HTTP with the test clock. The accounts are in UTC, so a NextTryDate is
// its action date at midnight Z.

// The mandates start on 25 December 2026 (a public holiday, then a weekend): the service's clock is pinned before it,
// so that the test reads the same whatever day it runs.
useMandatesService({ clock: movableClock('2026-11-27T08:00:00.000Z') });

/** A customer whose bank account is linked to a signed monthly mandate of 100.00 on the 25th from `start`. */
async function mandatedOn25th(setup: DebitSetup, start: string, fields: Record<string, unknown> = {}) {
  const token = await signedMandate(
    setup.account,
    mandateBody(setup.today, {
      debit_StartDate: start,
      debit_ActionDay: 25,
      debit_Amt: 100,
      debit_MaxAmt: 150,
      debit_Escalation: 0,
      ...fields,
    }),
  );
  const customerId = await newCustomer(setup.account, { CurrencyCode: 'ZAR', Email: 'thandi@nkosi.example' });
  const method = await ok(
    setup.account,
    'POST',
    '/v1/paymentmethods/bankaccount',
    bankAccountBody(customerId, token),
    200,
  );
  return { customerId, paymentMethodId: method.paymentMethodID as number };
}

/** An invoice of 100.00 issued today, due on `dueDate`, collected by debit order from the customer's account. */
async function debitInvoiceDue(
  setup: DebitSetup,
  who: { customerId: number; paymentMethodId: number },
  dueDate: string,
) {
  const invoice = await issuedInvoice(setup.account, {
    customerId: who.customerId,
    invoiceDate: setup.today,
    dueDate,
    collect: { method: 'debit_order', gatewayId: setup.gatewayId, paymentMethodId: who.paymentMethodId },
    description: 'Coffee subscription',
    amount: 100,
  });
  return invoice.invoiceID as number;
}

async function outbox(account: TestAccount, subjectLike: string) {
  const rows = await t.service.storage.db
    .selectFrom('mail_outbox')
    .select(['recipient', 'subject', 'body_sealed'])
    .where('account_id', '=', account.accountId)
    .where('subject', 'like', subjectLike)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, body: t.service.secrets.open(row.body_sealed) }));
}

const openBatches = async (account: TestAccount) =>
  ((await ok(account, 'GET', '/v1/batches')) as any[]).filter((batch) => batch.State === 'open');

describe('a debit order under a mandate on the 25th, across December', () => {
  it('is planned for Monday 28 December, carried to January when submitted late, re-presented after a 02 and settled', async () => {
    const setup = await debitOrderAccount('Mandate on the 25th');
    const { account } = setup;
    await ok(account, 'PUT', '/v1/account', { StaffEmail: 'staff@northwind.example' });
    // The mandate starts on Christmas Day 2026, a Friday; the Day of Goodwill is the Saturday.
    const who = await mandatedOn25th(setup, '2026-12-25');
    const invoiceId = await debitInvoiceDue(setup, who, '2026-12-03');

    // From the first run after issue, the invoice shows the mandate's first day, moved off the holiday and the
    // weekend: Monday 28 December, never the due date.
    await advanceTo(account, setup.today);
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      NextTryDate: midnightUtc('2026-12-28'),
      NumTries: 0,
    });
    await advanceTo(account, '2026-12-18');
    expect(await openBatches(account)).toEqual([]);

    // Wednesday 23 December is the last safe day (two business days before the 28th: the 24th and the 23rd); the
    // staff are told two business days before it, on Monday 21 December, when the run has bundled the batch.
    expect(lastSubmitDate('debit_order', '2026-12-28')).toBe('2026-12-23');
    expect(submissionNoticeDate('debit_order', '2026-12-28')).toBe('2026-12-21');
    await advanceTo(account, '2026-12-21');
    const [batch] = await openBatches(account);
    expect(batch.ActionDate.slice(0, 10)).toBe('2026-12-28');
    expect(batch.NumberOfPayments).toBe(1);
    const due = await eventsOf(account, 'batch', batch.BatchToken);
    expect(due.filter((event) => event.type === 'batch.submission_due')).toHaveLength(1);
    const notice = `Submit batch ${batch.BatchToken} by Wednesday 23 December 2026%`;
    const staff = await outbox(account, notice);
    expect(staff.map((mail) => mail.recipient)).toEqual(['staff@northwind.example']);
    expect(staff[0]!.body).toContain(
      `billing batch submit --account ${account.accountId} ${batch.BatchToken}`,
    );

    // Told once: the next days bring no second notice.
    await advanceTo(account, '2026-12-24');
    expect(await outbox(account, notice)).toHaveLength(1);

    // Submitted a day late, without ActionDate: the earliest date a batch submitted on the 24th can have is Tuesday
    // the 29th, and the mandate allows no other December date; its next, the 25th of January, is January's. A
    // one-off invoice: no debit of its own wants January, so its debit goes alone then (docs/gateways.md, "Months
    // that stay in step"). Nothing is left in the batch: it is cancelled, and the submit says so.
    const late = await account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: batch.BatchToken },
    });
    expect(late.status, late.text).toBe(409);
    expect(late.body.code).toBe('batch_too_late');
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('cancelled');
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      NextTryDate: midnightUtc('2027-01-25'),
      NumTries: 0,
      CollectionProblem: null,
    });
    // The customer is told before the 28th; its documents follow the debit to its new date (docs/gateways.md,
    // "What the invoice says of its collection").
    const moved = await outbox(account, 'Your debit order for invoice % moves to 25 January 2027');
    expect(moved.map((mail) => mail.recipient)).toEqual(['thandi@nkosi.example']);
    expect(moved[0]!.body).toContain('announced for 28 December 2026, will be debited on 25 January 2027');
    const pdf = await fetchInvoicePdf(t.url, account, invoiceId);
    expect((await pdfText(new Uint8Array(pdf.body))).replace(/\s+/g, ' ')).toContain(
      'This amount will be debited on 25 Jan 2027 from account ending',
    );

    // Bundled into a batch of its own date (told on Tuesday 19 January), submitted, presented on the 25th of
    // January and returned 02 (not provided for).
    await advanceTo(account, '2027-01-19');
    const [january] = await openBatches(account);
    expect(january.ActionDate.slice(0, 10)).toBe('2027-01-25');
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: january.BatchToken });
    await advanceTo(account, '2027-01-25');
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      NumTries: 1,
      NextTryDate: midnightUtc('2027-01-25'),
    });
    const { Payments } = await ok(account, 'GET', `/v1/batches/${january.BatchToken}`);
    const firstPayment = Payments[0].paymentID as number;
    await ok(
      account,
      'PUT',
      `/v1/batches/payments/${firstPayment}/result`,
      { Status: 'unpaid', ReasonCode: '02' },
      204,
    );
    // Presented again on the mandate's next day, the 25th of February (a Thursday): nothing of its own wants it.
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Balance: 100,
      NumTries: 1,
      NextTryDate: midnightUtc('2027-02-25'),
    });
    const invoiceEvents = (await eventsOf(account, 'invoice', invoiceId)).map((event) => event.type);
    expect(invoiceEvents).toContain('invoice.payment_failed');
    expect(invoiceEvents).not.toContain('invoice.collection_exhausted');
    const failed = await outbox(account, 'Payment of invoice%failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.body).toContain('We will try again on 25 February 2027');

    // This time the account submits by itself: bundled from Friday 19 February, submitted on Tuesday 23 February,
    // the last safe day.
    await ok(account, 'PUT', '/v1/account', { AutoSubmitBatches: true });
    await advanceTo(account, '2027-02-22');
    expect((await openBatches(account)).map((b) => b.ActionDate.slice(0, 10))).toEqual(['2027-02-25']);
    await advanceTo(account, '2027-02-23');
    const batches = (await ok(account, 'GET', '/v1/batches')) as any[];
    const again = batches.find((b) => b.ActionDate.slice(0, 10) === '2027-02-25')!;
    expect(again.State).toBe('submitted');
    expect(again.SubmitDate).not.toBeNull();
    expect((await eventsOf(account, 'batch', again.BatchToken)).map((e) => e.type)).not.toContain(
      'batch.submission_due',
    );

    // Nobody returns it within the window: paid, no next try, and the customer gets a receipt.
    await advanceTo(account, '2027-03-04');
    expect(returnWindowEnd('debit_order', '2027-02-25')).toBe('2027-03-03');
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Status: 'Paid',
      Balance: 0,
      NumTries: 2,
      NextTryDate: null,
    });
    const receipts = await outbox(account, 'Receipt from%');
    expect(receipts.map((mail) => mail.recipient)).toContain('thandi@nkosi.example');
  }, 120_000);
});

describe('one customer never holds up a batch', () => {
  it('keeps out the debit its mandate no longer allows, says why, and bundles the others', async () => {
    const setup = await debitOrderAccount('One bad line');
    const { account } = setup;
    await ok(account, 'PUT', '/v1/account', { StaffEmail: 'staff@northwind.example' });
    const start = '2026-12-25';
    const good = await mandatedOn25th(setup, start);
    // A mandate that ends before the invoice can be collected: it allows no date on or after the due date.
    const ended = await mandatedOn25th(setup, start, { debit_EndDate: '2027-01-31' });
    const goodInvoice = await debitInvoiceDue(setup, good, '2027-02-01');
    const badInvoice = await debitInvoiceDue(setup, ended, '2027-02-01');

    await advanceTo(account, setup.today);
    expect((await ok(account, 'GET', `/v1/invoices/${goodInvoice}`)).NextTryDate).toBe(
      midnightUtc('2027-02-25'),
    );
    // Not due yet: nothing is said of the other until it is.
    expect((await ok(account, 'GET', `/v1/invoices/${badInvoice}`)).CollectionProblem).toBeNull();

    await advanceTo(account, '2027-01-30');
    const bad = await ok(account, 'GET', `/v1/invoices/${badInvoice}`);
    expect(bad.CollectionProblem).toMatch(
      /allows no collection on or after 2027-02-01 \(it ends on 2027-01-31\)/,
    );
    expect(bad.NextTryDate).toBeNull();
    expect((await eventsOf(account, 'invoice', badInvoice)).map((e) => e.type)).toContain(
      'invoice.collection_blocked',
    );
    const staff = await outbox(account, 'Debit order for invoice%cannot be collected');
    expect(staff).toHaveLength(1);
    expect(staff[0]!.recipient).toBe('staff@northwind.example');

    // The good one goes into the batch of its own day, alone.
    await advanceTo(account, '2027-02-23');
    const [batch] = await openBatches(account);
    expect(batch).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '100.00' });
    expect(batch.ActionDate.slice(0, 10)).toBe('2027-02-25');
    const single = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    const payment = await ok(account, 'GET', `/v1/payments/${single.Payments[0].paymentID}`);
    expect(payment.customerID).toBe(good.customerId);
    // Told once.
    expect(await outbox(account, 'Debit order for invoice%cannot be collected')).toHaveLength(1);
  }, 120_000);
});

describe('no due debit without a plan or a problem', () => {
  it('says which bank account is not valid, tells the staff once, and plans the debit once it is validated', async () => {
    const setup = await debitOrderAccount('Unvalidated account');
    const { account } = setup;
    await ok(account, 'PUT', '/v1/account', { StaffEmail: 'staff@northwind.example' });
    // Added, never validated: not valid until the bank says it is (ValidateBankAccount).
    const bank = bankAccount('debit_order');
    const who = await customerWithBankAccount(account, {
      customer: { Name: 'Thandi', CurrencyCode: 'ZAR', Email: 'thandi@nkosi.example' },
      bankAccount: bank,
    });
    const dueDate = plusDays(setup.today, 10);
    const invoiceId = await debitInvoiceDue(setup, who, dueDate);

    await advanceTo(account, setup.today);
    // Not due yet (its due date is beyond a debit order's lead): nothing said, nothing planned.
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      CollectionProblem: null,
      NextTryDate: null,
    });
    await advanceTo(account, dueDate);
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      CollectionProblem: `bank account ${who.paymentMethodId} is not valid`,
      NextTryDate: null,
      Balance: 100,
    });
    expect((await eventsOf(account, 'invoice', invoiceId)).map((e) => e.type)).toContain(
      'invoice.collection_blocked',
    );
    const staff = await outbox(account, 'Debit order for invoice%cannot be collected');
    expect(staff.map((mail) => mail.recipient)).toEqual(['staff@northwind.example']);
    expect(staff[0]!.body).toContain(`bank account ${who.paymentMethodId} is not valid`);
    expect(staff[0]!.body).toContain('Add or validate the bank account to debit');
    expect(await openBatches(account)).toEqual([]);

    // The next day's run finds the same problem: told once.
    await advanceTo(account, plusDays(dueDate, 1));
    expect(await outbox(account, 'Debit order for invoice%cannot be collected')).toHaveLength(1);

    // Validated: the problem goes, and the next run bundles the debit on the earliest day a batch allows.
    await ok(
      account,
      'POST',
      `/v1/ValidateBankAccount/${setup.gatewayId}`,
      { customerID: who.customerId, BankAccount: bank },
      204,
    );
    await advanceTo(account, plusDays(dueDate, 2));
    const [batch] = await openBatches(account);
    expect(batch).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '100.00' });
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      CollectionProblem: null,
      NextTryDate: batch.ActionDate,
      TotalPendingPaid: 100,
    });
  }, 120_000);

  it('names a disabled gateway, and plans the debit once the gateway is enabled again', async () => {
    const setup = await debitOrderAccount('Disabled gateway');
    const { account } = setup;
    const who = await debitCustomer(setup, 'debit_order');
    const dueDate = plusDays(setup.today, 3);
    const invoiceId = await debitInvoiceDue(setup, who, dueDate);
    const ctx = await accountContext(t, account.accountId);
    await setGatewayEnabled(ctx, setup.gatewayId, false);

    await advanceTo(account, dueDate);
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      CollectionProblem: `gateway ${setup.gatewayId} is disabled or retired`,
      NextTryDate: null,
    });
    expect((await eventsOf(account, 'invoice', invoiceId)).map((e) => e.type)).toContain(
      'invoice.collection_blocked',
    );

    await setGatewayEnabled(ctx, setup.gatewayId, true, STAGING);
    await advanceTo(account, plusDays(dueDate, 1));
    const [batch] = await openBatches(account);
    expect(batch).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '100.00' });
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      CollectionProblem: null,
      NextTryDate: batch.ActionDate,
      TotalPendingPaid: 100,
    });
  }, 120_000);
});

describe('the invoice e-mail of a debit under a mandate', () => {
  it("announces the mandate's day, as the PDF does, though the run plans it after the e-mail is written", async () => {
    const setup = await debitOrderAccount('Announced day');
    const { account } = setup;
    // The mandate starts on Christmas Day 2026, a Friday; the Day of Goodwill is the Saturday.
    const who = await mandatedOn25th(setup, '2026-12-25');
    await ok(account, 'PUT', `/v1/customers/${who.customerId}`, {
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
      autoSendInvoice: true,
    });
    const plan = await createPlan(account, { chargePrice: 100, currency: 'ZAR', chargeTerm: 1 });
    await subscribe(account, who.customerId, plan);
    await advanceTo(account, setup.today);

    const [invoice] = await invoicesOf(account, who.customerId);
    expect(invoice).toMatchObject({
      CollectionMethod: 'debit_order',
      NextTryDate: midnightUtc('2026-12-28'),
    });
    // Due today, collected on the mandate's first day moved off the holiday and the weekend: Monday 28 December.
    const words = 'This amount will be debited on 28 Dec 2026 from account ending 9876.';
    const [mail] = await outbox(account, `Invoice ${invoice.invoiceNum} from%`);
    expect(mail!.body).toContain(words);
    expect(mail!.body).not.toContain('on or after');
    const pdf = await fetchInvoicePdf(t.url, account, invoice.invoiceID);
    expect((await pdfText(new Uint8Array(pdf.body))).replace(/\s+/g, ' ')).toContain(words);
  }, 120_000);
});
