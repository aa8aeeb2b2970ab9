import { afterAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { killAll, runCli } from '../helpers/cli.ts';
import { createSession, expectProblem, submit, t, useWidgetService } from './fixtures.ts';

useWidgetService();
afterAll(() => killAll());

describe('a session whose gateway was disabled since', () => {
  it('takes no card and does not count the attempt against the customer', async () => {
    const session = await createSession(t);
    const [gateway] = await ok(t, 'GET', '/v1/gateways');
    const disabled = await runCli(['gateway', 'disable', String(gateway.gatewayID)], t.env, 60_000);
    expect(disabled.code, disabled.stderr).toBe(0);
    const res = await submit(session.HashToken);
    expectProblem(res, 409);
    expect(res.body.code).toBe('gateway_not_usable');
    const read = await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read).toMatchObject({ State: 'open', paymentMethodToken: null });
    const row = await t.service.storage.db
      .selectFrom('capture_sessions')
      .select(['failed_attempts', 'state'])
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ failed_attempts: 0, state: 'open' });
  });
});
