import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dialect, eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { api, killAll, killTransient, startServer } from '../helpers/cli.ts';
import { startWebhookReceiver, verifyWebhook } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { useTestService } from '../helpers/testService.ts';

// Webhook delivery by real `billing serve` processes sharing one database: several at once, and one killed with
// requests in flight. The test's own service only holds the database and makes the account and endpoint; its
// worker polls once an hour, and nothing it does queues a delivery, so the children do all the sending.
let receiver: WebhookReceiver;
const t = useTestService({
  env: {
    WORKER_INTERVAL_MS: '3600000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  },
});
beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await killTransient();
  await receiver.close();
});
afterAll(async () => {
  await killAll();
});

const TIMEOUT_MS = 5000;
const childEnv = () => ({
  ...t.env,
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WORKER_INTERVAL_MS: '100',
});

async function endpointFor(as: TestAccount) {
  const res = await as.request('POST', '/v1/webhookendpoints', {
    body: { Url: `${receiver.url}/hook`, EnabledEvents: ['customer.*'] },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.webhookEndpointID as number, secret: res.body.Secret as string };
}

async function deliveries(endpointId: number) {
  return t.service.storage.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'status', 'attempts'])
    .where('endpoint_id', '=', endpointId)
    .orderBy('id')
    .execute();
}

async function attemptRows(endpointId: number) {
  return t.service.storage.db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select(['webhook_deliveries.event_id', 'webhook_attempts.status_code'])
    .where('webhook_deliveries.endpoint_id', '=', endpointId)
    .execute();
}

async function allDelivered(endpointId: number, count: number, timeoutMs: number) {
  return eventually(async () => {
    const rows = await deliveries(endpointId);
    return rows.length === count && rows.every((row) => row.status === 'delivered') ? rows : undefined;
  }, timeoutMs);
}

describe('webhook delivery across processes', () => {
  if (dialect === 'postgres') {
    it('two processes on one database make each attempt exactly once', async () => {
      const as = await t.newAccount('Two processes');
      const credentials = { accountId: as.accountId, apiKey: as.apiKey };
      const endpoint = await endpointFor(as);
      // Every event fails once (500), then is taken: two attempts each, the second about 5 s later.
      receiver.answer((_request, count) => (count === 1 ? { status: 500 } : { status: 200 }));
      const [one, two] = await Promise.all([startServer(childEnv()), startServer(childEnv())]);
      const events = 40;
      await Promise.all(
        [one, two].map(async (server, k) => {
          for (let i = k; i < events; i += 2) {
            const res = await api(server.url, credentials, 'POST', '/v1/customers', { Name: `C${i}` });
            expect(res.status).toBe(201);
          }
        }),
      );
      const rows = await allDelivered(endpoint.id, events, 60_000);
      expect(rows.every((row) => row.attempts === 2)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const counts = receiver.countById();
      expect(counts.size).toBe(events);
      expect([...counts.values()].every((n) => n === 2)).toBe(true);
      expect(receiver.received).toHaveLength(2 * events);
      const attempts = await attemptRows(endpoint.id);
      expect(attempts).toHaveLength(2 * events);
      for (const request of receiver.received) verifyWebhook(endpoint.secret, request);
    }, 120_000);
  }

  it('a process killed with a request in flight loses nothing: after a restart everything is delivered', async () => {
    const as = await t.newAccount('Killed');
    const credentials = { accountId: as.accountId, apiKey: as.apiKey };
    const endpoint = await endpointFor(as);
    // The first event's first request is held open; the others fail once (retried 5 s later) or are taken.
    let heldId: string | undefined;
    receiver.answer((request, count) => {
      heldId ??= request.id;
      if (request.id === heldId && count === 1) return { status: 200, hold: true };
      return count === 1 && receiver.received.length % 2 === 0 ? { status: 500 } : { status: 200 };
    });
    const server = await startServer(childEnv());
    const events = 6;
    for (let i = 0; i < events; i += 1) {
      const res = await api(server.url, credentials, 'POST', '/v1/customers', { Name: `K${i}` });
      expect(res.status).toBe(201);
    }
    await eventually(() => (receiver.held() === 1 ? true : undefined));
    server.child.kill('SIGKILL');
    await server.exited;
    const before = await deliveries(endpoint.id);
    expect(before).toHaveLength(events);
    expect(before.some((row) => row.status === 'pending')).toBe(true);

    // The held delivery's lease (timeout + 30 s) runs out, and the new process sends it again, with the same id.
    const restarted = await startServer(childEnv());
    const rows = await allDelivered(endpoint.id, events, 90_000);
    expect(rows).toHaveLength(events);
    expect(receiver.countById().get(heldId!)).toBe(2);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(events);
    for (const request of receiver.received) verifyWebhook(endpoint.secret, request);
    await restarted.stop();
  }, 150_000);
});
