import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/service.ts';
import type { ApiResponse } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

interface LogEntry {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

function entries(): LogEntry[] {
  return t.logs
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

/** The lines logged for the request `response` answered, once its completion line is there. */
async function linesOf(response: ApiResponse): Promise<LogEntry[]> {
  const reqId = response.headers.get('x-request-id');
  expect(reqId).toBeTruthy();
  return eventually(() => {
    const lines = entries().filter((entry) => entry.reqId === reqId);
    return lines.some((entry) => entry.msg === 'request completed') ? lines : undefined;
  });
}

/** Exactly one completion line, with the method, URL, status and time of the request. */
async function expectLogged(response: ApiResponse, method: string, url: string): Promise<void> {
  const completed = (await linesOf(response)).filter((entry) => entry.msg === 'request completed');
  expect(completed).toEqual([
    expect.objectContaining({
      level: 30,
      req: expect.objectContaining({ method, url }),
      res: { statusCode: response.status },
      responseTime: expect.any(Number),
    }),
  ]);
}

const VISA = '4242424242424242';

describe('every request is logged once answered, with method, URL, status and time', () => {
  it('a 200', async () => {
    const response = await t.request('GET', '/v1/customers?limit=5');
    expect(response.status).toBe(200);
    await expectLogged(response, 'GET', '/v1/customers?limit=5');
  });

  it('a 404 for an unknown id and one for an unknown route', async () => {
    const unknownId = await t.request('GET', '/v1/customers/999999');
    expect(unknownId.status).toBe(404);
    await expectLogged(unknownId, 'GET', '/v1/customers/999999');
    const unknownRoute = await t.request('DELETE', '/v1/no-such-thing');
    expect(unknownRoute.status).toBe(404);
    await expectLogged(unknownRoute, 'DELETE', '/v1/no-such-thing');
  });

  it('a 422, without the body it refused (a card number)', async () => {
    const response = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: { customerID: 'not a number', CreditCard: { Number: VISA, ExpiryMonth: 12, ExpiryYear: 2030 } },
    });
    expect(response.status).toBe(422);
    await expectLogged(response, 'POST', '/v1/paymentmethods/creditcard');
    expect(t.logs.join('')).not.toContain(VISA);
  });

  it('a 401 refused before authentication, without the credentials it was sent', async () => {
    const none = await t.request('GET', '/v1/customers', { auth: false });
    expect(none.status).toBe(401);
    await expectLogged(none, 'GET', '/v1/customers');
    const wrongKey = 'sk_wrong_0123456789abcdef';
    const wrong = await t.request('GET', '/v1/invoices', {
      auth: { accountId: t.accountId, apiKey: wrongKey },
    });
    expect(wrong.status).toBe(401);
    await expectLogged(wrong, 'GET', '/v1/invoices');
    const bearer = await t.request('GET', '/v1/invoices', { auth: { bearer: t.apiKey } });
    await expectLogged(bearer, 'GET', '/v1/invoices');
    const logs = t.logs.join('');
    expect(logs).not.toContain(wrongKey);
    expect(logs).not.toContain(t.apiKey);
    expect(logs).not.toContain(Buffer.from(`${t.accountId}:${t.apiKey}`).toString('base64'));
    expect(logs).not.toContain(Buffer.from(`${t.accountId}:${wrongKey}`).toString('base64'));
  });

  it('a request the router refuses: a malformed URL (400) and an overlong path segment (414)', async () => {
    const malformed = await t.request('GET', '/v1/customers/%zz');
    expect(malformed.status).toBe(400);
    await expectLogged(malformed, 'GET', '/v1/customers/%zz');
    const overlong = `/v1/customers/${'9'.repeat(300)}`;
    const tooLong = await t.request('GET', overlong);
    expect(tooLong.status).toBe(414);
    await expectLogged(tooLong, 'GET', overlong);
  });

  it('logs the arrival of a request only at debug level, so one line a request remains at info', async () => {
    const response = await t.request('GET', '/v1/customers');
    const lines = await linesOf(response);
    expect(lines.map((entry) => entry.msg)).toEqual(['request completed']);
  });
});
