import { describe, expect, it } from 'vitest';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  addLine,
  bankCustomer,
  batchBody,
  batchOf,
  earliestDebitOrder,
  expectConflict,
  expectInvalid,
  expectNotFound,
  figures,
  newBatch,
  owed,
  submit,
  t,
  toProcessing,
  useBatchService,
  zarAccount,
} from './batchApi.fixtures.ts';
import type { DebitSetup } from './fixtures.ts';
import { advanceTo, plusDays } from './fixtures.ts';

// Payment batches through the HTTP API (spec part 2, "Payment batch", "Batch" states and "Batches"; public service
// notes, "Payments, adjustments, batches"): the batch itself (create, read, edit, submit, cancel), its events and
// tenant isolation. Its lines (/v1/batches/payments) are in batchLines.api.test.ts.

useBatchService();

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BATCH_FIELDS = [
  'BatchToken',
  'CurrencyCode',
  'GatewayToken',
  'CreatedDate',
  'SubmitDate',
  'ActionDate',
  'State',
  'BuildError',
  'NumberOfPayments',
  'PaymentsTotal',
  'Notes',
].sort();

const clockOf = async (account: TestAccount) =>
  (await ok(account, 'GET', '/v1/account')).TestClockDate as string;
const midnight = (date: string) => `${date}T00:00:00.000Z`;
/** A batch without its Payments list, to compare a single read with what create answered. */
const withoutPayments = ({ Payments: _, ...batch }: Record<string, unknown>) => batch;
const tokensOf = async (account: TestAccount, query = '') =>
  ((await ok(account, 'GET', `/v1/batches${query}`)) as { BatchToken: string }[]).map((b) => b.BatchToken);

/** A batch with one line of 40.00 on a 100.00 invoice. */
async function batchWithLine(setup: DebitSetup) {
  const customer = await bankCustomer(setup);
  const invoice = await owed(setup, customer.customerId, 100);
  const batch = await newBatch(setup);
  const line = await addLine(setup.account, batch.BatchToken, customer, 40, [
    { invoiceID: invoice.invoiceID, amount: 40 },
  ]);
  return { customer, invoice, batch, token: batch.BatchToken as string, paymentId: line.paymentID as number };
}

describe('POST /v1/batches', () => {
  it('answers 201 with an open batch: no SubmitDate, no payments, a GUID BatchToken', async () => {
    const setup = await zarAccount();
    const res = await setup.account.request('POST', '/v1/batches', {
      body: batchBody(setup, { ActionDate: plusDays(setup.today, 3), Notes: 'November run' }),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      CurrencyCode: 'ZAR',
      GatewayToken: setup.gatewayToken,
      CreatedDate: await clockOf(setup.account),
      SubmitDate: null,
      ActionDate: midnight(plusDays(setup.today, 3)),
      State: 'open',
      BuildError: null,
      NumberOfPayments: 0,
      PaymentsTotal: '0.00',
      Notes: 'November run',
    });
    expect(res.body.BatchToken).toMatch(GUID);
    const single = await batchOf(setup.account, res.body.BatchToken);
    expect(single.Payments).toEqual([]);
    expect(withoutPayments(single)).toEqual(withoutPayments(res.body));
  });

  it("answers exactly the spec's batch fields (Payments belongs to the single read only)", async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup);
    expect(Object.keys(created).sort()).toEqual(BATCH_FIELDS);
  });

  it('takes an ActionDate of today, a currency in lower case, and Notes of 1000 characters', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup, {
      CurrencyCode: 'zar',
      ActionDate: setup.today,
      Notes: 'n'.repeat(1000),
    });
    expect(created).toMatchObject({ CurrencyCode: 'ZAR', ActionDate: midnight(setup.today) });
    expect(created.Notes).toHaveLength(1000);
  });

  it('refuses a missing, unknown or not enabled CurrencyCode with 422 naming CurrencyCode', async () => {
    const setup = await zarAccount();
    const { account } = setup;
    await ok(account, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
    await ok(account, 'DELETE', '/v1/currencies', { CurrencyCode: 'EUR' });
    const { CurrencyCode: _, ...withoutCurrency } = batchBody(setup);
    for (const body of [
      withoutCurrency,
      batchBody(setup, { CurrencyCode: 'XYZ' }),
      batchBody(setup, { CurrencyCode: 'GBP' }),
      batchBody(setup, { CurrencyCode: 'EUR' }),
    ]) {
      expectInvalid(await account.request('POST', '/v1/batches', { body }), 'CurrencyCode');
    }
    expect(await tokensOf(account)).toEqual([]);
  });

  it("refuses an unknown GatewayToken, another account's, a disabled gateway and one that takes no batches", async () => {
    const setup = await zarAccount();
    const other = await zarAccount();
    const ctx = await accountContext(t, setup.account.accountId);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'Cash desk' });
    const disabled = await addGateway(ctx, { type: 'test', friendlyName: 'Old simulator' });
    await setGatewayEnabled(ctx, disabled.id, false);
    for (const GatewayToken of [crypto.randomUUID(), other.gatewayToken, disabled.token, manual.token, '']) {
      const res = await setup.account.request('POST', '/v1/batches', {
        body: batchBody(setup, { GatewayToken }),
      });
      expectInvalid(res, 'GatewayToken');
    }
    expect(await tokensOf(setup.account)).toEqual([]);
  });

  it('refuses an ActionDate that is missing, not a date or before today with 422 naming ActionDate', async () => {
    const setup = await zarAccount();
    const { ActionDate: _, ...withoutDate } = batchBody(setup);
    for (const body of [
      withoutDate,
      batchBody(setup, { ActionDate: 'next Friday' }),
      batchBody(setup, { ActionDate: '2026-02-30' }),
      batchBody(setup, { ActionDate: 20261201 }),
      batchBody(setup, { ActionDate: plusDays(setup.today, -1) }),
    ]) {
      expectInvalid(await setup.account.request('POST', '/v1/batches', { body }), 'ActionDate');
    }
    expect(await tokensOf(setup.account)).toEqual([]);
  });

  it('refuses Notes over 1000 characters with 422 naming Notes', async () => {
    const setup = await zarAccount();
    const res = await setup.account.request('POST', '/v1/batches', {
      body: batchBody(setup, { Notes: 'n'.repeat(1001) }),
    });
    expectInvalid(res, 'Notes');
    expect(await tokensOf(setup.account)).toEqual([]);
  });

  it('replays the first response for the same Idempotency-Key and body, and refuses another body', async () => {
    const setup = await zarAccount();
    const headers = { 'Idempotency-Key': `batch-${crypto.randomUUID()}` };
    const body = batchBody(setup, { Notes: 'once' });
    const first = await setup.account.request('POST', '/v1/batches', { body, headers });
    expect(first.status, first.text).toBe(201);
    const again = await setup.account.request('POST', '/v1/batches', { body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const changed = await setup.account.request('POST', '/v1/batches', {
      body: { ...body, Notes: 'twice' },
      headers,
    });
    expect(changed.status).toBe(409);
    expect(await tokensOf(setup.account)).toEqual([first.body.BatchToken]);
  });
});

describe('GET /v1/batches and GET /v1/batches/{BatchToken}', () => {
  it('lists the batches in creation order, a page at a time, without their Payments', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const second = await newBatch(setup, { Notes: 'second' });
    const third = await newBatch(setup, { Notes: 'third' });
    const all = await ok(setup.account, 'GET', '/v1/batches');
    expect(all.map((b: { BatchToken: string }) => b.BatchToken)).toEqual([
      token,
      second.BatchToken,
      third.BatchToken,
    ]);
    for (const batch of all) expect(Object.keys(batch).sort()).toEqual(BATCH_FIELDS);
    expect(all[0]).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '40.00', State: 'open' });
    expect(await tokensOf(setup.account, '?page_size=2')).toEqual([token, second.BatchToken]);
    expect(await tokensOf(setup.account, '?page=2&page_size=2')).toEqual([third.BatchToken]);
    expect(await tokensOf(setup.account, '?page=3&page_size=2')).toEqual([]);
    expect(await tokensOf((await zarAccount()).account)).toEqual([]);
  });

  it('reads one batch with its Payments: paymentID and Amount of each line', async () => {
    const setup = await zarAccount();
    const { token, paymentId, customer } = await batchWithLine(setup);
    const more = await addLine(setup.account, token, customer, '12.50');
    const batch = await batchOf(setup.account, token);
    expect(Object.keys(batch).sort()).toEqual([...BATCH_FIELDS, 'Payments'].sort());
    expect(batch).toMatchObject({ NumberOfPayments: 2, PaymentsTotal: '52.50' });
    expect(batch.Payments).toEqual([
      { paymentID: paymentId, Amount: 40 },
      { paymentID: more.paymentID, Amount: 12.5 },
    ]);
  });

  it("answers 404 for an unknown BatchToken and for another account's", async () => {
    const setup = await zarAccount();
    const theirs = await newBatch(await zarAccount());
    for (const token of [crypto.randomUUID(), theirs.BatchToken, 'not-a-guid', "' or 1=1 --"]) {
      expectNotFound(await setup.account.request('GET', `/v1/batches/${encodeURIComponent(token)}`));
    }
  });

  it('refuses bad paging with 422', async () => {
    const setup = await zarAccount();
    for (const query of ['page=0', 'page=abc', 'page_size=0', 'page_size=1000', 'page=-1']) {
      const res = await setup.account.request('GET', `/v1/batches?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(422);
    }
  });
});

describe('PUT /v1/batches', () => {
  it('answers 204 with no body and edits ActionDate and Notes', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup, { Notes: 'draft' });
    const res = await setup.account.request('PUT', '/v1/batches', {
      body: batchBody(setup, {
        BatchToken: created.BatchToken,
        ActionDate: plusDays(setup.today, 10),
        Notes: 'final',
      }),
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(withoutPayments(await batchOf(setup.account, created.BatchToken))).toEqual({
      ...withoutPayments(created),
      ActionDate: midnight(plusDays(setup.today, 10)),
      Notes: 'final',
    });
  });

  it('changes the currency and the gateway while the batch has no payments', async () => {
    const setup = await zarAccount();
    const enabled = await setup.account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'USD' } });
    expect([201, 409]).toContain(enabled.status);
    const ctx = await accountContext(t, setup.account.accountId);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' });
    const created = await newBatch(setup);
    await ok(
      setup.account,
      'PUT',
      '/v1/batches',
      batchBody(setup, { BatchToken: created.BatchToken, CurrencyCode: 'USD', GatewayToken: second.token }),
    );
    expect(await batchOf(setup.account, created.BatchToken)).toMatchObject({
      CurrencyCode: 'USD',
      GatewayToken: second.token,
      State: 'open',
    });
  });

  it('refuses a new currency or gateway with 409 batch_has_payments once the batch has a line', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const ctx = await accountContext(t, setup.account.accountId);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' });
    await ok(setup.account, 'POST', '/v1/currencies', { CurrencyCode: 'EUR' });
    const before = await batchOf(setup.account, token);
    for (const change of [{ CurrencyCode: 'EUR' }, { GatewayToken: second.token }]) {
      const res = await setup.account.request('PUT', '/v1/batches', {
        body: batchBody(setup, { BatchToken: token, ...change }),
      });
      expectConflict(res, 'batch_has_payments');
    }
    expect(await batchOf(setup.account, token)).toEqual(before);
    // Its date and notes still change.
    await ok(
      setup.account,
      'PUT',
      '/v1/batches',
      batchBody(setup, { BatchToken: token, Notes: 'still open' }),
    );
    expect((await batchOf(setup.account, token)).Notes).toBe('still open');
  });

  it('refuses an edit with 409 batch_not_open once the batch is submitted or cancelled', async () => {
    const setup = await zarAccount();
    const submitted = await batchWithLine(setup);
    await submit(setup, submitted.token);
    const cancelled = await newBatch(setup);
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: cancelled.BatchToken });
    for (const token of [submitted.token, cancelled.BatchToken]) {
      const before = await batchOf(setup.account, token);
      const res = await setup.account.request('PUT', '/v1/batches', {
        body: batchBody(setup, { BatchToken: token, Notes: 'too late' }),
      });
      expectConflict(res, 'batch_not_open');
      expect(await batchOf(setup.account, token)).toEqual(before);
    }
  });

  it('refuses bad fields with 422 naming each, and an unknown BatchToken with 404', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup);
    const ctx = await accountContext(t, setup.account.accountId);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'Cash desk' });
    const edit = (extra: Record<string, unknown>) =>
      setup.account.request('PUT', '/v1/batches', {
        body: batchBody(setup, { BatchToken: created.BatchToken, ...extra }),
      });
    expectInvalid(await edit({ BatchToken: undefined }), 'BatchToken');
    expectInvalid(await edit({ CurrencyCode: 'GBP' }), 'CurrencyCode');
    expectInvalid(await edit({ GatewayToken: manual.token }), 'GatewayToken');
    expectInvalid(await edit({ ActionDate: plusDays(setup.today, -1) }), 'ActionDate');
    expectInvalid(await edit({ ActionDate: 'soon' }), 'ActionDate');
    expectInvalid(await edit({ Notes: 'n'.repeat(1001) }), 'Notes');
    expectNotFound(await edit({ BatchToken: crypto.randomUUID() }));
    expect(withoutPayments(await batchOf(setup.account, created.BatchToken))).toEqual(
      withoutPayments(created),
    );
  });
});

describe('PUT /v1/batches/submit', () => {
  it('moves an open batch to build and sets SubmitDate, ActionDate and Notes', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const actionDate = earliestDebitOrder(setup);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, ActionDate: actionDate, Notes: 'checked by Ada' },
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(await batchOf(setup.account, token)).toMatchObject({
      State: 'build',
      SubmitDate: await clockOf(setup.account),
      ActionDate: midnight(actionDate),
      Notes: 'checked by Ada',
      BuildError: null,
      NumberOfPayments: 1,
    });
  });

  it('refuses a batch without payments with 409 batch_empty', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: created.BatchToken, ActionDate: plusDays(setup.today, 14) },
    });
    expectConflict(res, 'batch_empty');
    expect(await batchOf(setup.account, created.BatchToken)).toMatchObject({
      State: 'open',
      SubmitDate: null,
    });
  });

  it('refuses a batch whose every payment was removed with 409 batch_empty', async () => {
    const setup = await zarAccount();
    const { token, paymentId } = await batchWithLine(setup);
    await ok(setup.account, 'DELETE', `/v1/batches/payments/${paymentId}`);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, ActionDate: plusDays(setup.today, 14) },
    });
    expectConflict(res, 'batch_empty');
    expect(await batchOf(setup.account, token)).toMatchObject({
      State: 'open',
      SubmitDate: null,
      NumberOfPayments: 0,
    });
  });

  it("refuses an ActionDate before the rail's lead time with 422 naming ActionDate, and keeps the batch open", async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    // A debit order must reach the bank two business days ahead (src/core/batches.ts): the day before that is late.
    const tooEarly = plusDays(earliestDebitOrder(setup), -1);
    for (const ActionDate of [setup.today, tooEarly, plusDays(setup.today, -1), 'tomorrow']) {
      const res = await setup.account.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: token, ActionDate },
      });
      expectInvalid(res, 'ActionDate');
    }
    expect(await batchOf(setup.account, token)).toMatchObject({ State: 'open', SubmitDate: null });
  });

  it('keeps the batch’s own ActionDate when none is sent (beyond the spec, which requires one)', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const own = (await batchOf(setup.account, token)).ActionDate;
    expect(own).toBe(midnight(plusDays(setup.today, 7)));
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, Notes: 'as planned' },
    });
    expect(res.status, res.text).toBe(204);
    expect(await batchOf(setup.account, token)).toMatchObject({
      State: 'build',
      SubmitDate: await clockOf(setup.account),
      ActionDate: own,
      Notes: 'as planned',
    });
  });

  it('refuses, naming ActionDate, a submit without one when the batch’s own is too early for the rail', async () => {
    const setup = await zarAccount();
    const customer = await bankCustomer(setup);
    const invoice = await owed(setup, customer.customerId, 100);
    // Today is a valid action date for an open batch, but not for a debit order submitted today.
    const batch = await newBatch(setup, { ActionDate: setup.today });
    await addLine(setup.account, batch.BatchToken, customer, 40, [
      { invoiceID: invoice.invoiceID, amount: 40 },
    ]);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: batch.BatchToken },
    });
    expectInvalid(res, 'ActionDate');
    expect(res.body.fields[0].message).toBe(
      `the batch's own (${setup.today}) is too early; send one on or after ${earliestDebitOrder(setup)}: ` +
        'debit_order collections reach the bank ahead of their action date',
    );
    expect(await batchOf(setup.account, batch.BatchToken)).toMatchObject({
      State: 'open',
      SubmitDate: null,
      ActionDate: midnight(setup.today),
    });
  });

  it('refuses Notes over 1000 characters with 422 naming Notes', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, ActionDate: earliestDebitOrder(setup), Notes: 'n'.repeat(1001) },
    });
    expectInvalid(res, 'Notes');
    expect((await batchOf(setup.account, token)).State).toBe('open');
  });

  it('refuses a second submit with 409 batch_not_open', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    await submit(setup, token);
    const before = await batchOf(setup.account, token);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, ActionDate: plusDays(earliestDebitOrder(setup), 7) },
    });
    expectConflict(res, 'batch_not_open');
    expect(await batchOf(setup.account, token)).toEqual(before);
  });

  it('answers 404 for an unknown BatchToken', async () => {
    const setup = await zarAccount();
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: crypto.randomUUID(), ActionDate: plusDays(setup.today, 14) },
    });
    expectNotFound(res);
  });
});

describe('PUT /v1/batches/cancel', () => {
  it('cancels an open batch: its payments fail (batch_cancelled) and their invoices owe again', async () => {
    const setup = await zarAccount();
    const { token, paymentId, invoice } = await batchWithLine(setup);
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

  it('cancels a submitted batch still in build', async () => {
    const setup = await zarAccount();
    const { token, paymentId, invoice } = await batchWithLine(setup);
    await submit(setup, token);
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: token });
    expect((await batchOf(setup.account, token)).State).toBe('cancelled');
    expect((await ok(setup.account, 'GET', `/v1/payments/${paymentId}`)).Status).toBe('Failed');
    expect((await figures(setup.account, invoice.invoiceID)).Balance).toBe(100);
  });

  it('cancels a batch the gateway accepted, before its action date', async () => {
    const setup = await zarAccount();
    const { token, paymentId, invoice } = await batchWithLine(setup);
    const actionDate = await submit(setup, token);
    // The next day's run hands it to the test gateway; a debit order's action date is two business days ahead.
    const nextDay = plusDays(setup.today, 1);
    expect(nextDay < actionDate).toBe(true);
    await advanceTo(setup.account, nextDay);
    expect((await batchOf(setup.account, token)).State).toBe('submitted');
    await ok(setup.account, 'PUT', '/v1/batches/cancel', { BatchToken: token });
    expect((await batchOf(setup.account, token)).State).toBe('cancelled');
    expect(await ok(setup.account, 'GET', `/v1/payments/${paymentId}`)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'batch_cancelled',
    });
    expect(await figures(setup.account, invoice.invoiceID)).toMatchObject({
      TotalPendingPaid: 0,
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

describe('tenant isolation', () => {
  it("answers 404 on every endpoint for another account's batch or line, and changes nothing", async () => {
    const theirs = await zarAccount();
    const their = await batchWithLine(theirs);
    const batchBefore = await batchOf(theirs.account, their.token);
    const paymentBefore = await ok(theirs.account, 'GET', `/v1/payments/${their.paymentId}`);

    const mine = await zarAccount();
    const me = await batchWithLine(mine);
    const { account } = mine;
    expectNotFound(await account.request('GET', `/v1/batches/${their.token}`));
    expect(await tokensOf(account)).toEqual([me.token]);
    expectNotFound(
      await account.request('PUT', '/v1/batches', {
        body: batchBody(mine, { BatchToken: their.token, Notes: 'mine now' }),
      }),
    );
    expectNotFound(
      await account.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: their.token, ActionDate: plusDays(mine.today, 14) },
      }),
    );
    expectNotFound(await account.request('PUT', '/v1/batches/cancel', { body: { BatchToken: their.token } }));
    expectNotFound(
      await account.request('POST', '/v1/batches/payments', {
        body: {
          BatchToken: their.token,
          customerID: me.customer.customerId,
          Amount: 5,
          paymentMethodID: me.customer.paymentMethodId,
          PaymentApplied: [],
        },
      }),
    );
    const editTheirs = {
      paymentID: their.paymentId,
      BatchToken: their.token,
      customerID: their.customer.customerId,
      Amount: 1,
      PaymentApplied: [],
    };
    expectNotFound(await account.request('PUT', '/v1/batches/payments', { body: editTheirs }));
    expectNotFound(
      await account.request('PUT', '/v1/batches/payments', {
        body: { ...editTheirs, BatchToken: me.token, customerID: me.customer.customerId },
      }),
    );
    // My own line, named with their batch.
    expectNotFound(
      await account.request('PUT', '/v1/batches/payments', {
        body: { ...editTheirs, paymentID: me.paymentId, customerID: me.customer.customerId },
      }),
    );
    expectNotFound(await account.request('DELETE', `/v1/batches/payments/${their.paymentId}`));
    // Their customer is not one of mine either: 404, as for a payment.
    expectNotFound(
      await account.request('POST', '/v1/batches/payments', {
        body: {
          BatchToken: me.token,
          customerID: their.customer.customerId,
          Amount: 5,
          paymentMethodID: their.customer.paymentMethodId,
          PaymentApplied: [],
        },
      }),
    );

    expect(await batchOf(theirs.account, their.token)).toEqual(batchBefore);
    expect(await ok(theirs.account, 'GET', `/v1/payments/${their.paymentId}`)).toEqual(paymentBefore);
    expect((await batchOf(account, me.token)).NumberOfPayments).toBe(1);
  });
});

describe('bad input on the batch endpoints', () => {
  it('is answered 4xx, never 500', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const long = 'x'.repeat(70);
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/batches', []],
      ['POST', '/v1/batches', 'batch'],
      ['POST', '/v1/batches', null],
      ['POST', '/v1/batches', { CurrencyCode: 5, GatewayToken: {}, ActionDate: [] }],
      ['POST', '/v1/batches', batchBody(setup, { CurrencyCode: 'ZA' })],
      ['POST', '/v1/batches', batchBody(setup, { CurrencyCode: 'ZARR' })],
      ['POST', '/v1/batches', batchBody(setup, { GatewayToken: long })],
      ['POST', '/v1/batches', batchBody(setup, { GatewayToken: null })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '0000-00-00' })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '99999-01-01' })],
      ['POST', '/v1/batches', batchBody(setup, { ActionDate: '31 Foo 2026' })],
      ['POST', '/v1/batches', batchBody(setup, { Notes: 7 })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: long })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: '' })],
      ['PUT', '/v1/batches', batchBody(setup, { BatchToken: 42 })],
      ['PUT', '/v1/batches', { BatchToken: token }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: null }],
      ['PUT', '/v1/batches/submit', { BatchToken: [token], ActionDate: setup.today }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: '2026-13-01' }],
      ['PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: setup.today, Notes: false }],
      ['PUT', '/v1/batches/cancel', { BatchToken: null }],
      ['PUT', '/v1/batches/cancel', { BatchToken: long }],
      ['PUT', '/v1/batches/cancel', []],
      ['GET', `/v1/batches/${long}`, undefined],
      ['GET', `/v1/batches/${encodeURIComponent('%00;drop table batches')}`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await setup.account.request(method, path, body === undefined ? {} : { body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeGreaterThanOrEqual(
        400,
      );
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`).toBeLessThan(500);
    }
    const malformed = await setup.account.request('POST', '/v1/batches', { rawBody: '{"CurrencyCode":' });
    expect(malformed.status).toBe(400);
    expect(await batchOf(setup.account, token)).toMatchObject({ State: 'open', NumberOfPayments: 1 });
    expect(await tokensOf(setup.account)).toEqual([token]);
  });
});
