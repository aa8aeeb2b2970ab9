import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { movableClock } from '../helpers/billing.ts';
import { startWebhookReceiver, verifyWebhook } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { useTestService } from '../helpers/testService.ts';

// The test event, the deliveries list, resend and recover, against a real receiver on 127.0.0.1 that the
// service's own worker delivers to. The service clock stands still unless a test moves it: a failed attempt's
// retry (5 s later at the earliest) never comes due by itself, so what a test reads stays put.
const start = new Date();
start.setUTCMilliseconds(0);
const clock = movableClock(start.toISOString());
let receiver: WebhookReceiver;

// The receiver starts before the service and closes after it, as the hooks are registered (vitest runs afterAll
// hooks in reverse).
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());
const t = useTestService({
  clock,
  env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', WORKER_INTERVAL_MS: '50' },
});

const db = () => t.service.storage.db;
const fieldsOf = (res: ApiResponse): string[] =>
  (res.body.fields ?? []).map((f: { field: string }) => f.field);
const at = (ms: number) => new Date(ms).toISOString();

async function createEndpoint(as: TestAccount, body: Record<string, unknown>) {
  const res = await as.request('POST', '/v1/webhookendpoints', {
    body: { Url: `${receiver.url}/hook`, EnabledEvents: ['*'], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.webhookEndpointID as number, secret: res.body.Secret as string };
}

async function deliveriesOf(as: TestAccount, endpointId: number, query = ''): Promise<any[]> {
  const res = await as.request('GET', `/v1/webhookendpoints/${endpointId}/deliveries${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function sendTestEvent(as: TestAccount, endpointId: number): Promise<string> {
  const res = await as.request('POST', `/v1/webhookendpoints/${endpointId}/test`);
  expect(res.status, res.text).toBe(202);
  expect(Object.keys(res.body)).toEqual(['eventID']);
  return res.body.eventID;
}

const rowsOfEvent = (eventId: string) =>
  db().selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).orderBy('id').execute();

describe('the test event', () => {
  it('is a webhook.test event of the endpoint, delivered to that endpoint alone, signed with its secret', async () => {
    const account = await t.newAccount('Replay test event');
    const target = await createEndpoint(account, {
      Url: `${receiver.url}/target`,
      EnabledEvents: ['invoice.paid'],
    });
    const bystander = await createEndpoint(account, {
      Url: `${receiver.url}/bystander`,
      EnabledEvents: ['*'],
    });
    receiver.answer((request) =>
      request.path === '/target' ? { status: 200, body: '{"received":true}' } : undefined,
    );
    const eventId = await sendTestEvent(account, target.id);

    const event = await account.request('GET', `/v1/events/${eventId}`);
    expect(event.body).toMatchObject({
      type: 'webhook.test',
      resource: { type: 'webhook_endpoint', id: target.id },
      data: { object: (await account.request('GET', `/v1/webhookendpoints/${target.id}`)).body },
    });
    expect(event.text).not.toContain(target.secret);
    const rows = await rowsOfEvent(eventId);
    expect(rows.map((row) => row.endpoint_id)).toEqual([target.id]);

    const got = await eventually(() => receiver.received.find((r) => r.id === eventId));
    expect(got.path).toBe('/target');
    expect(verifyWebhook(target.secret, got)).toMatchObject({ id: eventId, type: 'webhook.test' });
    expect(() => verifyWebhook(bystander.secret, got)).toThrow();
    const [delivery] = await eventually(async () => {
      const list = await deliveriesOf(account, target.id);
      return list[0]?.Status === 'delivered' ? list : undefined;
    });
    expect(delivery).toEqual({
      webhookDeliveryID: rows[0]!.id,
      webhookEndpointID: target.id,
      eventID: eventId,
      EventType: 'webhook.test',
      Status: 'delivered',
      Attempts: 1,
      NextAttemptDate: null,
      LastStatusCode: 200,
      LastError: null,
      CreatedDate: expect.any(String),
      DeliveredDate: expect.any(String),
      AttemptsMade: [
        {
          AttemptDate: expect.any(String),
          StatusCode: 200,
          DurationMs: expect.any(Number),
          ResponseExcerpt: '{"received":true}',
          Error: null,
        },
      ],
    });
    receiver.answer(() => undefined);
    expect(await deliveriesOf(account, bystander.id, '?eventType=webhook.test')).toEqual([]);
  });

  it('is queued for a disabled endpoint too, and waits there', async () => {
    const account = await t.newAccount('Replay test disabled');
    const endpoint = await createEndpoint(account, { isActive: false });
    const eventId = await sendTestEvent(account, endpoint.id);
    const [delivery] = await deliveriesOf(account, endpoint.id);
    expect(delivery).toMatchObject({ eventID: eventId, Status: 'pending', Attempts: 0, AttemptsMade: [] });
  });
});

describe('the deliveries list', () => {
  it('shows a delivery with the attempts its status counts, not one recorded after the delivery was read', async () => {
    const account = await t.newAccount('Replay deliveries read');
    // A disabled endpoint: its delivery waits, pending, with no attempt.
    const endpoint = await createEndpoint(account, { isActive: false });
    const [row] = await rowsOfEvent(await sendTestEvent(account, endpoint.id));
    // What the list's second read finds when an attempt is recorded between its reads of the deliveries and of
    // their attempts: the attempt's row, which the delivery's row as first read (pending, none made) does not count.
    await db()
      .insertInto('webhook_attempts')
      .values({
        account_id: row!.account_id,
        delivery_id: row!.id,
        attempted_at: new Date().toISOString(),
        status_code: 200,
        duration_ms: 3,
        response_excerpt: null,
        error: null,
      })
      .execute();
    const [delivery] = await deliveriesOf(account, endpoint.id);
    expect(delivery).toMatchObject({ Status: 'pending', Attempts: 0, AttemptsMade: [] });
  });

  it('shows each delivery with its attempts, newest first, and filters by status, event type and dates', async () => {
    const account = await t.newAccount('Replay deliveries');
    const endpoint = await createEndpoint(account, { EnabledEvents: ['customer.*', 'customer_note.*'] });
    // Notes fail (500, retried 5 s later on a clock that stands still); customers are delivered.
    receiver.answer((request) =>
      request.body.includes('"customer_note.created"') ? { status: 500, body: 'try later' } : undefined,
    );
    const customer = await account.request('POST', '/v1/customers', { body: { Name: 'Ada' } });
    const customerID = customer.body.customerID;
    await account.request('POST', '/v1/customernotes', { body: { customerID, Note: 'Called' } });
    await account.request('POST', '/v1/customers', { body: { Name: 'Charles' } });
    const settled = await eventually(async () => {
      const list = await deliveriesOf(account, endpoint.id);
      return list.length === 3 && list.every((d) => d.Attempts === 1) ? list : undefined;
    });
    receiver.answer(() => undefined);

    expect(settled.map((d) => [d.EventType, d.Status])).toEqual([
      ['customer.created', 'delivered'],
      ['customer_note.created', 'pending'],
      ['customer.created', 'delivered'],
    ]);
    expect(settled[0].webhookDeliveryID).toBeGreaterThan(settled[1].webhookDeliveryID);
    const failing = settled[1];
    expect(failing).toMatchObject({
      LastStatusCode: 500,
      DeliveredDate: null,
      NextAttemptDate: expect.any(String),
      AttemptsMade: [{ StatusCode: 500, ResponseExcerpt: 'try later' }],
    });

    const types = async (query: string) =>
      (await deliveriesOf(account, endpoint.id, query)).map((d) => d.EventType);
    expect(await types('?status=pending')).toEqual(['customer_note.created']);
    expect(await types('?status=delivered')).toEqual(['customer.created', 'customer.created']);
    expect(await types('?status=failed')).toEqual([]);
    expect(await types('?eventType=customer.*')).toEqual(['customer.created', 'customer.created']);
    expect(await types('?eventType=customer_note.*')).toEqual(['customer_note.created']);
    expect(await types('?eventType=customer_note.created&status=pending')).toEqual(['customer_note.created']);
    expect(await types('?eventType=*')).toHaveLength(3);
    expect(await types('?eventType=invoice.*')).toEqual([]);
    expect(await types('?page=2&page_size=2')).toEqual(['customer.created']);

    // Deliveries are dated by the wall clock when they were queued.
    const hourAgo = at(Date.now() - 3_600_000);
    const hourAhead = at(Date.now() + 3_600_000);
    expect(await types(`?startDate=${hourAgo}`)).toHaveLength(3);
    expect(await types(`?startDate=${hourAhead}`)).toHaveLength(0);
    expect(await types(`?endDate=${hourAgo}`)).toHaveLength(0);
    expect(await types(`?startDate=${hourAgo}&endDate=${hourAhead}`)).toHaveLength(3);
    const created = Date.parse(failing.CreatedDate);
    expect(await types(`?startDate=${at(created)}&endDate=${at(created)}`)).toContain(
      'customer_note.created',
    );
    const tomorrow = at(Date.now() + 86_400_000 * 2).slice(0, 10);
    const yesterday = at(Date.now() - 86_400_000 * 2).slice(0, 10);
    expect(await types(`?endDate=${tomorrow}`)).toHaveLength(3);
    expect(await types(`?endDate=${yesterday}`)).toHaveLength(0);
  });

  it.each([
    ['eventType=Customer.*', 'eventType'],
    ['eventType=customer*', 'eventType'],
    ['status=lost', 'status'],
    ['startDate=yesterday', 'startDate'],
    ['endDate=2026-02-30', 'endDate'],
  ])('answers 422 naming the filter for %s', async (query, field) => {
    const endpoint = await createEndpoint(t, { isActive: false });
    const res = await t.request('GET', `/v1/webhookendpoints/${endpoint.id}/deliveries?${query}`);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
  });
});

describe('resending an event', () => {
  it('queues a new delivery of the same event, which arrives with the same webhook-id', async () => {
    const account = await t.newAccount('Replay resend');
    const endpoint = await createEndpoint(account, {});
    const eventId = await sendTestEvent(account, endpoint.id);
    await eventually(() => receiver.received.find((r) => r.id === eventId));

    const res = await account.request('POST', `/v1/events/${eventId}/resend`, {
      body: { webhookEndpointID: endpoint.id },
    });
    expect(res.status, res.text).toBe(202);
    expect(Object.keys(res.body)).toEqual(['webhookDeliveryID']);
    const rows = await rowsOfEvent(eventId);
    expect(rows.map((row) => row.id)).toEqual([expect.any(Number), res.body.webhookDeliveryID]);
    expect(rows[1]).toMatchObject({ endpoint_id: endpoint.id, attempts: expect.any(Number) });

    const both = await eventually(() => {
      const got = receiver.received.filter((r) => r.id === eventId);
      return got.length === 2 ? got : undefined;
    });
    expect(both[1]!.body).toBe(both[0]!.body);
    for (const request of both) verifyWebhook(endpoint.secret, request);
    const list = await eventually(async () => {
      const deliveries = await deliveriesOf(account, endpoint.id, '?eventType=webhook.test');
      return deliveries.every((d) => d.Status === 'delivered') ? deliveries : undefined;
    });
    expect(list.map((d) => d.eventID)).toEqual([eventId, eventId]);
  });

  it('resends to an endpoint not subscribed to the type, since it was asked for by name', async () => {
    const account = await t.newAccount('Replay resend other');
    const subscribed = await createEndpoint(account, { isActive: false });
    const other = await createEndpoint(account, { EnabledEvents: ['invoice.paid'], isActive: false });
    const eventId = await sendTestEvent(account, subscribed.id);
    const res = await account.request('POST', `/v1/events/${eventId}/resend`, {
      body: { webhookEndpointID: other.id },
    });
    expect(res.status, res.text).toBe(202);
    const [delivery] = await deliveriesOf(account, other.id);
    expect(delivery).toMatchObject({
      eventID: eventId,
      Status: 'pending',
      Attempts: 0,
      NextAttemptDate: null,
    });
  });

  it("answers 404 for another account's event or endpoint, and an unknown event; 422 without the endpoint", async () => {
    const mine = await t.newAccount('Replay resend mine');
    const theirs = await t.newAccount('Replay resend theirs');
    const myEndpoint = await createEndpoint(mine, { isActive: false });
    const theirEndpoint = await createEndpoint(theirs, { isActive: false });
    const myEvent = await sendTestEvent(mine, myEndpoint.id);
    const theirEvent = await sendTestEvent(theirs, theirEndpoint.id);

    const resend = (eventId: string, body: unknown) =>
      mine.request('POST', `/v1/events/${eventId}/resend`, { body });
    const otherEvent = await resend(theirEvent, { webhookEndpointID: myEndpoint.id });
    expect(otherEvent.status).toBe(404);
    expect(otherEvent.body.code).toBe('event_not_found');
    const otherEndpoint = await resend(myEvent, { webhookEndpointID: theirEndpoint.id });
    expect(otherEndpoint.status).toBe(404);
    expect(otherEndpoint.body.code).toBe('webhook_endpoint_not_found');
    expect(
      (await resend('evt_01KMF3Q8Z6W2Y5T0V7H4J9N1RC', { webhookEndpointID: myEndpoint.id })).status,
    ).toBe(404);
    const missing = await resend(myEvent, {});
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing)).toEqual(['webhookEndpointID']);
    expect(await rowsOfEvent(theirEvent)).toHaveLength(1);
    expect(await rowsOfEvent(myEvent)).toHaveLength(1);
  });
});

describe('recovering failed deliveries', () => {
  /**
   * Failed deliveries as the worker leaves them after its last attempt, on a disabled endpoint (which the worker
   * leaves alone): queued by test events, then marked failed and dated `createdAt[i]`.
   */
  async function failedDeliveries(account: TestAccount, endpointId: number, createdAt: number[]) {
    const ids: number[] = [];
    for (const when of createdAt) {
      const eventId = await sendTestEvent(account, endpointId);
      const [row] = await rowsOfEvent(eventId);
      await db()
        .updateTable('webhook_deliveries')
        .set({
          status: 'failed',
          attempts: 10,
          next_attempt_at: null,
          last_status_code: 500,
          created_at: at(when),
        })
        .where('id', '=', row!.id)
        .execute();
      ids.push(row!.id);
    }
    return ids;
  }

  const recover = (as: TestAccount, endpointId: number, body: unknown) =>
    as.request('POST', `/v1/webhookendpoints/${endpointId}/recover`, { body });

  it('queues the failed ones of the window again, oldest first, ten a second from now', async () => {
    const account = await t.newAccount('Replay recover');
    const endpoint = await createEndpoint(account, { isActive: false });
    const base = start.getTime() - 86_400_000;
    // Ids rise while the dates fall: the order must come from the dates. Index 13 (base) and 0 (base + 13 min)
    // are just outside the window.
    const dates = Array.from({ length: 14 }, (_, i) => base + (13 - i) * 60_000);
    const ids = await failedDeliveries(account, endpoint.id, dates);
    const delivered = await sendTestEvent(account, endpoint.id);
    await db()
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered', created_at: at(base + 5 * 60_000) })
      .where('event_id', '=', delivered)
      .execute();

    const res = await recover(account, endpoint.id, { Since: at(base + 1), Until: at(base + 13 * 60_000) });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ Requeued: 12 });

    const rows = await db()
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoint.id)
      .where('status', '=', 'pending')
      .orderBy('next_attempt_at')
      .orderBy('created_at')
      .execute();
    // Oldest first: index 12 (base), 11, ... 1 (base + 11 min); the first ten due now, the last two a second later.
    expect(rows.map((row) => row.id)).toEqual(ids.slice(1, 13).reverse());
    expect(rows.map((row) => Date.parse(row.next_attempt_at!) - start.getTime())).toEqual([
      ...Array(10).fill(0),
      1000,
      1000,
    ]);
    for (const row of rows)
      expect(row).toMatchObject({ attempts: 0, lease_until: null, last_status_code: 500 });
    const left = await deliveriesOf(account, endpoint.id, '?status=failed');
    expect(left.map((d) => d.webhookDeliveryID).sort()).toEqual([ids[0], ids[13]].sort());
    expect(await deliveriesOf(account, endpoint.id, '?status=delivered')).toHaveLength(1);
  });

  it('allows one call a minute per endpoint (409 recover_in_progress), whatever it found', async () => {
    const account = await t.newAccount('Replay recover limit');
    const endpoint = await createEndpoint(account, { isActive: false });
    const other = await createEndpoint(account, { isActive: false });
    await failedDeliveries(account, endpoint.id, [start.getTime() - 1000]);
    const since = at(start.getTime() - 3_600_000);

    expect((await recover(account, endpoint.id, { Since: since })).body).toEqual({ Requeued: 1 });
    const again = await recover(account, endpoint.id, { Since: since });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('recover_in_progress');
    expect((await recover(account, other.id, { Since: since })).status).toBe(202);

    clock.set(at(start.getTime() + 59_999));
    try {
      expect((await recover(account, endpoint.id, { Since: since })).status).toBe(409);
      clock.set(at(start.getTime() + 60_000));
      const later = await recover(account, endpoint.id, { Since: since });
      expect(later.status, later.text).toBe(202);
      expect(later.body).toEqual({ Requeued: 0 });
    } finally {
      clock.set(start.toISOString());
    }
  });

  it('queues at most 10 000 a call, the oldest, spread over 1 000 seconds', async () => {
    const account = await t.newAccount('Replay recover many');
    const endpoint = await createEndpoint(account, { isActive: false });
    const eventId = await sendTestEvent(account, endpoint.id);
    const base = start.getTime() - 3_600_000;
    const rows = Array.from({ length: 10_005 }, (_, i) => ({
      account_id: account.accountId,
      endpoint_id: endpoint.id,
      event_id: eventId,
      status: 'failed' as const,
      attempts: 10,
      next_attempt_at: null,
      created_at: at(base + i),
    }));
    for (let i = 0; i < rows.length; i += 1000) {
      await db()
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 1000))
        .execute();
    }
    const res = await recover(account, endpoint.id, { Since: at(base) });
    expect(res.body).toEqual({ Requeued: 10_000 });
    const stillFailed = await db()
      .selectFrom('webhook_deliveries')
      .select('created_at')
      .where('endpoint_id', '=', endpoint.id)
      .where('status', '=', 'failed')
      .orderBy('created_at')
      .execute();
    expect(stillFailed.map((row) => Date.parse(row.created_at) - base)).toEqual([
      10_000, 10_001, 10_002, 10_003, 10_004,
    ]);
    const last = await db()
      .selectFrom('webhook_deliveries')
      .select(({ fn }) => fn.max('next_attempt_at').as('latest'))
      .where('endpoint_id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(Date.parse(String(last.latest)) - start.getTime()).toBe(999_000);
  });

  it.each([
    [{}, 'Since'],
    [{ Since: 'last week' }, 'Since'],
    [{ Since: '2026-01-01', Until: 'soon' }, 'Until'],
    [{ Since: '2026-01-02', Until: '2026-01-01' }, 'Since'],
  ])('answers 422 naming the field for %j, without using up the minute', async (body, field) => {
    const endpoint = await createEndpoint(t, { isActive: false });
    const res = await recover(t, endpoint.id, body);
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect((await recover(t, endpoint.id, { Since: '2020-01-01' })).status).toBe(202);
  });
});
