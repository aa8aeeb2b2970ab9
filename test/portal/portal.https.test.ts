import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { eventually, startTestService } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { startSmtpReceiver } from '../helpers/smtp.ts';
import { customerWithLogin, PortalClient } from './fixtures.ts';

// docs/portal.md, "HTTPS": the __Host- cookie behind PUBLIC_URL https, and no portal over plain HTTP away from
// loopback.

let secure: TestService;
let plain: TestService;

beforeAll(async () => {
  secure = await startTestService({ env: { PUBLIC_URL: 'https://billing.example.com' } });
  plain = await startTestService();
  await ok(secure, 'PUT', '/v1/account', { PortalSlug: 'secure' });
  await ok(plain, 'PUT', '/v1/account', { PortalSlug: 'plain' });
});
afterAll(async () => {
  await secure?.close();
  await plain?.close();
});

/** GET with a Host header of our choosing (fetch does not let one be set). */
function getWithHost(url: string, host: string): Promise<{ status: number; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host } }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, cookies: response.headers['set-cookie'] ?? [] }),
      );
    });
    request.on('error', reject);
  });
}

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

  it('refuses plain HTTP on an address other than loopback, and sets no cookie', async () => {
    const refused = await getWithHost(`${plain.url}/portal/plain/login`, 'billing.example.com');
    expect(refused.status).toBe(403);
    expect(refused.cookies).toEqual([]);
    const loopback = await getWithHost(`${plain.url}/portal/plain/login`, 'localhost');
    expect(loopback.status).toBe(200);
  });
});

describe('a reset link without PUBLIC_URL', () => {
  it('is e-mailed only for a loopback address, never to a host the request names', async () => {
    const smtp = await startSmtpReceiver();
    // Behind a trusted proxy, X-Forwarded-Host and X-Forwarded-Proto are believed: a client can name any host.
    const proxied = await startTestService({ env: { TRUSTED_PROXIES: '127.0.0.1' }, smtpUrl: smtp.url });
    try {
      await ok(proxied, 'PUT', '/v1/account', { PortalSlug: `proxied-${process.pid}` });
      const login = await customerWithLogin(proxied);
      const base = `/portal/proxied-${process.pid}/`;
      const forged = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
      const attacker = new PortalClient(base, proxied.url);
      const page = await attacker.get(`${base}reset`, forged);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const asked = await attacker.post(`${base}reset`, { csrf, username: login.username }, forged);
      expect(asked.status).toBe(200);
      expect(proxied.logs.join('')).toContain('PUBLIC_URL is not set: a password reset e-mail was not sent');

      // The same request on loopback is e-mailed; the outbox sends in order, so a forged one would have come first.
      const local = new PortalClient(base, proxied.url);
      await local.post(`${base}reset`, {
        csrf: await local.csrfOf(`${base}reset`),
        username: login.username,
      });
      await eventually(() => smtp.messages.find((m) => m.raw.includes('Reset your')));
      expect(smtp.messages.filter((m) => m.raw.includes('Reset your'))).toHaveLength(1);
      expect(smtp.messages.map((m) => m.raw).join('')).not.toContain('evil.example');
    } finally {
      await proxied.close();
      await smtp.close();
    }
  });
});
