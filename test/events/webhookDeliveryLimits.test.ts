import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { useTestService } from '../helpers/testService.ts';
import { nextRetryDelayMs, parseRetryAfter, startWebhookWorker } from '../../src/modules/events/index.ts';
import { systemClock } from '../../src/clock.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { modulePorts } from '../../src/modulePorts.ts';

// How much the worker sends at once, and the schedule's arithmetic.
let receiver: WebhookReceiver;
// The receiver starts before the service and closes after it, as the hooks are registered (vitest runs afterAll
// hooks in reverse).
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());
const t = useTestService({
  env: {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '3',
    WORKER_INTERVAL_MS: '50',
  },
});

async function endpoint(as: TestAccount, path: string) {
  const res = await as.request('POST', '/v1/webhookendpoints', {
    body: { Url: `${receiver.url}${path}`, EnabledEvents: ['customer.created'] },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.webhookEndpointID as number;
}

async function deliveryStatuses(endpointId: number): Promise<string[]> {
  const rows = await t.service.storage.db
    .selectFrom('webhook_deliveries')
    .select('status')
    .where('endpoint_id', '=', endpointId)
    .execute();
  return rows.map((row) => row.status);
}

describe('webhook worker limits', () => {
  it('keeps at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT requests in flight per endpoint', async () => {
    const as = await t.newAccount('Busy');
    const first = await endpoint(as, '/first');
    receiver.answer(() => ({ status: 200, hold: true }));
    for (let i = 0; i < 8; i += 1) {
      expect((await as.request('POST', '/v1/customers', { body: { Name: `C${i}` } })).status).toBe(201);
    }
    await eventually(() => (receiver.held() === 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.held()).toBe(3);
    expect(receiver.received.filter((r) => r.path === '/first')).toHaveLength(3);

    // Another endpoint is not held up by the first one's limit.
    await endpoint(as, '/second');
    await as.request('POST', '/v1/customers', { body: { Name: 'Second' } });
    await eventually(() => (receiver.received.some((r) => r.path === '/second') ? true : undefined));

    receiver.answer(() => ({ status: 200 }));
    receiver.releaseHeld();
    await eventually(async () => {
      const statuses = await deliveryStatuses(first);
      return statuses.length === 9 && statuses.every((status) => status === 'delivered') ? true : undefined;
    });
  });

  it('sends what a change hands over without leasing it or reading it back from the database', async () => {
    const as = await t.newAccount('Handed over');
    const id = await endpoint(as, '/handed');
    receiver.answer(() => ({ status: 204 }));
    t.queries.length = 0;
    expect((await as.request('POST', '/v1/customers', { body: { Name: 'Handed' } })).status).toBe(201);
    await eventually(() => (receiver.received.some((r) => r.path === '/handed') ? true : undefined));
    await eventually(async () => ((await deliveryStatuses(id)).join() === 'delivered' ? true : undefined));
    const sql = t.queries.map((query) => query.replace(/\s+/g, ' '));
    // Written leased with the event, then only its outcome recorded.
    expect(sql.filter((q) => /^insert into "webhook_deliveries" .* returning/.test(q))).toHaveLength(1);
    expect(sql.filter((q) => /^update "webhook_deliveries" set "lease_until"/.test(q))).toEqual([]);
    expect(sql.filter((q) => /^select "id", "payload" from "events"/.test(q))).toEqual([]);
  });

  it('lends each transaction room within the limits, and takes it back when it ends either way', async () => {
    const worker = startWebhookWorker(
      {
        ports: modulePorts(),
        db: t.service.storage.db,
        clock: systemClock,
        wallClock: systemClock,
        secrets: t.service.secrets,
        memory: t.service.memory,
        log: t.service.log,
        accounts: { account: () => Promise.reject(new Error('unused')), contactEmail: async () => null },
        timeoutMs: 1000,
        mailQueued: () => {},
      },
      { intervalMs: 3_600_000, maxInFlightPerEndpoint: 3, maxInFlight: 4 },
    );
    try {
      const first = worker.reserve(new Map([[1, 2]]))!;
      expect(first.granted).toEqual(new Map([[1, 2]]));
      // One more to endpoint 1 (its limit is 3), and of the process's 4 one is left for endpoint 2.
      const second = worker.reserve(
        new Map([
          [1, 5],
          [2, 5],
        ]),
      )!;
      expect(second.granted).toEqual(
        new Map([
          [1, 1],
          [2, 1],
        ]),
      );
      expect(worker.reserve(new Map([[3, 1]]))).toBeUndefined();
      first.end(false, []);
      first.end(false, []);
      expect(worker.reserve(new Map([[1, 5]]))!.granted).toEqual(new Map([[1, 2]]));
      expect(Date.parse(first.leaseUntil) - Date.now()).toBeGreaterThan(1000);
    } finally {
      await worker.stop();
    }
  });

  it('retry delays: the schedule ±20 %, Retry-After honoured up to the step after the next', () => {
    expect(nextRetryDelayMs(1, { random: 0 })).toBe(4_000);
    expect(nextRetryDelayMs(1, { random: 0.9999999 })).toBe(6_000);
    expect(nextRetryDelayMs(9, { random: 0.5 })).toBe(24 * 3600_000);
    expect(nextRetryDelayMs(10, { random: 0.5 })).toBeUndefined();
    // Shorter than the schedule: the schedule wins.
    expect(nextRetryDelayMs(2, { random: 0.5, retryAfterMs: 1000 })).toBe(300_000);
    // Longer than the next-but-one step (30 min after the 2nd attempt): capped there.
    expect(nextRetryDelayMs(2, { random: 0.5, retryAfterMs: 86_400_000 })).toBe(1_800_000);
    // After the 9th attempt there is no step after the next: the last step (24 h) caps.
    expect(nextRetryDelayMs(9, { random: 0.5, retryAfterMs: 10 * 86_400_000 })).toBe(86_400_000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 10:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads the webhook settings, and names the variable of a bad one', () => {
    const config = loadConfig({
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: ' 127.0.0.1, 10.0.0.0/8 ,fd00::/8',
      WEBHOOK_TIMEOUT_MS: '2500',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '4',
      WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '40',
    });
    expect(config).toMatchObject({
      webhookAllowHttp: true,
      webhookAllowedPrivateHosts: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'],
      webhookTimeoutMs: 2500,
      webhookMaxInFlightPerEndpoint: 4,
      webhookMaxEndpointsPerAccount: 40,
    });
    expect(loadConfig({})).toMatchObject({
      webhookAllowHttp: false,
      webhookAllowedPrivateHosts: [],
      webhookTimeoutMs: 15_000,
      webhookMaxInFlightPerEndpoint: 10,
      webhookMaxEndpointsPerAccount: 16,
    });
    for (const [name, value] of [
      ['WEBHOOK_ALLOW_HTTP', 'yes please'],
      ['WEBHOOK_ALLOWED_PRIVATE_HOSTS', 'localhost'],
      ['WEBHOOK_ALLOWED_PRIVATE_HOSTS', '10.0.0.0/33'],
      ['WEBHOOK_TIMEOUT_MS', '0'],
      ['WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', '0'],
      ['WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT', '0'],
      ['WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT', 'many'],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });
});
