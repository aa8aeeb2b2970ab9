import net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

/** The answer is a problem with `code`, carrying the headers every API answer carries. */
function expectProblem(response: ApiResponse, status: number, code: string, requestId?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(response.body).toMatchObject({
    type: `/problems/${code}`,
    status,
    code,
    Errors: [expect.anything()],
  });
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('cache-control')).toBe('no-store');
  if (requestId) expect(response.headers.get('x-request-id')).toBe(requestId);
  else expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
}

describe("what Fastify's router refuses is problem+json with the usual headers", () => {
  it('400 malformed_url for a path that is not a valid URL (a stray %)', async () => {
    for (const path of ['/v1/customers/%zz', '/v1/%E0%A4%A', '/v1/invoices/12%']) {
      const response = await t.request('GET', path, { headers: { 'x-request-id': 'bad-url' } });
      expectProblem(response, 400, 'malformed_url', 'bad-url');
      expect(response.body.detail).toContain('not a valid URL');
    }
  });

  it('414 path_segment_too_long for a path segment longer than any identifier', async () => {
    const response = await t.request('GET', `/v1/customers/${'9'.repeat(201)}`);
    expectProblem(response, 414, 'path_segment_too_long');
    expect(response.body.title).toBe('URI Too Long');
    expect((await t.request('GET', `/v1/customers/${'9'.repeat(200)}`)).status).not.toBe(414);
  });

  it('404 route_not_found for an unknown route', async () => {
    expectProblem(await t.request('GET', '/v1/no-such-thing'), 404, 'route_not_found');
    expectProblem(await t.request('PATCH', '/v1/customers'), 404, 'route_not_found');
  });

  it('415 and 400 for a body that is not JSON or not parseable', async () => {
    const notJson = await t.request('POST', '/v1/customers', {
      rawBody: 'Name=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(notJson, 415, 'unsupported_media_type');
    const garbledType = await t.request('POST', '/v1/customers', {
      rawBody: '{}',
      headers: { 'content-type': ';;;' },
    });
    expectProblem(garbledType, 415, 'unsupported_media_type');
    expectProblem(await t.request('POST', '/v1/customers', { rawBody: '{"Name":' }), 400, 'malformed_json');
  });
});

/** Writes `text` on a raw connection and resolves with the status, headers and body once the server closed it. */
function rawExchange(text: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = reply.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) });
    });
    socket.write(text);
  });
}

describe("what Node's HTTP parser refuses is problem+json too", () => {
  it('400 malformed_request for a request that is not HTTP', async () => {
    const reply = await rawExchange('HELLO THERE\r\n\r\n');
    expect(reply.status).toBe(400);
    expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.body).toMatchObject({ status: 400, code: 'malformed_request', Errors: [expect.anything()] });
  });

  it('431 headers_too_large for headers over the limit', async () => {
    const reply = await rawExchange(
      `GET /v1/customers HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(reply.status).toBe(431);
    expect(reply.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(reply.body).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('logs each refusal with its status', async () => {
    await rawExchange('HELLO THERE\r\n\r\n');
    const refusals = t.logs
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; res?: { statusCode: number } })
      .filter((entry) => entry.msg.startsWith('request refused'));
    expect(refusals.map((entry) => entry.res?.statusCode)).toContain(400);
  });
});
