import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { dialect } from '../helpers/service.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';

const AUTH_FAILURES_PER_MINUTE = 5;
const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;
const KEEP_ALIVE_TIMEOUT_MS = 1_000;

const t = useTestService({
  env: {
    AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
  },
});

describe('security headers', () => {
  it('marks every /v1 answer no-store and nosniff, errors included', async () => {
    for (const response of [
      await t.request('GET', '/v1/customers'),
      await t.request('GET', '/v1/customers/999999'),
      await t.request('GET', '/v1/customers', { auth: false }),
    ]) {
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const health = await t.request('GET', '/healthz', { auth: false });
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(health.headers.get('content-security-policy')).toBeNull();
  });

  it('gives /docs a same-origin content security policy and frame protection', async () => {
    const page = await fetch(`${t.url}/docs/`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    await page.text();
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'connect-src': "'self'",
      'frame-ancestors': "'none'",
      'object-src': "'none'",
    });
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

/** Opens a raw connection, writes `text`, and resolves with what came back once the server closed it. */
function rawExchange(text: string): Promise<{ reply: string; closedAfterMs: number }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ reply, closedAfterMs: Date.now() - started }));
    socket.write(text);
  });
}

describe('connection timeouts', () => {
  it('answers 408 and closes a connection whose headers stop half way', async () => {
    const { reply, closedAfterMs } = await rawExchange(
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('content-type: application/problem+json');
    expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 3_000);
  });

  it('answers 408 and closes a connection whose body stops half way', async () => {
    const auth = Buffer.from(`${t.accountId}:${t.apiKey}`).toString('base64');
    const { reply, closedAfterMs } = await rawExchange(
      'POST /v1/customers HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Authorization: Basic ${auth}\r\nContent-Length: 100\r\n\r\n{"Name":`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('content-type: application/problem+json');
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
    const customers = await t.request('GET', '/v1/customers');
    expect(customers.body).toEqual([]);
  });

  it('closes an idle keep-alive connection after its timeout', async () => {
    const { reply, closedAfterMs } = await rawExchange('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain(`Keep-Alive: timeout=${Math.floor(KEEP_ALIVE_TIMEOUT_MS / 1000)}`);
    expect(closedAfterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(closedAfterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 3_000);
  });

  it('refuses a headers timeout above the request timeout', () => {
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '50' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });
});

describe('failed authentication throttling', () => {
  it('answers 429 with Retry-After to an address past its failures, while valid keys go on working', async () => {
    const other = await t.newAccount('Throttled neighbour');
    const wrongKey = { accountId: t.accountId, apiKey: 'bk_not_a_key' };
    const statuses = [];
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
      statuses.push((await t.request('GET', '/v1/customers', { auth: wrongKey })).status);
    }
    expect(statuses).toEqual(statuses.map(() => 401));

    const throttled = await t.request('GET', '/v1/customers', { auth: { bearer: 'bk_guess' } });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('content-type')).toContain('application/problem+json');
    expect(throttled.body.code).toBe('too_many_failed_authentications');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);

    // Valid keys from the same address are neither refused nor counted.
    for (let i = 0; i < 3 * AUTH_FAILURES_PER_MINUTE; i++) {
      expect((await t.request('GET', '/v1/customers')).status).toBe(200);
      expect((await other.request('GET', '/v1/customers')).status).toBe(200);
    }
    expect((await t.request('POST', '/v1/customers', { body: { Name: 'Still served' } })).status).toBe(201);
    expect((await t.request('GET', '/v1/customers', { auth: wrongKey })).status).toBe(429);
  });
});

describe('file modes', () => {
  it('creates the data directory 0700 and the database and key files 0600', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-modes-'));
    const dataDir = path.join(parent, 'data');
    const sqliteFile = path.join(parent, 'db', 'billing.sqlite');
    // Registered before the service starts, so run after startFresh has closed it.
    onTestFinished(() => fs.rmSync(parent, { recursive: true, force: true }));
    await startFresh({
      env: { DATA_DIR: dataDir, ...(dialect === 'sqlite' ? { DATABASE_URL: `sqlite:${sqliteFile}` } : {}) },
    });
    const mode = (file: string) => fs.statSync(file).mode & 0o777;
    expect(mode(dataDir)).toBe(0o700);
    const files = fs.readdirSync(dataDir).map((name) => path.join(dataDir, name));
    if (dialect === 'sqlite') {
      expect(mode(path.dirname(sqliteFile))).toBe(0o700);
      files.push(...['', '-wal', '-shm'].map((suffix) => sqliteFile + suffix));
    }
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect({ file, mode: mode(file).toString(8) }).toEqual({ file, mode: '600' });
  });
});
