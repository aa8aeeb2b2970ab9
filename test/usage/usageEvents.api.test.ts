import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import type { BillableMetric } from '../../src/modules/catalogue/index.ts';
import { defineMetric } from './usage.fixtures.ts';

// POST /v1/usage-events, its batch form and GET /v1/customers/{id}/usage-events (docs/usage.md, "Sending events"),
// through the real HTTP server.

const clock = movableClock('2026-11-20T12:00:00.000Z');
let customerId: number;
let seenUsers: BillableMetric;

const t = useTestService({ clock, secondAccount: true });
const { other } = t;
beforeAll(async () => {
  const db = t.service.storage.db;
  await defineMetric(db, t.accountId, 'api_calls', 'count');
  await defineMetric(db, t.accountId, 'tokens', 'sum', {
    property: 'tokens',
    filters: [{ property: 'model', values: ['large'] }],
  });
  seenUsers = await defineMetric(db, t.accountId, 'seen_users', 'unique_count', {
    property: 'user',
    groupBy: 'region',
  });
  customerId = await createCustomer(t, { Reference: 'cust-42' });
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  t.request('POST', '/v1/usage-events', { body, headers });

describe('POST /v1/usage-events', () => {
  it('answers 201 with the event, then 200 with the same event when its transaction_id comes again', async () => {
    const body = {
      transaction_id: 'one-1',
      customerID: customerId,
      code: 'tokens',
      timestamp: '2026-11-20T10:15:00+02:00',
      properties: { tokens: '12.5', model: 'large' },
    };
    const created = await post(body);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      usageEventID: expect.any(Number),
      transaction_id: 'one-1',
      customerID: customerId,
      subscriptionID: null,
      code: 'tokens',
      timestamp: '2026-11-20T08:15:00.000Z',
      properties: { tokens: '12.5', model: 'large' },
      isCounted: true,
      ReceivedAt: '2026-11-20T12:00:00.000Z',
    });
    const again = await post({ ...body, properties: { tokens: 99, model: 'large' } });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(created.body);
  });

  it("names the customer by its Reference, and keeps an event its metric's filters leave out", async () => {
    const res = await post({
      transaction_id: 'ref-1',
      CustomerReference: 'cust-42',
      code: 'tokens',
      properties: { tokens: 5, model: 'small' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      customerID: customerId,
      isCounted: false,
      timestamp: '2026-11-20T12:00:00.000Z',
    });
  });

  it.each([
    [{ code: 'nope' }, 'code'],
    [{ timestamp: '2026-11-17T11:59:59Z' }, 'timestamp'],
    [{ properties: { tokens: 'many', model: 'large' } }, 'properties.tokens'],
    [{ customerID: undefined, CustomerReference: 'nobody' }, 'CustomerReference'],
    [{ CustomerReference: 'cust-42' }, 'customerID'],
  ])('refuses %j with 422 naming %s, and records nothing', async (change, field) => {
    const transactionId = `bad-${field}`;
    const res = await post({
      transaction_id: transactionId,
      customerID: customerId,
      code: 'tokens',
      properties: { tokens: 1, model: 'large' },
      ...change,
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields).toEqual([{ field, message: expect.any(String) }]);
    const listed = await ok(t, 'GET', `/v1/customers/${customerId}/usage-events?page_size=200`);
    expect(listed.map((e: { transaction_id: string }) => e.transaction_id)).not.toContain(transactionId);
  });

  it("refuses an event older than the account's grace window, as the account sets it", async () => {
    const as = await t.newAccount('Short grace');
    await defineMetric(t.service.storage.db, as.accountId, 'api_calls', 'count');
    const customer = await createCustomer(as);
    expect((await as.request('PUT', '/v1/account', { body: { UsageGraceHours: 1 } })).status).toBe(204);
    const res = await as.request('POST', '/v1/usage-events', {
      body: {
        transaction_id: 'late',
        customerID: customer,
        code: 'api_calls',
        timestamp: '2026-11-20T10:59:59Z',
      },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields).toEqual([
      { field: 'timestamp', message: "is older than the account's grace window of 1 hours" },
    ]);
  });

  it("refuses a subscription of another customer, and another account's customer as unknown", async () => {
    const otherCustomer = await createCustomer(t);
    const subscription = await subscribe(t, otherCustomer, await createPlan(t));
    const res = await post({
      transaction_id: 'sub-1',
      customerID: customerId,
      subscriptionID: subscription.subscriptionID,
      code: 'api_calls',
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields[0].field).toBe('subscriptionID');
    const foreign = await other.request('POST', '/v1/usage-events', {
      body: { transaction_id: 'x-1', customerID: customerId, code: 'api_calls' },
    });
    expect(foreign.status).toBe(422);
  });

  it('replays the first answer for a repeated Idempotency-Key', async () => {
    const body = { transaction_id: 'idem-1', customerID: customerId, code: 'api_calls' };
    const first = await post(body, { 'Idempotency-Key': 'usage-idem-1' });
    const second = await post(body, { 'Idempotency-Key': 'usage-idem-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
  });
});

describe('POST /v1/usage-events/batch', () => {
  it('answers each event in order: accepted, duplicate or refused with its field', async () => {
    const event = (transaction_id: string, extra: Record<string, unknown> = {}) => ({
      transaction_id,
      customerID: customerId,
      code: 'api_calls',
      ...extra,
    });
    const res = await t.request('POST', '/v1/usage-events/batch', {
      body: {
        events: [
          event('b-1'),
          event('b-1'),
          event('one-1'),
          event('b-2', { code: 'unknown' }),
          event('b-3', { timestamp: 'soon' }),
        ],
      },
    });
    expect(res.status, res.text).toBe(200);
    const [a, ...rest] = res.body.events;
    expect(a).toEqual({ Status: 'accepted', transaction_id: 'b-1', usageEventID: expect.any(Number) });
    expect(rest).toEqual([
      { Status: 'duplicate', transaction_id: 'b-1', usageEventID: a.usageEventID },
      { Status: 'duplicate', transaction_id: 'one-1', usageEventID: expect.any(Number) },
      {
        Status: 'refused',
        transaction_id: 'b-2',
        Field: 'code',
        Detail: 'names no active billable metric of this account',
      },
      {
        Status: 'refused',
        transaction_id: 'b-3',
        Field: 'timestamp',
        Detail: 'must be an ISO 8601 date-time',
      },
    ]);
  });

  it('keeps text exactly as sent: quotes, backslashes, braces, commas, NULL and other scripts', async () => {
    // PostgreSQL takes a batch's columns as array literals the service writes (usageEventStatements.ts).
    const awkward = [
      'q"uote',
      'back\\slash\\',
      '{brace},comma',
      'NULL',
      ' spaced ',
      '',
      'ünï 数 🚀',
      '\\"',
      'new\nline\ttab',
    ];
    // A grouped unique_count metric: its group and unique value are columns of the rollups and unique values too.
    const sent = awkward.flatMap((text, i) => [
      {
        transaction_id: `esc-${i}-${text}`,
        customerID: customerId,
        code: 'api_calls',
        properties: { text, nested: { text }, list: [text] },
      },
      {
        transaction_id: `esc-user-${i}-${text}`,
        customerID: customerId,
        code: 'seen_users',
        properties: { user: text, region: text },
      },
    ]);
    const res = await t.request('POST', '/v1/usage-events/batch', { body: { events: sent } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.events.map((o: { Status: string }) => o.Status)).toEqual(sent.map(() => 'accepted'));
    const listed = await t.request('GET', `/v1/customers/${customerId}/usage-events?page_size=200`);
    const stored = listed.body.filter((e: { transaction_id: string }) => e.transaction_id.startsWith('esc-'));
    expect(
      stored
        .map((e: { transaction_id: string; properties: unknown }) => [e.transaction_id, e.properties])
        .sort(),
    ).toEqual(sent.map((e) => [e.transaction_id, e.properties]).sort());
    // Each text is its own group, holding itself as its one unique value.
    const rows = await t.service.storage.db
      .selectFrom('usage_unique_values')
      .select(['group_value', 'unique_value'])
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', seenUsers.id)
      .execute();
    expect(rows.map((r) => [r.group_value, r.unique_value]).sort()).toEqual(
      awkward.map((a) => [a, a]).sort(),
    );
    const rollups = await t.service.storage.db
      .selectFrom('usage_rollups')
      .select('group_value')
      .where('account_id', '=', t.accountId)
      .where('metric_id', '=', seenUsers.id)
      .execute();
    expect(rollups.map((r) => r.group_value).sort()).toEqual([...awkward].sort());
  });

  it('refuses a batch of more than 100 events whole', async () => {
    const events = Array.from({ length: 101 }, (_, i) => ({
      transaction_id: `big-${i}`,
      customerID: customerId,
      code: 'api_calls',
    }));
    const res = await t.request('POST', '/v1/usage-events/batch', { body: { events } });
    expect(res.status, res.text).toBe(422);
    const listed = await ok(
      t,
      'GET',
      `/v1/customers/${customerId}/usage-events?code=api_calls&page_size=200`,
    );
    expect(listed.some((e: { transaction_id: string }) => e.transaction_id.startsWith('big-'))).toBe(false);
  });
});

describe('GET /v1/customers/{id}/usage-events', () => {
  let listed: number;

  beforeAll(async () => {
    listed = await createCustomer(t);
    const events = ['09:00', '10:00', '10:30', '11:00'].map((time, i) => ({
      transaction_id: `list-${i}`,
      customerID: listed,
      code: i === 2 ? 'tokens' : 'api_calls',
      timestamp: `2026-11-20T${time}:00Z`,
      properties: i === 2 ? { tokens: 3, model: 'large', note: 'says "hi", twice' } : {},
    }));
    // Sent out of order: the list is in time order whatever the order of arrival.
    await ok(t, 'POST', '/v1/usage-events/batch', { events: events.reverse() }, 200);
  });

  it('lists in time order, paged, within [from, to) and of one metric when asked', async () => {
    const ids = (rows: { transaction_id: string }[]) => rows.map((r) => r.transaction_id);
    const base = `/v1/customers/${listed}/usage-events`;
    expect(ids(await ok(t, 'GET', base))).toEqual(['list-0', 'list-1', 'list-2', 'list-3']);
    expect(ids(await ok(t, 'GET', `${base}?page=2&page_size=3`))).toEqual(['list-3']);
    expect(ids(await ok(t, 'GET', `${base}?from=2026-11-20T10:00:00Z&to=2026-11-20T11:00:00Z`))).toEqual([
      'list-1',
      'list-2',
    ]);
    expect(ids(await ok(t, 'GET', `${base}?code=tokens`))).toEqual(['list-2']);
    expect(await ok(t, 'GET', `${base}?code=nothing`)).toEqual([]);
  });

  it('exports every event of the range as CSV', async () => {
    const res = await t.request('GET', `/v1/customers/${listed}/usage-events?from=2026-11-20T10:00:00Z`, {
      headers: { accept: 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(
      'usageEventID,transaction_id,customerID,subscriptionID,code,timestamp,isCounted,ReceivedAt,properties',
    );
    expect(lines).toHaveLength(5); // the header, three events, and the empty text after the last line break
    expect(lines[2]).toMatch(
      /^\d+,list-2,\d+,,tokens,2026-11-20T10:30:00.000Z,true,2026-11-20T12:00:00.000Z,"\{""tokens"":3,""model"":""large"",""note"":""says \\""hi\\"", twice""\}"$/,
    );
  });

  it("answers 404 for another account's customer, as JSON and as CSV", async () => {
    expect((await other.request('GET', `/v1/customers/${listed}/usage-events`)).status).toBe(404);
    const csv = await other.request('GET', `/v1/customers/${listed}/usage-events`, {
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(404);
  });

  it('refuses an unreadable from naming it', async () => {
    const res = await t.request('GET', `/v1/customers/${listed}/usage-events?from=whenever`);
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('from');
  });
});
