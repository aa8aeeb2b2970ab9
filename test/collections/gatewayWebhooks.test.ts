import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * POST /gateway-webhooks/{GatewayToken} (docs/gateways.md, "Late events and webhooks"): what any gateway answers
 * before its provider's signature is read. Each provider's signed webhooks are tested with its simulator
 * (test/providers/).
 */

const t = useTestService();

const post = (token: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/gateway-webhooks/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('POST /gateway-webhooks/{GatewayToken}', () => {
  it('answers 404 for a token no gateway has, the same whatever the body', async () => {
    for (const body of ['{}', 'not json', '']) {
      const res = await post('00000000-0000-4000-8000-000000000000', body);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('refuses a webhook to a gateway whose provider sends none, changing nothing', async () => {
    const [testGateway] = await ok(t, 'GET', '/v1/gateways');
    const res = await post(testGateway.GatewayToken, JSON.stringify({ event: 'charge.success' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'webhook_signature_invalid' });
    const events = await ok(t, 'GET', '/v1/events');
    expect(JSON.stringify(events)).not.toContain('payment.');
  });

  it('takes any content type as raw bytes and refuses a body over its limit', async () => {
    const [testGateway] = await ok(t, 'GET', '/v1/gateways');
    const form = await post(testGateway.GatewayToken, 'a=1&b=2', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(400);
    const huge = await post(testGateway.GatewayToken, 'x'.repeat(300 * 1024));
    expect(huge.status).toBe(413);
  });
});
