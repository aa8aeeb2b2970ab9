import { describe, expect, it } from 'vitest';
import { LOCK_MS } from '../../src/modules/portal/index.ts';
import {
  PortalClient,
  customerWithLogin,
  portalPath,
  signedIn,
  storedHashCost,
  t,
  usePortalService,
  wallClock,
} from './fixtures.ts';

/**
 * Sign-in at the service's default password cost, OWASP's for scrypt (PASSWORD_COST unset; docs/operations.md):
 * the rest of the suite hashes at 2^12, where a check is too quick for checks to pile up.
 */
usePortalService({ PASSWORD_COST: '' });

describe('signing in at the default password cost', () => {
  it('rehashes a password the API made at 2^15 at the portal’s 2^17', async () => {
    const login = await customerWithLogin();
    expect(await storedHashCost(login.contactId)).toBe('32768');
    await signedIn(login);
    expect(await storedHashCost(login.contactId)).toBe('131072');
    await signedIn(login);
  });

  it('checks at most 5 passwords at once, and asks the rest to retry shortly', async () => {
    // A minute on: the request limit (30 forms a minute from an address) counts this test's posts alone.
    wallClock.advance(61_000);
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}login`);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post(`${client.base}login`, { csrf, username: `crowd-${i}`, password: 'wrong1pass' }),
      ),
    );
    const busy = answers.filter((a) => a.status === 429 && a.text.includes('Try again in a few seconds'));
    expect(busy.length).toBeGreaterThanOrEqual(1);
    for (const answer of busy) expect(answer.headers.get('retry-after')).toBe('5');
    expect(answers.filter((a) => a.status === 401).length).toBeLessThan(20);
    wallClock.advance(LOCK_MS + 1000);
  });
});
