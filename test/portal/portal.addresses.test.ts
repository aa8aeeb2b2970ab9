import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { customerWithLogin, PortalClient } from './fixtures.ts';

// docs/operations.md, "Files and network limits": every per-address limit counts an IPv6 client by its /64. The
// service believes X-Forwarded-For from 127.0.0.1, so that each request can come from an address of our choosing.

const slug = `addresses-${process.pid}`;
const base = `/portal/${slug}/`;

const t = useTestService({ env: { TRUSTED_PROXIES: '127.0.0.1', AUTH_FAILURES_PER_MINUTE: '3' } });
beforeAll(async () => {
  await ok(t, 'PUT', '/v1/account', { PortalSlug: slug });
});

/** Addresses of one /64, each a different one, behind the proxy that ends TLS for them. */
const inNet = (net: string, i: number) => ({
  'x-forwarded-for': `${net}:${(i + 1).toString(16)}`,
  'x-forwarded-proto': 'https',
});

/** The CSRF token of a portal form, read over (the proxy's) HTTPS, so that its cookie is the __Host- one. */
async function csrfOverHttps(client: PortalClient, path: string): Promise<string> {
  const page = await client.get(path, inNet('2001:db8:ffff:1:0:0:0', 0));
  expect(page.status, page.text).toBe(200);
  return /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
}

describe('per-address limits and IPv6 clients', () => {
  // @fastify/rate-limit keys by /64 by default; this keeps the setting that says so (src/http/auth.ts) honest.
  it('count failed API authentications from one /64 together', async () => {
    const wrong = { accountId: t.accountId, apiKey: 'not-a-key' };
    for (let i = 0; i < 3; i++) {
      const res = await t.request('GET', '/v1/account', {
        auth: wrong,
        headers: inNet('2001:db8:a:1:0:0:0', i),
      });
      expect(res.status).toBe(401);
    }
    const fourth = await t.request('GET', '/v1/account', {
      auth: wrong,
      headers: inNet('2001:db8:a:1:0:0:0', 3),
    });
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).not.toBeNull();
    // The next /64 is another client.
    const next = await t.request('GET', '/v1/account', {
      auth: wrong,
      headers: inNet('2001:db8:a:2:0:0:0', 0),
    });
    expect(next.status).toBe(401);
  });

  it("count a /64's sign-in and reset forms together against the portal's form limit", async () => {
    const client = new PortalClient(base, t.url);
    const csrf = await csrfOverHttps(client, `${base}reset`);
    for (let i = 0; i < 30; i++) {
      const res = await client.post(`${base}reset`, { csrf, username: '' }, inNet('2001:db8:b:1:0:0:0', i));
      expect(res.status).toBe(422);
    }
    const over = await client.post(`${base}reset`, { csrf, username: '' }, inNet('2001:db8:b:1:0:0:0', 30));
    expect(over.status).toBe(429);
    expect(over.text).toContain('Too many requests from your network');
    const next = await client.post(`${base}reset`, { csrf, username: '' }, inNet('2001:db8:b:2:0:0:0', 0));
    expect(next.status).toBe(422);
  });

  it('pause a username for a /64 after 5 failures from any of its addresses', async () => {
    const login = await customerWithLogin(t);
    const client = new PortalClient(base, t.url);
    const csrf = await csrfOverHttps(client, `${base}login`);
    const attempt = (net: string, i: number) =>
      client.post(`${base}login`, { csrf, username: login.username, password: 'wrong1pass' }, inNet(net, i));
    for (let i = 0; i < 4; i++) expect((await attempt('2001:db8:c:1:0:0:0', i)).status).toBe(401);
    const fifth = await attempt('2001:db8:c:1:0:0:0', 4);
    expect(fifth.status).toBe(429);
    expect(fifth.text).toContain('Sign-in is paused');
    const sixth = await client.post(
      `${base}login`,
      { csrf, username: login.username, password: login.password },
      inNet('2001:db8:c:1:0:0:0', 5),
    );
    expect(sixth.status).toBe(429);
    // Another /64 is another address: the pause is the username's for that /64 only.
    const elsewhere = await client.post(
      `${base}login`,
      { csrf, username: login.username, password: login.password },
      inNet('2001:db8:c:2:0:0:0', 0),
    );
    expect(elsewhere.status, elsewhere.text).toBe(303);
  });
});
