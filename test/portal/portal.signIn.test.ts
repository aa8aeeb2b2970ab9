import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { LOCK_MS, USERNAME_FAILURES } from '../../src/modules/portal/index.ts';
import {
  PortalClient,
  clock,
  customerWithLogin,
  other,
  portalPath,
  signedIn,
  storedHashCost,
  t,
  usePortalService,
  wallClock,
} from './fixtures.ts';

usePortalService();

const minutes = (n: number) => n * 60_000;

/**
 * A sign-in from another loopback address (127.0.0.2, ...): the whole of 127/8 reaches the service, and the
 * service sees each as a client address of its own.
 */
async function signInFrom(localAddress: string, username: string, password: string) {
  const base = await portalPath();
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const request = http.request(`${t.url}${path}`, { method, headers, localAddress }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
      });
      request.on('error', reject);
      request.end(body);
    });
  const form = await send('GET', `${base}login`, { 'sec-fetch-site': 'none' });
  const cookie = (form.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1]!;
  return send(
    'POST',
    `${base}login`,
    {
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
      origin: t.url,
    },
    new URLSearchParams({ csrf, username, password }).toString(),
  );
}

/** Failed sign-ins of the account as the service recorded them (wall time), to stage counts from many addresses. */
async function recordFailures(
  accountId: number,
  rows: { usernameKey: string; clientAddress: string }[],
): Promise<void> {
  await t.service.storage.db
    .insertInto('portal_sign_in_failures')
    .values(
      rows.map((row) => ({
        account_id: accountId,
        username_key: row.usernameKey,
        client_address: row.clientAddress,
        failed_at: wallClock.now().toISOString(),
      })),
    )
    .execute();
}

const failuresOf = async (usernameKey: string) =>
  (
    await t.service.storage.db
      .selectFrom('portal_sign_in_failures')
      .select('id')
      .where('username_key', '=', usernameKey)
      .execute()
  ).length;

describe('portal address', () => {
  it('shows PortalSlug and PortalURL in GET /v1/account', async () => {
    const account = await ok(t, 'GET', '/v1/account');
    expect(account.PortalSlug).toMatch(/^acme-/);
    expect(account.PortalURL).toBe(`${t.url}/portal/${account.PortalSlug}/`);
  });

  it('returns 422 naming PortalSlug when it has other characters', async () => {
    for (const slug of ['Acme', 'a_b', '-acme', 'acme-', 'a'.repeat(64)]) {
      const res = await other.request('PUT', '/v1/account', { body: { PortalSlug: slug } });
      expect(res.status, slug).toBe(422);
      expect(res.text).toContain('PortalSlug');
    }
  });

  it('returns 409 when another account has the slug', async () => {
    const mine = (await ok(t, 'GET', '/v1/account')).PortalSlug;
    const res = await other.request('PUT', '/v1/account', { body: { PortalSlug: mine } });
    expect(res.status, res.text).toBe(409);
  });

  it('answers 404 for a slug no account has', async () => {
    const res = await fetch(`${t.url}/portal/no-such-portal/login`);
    expect(res.status).toBe(404);
  });
});

describe('signing in', () => {
  it('signs a contact in with its Username and Password, with a session cookie', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const res = await client.signIn(login.username, login.password);
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('portal-s-acme'))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    // Plain HTTP on loopback, for development: no Secure and no __Host- prefix (docs/portal.md, "HTTPS").
    expect(cookie).not.toMatch(/Secure/);
    const page = await client.get(client.base);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ada');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
  });

  it('accepts the username in any case', async () => {
    const login = await customerWithLogin();
    await signedIn({ ...login, username: login.username.toUpperCase() });
  });

  it('matches a non-ASCII username in any case', async () => {
    const customer = await customerWithLogin();
    for (const [stored, typed] of [
      [`ZOË-${process.pid}`, `zoë-${process.pid}`],
      [`Zoë-${process.pid}-2`, `ZOË-${process.pid}-2`],
    ] as const) {
      await ok(t, 'POST', '/v1/customercontacts', {
        customerID: customer.customerId,
        Name: 'Zoë',
        LastName: 'Ångström',
        Email: `zoe-${stored.length}-${customer.customerId}@example.com`,
        Username: stored,
        Password: 'zoe1pass',
      });
      await signedIn({ username: typed, password: 'zoe1pass' });
    }
  });

  it('answers the same whether the user is missing or the password wrong', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const wrong = await client.signIn(login.username, 'wrong1pass');
    const missing = await client.signIn('nobody-at-all', 'wrong1pass');
    expect(wrong.status).toBe(401);
    expect(missing.status).toBe(401);
    const message = (text: string) => /<div id="errors"[\s\S]*?<\/div>/.exec(text)![0];
    expect(message(wrong.text).replace(/value="[^"]*"/g, '')).toBe(
      message(missing.text).replace(/value="[^"]*"/g, ''),
    );
    expect(wrong.text).toContain('The username or password is not right.');
  });

  it('refuses an inactive contact', async () => {
    const login = await customerWithLogin();
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      customerID: contact.customerID,
      Name: contact.Name,
      LastName: contact.LastName,
      Email: contact.Email,
      Username: contact.Username,
      isActive: false,
    });
    const client = new PortalClient(await portalPath(), t.url);
    expect((await client.signIn(login.username, login.password)).status).toBe(401);
  });

  it('rehashes a password made by the API at the stronger cost at sign-in', async () => {
    // At the suite's PASSWORD_COST of 12: the API's hashes at 2^10, the portal's at 2^12 (2^15 and 2^17 unset).
    const login = await customerWithLogin();
    expect(await storedHashCost(login.contactId)).toBe('1024');
    const first = await signedIn(login);
    expect(await storedHashCost(login.contactId)).toBe('4096');
    // The session made before the rehash is still good, and the same password still signs in.
    expect((await first.get(first.base)).status).toBe(200);
    await signedIn(login);
  });

  it('locks a username after repeated failures, says until when, and unlocks by itself', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    for (let i = 1; i < USERNAME_FAILURES; i++) {
      expect((await client.signIn(login.username, `wrong${i}x`)).status).toBe(401);
    }
    const locked = await client.signIn(login.username, 'wrong9x');
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Try again after');
    expect(locked.text).toContain('ends by itself');
    // While locked, even the right password is not checked.
    expect((await client.signIn(login.username, login.password)).status).toBe(429);
    wallClock.advance(LOCK_MS + 1000);
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
  });
});

describe('sessions', () => {
  it('ends after 30 idle minutes of wall time, and says so', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    wallClock.advance(minutes(29));
    expect((await client.get(client.base)).status).toBe(200);
    // The account's clock stands still (a test clock would too): the session still ends in real time.
    wallClock.advance(minutes(31));
    const res = await client.get(client.base);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('login?ended=1');
    expect((await client.get(`${client.base}login?ended=1`)).text).toContain('Your session ended');
  });

  it('ends 12 hours after sign-in however busy', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    for (let i = 0; i < 12 * 3 - 1; i++) {
      wallClock.advance(minutes(20));
      expect((await client.get(client.base)).status).toBe(200);
    }
    wallClock.advance(minutes(21));
    expect((await client.get(client.base)).status).toBe(303);
  });

  it("outlives a jump of the account's business clock", async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    clock.set(new Date(clock.now().getTime() + 24 * 60 * 60_000).toISOString());
    expect((await client.get(client.base)).status).toBe(200);
  });

  it('shows a warning before the idle timeout, with a way to stay', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const page = await client.get(client.base);
    // Wall time runs on between the request's touch and its render.
    const expiresIn = Number(/data-expires-in="(\d+)"/.exec(page.text)?.[1]);
    expect(expiresIn).toBeGreaterThan(1790);
    expect(expiresIn).toBeLessThanOrEqual(1800);
    expect(page.text).toContain('Stay signed in');
  });

  it("ends a contact's sessions when it is deactivated or its password changes through the API", async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    const body = {
      customerID: contact.customerID,
      Name: contact.Name,
      LastName: contact.LastName,
      Email: contact.Email,
      Username: contact.Username,
    };
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, { ...body, isActive: false });
    expect((await client.get(client.base)).status).toBe(303);

    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      ...body,
      isActive: true,
      Password: 'another1',
    });
    const again = await signedIn({ ...login, password: 'another1' });
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, {
      ...body,
      isActive: true,
      changePassword: true,
      Password: 'third1pass',
    });
    expect((await again.get(again.base)).status).toBe(303);
  });

  it('does not revive sessions from before a deactivation when the contact is reactivated', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const contact = await ok(t, 'GET', `/v1/customercontacts/${login.contactId}`);
    const body = {
      customerID: contact.customerID,
      Name: contact.Name,
      LastName: contact.LastName,
      Email: contact.Email,
      Username: contact.Username,
    };
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, { ...body, isActive: false });
    await ok(t, 'PUT', `/v1/customercontacts/${login.contactId}`, { ...body, isActive: true });
    expect((await client.get(client.base)).status).toBe(303);
    await signedIn(login);
  });

  it("ends the portal's sessions when its slug is cleared, even once it is set again", async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const slug = (await ok(t, 'GET', '/v1/account')).PortalSlug;
    await ok(t, 'PUT', '/v1/account', { PortalSlug: null });
    await ok(t, 'PUT', '/v1/account', { PortalSlug: slug });
    expect((await client.get(client.base)).status).toBe(303);
    await signedIn(login);
  });

  it("ends a deleted contact's session", async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    await ok(t, 'DELETE', `/v1/customercontacts/${login.contactId}`);
    expect((await client.get(client.base)).status).toBe(303);
  });

  it('gives a new session id at each sign-in, and signs out', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const first = [...client.cookies].find(([name]) => name.startsWith('portal-s-acme'))![1];
    await client.signIn(login.username, login.password);
    const second = [...client.cookies].find(([name]) => name.startsWith('portal-s-acme'))![1];
    expect(second).not.toBe(first);
    const page = await client.get(client.base);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const out = await client.post(`${client.base}logout`, { csrf });
    expect(out.status).toBe(303);
    expect((await client.get(client.base)).status).toBe(303);
  });
});

describe('forms from elsewhere', () => {
  it('refuses a sign-in posted from another site, or without the form token', async () => {
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}login`);
    const crossSite = await client.post(
      `${client.base}login`,
      { csrf, username: login.username, password: login.password },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const noToken = await client.post(`${client.base}login`, {
      username: login.username,
      password: login.password,
    });
    expect(noToken.status).toBe(403);
  });

  it('refuses a sign-out or password change without the session token', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    expect((await client.post(`${client.base}logout`, { csrf: 'x' })).status).toBe(403);
    expect(
      (
        await client.post(`${client.base}password`, {
          csrf: 'x',
          CurrentPassword: login.password,
          Password: 'new1pass',
          ConfirmPassword: 'new1pass',
        })
      ).status,
    ).toBe(403);
    expect((await client.get(client.base)).status).toBe(200);
  });
});

describe('what a client may send', () => {
  it('never answers 500 to odd bodies, methods or ids', async () => {
    const base = await portalPath();
    const answers = await Promise.all([
      fetch(`${t.url}${base}login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
      fetch(`${t.url}${base}login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username":["a"],"password":{}}',
      }),
      fetch(`${t.url}${base}login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'username=a&username=b&csrf=%ZZ',
      }),
      fetch(`${t.url}${base}reset/${'x'.repeat(300)}`),
      fetch(`${t.url}${base}link/%00`),
      fetch(`${t.url}${base}invoices/1e5`, { redirect: 'manual' }),
      fetch(`${t.url}/portal/${'a'.repeat(150)}/login`),
    ]);
    for (const answer of answers) expect(answer.status, answer.url).toBeLessThan(500);
  });

  it('pauses an address after more than 20 failures across usernames', async () => {
    // A minute on: the request limit (30 forms a minute from an address) counts this test's posts alone.
    wallClock.advance(61_000);
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}login`);
    const statuses: number[] = [];
    for (let i = 0; i <= 21; i++) {
      statuses.push(
        (await client.post(`${client.base}login`, { csrf, username: `guess-${i}`, password: 'wrong1pass' }))
          .status,
      );
    }
    expect(statuses.slice(0, 20).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    wallClock.advance(LOCK_MS + 1000);
    const login = await customerWithLogin();
    expect((await client.signIn(login.username, login.password)).status).toBe(303);
  }, 60_000);
});

describe('throttling', () => {
  it('checks at most 5 of 20 parallel wrong sign-ins for one username, and pauses the rest', async () => {
    // A minute on: the request limit (30 forms a minute from an address) counts this test's posts alone.
    wallClock.advance(61_000);
    const login = await customerWithLogin();
    const client = new PortalClient(await portalPath(), t.url);
    const csrf = await client.csrfOf(`${client.base}login`);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post(`${client.base}login`, { csrf, username: login.username, password: `wrong${i}x` }),
      ),
    );
    // Each password checked and refused leaves its failure; a paused attempt checks nothing and leaves none.
    const checked = await failuresOf(login.username);
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(checked).toBeLessThanOrEqual(USERNAME_FAILURES);
    const paused = answers.filter((a) => a.status === 429 && a.text.includes('Too many failed sign-ins'));
    expect(paused.length).toBeGreaterThanOrEqual(20 - USERNAME_FAILURES);
    wallClock.advance(LOCK_MS + 1000);
  });

  it('pauses a username for the address that failed, not for its contact elsewhere', async () => {
    const login = await customerWithLogin();
    for (let i = 1; i < USERNAME_FAILURES; i++) {
      expect((await signInFrom('127.0.0.2', login.username, `wrong${i}x`)).status).toBe(401);
    }
    expect((await signInFrom('127.0.0.2', login.username, 'wrong9x')).status).toBe(429);
    expect((await signInFrom('127.0.0.2', login.username, login.password)).status).toBe(429);
    expect((await signInFrom('127.0.0.1', login.username, login.password)).status).toBe(303);
  });

  it('pauses a username for everyone after 50 failures in an hour from anywhere', async () => {
    const login = await customerWithLogin();
    const key = login.username.toLowerCase();
    await recordFailures(
      t.accountId,
      Array.from({ length: 49 }, (_, i) => ({ usernameKey: key, clientAddress: `10.0.${i}.1` })),
    );
    expect((await signInFrom('127.0.0.5', login.username, 'wrong1x')).status).toBe(429);
    const paused = await signInFrom('127.0.0.6', login.username, login.password);
    expect(paused.status).toBe(429);
    expect(paused.text).toContain('Try again after');
    wallClock.advance(minutes(61));
    expect((await signInFrom('127.0.0.6', login.username, login.password)).status).toBe(303);
  });

  it("counts an address's failures in the account only", async () => {
    await ok(other, 'PUT', '/v1/account', { PortalSlug: `other-throttle-${process.pid}` });
    await recordFailures(
      other.accountId,
      Array.from({ length: 30 }, (_, i) => ({ usernameKey: `guess-${i}`, clientAddress: '127.0.0.3' })),
    );
    const login = await customerWithLogin();
    expect((await signInFrom('127.0.0.3', login.username, login.password)).status).toBe(303);
  });

  it('counts wrong current passwords on the change form as failed sign-ins', async () => {
    const login = await customerWithLogin();
    const client = await signedIn(login);
    const change = async (current: string) => {
      const csrf = await client.csrfOf(`${client.base}password`);
      return client.post(`${client.base}password`, {
        csrf,
        CurrentPassword: current,
        Password: 'new1pass',
        ConfirmPassword: 'new1pass',
      });
    };
    for (let i = 1; i < USERNAME_FAILURES; i++) expect((await change(`wrong${i}x`)).status).toBe(422);
    const paused = await change('wrong9x');
    expect(paused.status).toBe(429);
    expect(paused.text).toContain('Try again after');
    // Paused: even the right password is not checked, and sign-in from this address is paused too.
    expect((await change(login.password)).status).toBe(429);
    expect((await client.signIn(login.username, login.password)).status).toBe(429);
    wallClock.advance(LOCK_MS + 1000);
    expect((await change(login.password)).status).toBe(303);
  });
});

describe('the request limit', () => {
  it('answers 429 to a 31st sign-in or reset form from one address in a minute, in this portal only', async () => {
    const address = '127.0.0.9';
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      // Empty fields: refused with 422 before any password is checked, yet counted.
      statuses.push((await signInFrom(address, '', '')).status);
    }
    expect(statuses.every((status) => status === 422)).toBe(true);
    const over = await signInFrom(address, '', '');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('60');
    expect(over.text).toContain('Too many requests');
    const login = await customerWithLogin();
    expect((await signInFrom('127.0.0.10', login.username, login.password)).status).toBe(303);
    wallClock.advance(61_000);
    expect((await signInFrom(address, login.username, login.password)).status).toBe(303);
  }, 60_000);
});
