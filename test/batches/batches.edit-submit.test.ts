import { describe, expect, it } from 'vitest';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import {
  addLine,
  bankCustomer,
  batchBody,
  batchDay,
  batchOf,
  batchWithLine,
  clockOf,
  earliestDebitOrder,
  expectConflict,
  expectInvalid,
  expectNotFound,
  midnight,
  newBatch,
  nextOfYear,
  plainSunday,
  owed,
  submit,
  t,
  useBatchService,
  withoutPayments,
  zarAccount,
} from './batchApi.fixtures.ts';
import type { DebitSetup } from './fixtures.ts';
import { businessDay, plusDays } from './fixtures.ts';
import { STAGING } from '../helpers/service.ts';

// Payment batches through the HTTP API (spec part 2, "Batches"): editing an open batch (PUT /v1/batches) and
// submitting it (PUT /v1/batches/submit), with the rail's lead time for its ActionDate.

useBatchService();

describe('PUT /v1/batches', () => {
  it('answers 204 with no body and edits ActionDate and Notes', async () => {
    const setup = await zarAccount();
    const created = await newBatch(setup, { Notes: 'draft' });
    const res = await setup.account.request('PUT', '/v1/batches', {
      body: batchBody(setup, {
        BatchToken: created.BatchToken,
        ActionDate: batchDay(setup, 10),
        Notes: 'final',
      }),
    });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expect(withoutPayments(await batchOf(setup.account, created.BatchToken))).toEqual({
      ...withoutPayments(created),
      ActionDate: midnight(batchDay(setup, 10)),
      Notes: 'final',
    });
  });

  it('changes the currency and the gateway while the batch has no payments', async () => {
    const setup = await zarAccount();
    const enabled = await setup.account.request('POST', '/v1/currencies', { body: { CurrencyCode: 'USD' } });
    expect([201, 409]).toContain(enabled.status);
    const ctx = await accountContext(t, setup.account.accountId);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' }, STAGING);
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
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' }, STAGING);
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

  it('refuses re-dating to an SA public holiday with 422 naming ActionDate and the next business day, unchanged', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const before = await batchOf(setup.account, token);
    const newYear = nextOfYear(setup, '01-01');
    const res = await setup.account.request('PUT', '/v1/batches', {
      body: batchBody(setup, { BatchToken: token, ActionDate: newYear, Notes: 'moved' }),
    });
    expectInvalid(res, 'ActionDate');
    expect(res.body.fields[0].message).toBe(
      `${newYear} is a public holiday (New Year's Day); the next business day is ${businessDay(newYear)}`,
    );
    expect(await batchOf(setup.account, token)).toEqual(before);
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

  it.each([
    { what: 'without payments', emptyBatch: async (setup: DebitSetup) => (await newBatch(setup)).BatchToken },
    {
      what: 'whose every payment was removed',
      emptyBatch: async (setup: DebitSetup) => {
        const { token, paymentId } = await batchWithLine(setup);
        await ok(setup.account, 'DELETE', `/v1/batches/payments/${paymentId}`);
        return token;
      },
    },
  ])('refuses a batch $what with 409 batch_empty', async ({ emptyBatch }) => {
    const setup = await zarAccount();
    const token = await emptyBatch(setup);
    const res = await setup.account.request('PUT', '/v1/batches/submit', {
      body: { BatchToken: token, ActionDate: batchDay(setup, 14) },
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
    // A debit order must reach the bank two business days ahead (src/core/bankingDays.ts): the day before that is late.
    const tooEarly = plusDays(earliestDebitOrder(setup), -1);
    for (const ActionDate of [setup.today, tooEarly, plusDays(setup.today, -1), 'tomorrow']) {
      const res = await setup.account.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: token, ActionDate },
      });
      expectInvalid(res, 'ActionDate');
    }
    expect(await batchOf(setup.account, token)).toMatchObject({ State: 'open', SubmitDate: null });
  });

  it('refuses submitting for an SA public holiday or a weekend, naming ActionDate, and keeps the batch open', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const before = await batchOf(setup.account, token);
    const christmas = nextOfYear(setup, '12-25');
    const sunday = plainSunday(setup);
    for (const [date, why] of [
      [christmas, 'a public holiday (Christmas Day)'],
      [sunday, 'a Sunday'],
    ] as const) {
      const res = await setup.account.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: token, ActionDate: date },
      });
      expectInvalid(res, 'ActionDate');
      expect(res.body.fields[0].message).toBe(
        `${date} is ${why}; the next business day is ${businessDay(date)}`,
      );
    }
    expect(await batchOf(setup.account, token)).toEqual(before);
  });

  it('keeps the batch’s own ActionDate when none is sent (beyond the spec, which requires one)', async () => {
    const setup = await zarAccount();
    const { token } = await batchWithLine(setup);
    const own = (await batchOf(setup.account, token)).ActionDate;
    expect(own).toBe(midnight(batchDay(setup, 7)));
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
      body: { BatchToken: crypto.randomUUID(), ActionDate: batchDay(setup, 14) },
    });
    expectNotFound(res);
  });
});
