import { describe, expect, it } from 'vitest';
import {
  addBusinessDays,
  earliestActionDate,
  onBusinessDay,
  returnWindowEnd,
} from '../../src/core/bankingDays.ts';
import { bundlingHorizon } from '../../src/modules/batches/index.ts';
import { ok } from '../helpers/billing.ts';
import { customerWithBankAccount } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  RAIL_CURRENCY,
  advanceTo,
  bankAccount,
  debitAccount,
  debitCustomer,
  debitInvoice,
  plusDays,
  submittedDebit,
} from './fixtures.ts';
import type { DebitSetup, SubmittedDebit } from './fixtures.ts';

// Debit orders collected through batches of the test gateway, driven by test clocks (docs/gateways.md, "Debit orders
// and payment batches"): due invoices bundled into an open batch, submitted by a person, built, processed, and the
// bank's answers (unpaid in the window, a late unpaid after processed) applied to the payments and invoices.

const t = useTestService();

describe('a due debit-order invoice', () => {
  it('is bundled into an open batch, collected once submitted, and paid once the return window passes', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 3 });
    const { account, today } = setup;

    // Due within the two business days a debit order needs: bundled on the first run that sees it so.
    const bundleDay = [0, 1, 2, 3]
      .map((d) => plusDays(today, d))
      .find((d) => addBusinessDays(d, 2, 'debit_order') >= plusDays(today, 3))!;
    await advanceTo(account, bundleDay);
    const [batch] = await ok(account, 'GET', '/v1/batches');
    expect(batch).toMatchObject({
      State: 'open',
      CurrencyCode: 'ZAR',
      GatewayToken: setup.gatewayToken,
      NumberOfPayments: 1,
      PaymentsTotal: '100.00',
      SubmitDate: null,
      BuildError: null,
    });
    const expectedAction = onBusinessDay(
      [plusDays(today, 3), earliestActionDate('debit_order', bundleDay)].sort().at(-1)!,
      'debit_order',
    );
    expect(batch.ActionDate.slice(0, 10)).toBe(expectedAction);
    const single = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    expect(single.Payments).toEqual([{ paymentID: expect.any(Number), Amount: 100 }]);
    const paymentId = single.Payments[0].paymentID;
    // Pending: the invoice owes nothing more, but is not paid yet.
    let invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    // Its NextTryDate is the day the bank is to present it: the batch's action date.
    expect(invoice).toMatchObject({
      TotalPendingPaid: 100,
      Balance: 0,
      NumTries: 0,
      NextTryDate: `${expectedAction}T00:00:00.000Z`,
    });
    expect(invoice.Status).not.toBe('Paid');
    expect((await ok(account, 'GET', `/v1/payments/${paymentId}`)).Status).toBe('Pending');

    // Nothing is submitted by itself.
    await advanceTo(account, plusDays(bundleDay, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('open');

    // A person submits it: build until the next run, then submitted (the gateway took it); one try counted.
    const submitDay = plusDays(bundleDay, 1);
    const actionDate = onBusinessDay(
      [expectedAction, earliestActionDate('debit_order', submitDay)].sort().at(-1)!,
      'debit_order',
    );
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch.BatchToken, ActionDate: actionDate });
    const built = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    expect(built.State).toBe('build');
    expect(built.SubmitDate).not.toBeNull();
    await advanceTo(account, plusDays(submitDay, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('submitted');
    invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ NumTries: 1, NextTryDate: `${actionDate}T00:00:00.000Z` });

    // The action date: processing. The window passes with no unpaid: paid, and the batch processed.
    await advanceTo(account, actionDate);
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('processing');
    await advanceTo(account, plusDays(returnWindowEnd('debit_order', actionDate), 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('processed');
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    expect(payment).toMatchObject({ Status: 'Allocated', Method: 'debit_order' });
    expect(payment.Date.slice(0, 10)).toBe(actionDate);
    invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({
      Status: 'Paid',
      TotalActualPaid: 100,
      TotalPendingPaid: 0,
      Balance: 0,
      NextTryDate: null,
    });
    const batchEvents = (await eventsOf(account, 'batch', batch.BatchToken)).map((e) => e.type);
    // Bundled on its last safe day, with AutoSubmitBatches off: the staff are told it is due that day.
    expect(batchEvents).toEqual([
      'batch.created',
      'batch.submission_due',
      'batch.updated',
      'batch.updated',
      'batch.updated',
      'batch.processed',
    ]);
  });
});

describe("the bank's answers", () => {
  it('an unpaid "not provided for" (SA 02) fails the line, reopens the invoice and presents it again a month later', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000002');
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).State).toBe('submitted');
    const returnedOn = addBusinessDays(debit.actionDate, 2, 'debit_order');
    await advanceTo(setup.account, returnedOn);
    const payment = await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`);
    expect(payment).toMatchObject({ Status: 'Failed', FailureReason: 'insufficient_funds' });
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
    expect(invoice).toMatchObject({
      Balance: 100,
      TotalPendingPaid: 0,
      NumTries: 1,
      // A month later, on a business day (no mandate: the rail's gap).
      NextTryDate: `${onBusinessDay(plusDays(returnedOn, 30), 'debit_order')}T00:00:00.000Z`,
    });
    // Its only line is final: the batch is processed at once.
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).State).toBe('processed');
    const types = (await eventsOf(setup.account, 'invoice', debit.invoiceId)).map((event) => event.type);
    expect(types).toContain('invoice.payment_failed');
    expect(types).not.toContain('invoice.collection_exhausted');

    // A month later it goes into a new open batch; returned again, the rail allows no third presentation.
    const retry = onBusinessDay(plusDays(returnedOn, 30), 'debit_order');
    let bundleDay = plusDays(returnedOn, 1);
    while (bundlingHorizon('debit_order', bundleDay) < retry) bundleDay = plusDays(bundleDay, 1);
    const openBatches = async () =>
      (await ok(setup.account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    await advanceTo(setup.account, plusDays(bundleDay, -1));
    expect(await openBatches()).toEqual([]);
    await advanceTo(setup.account, bundleDay);
    const open = await openBatches();
    expect(open).toHaveLength(1);
    const again = await ok(setup.account, 'GET', `/v1/batches/${open[0].BatchToken}`);
    const actionDate = again.ActionDate.slice(0, 10);
    const earliest = earliestActionDate('debit_order', bundleDay);
    expect(actionDate).toBe(onBusinessDay(retry > earliest ? retry : earliest, 'debit_order'));
    await ok(setup.account, 'PUT', '/v1/batches/submit', {
      BatchToken: again.BatchToken,
      ActionDate: actionDate,
    });
    await advanceTo(setup.account, addBusinessDays(actionDate, 2, 'debit_order'));
    const final = await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
    expect(final).toMatchObject({ Balance: 100, NumTries: 2, NextTryDate: null });
    const after = (await eventsOf(setup.account, 'invoice', debit.invoiceId)).map((event) => event.type);
    expect(after.filter((type) => type === 'invoice.payment_failed')).toHaveLength(2);
    expect(after).toContain('invoice.collection_exhausted');
    // The customer is told of each return: the first with its next date, the last that none follows.
    const mails = await t.service.storage.db
      .selectFrom('mail_outbox')
      .select(['recipient', 'body_sealed'])
      .where('account_id', '=', setup.account.accountId)
      .where('subject', 'like', 'Payment of invoice%failed')
      .orderBy('id')
      .execute();
    expect(mails).toHaveLength(2);
    const [first, last] = mails.map((mail) => t.service.secrets.open(mail.body_sealed));
    const [year, month, day] = retry.split('-').map(Number) as [number, number, number];
    const retryInWords = new Date(Date.UTC(year, month - 1, day)).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    expect(first).toContain(`We will try again on ${retryInWords}`);
    expect(last).toContain('will not try again');
  });

  it('a permanent return (account closed) fails the line, marks the bank account invalid and stops', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000012');
    await advanceTo(setup.account, addBusinessDays(debit.actionDate, 2, 'debit_order'));
    expect(await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'account_closed',
    });
    expect((await ok(setup.account, 'GET', `/v1/paymentmethods/${debit.paymentMethodId}`)).isValid).toBe(
      false,
    );
    expect(await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`)).toMatchObject({
      Balance: 100,
      NextTryDate: null,
    });
  });

  it('a late unpaid after the batch was processed reverses the paid invoice', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000101');
    await advanceTo(setup.account, plusDays(returnWindowEnd('debit_order', debit.actionDate), 1));
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).State).toBe('processed');
    expect((await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`)).Status).toBe('Paid');

    await advanceTo(setup.account, addBusinessDays(debit.actionDate, 6, 'debit_order'));
    expect(await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
    expect(invoice).toMatchObject({ Balance: 100, TotalActualPaid: 0 });
    expect(invoice.Status).not.toBe('Paid');
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).State).toBe('processed');
    const types = (await eventsOf(setup.account, 'payment', debit.paymentId)).map((event) => event.type);
    expect(types).toContain('payment.reversed');
  });

  it.each([
    ['ach', '000222222227', 'insufficient_funds'],
    ['ach', '000111111116', 'invalid_account'],
    ['sepa', 'AT981904300002222227', 'insufficient_funds'],
    ['sepa', 'DE73370400440000000104', 'account_closed'],
  ] as const)('%s account %s is returned with %s', async (rail, number, reason) => {
    const setup = await debitAccount(t, RAIL_CURRENCY[rail]);
    const debit = await submittedDebit(setup, rail, number);
    await advanceTo(setup.account, plusDays(returnWindowEnd(rail, debit.actionDate), 1));
    expect(await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`)).toMatchObject({
      Status: 'Failed',
      Method: rail,
      FailureReason: reason,
    });
    // Owed again: a retryable return may already be in its next batch, which the run bundles days ahead.
    const invoice = await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
    expect({ paid: invoice.TotalActualPaid, owed: invoice.Balance + invoice.TotalPendingPaid }).toEqual({
      paid: 0,
      owed: 100,
    });
  });

  it.each([
    ['ach', '000123456789'],
    ['sepa', 'DE89370400440532013000'],
  ] as const)('%s account %s is paid once the window passes', async (rail, number) => {
    const setup = await debitAccount(t, RAIL_CURRENCY[rail]);
    const debit = await submittedDebit(setup, rail, number);
    await advanceTo(setup.account, plusDays(returnWindowEnd(rail, debit.actionDate), 1));
    expect((await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`)).Status).toBe('Allocated');
    expect((await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`)).Status).toBe('Paid');
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).State).toBe('processed');
  });
});

describe("the bank's answers on an invoice that follows its customer's debit order", () => {
  // Presented as one that names its own debit order (docs/gateways.md, "Returns presented again"): the return reads
  // how the customer's settings collect it now.
  const follows = { followsCustomer: true };
  const openBatches = async (setup: DebitSetup) =>
    (await ok(setup.account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
  const invoiceOf = (setup: DebitSetup, debit: SubmittedDebit) =>
    ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
  const eventTypes = async (setup: DebitSetup, debit: SubmittedDebit) =>
    (await eventsOf(setup.account, 'invoice', debit.invoiceId)).map((event) => event.type);

  it('an 02 presents it again a month later, once; returned again, it stops at 2 presentations', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000002', follows);
    const returnedOn = addBusinessDays(debit.actionDate, 2, 'debit_order');
    await advanceTo(setup.account, returnedOn);
    const retry = onBusinessDay(plusDays(returnedOn, 30), 'debit_order');
    expect(await invoiceOf(setup, debit)).toMatchObject({
      CollectionSource: 'customer',
      CollectionMethod: 'debit_order',
      Balance: 100,
      NumTries: 1,
      NextTryDate: `${retry}T00:00:00.000Z`,
    });
    expect(await eventTypes(setup, debit)).not.toContain('invoice.collection_exhausted');

    // Not bundled before its date comes within the lead time; then once, into a new batch.
    let bundleDay = plusDays(returnedOn, 1);
    while (bundlingHorizon('debit_order', bundleDay) < retry) bundleDay = plusDays(bundleDay, 1);
    await advanceTo(setup.account, plusDays(bundleDay, -1));
    expect(await openBatches(setup)).toEqual([]);
    await advanceTo(setup.account, bundleDay);
    const [open, ...more] = await openBatches(setup);
    expect(more).toEqual([]);
    const again = await ok(setup.account, 'GET', `/v1/batches/${open.BatchToken}`);
    const actionDate = again.ActionDate.slice(0, 10);
    await ok(setup.account, 'PUT', '/v1/batches/submit', {
      BatchToken: again.BatchToken,
      ActionDate: actionDate,
    });
    await advanceTo(setup.account, addBusinessDays(actionDate, 2, 'debit_order'));
    expect(await invoiceOf(setup, debit)).toMatchObject({ Balance: 100, NumTries: 2, NextTryDate: null });
    expect(await eventTypes(setup, debit)).toContain('invoice.collection_exhausted');

    // The rail's 2 presentations are used up: no run bundles it again.
    await advanceTo(setup.account, plusDays(actionDate, 40));
    expect(await openBatches(setup)).toEqual([]);
    expect(await invoiceOf(setup, debit)).toMatchObject({ NumTries: 2, NextTryDate: null });
  });

  it.each([
    ['04 (payment stopped)', '9900000004'],
    ['12 (account closed)', '9900000012'],
  ])('an %s stops at once: never presented again', async (_, number) => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', number, follows);
    await advanceTo(setup.account, addBusinessDays(debit.actionDate, 2, 'debit_order'));
    expect(await invoiceOf(setup, debit)).toMatchObject({ Balance: 100, NumTries: 1, NextTryDate: null });
    expect(await eventTypes(setup, debit)).toContain('invoice.collection_exhausted');
    await advanceTo(setup.account, plusDays(debit.actionDate, 40));
    expect(await openBatches(setup)).toEqual([]);
    expect(await invoiceOf(setup, debit)).toMatchObject({ Balance: 100, NumTries: 1, NextTryDate: null });
  });

  it('a late 02 after the batch was processed plans its next presentation', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000101', follows);
    const returnedOn = addBusinessDays(debit.actionDate, 6, 'debit_order');
    await advanceTo(setup.account, returnedOn);
    expect((await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`)).Status).toBe('Failed');
    expect(await invoiceOf(setup, debit)).toMatchObject({
      Balance: 100,
      NumTries: 1,
      CollectionProblem: null,
      NextTryDate: `${onBusinessDay(plusDays(returnedOn, 30), 'debit_order')}T00:00:00.000Z`,
    });
  });

  it('an 02 after the customer moved to eft is not presented again: the customer pays it', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order', '9900000002', follows);
    await ok(setup.account, 'PUT', `/v1/customers/${debit.customerId}`, { PaymentMethod: 'eft' });
    await advanceTo(setup.account, addBusinessDays(debit.actionDate, 2, 'debit_order'));
    expect(await invoiceOf(setup, debit)).toMatchObject({
      CollectionMethod: 'eft',
      Balance: 100,
      NumTries: 1,
      NextTryDate: null,
    });
    // Not used up either: the customer was told of the return, not that collection stopped.
    expect(await eventTypes(setup, debit)).not.toContain('invoice.collection_exhausted');
    await advanceTo(setup.account, plusDays(debit.actionDate, 40));
    expect(await openBatches(setup)).toEqual([]);
    expect((await invoiceOf(setup, debit)).NumTries).toBe(1);
  });
});

describe('an automatic batch', () => {
  it('is cancelled with its lines failed; the invoices owe again and wait in the next batch', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 0 });
    await advanceTo(setup.account, setup.today);
    const [batch] = await ok(setup.account, 'GET', '/v1/batches');
    const { Payments } = await ok(setup.account, 'GET', `/v1/batches/${batch.BatchToken}`);
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: batch.BatchToken });
    expect((await ok(setup.account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('cancelled');
    expect(await ok(setup.account, 'GET', `/v1/payments/${Payments[0].paymentID}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'batch_cancelled',
    });
    expect(await ok(setup.account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
      Balance: 100,
      NumTries: 0,
    });
    // Still due by debit order: the next run bundles it into a new batch.
    await advanceTo(setup.account, plusDays(setup.today, 1));
    const open = (await ok(setup.account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
    expect(open).toHaveLength(1);
    expect(open[0].BatchToken).not.toBe(batch.BatchToken);
  });

  it('does not take an invoice whose bank account is not validated yet', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await customerWithBankAccount(setup.account, {
      customer: { Name: 'Grace', CurrencyCode: 'ZAR' },
      bankAccount: bankAccount('debit_order'),
    });
    await debitInvoice(setup, customer, { dueIn: 0 });
    await advanceTo(setup.account, plusDays(setup.today, 1));
    expect(await ok(setup.account, 'GET', '/v1/batches')).toEqual([]);
  });
});

describe('what the review found', () => {
  it.each([
    ['its own debit order', {}],
    ["its customer's debit order", { followsCustomer: true }],
  ])(
    'a batch cancelled after it was built gives its invoices back to the next run (%s)',
    async (_, collection) => {
      const setup = await debitAccount(t, 'ZAR');
      const debit = await submittedDebit(setup, 'debit_order', undefined, collection);
      expect((await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`)).NumTries).toBe(1);
      // A line cannot be recorded paid before the bank processes the batch: it could still be cancelled.
      const early = await setup.account.request('PUT', `/v1/batches/payments/${debit.paymentId}/result`, {
        body: { Status: 'paid' },
      });
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('batch_not_processing');
      await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: debit.batchToken });
      // Withdrawn at the provider too: it collects nothing and reports nothing.
      const atProvider = await t.service.storage.db
        .selectFrom('test_gateway_batches')
        .select('cancelled_at')
        .where('idempotency_key', 'like', `batch_${debit.batchToken}_%`)
        .executeTakeFirstOrThrow();
      expect(atProvider.cancelled_at).not.toBeNull();
      const invoice = await ok(setup.account, 'GET', `/v1/invoices/${debit.invoiceId}`);
      expect(invoice).toMatchObject({ Balance: 100, NumTries: 1 });
      // Due again at once, not on the withdrawn batch's action date.
      expect(invoice.NextTryDate.slice(0, 10)).toBe(debit.today);
      await advanceTo(setup.account, plusDays(debit.today, 1));
      const open = (await ok(setup.account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
      expect(open).toHaveLength(1);
      expect(open[0].NumberOfPayments).toBe(1);
    },
  );

  it('a debit collected in a batch keeps its amount and is not deleted through /v1/payments', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order');
    await advanceTo(setup.account, plusDays(returnWindowEnd('debit_order', debit.actionDate), 1));
    const payment = await ok(setup.account, 'GET', `/v1/payments/${debit.paymentId}`);
    expect(payment.Status).toBe('Allocated');
    const edit = await setup.account.request('PUT', `/v1/payments/${debit.paymentId}`, {
      body: { ...payment, Amount: 90, Allocations: [] },
    });
    expect(edit.status, edit.text).toBe(409);
    expect(edit.body.code).toBe('payment_collected');
    const removed = await setup.account.request('DELETE', `/v1/payments/${debit.paymentId}`);
    expect(removed.status).toBe(409);
    expect((await ok(setup.account, 'GET', `/v1/batches/${debit.batchToken}`)).PaymentsTotal).toBe('100.00');
  });
});
