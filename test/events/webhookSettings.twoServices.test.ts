import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';

// Two services in one process, started with different webhook settings (WEBHOOK_ALLOW_HTTP,
// WEBHOOK_ALLOWED_PRIVATE_HOSTS, WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT): each keeps its own, whichever started last
// (docs/architecture.md, "State a service keeps").
const open = useTestService({
  env: {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '2',
    WEBHOOK_TIMEOUT_MS: '1000',
    WORKER_INTERVAL_MS: '50',
  },
});
// Started second, with the defaults but for its cap: https only, no internal address.
const strict = useTestService({ env: { WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '3' } });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const create = (as: TestAccount, url: string) =>
  as.request('POST', '/v1/webhookendpoints', { body: { Url: url, EnabledEvents: ['customer.*'] } });

function expectLimitReached(res: ApiResponse, max: number): void {
  expect(res.status, res.text).toBe(409);
  expect(res.body.code).toBe('webhook_endpoint_limit_reached');
  expect(res.body.detail).toContain(`at most ${max} webhook endpoints`);
}

describe('webhook settings of two services in one process', () => {
  it("each judges an endpoint's address by its own policy", async () => {
    const local = `${receiver.url}/hook`;
    expect((await create(open, local)).status).toBe(201);
    const refused = await create(strict, local);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.fields).toEqual([
      {
        field: 'Url',
        message:
          'must be an https URL (http is allowed only when the service runs with WEBHOOK_ALLOW_HTTP=true)',
      },
    ]);
  });

  it('each delivers by its own policy: the one that allows 127.0.0.1 reaches a receiver there', async () => {
    const as = await open.newAccount('Delivered');
    expect((await create(as, `${receiver.url}/hook`)).status).toBe(201);
    const customer = await as.request('POST', '/v1/customers', { body: { Name: 'Ada' } });
    expect(customer.status, customer.text).toBe(201);
    const received = await eventually(() =>
      receiver.received.find((r) => JSON.parse(r.body).data?.object?.customerID === customer.body.customerID),
    );
    expect(received.path).toBe('/hook');
  });

  it('each caps the endpoints of an account at its own number', async () => {
    const [small, large] = [await open.newAccount('Two at most'), await strict.newAccount('Three at most')];
    for (let i = 0; i < 2; i++)
      expect((await create(small, `https://hooks${i}.example/billing`)).status).toBe(201);
    expectLimitReached(await create(small, 'https://hooks9.example/billing'), 2);
    for (let i = 0; i < 3; i++)
      expect((await create(large, `https://hooks${i}.example/billing`)).status).toBe(201);
    expectLimitReached(await create(large, 'https://hooks9.example/billing'), 3);
  });
});
