import { describe, expect, it } from 'vitest';
import { RATE_REFUSAL_PAUSE_MS } from '../../src/http/pageRateLimit.ts';
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
    const sent = performance.now();
    const answered: string[] = [];
    const refusal = fetch(`${t.url}${path}`).then((answer) => {
      answered.push('refusal');
      return answer;
    });
    // Another route keeps its own count, and is answered while the refusal waits.
    const other = await fetch(`${t.url}/widget/emandate/download?token=${'a'.repeat(64)}`);
    answered.push('other');
    expect(other.status).toBe(404);
    const limited = await refusal;
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refusal is held for its pause (src/http/pageRateLimit.ts), the only wait the server adds.
    expect(performance.now() - sent).toBeGreaterThanOrEqual(RATE_REFUSAL_PAUSE_MS - 5);
    expect(answered).toEqual(['other', 'refusal']);
  });
});
