import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addBusinessDays,
  earliestActionDate,
  onBusinessDay,
  returnWindowEnd,
} from '../../src/core/batches.ts';
import { ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { advanceTo, debitAccount, debitCustomer, debitInvoice, plusDays } from './fixtures.ts';

// Debit orders collected through batches of the test gateway, driven by test clocks (issue 13, points 2 and 4):
// due invoices bundled into an open batch, submitted by a person, built, processed, and the bank's answers
// (unpaid in the window, a late unpaid after processed) applied to the payments and invoices.

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

describe('a due debit-order invoice', () => {
  it('is bundled into an open batch, collected once submitted, and paid once the return window passes', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, 3);
    const { account, today } = setup;

    // Due within the two business days a debit order needs: bundled on the first run that sees it so.
    const bundleDay = [0, 1, 2, 3]
      .map((d) => plusDays(today, d))
      .find((d) => addBusinessDays(d, 2) >= plusDays(today, 3))!;
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
    );
    expect(batch.ActionDate.slice(0, 10)).toBe(expectedAction);
    const single = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    expect(single.Payments).toEqual([{ paymentID: expect.any(Number), Amount: 100 }]);
    const paymentId = single.Payments[0].paymentID;
    // Pending: the invoice owes nothing more, but is not paid yet.
    let invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ TotalPendingPaid: 100, Balance: 0, NumTries: 0 });
    expect(invoice.Status).not.toBe('Paid');
    expect((await ok(account, 'GET', `/v1/payments/${paymentId}`)).Status).toBe('Pending');

    // Nothing is submitted by itself.
    await advanceTo(account, plusDays(bundleDay, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('open');

    // A person submits it: build until the next run, then submitted (the gateway took it); one try counted.
    const submitDay = plusDays(bundleDay, 1);
    const actionDate = onBusinessDay(
      [expectedAction, earliestActionDate('debit_order', submitDay)].sort().at(-1)!,
    );
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch.BatchToken, ActionDate: actionDate });
    const built = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
    expect(built.State).toBe('build');
    expect(built.SubmitDate).not.toBeNull();
    await advanceTo(account, plusDays(submitDay, 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('submitted');
    invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ NumTries: 1, NextTryDate: null });

    // The action date: processing. The window passes with no unpaid: paid, and the batch processed.
    await advanceTo(account, actionDate);
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('processing');
    await advanceTo(account, plusDays(returnWindowEnd('debit_order', actionDate), 1));
    expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('processed');
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    expect(payment).toMatchObject({ Status: 'Allocated', Method: 'debit_order' });
    expect(payment.Date.slice(0, 10)).toBe(actionDate);
    invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
    expect(invoice).toMatchObject({ Status: 'Paid', TotalActualPaid: 100, TotalPendingPaid: 0, Balance: 0 });
    const batchEvents = (await eventsOf(account, 'batch', batch.BatchToken)).map((e) => e.type);
    expect(batchEvents).toEqual([
      'batch.created',
      'batch.updated',
      'batch.updated',
      'batch.updated',
      'batch.processed',
    ]);
  });
});
