import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { holdStatement, insertInto } from '../helpers/heldStatement.ts';
import type { HeldStatement } from '../helpers/heldStatement.ts';
import { startAnotherInstance } from '../helpers/service.ts';
import type { ApiResponse, ServiceInstance } from '../helpers/service.ts';
import {
  DECLINED_ON_CHARGE,
  VISA,
  clock,
  complete,
  createSession,
  db,
  expectProblem,
  submit,
  t,
  useWidgetService,
} from './fixtures.ts';
import { testGatewayCharges } from '../helpers/outside.ts';

/**
 * One submit at a time (docs/design/hosted-pages.md, "One submit at a time"). The first submit runs in a second
 * instance of the service whose gateway answer is held once the test gateway has made the charge: a slow gateway,
 * without a sleep. Both instances share one wall clock, which the test moves past the claim's two minutes.
 */

const wallClock = movableClock(systemClock.now().toISOString());
useWidgetService({ wallClock });

const MASTERCARD = '5555555555554444';
const CLAIM_RUNS_OUT_MS = 3 * 60 * 1000;

const get = (token: string) => ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${token}`);

let slow: ServiceInstance | undefined;
let slowAnswer: HeldStatement | undefined;

/** A second instance whose next charge at the test gateway is made, and its answer held until released. */
async function slowGatewayInstance(): Promise<{ instance: ServiceInstance; answer: HeldStatement }> {
  slowAnswer = holdStatement(insertInto('test_gateway_charges'));
  slow = await startAnotherInstance(t, { clock, wallClock, queryPlugins: [slowAnswer.plugin] });
  return { instance: slow, answer: slowAnswer };
}

afterEach(async () => {
  slowAnswer?.release();
  await slow?.close();
  slow = undefined;
  slowAnswer = undefined;
});

function submitTo(instance: ServiceInstance, hashToken: string, number: string): Promise<ApiResponse> {
  return instance.request('POST', `/widget/capture/${hashToken}/submit`, {
    auth: false,
    body: { number, expiry: '12/29', securityCode: '123', name: 'Ada Lovelace' },
  });
}

/** The test gateway's rows for a session's charges and refunds, as a provider's dashboard would list them. */
const gatewayRowsOf = (sessionId: number) =>
  testGatewayCharges(t, { idempotencyKeyLike: `capture-session:${sessionId}:%` });

describe('a submit while another holds the session', () => {
  it('is a 409 that changes nothing, and the first submit captures', async () => {
    const session = await createSession(t, { SaleType: 'VaultSale', Amount: 25, isVaultOnlyOnSuccess: true });
    const { instance, answer } = await slowGatewayInstance();
    const first = submitTo(instance, session.HashToken, VISA);
    await answer.reached;

    const second = await submit(session.HashToken, { number: MASTERCARD });
    expectProblem(second, 409);
    expect(second.body.code).toBe('capture_in_progress');

    answer.release();
    const captured = await first;
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ lastFour: '4242', charged: true });
    expect(await get(session.SessionToken)).toMatchObject({ State: 'captured' });
    // One charge: the refused submit reached no gateway.
    expect(await gatewayRowsOf(session.iframeCapturePayID)).toHaveLength(1);
  });
});

describe('a submit that outlived its claim', () => {
  it('records nothing over the submit that took the session over, and refunds its own charge', async () => {
    const customerId = await createCustomer(t);
    const session = await createSession(t, { SaleType: 'VaultSale', Amount: 25, isVaultOnlyOnSuccess: true });
    const { instance, answer } = await slowGatewayInstance();
    const first = submitTo(instance, session.HashToken, VISA);
    await answer.reached;

    // The claim lasts two minutes of wall time; three pass while the first submit's gateway is slow to answer.
    wallClock.set(new Date(wallClock.now().getTime() + CLAIM_RUNS_OUT_MS).toISOString());
    const second = await submit(session.HashToken, { number: MASTERCARD });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ lastFour: '4444', charged: true });

    answer.release();
    const late = await first;
    expectProblem(late, 409);
    expect(late.body.code).toBe('capture_in_progress');

    // The session is as the second submit left it.
    const read = await get(session.SessionToken);
    expect(read).toMatchObject({
      State: 'captured',
      paymentMethodToken: expect.stringMatching(/^pm_/),
    });
    const { method_vault_token_sealed: sealed, ...rows } = await db()
      .selectFrom('capture_sessions')
      .select(['last_four', 'state', 'claim_id', 'failed_attempts', 'method_vault_token_sealed'])
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(rows).toEqual({ last_four: '4444', state: 'captured', claim_id: null, failed_attempts: 0 });
    const keptToken = t.service.secrets.open(sealed!);

    // At the gateway: two charges of 25.00. The second's is the session's, on the card it keeps; the first's,
    // on the other card, is refunded whole, and nothing of the second's.
    const atGateway = await gatewayRowsOf(session.iframeCapturePayID);
    const charges = atGateway.filter((row) => row.outcome === 'succeeded');
    const refunds = atGateway.filter((row) => row.outcome === 'refunded');
    expect(charges).toHaveLength(2);
    const kept = charges.find((row) => row.chargeId === read.transactionID)!;
    const lost = charges.find((row) => row.chargeId !== read.transactionID)!;
    expect(kept.token).toBe(keptToken);
    expect(lost.token).not.toBe(keptToken);
    expect(refunds).toEqual([expect.objectContaining({ refundsChargeId: lost.chargeId, amountMinor: 2500 })]);

    // An operator sees it in the log, without a token or a card number.
    const line = t.logs.find((text) => text.includes('lost its claim'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      captureSessionId: session.iframeCapturePayID,
      step: 'capture',
      chargeId: lost.chargeId,
      undone: 'refunded',
    });
    expect(line).not.toMatch(/tok_test_|4242424242424242|5555555555554444/);

    // Complete records the second submit's sale, once.
    expect((await complete(t, customerId, session.SessionToken)).status).toBe(204);
    const payment = await ok(t, 'GET', `/v1/payments/${(await get(session.SessionToken)).paymentID}`);
    expect(payment).toMatchObject({ Amount: 25, Ref: read.transactionID });
  });

  it('counts no failed attempt over the submit that took the session over', async () => {
    const session = await createSession(t, { SaleType: 'VaultSale', Amount: 25, isVaultOnlyOnSuccess: true });
    const { instance, answer } = await slowGatewayInstance();
    const first = submitTo(instance, session.HashToken, DECLINED_ON_CHARGE);
    await answer.reached;

    wallClock.set(new Date(wallClock.now().getTime() + CLAIM_RUNS_OUT_MS).toISOString());
    const second = await submit(session.HashToken, { number: MASTERCARD });
    expect(second.status, second.text).toBe(200);

    answer.release();
    const late = await first;
    // Not a refusal with attempts left: the session is no longer this submit's to count against.
    expectProblem(late, 409);
    expect(late.body.code).toBe('capture_in_progress');
    const row = await db()
      .selectFrom('capture_sessions')
      .select(['state', 'failed_attempts', 'last_four'])
      .where('session_token', '=', session.SessionToken)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'captured', failed_attempts: 0, last_four: '4444' });
  });
});
