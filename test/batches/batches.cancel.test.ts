import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import {
  batchBody,
  batchOf,
  batchWithLine,
  expectConflict,
  expectInvalid,
  expectNotFound,
  figures,
  newBatch,
  submit,
  toProcessing,
  useBatchService,
  zarAccount,
} from './batchApi.fixtures.ts';
import type { DebitSetup } from './fixtures.ts';
import { advanceTo, plusDays } from './fixtures.ts';

// Payment batches through the HTTP API (spec part 2, "Batches"): cancelling a batch until the bank processes it,
// and the events a batch records.

useBatchService();

describe('PUT /v1/batches/cancel', () => {
  // Until the bank processes it, a batch may be cancelled: its payments fail (batch_cancelled) and their invoices
  // owe the 40.00 again.
  it.each([
    { what: 'an open batch', before: async () => {} },
    {
      what: 'a submitted batch still in build',
      before: async (setup: DebitSetup, token: string) => {
        await submit(setup, token);
      },
    },
    {
      what: 'a batch the gateway accepted, before its action date',
      before: async (setup: DebitSetup, token: string) => {
        const actionDate = await submit(setup, token);
        // The next day's run hands it to the test gateway; a debit order's action date is two business days ahead.
        const nextDay = plusDays(setup.today, 1);
        expect(nextDay < actionDate).toBe(true);
        await advanceTo(setup.account, nextDay);
        expect((await batchOf(setup.account, token)).State).toBe('submitted');
      },
    },
  ])('cancels $what: its payments fail and their invoices owe again', async ({ before }) => {
    const setup = await zarAccount();
    const { token, paymentId, invoice } = await batchWithLine(setup);
    await before(setup, token);
    expect(await figures(setup.account, invoice.invoiceID)).toMatchObject({
      TotalPendingPaid: 40,
      Balance: 60,
    });
    const res = await setup.account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: token } });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect((await batchOf(setup.account, token)).State).toBe('cancelled');
    expect(await ok(setup.account, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'batch_cancelled',
    });
    expect(await figures(setup.account, invoice.invoiceID)).toMatchObject({
      TotalPendingPaid: 0,
      TotalActualPaid: 0,
      Balance: 100,
    });
  });

  it('refuses a batch the bank is processing with 409 batch_not_cancellable', async () => {
    const setup = await zarAccount();
    const { token, paymentId, invoice } = await batchWithLine(setup);
    await toProcessing(setup, token);
    const res = await setup.account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: token } });
    expectConflict(res, 'batch_not_cancellable');
    expect((await batchOf(setup.account, token)).State).toBe('processing');
    expect((await ok(setup.account, 'GET', `/v1/payments/${paymentId}`)).Status).toBe('Pending');
    expect(await figures(setup.account, invoice.invoiceID)).toMatchObject({
      TotalPendingPaid: 40,
      Balance: 60,
    });
  });

  it('refuses a batch cancelled already with 409 batch_not_cancellable', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup);
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: created.BatchToken });
    const res = await setup.account.request('PUT', '/v1/batches/cancel', {
      body: { BatchToken: created.BatchToken },
    });
    expectConflict(res, 'batch_not_cancellable');
  });

  it('answers 404 for an unknown BatchToken and 422 for a missing one', async () => {
    const setup = await zarAccount();
    expectNotFound(
      await setup.account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: crypto.randomUUID() } }),
    );
    expectInvalid(await setup.account.request('PUT', '/v1/batches/cancel', { body: {} }), 'BatchToken');
  });
});

describe('batch events', () => {
  it('records batch.created, batch.updated for an edit and a submit, and batch.cancelled, under the BatchToken', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    await ok(setup.account, 'PUT', '/v1/batches', batchBody(setup, { BatchToken: token, Notes: 'edited' }));
    await submit(setup, token);
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: token });
    const events = await expectEvents(setup.account, 'batch', token, [
      'batch.created',
      'batch.updated',
      'batch.updated',
      'batch.cancelled',
    ]);
    expect(events[1]!.data.object).toMatchObject({ BatchToken: token, Notes: 'edited', State: 'open' });
    expect(events[2]!.data.object).toMatchObject({ State: 'build' });
    expect(events[2]!.data.previous).toMatchObject({ State: 'open' });
    expect(events[3]!.data.object).toMatchObject({ State: 'cancelled' });
  });
});
