import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  DECLINED_AT_VAULT,
  START,
  clock,
  createSession,
  db,
  expectProblem,
  other,
  submit,
  t,
  useWidgetService,
} from './fixtures.ts';

/**
 * The limit per client address (docs/design/hosted-pages.md, "Capture widget"): 20 failed submits from one address
 * in 10 minutes, across sessions and accounts; beyond, the frame's submits from it are refused 429. Every request of
 * this file comes from 127.0.0.1, on a service of its own.
 */

useWidgetService();

const get = (token: string) => ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${token}`);

describe('failed submits limited per client address', () => {
  it('refuses every submit from an address with 20 failures in 10 minutes, whichever the session or account', async () => {
    // Four sessions, two accounts, five failures each: each session locks, and the address has 20 failures.
    for (const account of [t, t, other, other]) {
      const session = await createSession(account);
      for (let attempt = 1; attempt <= 5; attempt++) {
        expectProblem(await submit(session.HashToken, { number: DECLINED_AT_VAULT }), 422, 'number');
      }
    }
    expect(await db().selectFrom('capture_address_failures').select('client_address').execute()).toHaveLength(
      20,
    );

    // A new session, with a good card: refused, and the session is untouched.
    clock.set('2026-03-15T10:04:00.000Z');
    const fresh = await createSession(t);
    const refused = await submit(fresh.HashToken);
    expectProblem(refused, 429);
    expect(refused.body.code).toBe('too_many_failed_attempts');
    // The oldest failure (10:00) leaves the window at 10:10: six minutes on.
    expect(refused.headers.get('retry-after')).toBe('360');
    const row = await db()
      .selectFrom('capture_sessions')
      .select(['state', 'failed_attempts'])
      .where('session_token', '=', fresh.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'open', failed_attempts: 0 });
    expect((await get(fresh.SessionToken)).State).toBe('open');
    // The challenge's answer is a submit too.
    const answer = await t.request('POST', `/widget/capture/${fresh.HashToken}/challenge`, {
      auth: false,
      body: { challengeId: 'a'.repeat(32), outcome: 'approve' },
    });
    expectProblem(answer, 429);

    // Ten minutes after the failures, the address may submit again.
    clock.set(new Date(Date.parse(START) + 10 * 60 * 1000).toISOString());
    const later = await submit(fresh.HashToken);
    expect(later.status, later.text).toBe(200);
    expect((await get(fresh.SessionToken)).State).toBe('captured');
  });

  it('forgets failures past the window: the table keeps no more than one window', async () => {
    clock.set('2026-03-15T10:30:00.000Z');
    const session = await createSession(t);
    expectProblem(await submit(session.HashToken, { number: DECLINED_AT_VAULT }), 422, 'number');
    const kept = await db().selectFrom('capture_address_failures').select('failed_at').execute();
    expect(kept).toHaveLength(1);
  });
});
