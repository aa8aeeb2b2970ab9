import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startFresh } from '../helpers/testService.ts';

describe('readiness', () => {
  it('answers 503 problem+json on /readyz when the database is gone, while /healthz stays up', async () => {
    // A service of the test's own: the test takes it down (its database, its shutdown).
    const t = await startFresh();
    await t.service.storage.close();
    const ready = await t.request('GET', '/readyz', { auth: false });
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe('database_unreachable');
    expect((await t.request('GET', '/healthz', { auth: false })).status).toBe(200);
  });
});

describe('shutdown', () => {
  it('lets handlers of requests whose clients hung up finish before the database closes', async () => {
    const t = await startFresh();
    const { port } = new URL(t.url);
    const auth = `Basic ${Buffer.from(`${t.accountId}:${t.apiKey}`).toString('base64')}`;
    const body = JSON.stringify({ Name: 'Ada', LastName: 'Lovelace', Email: 'ada@example.com' });
    const sent = Array.from({ length: 40 }, (_, i) => {
      const request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/customers',
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'idempotency-key': `hang-up-${i}`,
        },
      });
      request.on('error', () => {});
      request.end(body);
      return request;
    });
    // Give the server time to start on the requests, then hang up on all of them and shut down at once.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const request of sent) request.destroy();
    await t.service.close();

    const errors = t.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50);
    expect(errors).toEqual([]);
  });
});
