import { describe, expect, it } from 'vitest';
import { earliestActionDate, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { advanceTo } from './fixtures.ts';
import {
  addMandatedLine,
  debitOrderAccount,
  mandateBody,
  mandatedCustomer,
  openDebitBatch,
  plusDays,
  t,
  useMandatesService,
} from '../mandates/fixtures.ts';
import { queuedMail } from '../helpers/outside.ts';

// docs/gateways.md, "One customer never holds up a batch": at the build a line that cannot be made leaves the batch
// with its reason and the others go to the gateway; a problem of the whole batch still fails it whole. Over HTTP
// with the test clock.

useMandatesService();

const staffMails = (account: TestAccount, subjectLike: string) => queuedMail(t, account, { subjectLike });

describe('the build of a submitted batch', () => {
  it('sends two lines on and takes out the one whose mandate was cancelled', async () => {
    const setup = await debitOrderAccount('Three debits');
    const { account } = setup;
    await ok(account, 'PUT', '/v1/account', { StaffEmail: 'staff@northwind.example' });
    const actionDate = earliestActionDate('debit_order', setup.today);
    const dayOf = { debit_ActionDay: Number(actionDate.slice(8, 10)) };
    const batch = await openDebitBatch(setup);
    const lines = [];
    for (let i = 0; i < 3; i += 1) {
      const who = await mandatedCustomer(
        account,
        mandateBody(setup.today, { ...dayOf, debit_ContractRef: `CTR-${i}-${batch.slice(0, 8)}` }),
      );
      const line = await addMandatedLine(setup, batch, who, 299.99);
      const invoiceId = (line.body.PaymentApplied as { invoiceID: number }[])[0]!.invoiceID;
      lines.push({ ...who, paymentId: line.paymentId, invoiceId });
    }
    const [first, second, gone] = lines as [(typeof lines)[0], (typeof lines)[0], (typeof lines)[0]];
    // Before the build, the third customer's mandate is cancelled: its bank account is no longer valid either.
    const cancelled = await account.request('PUT', '/v1/emandate/cancel', { body: { Token: gone.token } });
    expect(cancelled.status, cancelled.text).toBe(200);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch, ActionDate: actionDate });
    await advanceTo(account, plusDays(setup.today, 1));

    const built = await ok(account, 'GET', `/v1/batches/${batch}`);
    expect(built).toMatchObject({ State: 'submitted', BuildError: null, NumberOfPayments: 2 });
    expect(built.Payments.map((line: { paymentID: number }) => line.paymentID)).toEqual([
      first.paymentId,
      second.paymentId,
    ]);
    expect((await eventsOf(account, 'batch', batch)).map((e) => e.type)).not.toContain('batch.build_failed');

    // The third left with its reason: payment deleted, invoice owing again, blocked, one staff e-mail.
    expect((await account.request('GET', `/v1/payments/${gone.paymentId}`)).status).toBe(404);
    const invoice = await ok(account, 'GET', `/v1/invoices/${gone.invoiceId}`);
    expect(invoice).toMatchObject({ Balance: 299.99, NumTries: 0, NextTryDate: null });
    expect(invoice.CollectionProblem).toMatch(
      new RegExp(
        `^bank account ${gone.paymentMethodId} is not valid .*the mandate is cancelled, not signed$`,
      ),
    );
    const blocked = (await eventsOf(account, 'invoice', gone.invoiceId)).filter(
      (e) => e.type === 'invoice.collection_blocked',
    );
    expect(blocked).toHaveLength(1);
    const mails = await staffMails(account, `Batch ${batch}: % left out`);
    expect(mails).toMatchObject([
      { recipient: 'staff@northwind.example', subject: `Batch ${batch}: 1 debit order(s) left out` },
    ]);

    // The two go through: nobody returns them within the window, so they are paid. The third is not bundled again
    // (its bank account cannot be debited) and nobody is told twice.
    await advanceTo(account, plusDays(returnWindowEnd('debit_order', actionDate), 1));
    for (const { invoiceId } of [first, second]) {
      expect(await ok(account, 'GET', `/v1/invoices/${invoiceId}`)).toMatchObject({
        Status: 'Paid',
        Balance: 0,
        NumTries: 1,
      });
    }
    const still = await ok(account, 'GET', `/v1/invoices/${gone.invoiceId}`);
    expect(still).toMatchObject({ Balance: 299.99, NumTries: 0 });
    expect(still.CollectionProblem).not.toBeNull();
    const batches = (await ok(account, 'GET', '/v1/batches')) as { BatchToken: string }[];
    expect(batches.map((b) => b.BatchToken)).toEqual([batch]);
    expect(await staffMails(account, `Batch ${batch}: % left out`)).toHaveLength(1);
  }, 120_000);

  it('still fails whole when its gateway cannot be used', async () => {
    const setup = await debitOrderAccount('Gateway gone');
    const { account } = setup;
    const actionDate = earliestActionDate('debit_order', setup.today);
    const terms = mandateBody(setup.today, { debit_ActionDay: Number(actionDate.slice(8, 10)) });
    const batch = await openDebitBatch(setup);
    const who = await mandatedCustomer(account, terms);
    const { paymentId } = await addMandatedLine(setup, batch, who, 299.99);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch, ActionDate: actionDate });
    await setGatewayEnabled(await accountContext(t, account.accountId), setup.gatewayId, false);
    await advanceTo(account, plusDays(setup.today, 1));

    const built = await ok(account, 'GET', `/v1/batches/${batch}`);
    expect(built).toMatchObject({
      State: 'open',
      BuildError: `gateway ${setup.gatewayId} is disabled or no longer active`,
      NumberOfPayments: 1,
    });
    expect((await eventsOf(account, 'batch', batch)).map((e) => e.type)).toContain('batch.build_failed');
    // The line stays, pending, its invoice not blocked.
    expect((await ok(account, 'GET', `/v1/payments/${paymentId}`)).Status).toBe('Pending');
  }, 60_000);
});
