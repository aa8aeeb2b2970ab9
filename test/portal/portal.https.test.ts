import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { eventually } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { customerWithLogin, PortalClient } from './fixtures.ts';

// docs/portal.md, "HTTPS" and "PUBLIC_URL and links": the __Host- cookie behind PUBLIC_URL https, no portal over
// plain HTTP away from loopback (judged by the connection, never by Host), and links that leave the service only
// under PUBLIC_URL or the loopback address a request arrived on.

const proxiedSlug = `proxied-${process.pid}`;
/** Three services, each behind another PUBLIC_URL or proxy setting, each with its portal at `slug`. */
const portalAt = (slug: string) => ({
  seed: (t: TestService) => ok(t, 'PUT', '/v1/account', { PortalSlug: slug }),
});
const secure = useTestService({ env: { PUBLIC_URL: 'https://billing.example.com' }, ...portalAt('secure') });
const plain = useTestService({ smtp: true, ...portalAt('plain') });
const { smtp } = plain;
/** Believes X-Forwarded-* from 127.0.0.1, so that a test can stand for a client elsewhere; mails to plain's receiver. */
const proxied = useTestService(() => ({
  env: { TRUSTED_PROXIES: '127.0.0.1' },
  smtpUrl: smtp.url,
  ...portalAt(proxiedSlug),
}));

interface RawAnswer {
  status: number;
  cookies: string[];
  contentType: string;
  text: string;
}

/** A request with a Host header of our choosing (fetch does not let one be set). */
function rawRequest(
  url: string,
  options: { method?: string; headers: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            cookies: response.headers['set-cookie'] ?? [],
            contentType: response.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const getWithHost = (url: string, host: string, headers: Record<string, string> = {}) =>
  rawRequest(url, { headers: { host, ...headers } });

/** An API call as the service's main account, with the headers given (a Host of our choosing among them). */
const apiWithHost = (
  t: TestService,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) =>
  rawRequest(`${t.url}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${t.accountId}:${t.apiKey}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Asks for a reset link on the portal at `base`, as a browser that reached the service with these headers. */
async function askResetAs(t: TestService, base: string, username: string, headers: Record<string, string>) {
  const page = await getWithHost(`${t.url}${base}reset`, headers['host']!, headers);
  expect(page.status, page.text).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const cookie = page.cookies.map((line) => line.split(';')[0]).join('; ');
  return rawRequest(`${t.url}${base}reset`, {
    method: 'POST',
    headers: {
      ...headers,
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
    },
    body: new URLSearchParams({ csrf, username }).toString(),
  });
}

const resetMailTo = (username: string) =>
  eventually(() => smtp.messages.find((m) => m.raw.includes('Reset your') && m.raw.includes(username)));
const unfolded = (raw: string) => raw.replace(/=\r?\n/g, '');

describe('the portal and HTTPS', () => {
  it('names the cookies __Host-, Secure, for the whole host, under an https PUBLIC_URL', async () => {
    const account = await ok(secure, 'GET', '/v1/account');
    expect(account.PortalURL).toBe('https://billing.example.com/portal/secure/');
    const client = new PortalClient('/portal/secure/', secure.url);
    const page = await client.get('/portal/secure/login');
    expect(page.status).toBe(200);
    const cookie = page.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^__Host-portal-f-secure=/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });

  it('sends HSTS on portal pages served over HTTPS only', async () => {
    const overHttps = await new PortalClient('/portal/secure/', secure.url).get('/portal/secure/login');
    expect(overHttps.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const onLoopback = await new PortalClient('/portal/plain/', plain.url).get('/portal/plain/login');
    expect(onLoopback.status).toBe(200);
    expect(onLoopback.headers.get('strict-transport-security')).toBeNull();
  });

  it("checks a form's Origin against PUBLIC_URL, not against the Host header a proxy passes on", async () => {
    const login = await customerWithLogin(secure);
    const client = new PortalClient('/portal/secure/', secure.url);
    const csrf = await client.csrfOf('/portal/secure/login');
    const fields = { csrf, username: login.username, password: login.password };
    // The request reaches the service as 127.0.0.1:port; the browser's page was https://billing.example.com.
    const fromInnerHost = await client.post('/portal/secure/login', fields);
    expect(fromInnerHost.status).toBe(403);
    expect(fromInnerHost.text).toContain('This form was not sent from the portal');
    const fromPublicUrl = await client.post('/portal/secure/login', fields, {
      origin: 'https://billing.example.com',
    });
    expect(fromPublicUrl.status, fromPublicUrl.text).toBe(303);
  });

  it("answers a request it refuses with a page, not the API's problem+json", async () => {
    const client = new PortalClient('/portal/plain/', plain.url);
    const refused = await client.get(`/portal/${'x'.repeat(101)}/invoices`);
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.text).toContain('This could not be done');
    expect(refused.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('serves plain HTTP to a loopback connection whatever its Host says', async () => {
    const loopback = await getWithHost(`${plain.url}/portal/plain/login`, 'billing.example.com');
    expect(loopback.status).toBe(200);
  });

  it('refuses plain HTTP to a client elsewhere, even one sending Host: localhost, and sets no cookie', async () => {
    // The connection is the trusted proxy's, over loopback; the client it names is not.
    const remote = await getWithHost(`${proxied.url}/portal/${proxiedSlug}/login`, 'localhost', {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(remote.status).toBe(403);
    expect(remote.text).toContain('This portal needs HTTPS');
    expect(remote.cookies).toEqual([]);
    const local = await getWithHost(`${proxied.url}/portal/${proxiedSlug}/login`, 'localhost', {
      'x-forwarded-for': '127.0.0.1',
    });
    expect(local.status).toBe(200);
  });
});

describe('a Host that is not a plain host[:port]', () => {
  it('is refused service-wide with a 400 problem naming Host, and no reset is e-mailed', async () => {
    const login = await customerWithLogin(plain);
    for (const host of ['localhost:1@evil.example', 'localhost/evil', 'evil.example:99999', '[::1']) {
      const page = await getWithHost(`${plain.url}/portal/plain/reset`, host);
      expect(page.status, host).toBe(400);
      expect(page.contentType).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(page.text)).toMatchObject({ code: 'invalid_host', fields: [{ field: 'Host' }] });
      expect((await apiWithHost(plain, 'GET', '/v1/account', { host })).status).toBe(400);
    }
    const forged = await rawRequest(`${plain.url}/portal/plain/reset`, {
      method: 'POST',
      headers: { host: 'localhost:1@evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: login.username }).toString(),
    });
    expect(forged.status).toBe(400);
    // A later reset from a browser on loopback is the first one to arrive: the forged one queued nothing.
    const browser = new PortalClient('/portal/plain/', plain.url);
    await browser.post('/portal/plain/reset', {
      csrf: await browser.csrfOf('/portal/plain/reset'),
      username: login.username,
    });
    const mail = await resetMailTo(login.username);
    expect(unfolded(mail.raw)).toContain(`${plain.url}/portal/plain/reset/`);
    expect(smtp.messages.map((m) => m.raw).join('')).not.toContain('evil.example');
  });
});

describe('links that leave the service without PUBLIC_URL', () => {
  it('name the loopback address a reset request arrived on, never the host its Host header names', async () => {
    const login = await customerWithLogin(plain);
    const asked = await askResetAs(plain, '/portal/plain/', login.username, {
      host: 'evil.example:8080',
      origin: 'http://evil.example:8080',
    });
    expect(asked.status, asked.text).toBe(200);
    const link = /http:\/\/[^\s"<]+\/reset\/[\w-]{43}/.exec(
      unfolded((await resetMailTo(login.username)).raw),
    )![0];
    expect(link.startsWith(`${plain.url}/portal/plain/reset/`), link).toBe(true);
  });

  it('are not e-mailed to a client elsewhere, whatever host and scheme it names', async () => {
    const login = await customerWithLogin(proxied);
    const forged = {
      host: 'evil.example',
      origin: 'https://evil.example',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
    };
    const asked = await askResetAs(proxied, `/portal/${proxiedSlug}/`, login.username, forged);
    expect(asked.status).toBe(200);
    expect(proxied.logs.join('')).toContain('PUBLIC_URL is not set: a password reset e-mail was not sent');

    // The same request on loopback is e-mailed; the outbox sends in order, so a forged one would have come first.
    const local = new PortalClient(`/portal/${proxiedSlug}/`, proxied.url);
    await local.post(`/portal/${proxiedSlug}/reset`, {
      csrf: await local.csrfOf(`/portal/${proxiedSlug}/reset`),
      username: login.username,
    });
    await resetMailTo(login.username);
    expect(
      smtp.messages.filter((m) => m.raw.includes(login.username) && m.raw.includes('Reset your')),
    ).toHaveLength(1);
    expect(smtp.messages.map((m) => m.raw).join('')).not.toContain('evil.example');
  });

  it('make PortalURL, sign-in links and the login e-mail from the loopback address, or the path alone elsewhere', async () => {
    const login = await customerWithLogin(plain);
    const evil = { host: 'evil.example' };
    const account = await apiWithHost(plain, 'GET', '/v1/account', evil);
    expect(JSON.parse(account.text).PortalURL).toBe(`${plain.url}/portal/plain/`);
    const link = await apiWithHost(plain, 'POST', '/v1/portal/sessions', evil, {
      ContactID: login.contactId,
    });
    expect(JSON.parse(link.text).URL.startsWith(`${plain.url}/portal/plain/link/`), link.text).toBe(true);
    const Email = `login-${process.pid}@example.com`;
    const contact = await apiWithHost(plain, 'POST', '/v1/customercontacts', evil, {
      customerID: login.customerId,
      Name: 'Lin',
      LastName: 'Kage',
      Email,
    });
    expect(contact.status, contact.text).toBe(201);
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(Email)));
    expect(unfolded(mail.raw)).toContain(`${plain.url}/portal/plain/`);
    expect(mail.raw).not.toContain('evil.example');

    const remote = { host: 'evil.example', 'x-forwarded-for': '203.0.113.7' };
    const elsewhere = await apiWithHost(proxied, 'GET', '/v1/account', remote);
    expect(JSON.parse(elsewhere.text).PortalURL).toBe(`/portal/${proxiedSlug}/`);
    const theirs = await customerWithLogin(proxied);
    const remoteLink = await apiWithHost(proxied, 'POST', '/v1/portal/sessions', remote, {
      ContactID: theirs.contactId,
    });
    expect(JSON.parse(remoteLink.text).URL).toMatch(new RegExp(`^/portal/${proxiedSlug}/link/[\\w-]{43}$`));
  });
});
