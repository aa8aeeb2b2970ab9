import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { movableClock } from '../helpers/billing.ts';
import { startWebhookReceiver, verifyWebhook } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';
import { RETRY_DELAYS_MS } from '../../src/modules/events/index.ts';
import { queuedMail } from '../helpers/outside.ts';

// Webhook delivery end to end: a real receiver on 127.0.0.1, the service's worker on a clock the tests move, and
// every request checked with the Standard Webhooks reference library.
const start = new Date();
start.setUTCMilliseconds(0);
const clock = movableClock(start.toISOString());
let receiver: WebhookReceiver;

const t = useTestService({
  clock,
  env: {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WEBHOOK_TIMEOUT_MS: '1000',
    WORKER_INTERVAL_MS: '50',
  },
});
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const db = () => t.service.storage.db;
const at = (ms: number) => new Date(ms).toISOString();
const settleMs = 300;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createEndpoint(as: TestAccount, url = `${receiver.url}/hook`, events = ['customer.*']) {
  const res = await as.request('POST', '/v1/webhookendpoints', { body: { Url: url, EnabledEvents: events } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.webhookEndpointID as number, secret: res.body.Secret as string };
}

/** Creates a customer: one `customer.created` event. Returns the event id. */
async function emitCustomerEvent(as: TestAccount, name = 'Ada'): Promise<string> {
  const res = await as.request('POST', '/v1/customers', { body: { Name: name } });
  expect(res.status, res.text).toBe(201);
  const events = await as.request(
    'GET',
    `/v1/events?resourceType=customer&resourceID=${res.body.customerID}`,
  );
  expect(events.status, events.text).toBe(200);
  return events.body[0].id as string;
}

async function delivery(eventId: string, database = db()) {
  return database
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('id')
    .executeTakeFirstOrThrow();
}

async function attempts(deliveryId: number) {
  return db()
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('id')
    .execute();
}

const receivedFor = (eventId: string) => receiver.received.filter((r) => r.id === eventId);

async function receivedCount(eventId: string, count: number) {
  await eventually(() => (receivedFor(eventId).length >= count ? true : undefined));
  await pause(settleMs);
  expect(receivedFor(eventId)).toHaveLength(count);
}

async function deliveryWhere(
  eventId: string,
  check: (row: Awaited<ReturnType<typeof delivery>>) => boolean,
  database = db(),
) {
  return eventually(async () => {
    const row = await delivery(eventId, database);
    return check(row) ? row : undefined;
  });
}

describe('webhook delivery', () => {
  it('POSTs the stored event body signed by Standard Webhooks, and records the attempt', async () => {
    const as = await t.newAccount('Signed');
    const endpoint = await createEndpoint(as);
    const eventId = await emitCustomerEvent(as);
    await receivedCount(eventId, 1);
    const [request] = receivedFor(eventId);

    const stored = await db()
      .selectFrom('events')
      .select('payload')
      .where('id', '=', eventId)
      .executeTakeFirstOrThrow();
    expect(request!.body).toBe(stored.payload);
    expect(verifyWebhook(endpoint.secret, request!)).toEqual(JSON.parse(stored.payload));
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(/^openbill-webhooks\/\d+\.\d+\.\d+/);
    expect(request!.headers['webhook-id']).toBe(eventId);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // The attempt's wall-clock time in whole seconds, whatever the service clock says.
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

    const row = await deliveryWhere(eventId, (r) => r.status === 'delivered');
    expect(row).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null, lease_until: null });
    expect(row.delivered_at).not.toBeNull();
    const [attempt] = await attempts(row.id);
    expect(attempt).toMatchObject({ status_code: 200, error: null });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('keeps at most 1 KB of the response', async () => {
    const as = await t.newAccount('Chatty');
    await createEndpoint(as);
    receiver.answer(() => ({ status: 200, body: 'é'.repeat(4000) }));
    const eventId = await emitCustomerEvent(as);
    const row = await deliveryWhere(eventId, (r) => r.status === 'delivered');
    const [attempt] = await attempts(row.id);
    expect(Buffer.byteLength(attempt!.response_excerpt!)).toBeLessThanOrEqual(1024);
    expect(attempt!.response_excerpt!.startsWith('é'.repeat(500))).toBe(true);
  });

  it('retries on the schedule of the service clock, then gives up after the tenth attempt', async () => {
    const as = await t.newAccount('Down');
    const endpoint = await createEndpoint(as);
    receiver.answer(() => ({ status: 500, body: 'down' }));
    const first = clock.now().getTime();
    const eventId = await emitCustomerEvent(as);
    await receivedCount(eventId, 1);
    let last = first;
    for (let made = 1; made < 10; made += 1) {
      const row = await deliveryWhere(eventId, (r) => r.attempts === made && r.lease_until === null);
      expect(row.status).toBe('pending');
      // 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after the previous attempt, ±20 %.
      const delay = RETRY_DELAYS_MS[made]!;
      const next = Date.parse(row.next_attempt_at!);
      expect(next).toBeGreaterThanOrEqual(last + delay * 0.8);
      expect(next).toBeLessThanOrEqual(last + delay * 1.2);
      // Not before its time: a worker round or two with the clock just short of it sends nothing.
      clock.set(at(next - 1000));
      await pause(settleMs);
      expect(receivedFor(eventId)).toHaveLength(made);
      clock.set(at(next));
      await receivedCount(eventId, made + 1);
      last = next;
    }
    const row = await deliveryWhere(eventId, (r) => r.status === 'failed');
    expect(row).toMatchObject({ attempts: 10, last_status_code: 500, last_error: 'HTTP 500' });
    const tries = await attempts(row.id);
    expect(tries).toHaveLength(10);
    expect(tries.every((a) => a.status_code === 500 && a.response_excerpt === 'down')).toBe(true);
    // The last attempt about 3.1 days after the first (75.5 h ± 20 %).
    const span = Date.parse(tries[9]!.attempted_at) - Date.parse(tries[0]!.attempted_at);
    expect(span).toBeGreaterThanOrEqual(0.8 * 75.5 * 3600_000);
    expect(span).toBeLessThanOrEqual(1.2 * 75.6 * 3600_000);
    // Signed with the wall clock, so the reference library's ±5 minutes check passes days ahead on the service clock.
    for (const request of receivedFor(eventId)) verifyWebhook(endpoint.secret, request);
    // Failing for about 3 days: not yet disabled.
    const read = await as.request('GET', `/v1/webhookendpoints/${endpoint.id}`);
    expect(read.body.Status).toBe('enabled');
  });

  it('does not follow redirects: a 3xx is a failure', async () => {
    const as = await t.newAccount('Moved');
    await createEndpoint(as);
    receiver.answer((request) =>
      request.headers['webhook-id']
        ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } }
        : undefined,
    );
    const eventId = await emitCustomerEvent(as);
    const row = await deliveryWhere(eventId, (r) => r.attempts === 1);
    expect(row).toMatchObject({ status: 'pending', last_status_code: 302 });
    expect(row.last_error).toMatch(/redirect/);
    await pause(settleMs);
    expect(receivedFor(eventId)).toHaveLength(1);
    expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
  });

  it('410 Gone disables the endpoint, fails the delivery and e-mails the account', async () => {
    const as = await t.newAccount('Gone');
    const seller = await as.request('PUT', '/v1/account', { body: { ContactEmail: 'ops@gone.example' } });
    expect(seller.status, seller.text).toBeLessThan(300);
    const endpoint = await createEndpoint(as);
    // Another endpoint hears of it: the worker sends the events it emits itself, as it sends any change's.
    const watcher = await createEndpoint(as, `${receiver.url}/watch`, ['webhook_endpoint.disabled']);
    receiver.answer((request) => (request.path === '/watch' ? { status: 204 } : { status: 410 }));
    const eventId = await emitCustomerEvent(as);
    const row = await deliveryWhere(eventId, (r) => r.status === 'failed');
    expect(row).toMatchObject({ attempts: 1, last_status_code: 410 });
    const read = await as.request('GET', `/v1/webhookendpoints/${endpoint.id}`);
    expect(read.body).toMatchObject({ Status: 'disabled', DisabledReason: '410 Gone' });
    const events = await as.request(
      'GET',
      `/v1/events?resourceType=webhook_endpoint&resourceID=${endpoint.id}`,
    );
    expect(events.body.map((e: { type: string }) => e.type)).toContain('webhook_endpoint.disabled');
    const disabled = events.body.find((e: { type: string }) => e.type === 'webhook_endpoint.disabled');
    await eventually(() => (receivedFor(disabled.id).length === 1 ? true : undefined));
    const heard = receivedFor(disabled.id)[0]!;
    expect(heard.path).toBe('/watch');
    expect(verifyWebhook(watcher.secret, heard)).toMatchObject({
      type: 'webhook_endpoint.disabled',
      data: { object: { webhookEndpointID: endpoint.id, Status: 'disabled' } },
    });
    const mail = await queuedMail(t, as);
    expect(mail).toMatchObject([
      { recipient: 'ops@gone.example', subject: `Webhook endpoint ${endpoint.id} has been disabled` },
    ]);
    // A disabled endpoint gets nothing more: events are no longer fanned out to it.
    const later = await emitCustomerEvent(as, 'Later');
    await pause(settleMs);
    expect(receivedFor(later)).toHaveLength(0);
    const queued = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('event_id', '=', later)
      .execute();
    expect(queued).toHaveLength(0);
  });

  it('honours Retry-After on 429 and 503, up to the step after the next one', async () => {
    const as = await t.newAccount('Busy');
    await createEndpoint(as);
    const answers = [
      { status: 429, headers: { 'retry-after': '120' } },
      { status: 503, headers: { 'retry-after': '86400' } },
      { status: 429, headers: { 'retry-after': new Date(Date.now() + 3 * 3600_000).toUTCString() } },
    ];
    receiver.answer((_request, count) => answers[count - 1]);
    const eventId = await emitCustomerEvent(as);

    // After attempt 1 the schedule says 5 s ± 20 %; the receiver asks for 120 s, within the cap (5 min).
    let row = await deliveryWhere(eventId, (r) => r.attempts === 1 && r.lease_until === null);
    let attempted = Date.parse((await attempts(row.id))[0]!.attempted_at);
    expect(Date.parse(row.next_attempt_at!) - attempted).toBe(120_000);

    // After attempt 2 the schedule says 5 min; a day is asked for, capped at the step after: 30 min.
    clock.set(row.next_attempt_at!);
    row = await deliveryWhere(eventId, (r) => r.attempts === 2 && r.lease_until === null);
    attempted = Date.parse((await attempts(row.id))[1]!.attempted_at);
    expect(Date.parse(row.next_attempt_at!) - attempted).toBe(30 * 60_000);

    // After attempt 3 (schedule 30 min, cap 2 h): an HTTP date 3 hours ahead is capped at 2 h.
    clock.set(row.next_attempt_at!);
    row = await deliveryWhere(eventId, (r) => r.attempts === 3 && r.lease_until === null);
    attempted = Date.parse((await attempts(row.id))[2]!.attempted_at);
    expect(Date.parse(row.next_attempt_at!) - attempted).toBe(2 * 3600_000);
    expect(row.last_status_code).toBe(429);
  });

  it('records a timeout as a failed attempt without a status code', async () => {
    const as = await t.newAccount('Slow');
    await createEndpoint(as);
    receiver.answer(() => ({ status: 200, delayMs: 3000 }));
    const eventId = await emitCustomerEvent(as);
    const row = await deliveryWhere(eventId, (r) => r.attempts === 1);
    expect(row).toMatchObject({ status: 'pending', last_status_code: null });
    expect(row.last_error).toMatch(/no response within 1000 ms/);
    const [attempt] = await attempts(row.id);
    expect(attempt!.status_code).toBeNull();
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(990);
  });

  it('a resend carries the same webhook-id, so receivers can drop the duplicate', async () => {
    const as = await t.newAccount('Twice');
    const endpoint = await createEndpoint(as);
    const eventId = await emitCustomerEvent(as);
    await receivedCount(eventId, 1);
    const resent = await as.request('POST', `/v1/events/${eventId}/resend`, {
      body: { webhookEndpointID: endpoint.id },
    });
    expect(resent.status, resent.text).toBe(202);
    await receivedCount(eventId, 2);
    const [one, two] = receivedFor(eventId);
    expect(two!.body).toBe(one!.body);
    for (const request of [one!, two!]) verifyWebhook(endpoint.secret, request);
  });

  it('signs with both secrets while a rotated-out secret is in force, then with the new one alone', async () => {
    const as = await t.newAccount('Rotating');
    const endpoint = await createEndpoint(as);
    const rotated = await as.request('POST', `/v1/webhookendpoints/${endpoint.id}/rotatesecret`, {
      body: { PreviousSecretExpiresIn: 3600 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.Secret as string;

    const during = await emitCustomerEvent(as, 'During');
    await receivedCount(during, 1);
    const [overlap] = receivedFor(during);
    expect(String(overlap!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyWebhook(endpoint.secret, overlap!);
    verifyWebhook(fresh, overlap!);

    clock.set(at(Date.parse(rotated.body.PreviousSecretExpiresAt) + 1000));
    const after = await emitCustomerEvent(as, 'After');
    await receivedCount(after, 1);
    const [single] = receivedFor(after);
    expect(String(single!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyWebhook(fresh, single!);
    expect(() => verifyWebhook(endpoint.secret, single!)).toThrow();
  });

  it('disables an endpoint after 5 days without a successful delivery, and e-mails the account', async () => {
    const as = await t.newAccount('Failing');
    await as.request('PUT', '/v1/account', { body: { ContactEmail: 'ops@failing.example' } });
    const endpoint = await createEndpoint(as);
    const endpointRow = () =>
      db()
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();

    // A failure starts the clock; a success stops it.
    receiver.answer(() => ({ status: 500 }));
    const failedAt = clock.now().toISOString();
    await deliveryWhere(await emitCustomerEvent(as, 'One'), (r) => r.attempts === 1);
    expect((await endpointRow()).failing_since).toBe(failedAt);
    receiver.answer(() => undefined);
    await deliveryWhere(await emitCustomerEvent(as, 'Two'), (r) => r.status === 'delivered');
    expect((await endpointRow()).failing_since).toBeNull();

    receiver.answer(() => ({ status: 500 }));
    const since = clock.now().getTime();
    await deliveryWhere(await emitCustomerEvent(as, 'Three'), (r) => r.attempts === 1);
    // Just short of 5 days: still enabled.
    clock.set(at(since + 5 * 86400_000 - 60_000));
    await deliveryWhere(await emitCustomerEvent(as, 'Four'), (r) => r.attempts === 1);
    expect((await endpointRow()).status).toBe('enabled');
    // Five days: the next failure, of whichever delivery, disables the endpoint.
    clock.set(at(since + 5 * 86400_000));
    await emitCustomerEvent(as, 'Five');
    const disabled = await eventually(async () => {
      const row = await endpointRow();
      return row.status === 'disabled' ? row : undefined;
    });
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: `failing since ${at(since)}` });
    const mail = await queuedMail(t, as);
    expect(mail).toMatchObject([
      { recipient: 'ops@failing.example', subject: `Webhook endpoint ${endpoint.id} has been disabled` },
    ]);
  });

  it('refuses at connect time an address the policy does not allow (DNS rebinding)', async () => {
    // A service of its own, whose policy lets http through but no internal address (this file's allows 127.0.0.1):
    // each service keeps the policy it started with (docs/architecture.md, "State a service keeps").
    const strict = await startFresh({
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_TIMEOUT_MS: '1000', WORKER_INTERVAL_MS: '50' },
    });
    const strictDb = strict.service.storage.db;
    const endpoint = await createEndpoint(strict, 'http://hooks.rebound.example/hook');
    // The name was checked when the endpoint was saved; now it resolves to loopback, which is not allowed
    // (localhost may also resolve to ::1) — simulated by pointing the row at localhost.
    const port = new URL(receiver.url).port;
    await strictDb
      .updateTable('webhook_endpoints')
      .set({ url: `http://localhost:${port}/hook` })
      .where('id', '=', endpoint.id)
      .execute();
    const eventId = await emitCustomerEvent(strict);
    const row = await deliveryWhere(eventId, (r) => r.attempts === 1, strictDb);
    expect(row.last_error).toMatch(/localhost resolves to .*an address webhooks may not be sent to/);
    // An IP literal is refused before any connection.
    await strictDb
      .updateTable('webhook_endpoints')
      .set({ url: `${receiver.url}/hook` })
      .where('id', '=', endpoint.id)
      .execute();
    const literal = await emitCustomerEvent(strict, 'Literal');
    const literalRow = await deliveryWhere(literal, (r) => r.attempts === 1, strictDb);
    expect(literalRow.last_error).toMatch(/127\.0\.0\.1 is an address webhooks may not be sent to/);
    expect([...receivedFor(eventId), ...receivedFor(literal)]).toHaveLength(0);
  });
});

describe('an endpoint whose secret cannot be read', () => {
  it('records a failed attempt on the schedule instead of retrying silently', async () => {
    const account = await t.newAccount('Unreadable secret');
    const endpoint = await createEndpoint(account);
    // As after a change of ENCRYPTION_KEY: the sealed text no longer opens.
    await db()
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: 'v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })
      .where('id', '=', endpoint.id)
      .execute();
    const eventId = await emitCustomerEvent(account);
    const row = await eventually(async () => {
      const current = await delivery(eventId);
      return current.attempts >= 1 ? current : undefined;
    }, 30_000);
    expect(row.attempts).toBe(1);
    expect(row.status).toBe('pending');
    expect(row.next_attempt_at).not.toBeNull();
    const [attempt] = await attempts(row.id);
    expect(attempt!.error).toContain('cannot be read');
    expect(receivedFor(eventId)).toHaveLength(0);
  });
});
