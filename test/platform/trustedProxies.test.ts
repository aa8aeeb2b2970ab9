import { describe, expect, it } from 'vitest';
import { startFresh } from '../helpers/testService.ts';

/**
 * TRUSTED_PROXIES (docs/operations.md, "Behind a proxy"): only the operator's proxies say who the client is. The
 * client address is what rate limits count and what eMandate signing records, so a client must not choose it.
 */

/** The client address the request line of a GET with this X-Forwarded-For shows. */
async function loggedClientAddress(env: Record<string, string>): Promise<string> {
  // A service per setting of TRUSTED_PROXIES, each of its test.
  const t = await startFresh({ env });
  expect(
    (await t.request('GET', '/v1/customers', { headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
  ).toBe(200);
  const line = t.logs
    .map((text) => JSON.parse(text) as { msg: string; req?: { url: string; remoteAddress: string } })
    .find((entry) => entry.msg === 'request completed' && entry.req?.url === '/v1/customers');
  return line!.req!.remoteAddress;
}

describe('the client address behind a proxy', () => {
  it('is the forwarded one when the request comes from a trusted proxy', async () => {
    expect(await loggedClientAddress({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' })).toBe('203.0.113.9');
  });

  it('is the connection’s own when no proxy is trusted, whatever the request claims', async () => {
    expect(await loggedClientAddress({})).toBe('127.0.0.1');
  });
});
