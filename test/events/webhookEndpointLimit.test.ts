import { describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// The cap on webhook endpoints per account (WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT, docs/webhooks.md): every event is a
// request to each endpoint subscribed to it, so the cap bounds what one change of one account fans out into.
const t = useTestService({ env: { WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '3' } });

const create = (as: TestAccount, body: Record<string, unknown> = {}) =>
  as.request('POST', '/v1/webhookendpoints', {
    body: { Url: 'https://hooks.analytical-engines.example/billing', EnabledEvents: ['*'], ...body },
  });

const endpointIds = async (as: TestAccount): Promise<number[]> =>
  ((await as.request('GET', '/v1/webhookendpoints?page_size=200')).body as any[]).map(
    (e) => e.webhookEndpointID,
  );

function expectLimitReached(res: ApiResponse): void {
  expect(res.status, res.text).toBe(409);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code).toBe('webhook_endpoint_limit_reached');
  expect(res.body.detail).toContain('at most 3 webhook endpoints');
}

describe('the number of webhook endpoints of an account', () => {
  it('is capped: one more is refused with 409 naming the cap, and nothing is created', async () => {
    const account = await t.newAccount('Capped');
    for (const body of [{}, { isActive: false }, { EnabledEvents: ['invoice.paid'] }]) {
      const res = await create(account, body);
      expect(res.status, res.text).toBe(201);
    }
    const before = await endpointIds(account);
    const eventsBefore = (await account.request('GET', '/v1/events?resourceType=webhook_endpoint')).body;

    // A disabled endpoint counts: enabling it needs no room.
    expectLimitReached(await create(account));
    expect(await endpointIds(account)).toEqual(before);
    expect((await account.request('GET', '/v1/events?resourceType=webhook_endpoint')).body).toEqual(
      eventsBefore,
    );

    // Other accounts have a cap of their own.
    const other = await t.newAccount('Other');
    expect((await create(other)).status).toBe(201);

    // Deleting one makes room for one.
    const deleted = await account.request('DELETE', `/v1/webhookendpoints/${before[0]}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await create(account)).status).toBe(201);
    expectLimitReached(await create(account));
    expect(await endpointIds(account)).toHaveLength(3);
  });

  it('holds when creations race: of ten at once on an account with none, three are made', async () => {
    const account = await t.newAccount('Racing');
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(account)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses, answers.map((res) => res.text).join('\n')).toEqual([
      201, 201, 201, 409, 409, 409, 409, 409, 409, 409,
    ]);
    expect(await endpointIds(account)).toHaveLength(3);
  });
});
