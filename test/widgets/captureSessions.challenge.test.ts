import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { ApiResponse } from '../helpers/service.ts';
import {
  VISA,
  clock,
  complete,
  createSession,
  db,
  expectProblem,
  other,
  submit,
  t,
  useWidgetService,
} from './fixtures.ts';

/**
 * The simulated 3-D Secure challenge (docs/design/hosted-pages.md, "3-D Secure in the frame"): a card the test
 * gateway answers `authentication_required` for (docs/gateways.md) waits on the session for the shopper's answer.
 */

useWidgetService();

/** docs/gateways.md, "The test gateway's cards": kept, its charge needs the cardholder's authentication. */
const NEEDS_AUTHENTICATION = '4000002500003155';
const ALWAYS_AUTHENTICATE = '4000002760003184';

const get = (token: string) => ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${token}`);

function answer(hashToken: string, challengeId: unknown, outcome: unknown): Promise<ApiResponse> {
  return t.request('POST', `/widget/capture/${hashToken}/challenge`, {
    auth: false,
    body: { challengeId, outcome },
  });
}

async function challenged(body: Record<string, unknown> = {}, number = NEEDS_AUTHENTICATION) {
  const session = await createSession(t, {
    SaleType: 'VaultSale',
    Amount: 30,
    isVaultOnlyOnSuccess: true,
    ...body,
  });
  const res = await submit(session.HashToken, { number });
  expect(res.status, res.text).toBe(200);
  return { session, challenge: res.body.challenge as { id: string; cardType: string; lastFour: string } };
}

describe('a card whose sale needs the cardholder’s authentication', () => {
  it('answers a challenge, and holds it on the session, not in the browser', async () => {
    const { session, challenge } = await challenged();
    expect(challenge).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      cardType: 'Visa',
      lastFour: '3155',
    });
    const row = await db()
      .selectFrom('capture_sessions')
      .selectAll()
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'challenging', challenge_id: challenge.id, charge_id: null });
    // The card's vault token waits sealed; no token of our own is shown before the card is captured.
    expect(row.method_token).toBeNull();
    expect(t.service.secrets.open(row.method_vault_token_sealed!)).toMatch(/^tok_test_/);
    // Waiting on the shopper is still open to the merchant, with nothing captured yet.
    expect(await get(session.SessionToken)).toMatchObject({ State: 'open', transactionID: null });
  });

  it('approved, charges the sale and captures the card as any good card', async () => {
    const customerId = await createCustomer(t);
    const { session, challenge } = await challenged();
    const res = await answer(session.HashToken, challenge.id, 'approve');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      type: 'card',
      cardType: 'Visa',
      lastFour: '3155',
      expiryMonth: 12,
      expiryYear: 2029,
      charged: true,
    });
    const read = await get(session.SessionToken);
    expect(read).toMatchObject({ State: 'captured', transactionID: expect.stringMatching(/^ch_test_/) });
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const done = await get(session.SessionToken);
    expect(await ok(t, 'GET', `/v1/payments/${done.paymentID}`)).toMatchObject({
      Amount: 30,
      Method: 'credit_card',
    });
    // Answered once: the challenge is gone.
    expectProblem(await answer(session.HashToken, challenge.id, 'approve'), 409);
  });

  it('failed, is a failed attempt with the card dropped; the shopper may try again', async () => {
    const { session, challenge } = await challenged({}, ALWAYS_AUTHENTICATE);
    const res = await answer(session.HashToken, challenge.id, 'fail');
    expectProblem(res, 422, 'number');
    expect(res.body).toMatchObject({ code: 'capture_refused', attemptsLeft: 4 });
    expect(res.body.fields[0].message).toBe('Your bank did not confirm the payment');
    const row = await db()
      .selectFrom('capture_sessions')
      .selectAll()
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      state: 'open',
      challenge_id: null,
      method_token: null,
      method_vault_token_sealed: null,
      failed_attempts: 1,
    });
    // The same challenge cannot be answered again, and changes nothing.
    expectProblem(await answer(session.HashToken, challenge.id, 'approve'), 422, 'challengeId');
    expect((await get(session.SessionToken)).State).toBe('open');
    // Another card, in the same session.
    const again = await submit(session.HashToken, { number: VISA });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ lastFour: '4242', charged: true });
  });

  it('a challenge left for another card is replaced by it', async () => {
    const { session, challenge } = await challenged();
    const again = await submit(session.HashToken, { number: VISA });
    expect(again.body).toMatchObject({ lastFour: '4242', charged: true });
    expectProblem(await answer(session.HashToken, challenge.id, 'approve'), 409);
    expect((await get(session.SessionToken)).State).toBe('captured');
  });

  it('a session that sells nothing keeps the card without a challenge (authentication comes with a charge)', async () => {
    const session = await createSession(t);
    const res = await submit(session.HashToken, { number: NEEDS_AUTHENTICATION });
    expect(res.body).toMatchObject({ type: 'card', lastFour: '3155', charged: false });
  });

  it('refuses a malformed or unknown challenge answer with a 422 naming the field, changing nothing', async () => {
    const { session, challenge } = await challenged();
    expectProblem(await answer(session.HashToken, 'nope', 'approve'), 422, 'challengeId');
    expectProblem(await answer(session.HashToken, challenge.id, 'maybe'), 422, 'outcome');
    expectProblem(await answer(session.HashToken, 'a'.repeat(32), 'approve'), 422, 'challengeId');
    // Another session's HashToken does not reach this challenge.
    const { session: elsewhere } = await challenged();
    expectProblem(await answer(elsewhere.HashToken, challenge.id, 'approve'), 422, 'challengeId');
    const row = await db()
      .selectFrom('capture_sessions')
      .select(['state', 'failed_attempts', 'challenge_id'])
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'challenging', failed_attempts: 0, challenge_id: challenge.id });
    expectProblem(await answer('0'.repeat(64), challenge.id, 'approve'), 404);
  });

  it('another account’s session is apart: its challenge is its own', async () => {
    const session = await createSession(other, { SaleType: 'Sale', VaultingType: 'None', Amount: 5 });
    const res = await submit(session.HashToken, { number: NEEDS_AUTHENTICATION });
    expect(res.body.challenge.id).toMatch(/^[0-9a-f]{32}$/);
    const approved = await answer(session.HashToken, res.body.challenge.id, 'approve');
    expect(approved.body).toMatchObject({ charged: true, lastFour: '3155' });
  });

  it('takes no answer after Expires', async () => {
    const { session, challenge } = await challenged({ ExpiresIn: '00:10:00' });
    clock.set(new Date(Date.parse(session.Expires)).toISOString());
    expectProblem(await answer(session.HashToken, challenge.id, 'approve'), 410);
  });

  it('keeps no card number in the database or the logs', async () => {
    const dumps: unknown[] = [];
    for (const table of [
      'capture_sessions',
      'gateway_calls',
      'test_gateway_vault',
      'test_gateway_charges',
    ] as const) {
      dumps.push(await db().selectFrom(table).selectAll().execute());
    }
    const text = JSON.stringify(dumps) + t.logs.join('');
    for (const number of [NEEDS_AUTHENTICATION, ALWAYS_AUTHENTICATE]) expect(text).not.toContain(number);
  });
});
