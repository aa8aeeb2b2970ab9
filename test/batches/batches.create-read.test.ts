import { describe, expect, it } from 'vitest';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import {
  BATCH_FIELDS,
  addLine,
  batchBody,
  batchDay,
  batchOf,
  batchWithLine,
  clockOf,
  expectInvalid,
  expectNotFound,
  midnight,
  newBatch,
  nextOfYear,
  plainSunday,
  t,
  tokensOf,
  useBatchService,
  withoutPayments,
  zarAccount,
} from './batchApi.fixtures.ts';
import { businessDay, plusDays } from './fixtures.ts';
import { STAGING } from '../helpers/service.ts';

// Payment batches through the HTTP API (spec part 2, "Payment batch", "Batch" states and "Batches"; public service
// notes, "Payments, adjustments, batches"): creating and reading a batch. Editing and submitting it are in
// batches.edit-submit.test.ts, cancelling it and its events in batches.cancel.test.ts, tenant isolation and bad
// input in batches.isolation.test.ts, its lines in batchLines.*.test.ts.

useBatchService();

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/batches', () => {
  it('answers 201 with an open batch: no SubmitDate, no payments, a GUID BatchToken', async () => {
    const setup = await zarAccount();
    const res = await setup.account.request('POST', '/v1/batches', {
      body: batchBody(setup, { ActionDate: batchDay(setup, 3), Notes: 'November run' }),
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      CurrencyCode: 'ZAR',
      GatewayToken: setup.gatewayToken,
      CreatedDate: await clockOf(setup.account),
      SubmitDate: null,
      ActionDate: midnight(batchDay(setup, 3)),
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
    const disabled = await addGateway(ctx, { type: 'test', friendlyName: 'Old simulator' }, STAGING);
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

  it('refuses a ZAR ActionDate on an SA public holiday or a weekend, saying why and the next business day', async () => {
    const setup = await zarAccount();
    const christmas = nextOfYear(setup, '12-25');
    const newYear = nextOfYear(setup, '01-01');
    const sunday = plainSunday(setup);
    for (const [date, why] of [
      [christmas, 'a public holiday (Christmas Day)'],
      [newYear, "a public holiday (New Year's Day)"],
      [sunday, 'a Sunday'],
    ] as const) {
      const res = await setup.account.request('POST', '/v1/batches', {
        body: batchBody(setup, { ActionDate: date }),
      });
      expectInvalid(res, 'ActionDate');
      // 2026-12-25 is a Friday: "2026-12-25 is a public holiday (Christmas Day); the next business day is 2026-12-28".
      expect(res.body.fields[0].message).toBe(
        `${date} is ${why}; the next business day is ${businessDay(date)}`,
      );
    }
    expect(await tokensOf(setup.account)).toEqual([]);
    // The next business day it names is taken.
    const taken = await newBatch(setup, { ActionDate: businessDay(christmas) });
    expect(taken.ActionDate).toBe(midnight(businessDay(christmas)));
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
