import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  addLine,
  bankCustomer,
  batchOf,
  figures,
  newBatch,
  owed,
  payment,
  scene,
  t,
  toProcessing,
  useBatchService,
} from './batchApi.fixtures.ts';
import type { DebitSetup } from './fixtures.ts';

// The bank's reports on batch lines simulated on a test account (POST /v1/test/simulate): a line's or a whole
// batch's, refused on a live account.

useBatchService();

describe('POST /v1/test/simulate on batch lines', () => {
  const simulate = (account: TestAccount, body: Record<string, unknown>) =>
    account.request('POST', '/v1/test/simulate', { body });

  it("on a test account, takes a line's or a whole batch's report as the bank's", async () => {
    const { setup, account, customer, invoice, token } = await scene();
    const settled = await addLine(account, token, customer, 40, [
      { invoiceID: invoice.invoiceID, amount: 40 },
    ]);
    const returned = await addLine(account, token, customer, 60, [
      { invoiceID: invoice.invoiceID, amount: 60 },
    ]);
    await toProcessing(setup, token);

    const line = await simulate(account, { paymentID: settled.paymentID, scenario: 'paid' });
    expect(line.status, line.text).toBe(200);
    expect(line.body).toMatchObject({ paymentID: settled.paymentID, Status: 'Allocated' });
    const batch = await simulate(account, { BatchToken: token, scenario: 'unpaid:02' });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.BatchToken).toBe(token);
    expect((await payment(account, returned.paymentID)).Status).toBe('Failed');
    expect(await figures(account, invoice.invoiceID)).toMatchObject({ TotalPendingPaid: 0 });
  });

  it('on a live account, refuses both forms with 403 not_a_test_account: nothing changes', async () => {
    // A live account's test gateway is in test mode too; simulating its bank's reports is still refused.
    const account = await t.newAccount('Live debit orders', { timeZone: 'UTC' });
    await ok(account, 'POST', '/v1/currencies', { CurrencyCode: 'ZAR' }, 201);
    const [gateway] = await ok(account, 'GET', '/v1/gateways');
    expect(gateway.isTestMode).toBe(true);
    const setup: DebitSetup = {
      account,
      today: new Date().toISOString().slice(0, 10),
      gatewayId: gateway.gatewayID,
      gatewayToken: gateway.GatewayToken,
    };
    const customer = await bankCustomer(setup);
    const invoice = await owed(setup, customer.customerId, 100);
    const { BatchToken: token } = await newBatch(setup);
    const line = await addLine(account, token, customer, 40, [{ invoiceID: invoice.invoiceID, amount: 40 }]);
    const before = await batchOf(account, token);
    const figuresBefore = await figures(account, invoice.invoiceID);

    for (const body of [
      { paymentID: line.paymentID, scenario: 'unpaid:02' },
      { paymentID: line.paymentID, scenario: 'paid' },
      { BatchToken: token, scenario: 'dispute' },
      { BatchToken: token, scenario: 'paid' },
    ]) {
      const res = await simulate(account, body);
      expect(res.status, res.text).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('not_a_test_account');
    }
    expect(await batchOf(account, token)).toEqual(before);
    expect(await payment(account, line.paymentID)).toMatchObject({ Status: 'Pending' });
    expect(await figures(account, invoice.invoiceID)).toEqual(figuresBefore);
  });
});
