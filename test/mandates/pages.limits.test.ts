import { describe, expect, it } from 'vitest';
import { getPage, t, useMandatesService } from './fixtures.ts';

// docs/design/hosted-pages.md, "eMandate pages": the token is a bearer capability, so the pages are rate-limited
// per client address. In a file of its own: the limit is the service's, and would run out for other tests.

useMandatesService();

describe('the hosted pages', () => {
  it('answer 429 with Retry-After past 300 requests a minute from one address', async () => {
    const path = `/widget/emandate/${'a'.repeat(64)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 300; i += 1) statuses.push((await getPage(path)).status);
    expect(new Set(statuses)).toEqual(new Set([404]));
    const limited = await fetch(`${t.url}${path}`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another route keeps its own count.
    expect((await fetch(`${t.url}/widget/emandate/download?token=${'a'.repeat(64)}`)).status).toBe(404);
  });
});
