import crypto from 'node:crypto';
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { GatewayTimeoutError, chargeStoredMethod, refundCharge } from '../gateways/index.ts';
import type { ChargeResult, Gateway, SealedChargeRequest } from '../gateways/index.ts';
import type {
  CaptureSessionChanges,
  CaptureSessionRecord,
  ClaimedCaptureSession,
  StoredState,
} from './captureSession.ts';
import * as repo from './captureSession.repository.ts';

/**
 * A frame's submit (or challenge answer) holds its session by a claim while it waits on the gateway
 * (docs/design/hosted-pages.md, "One submit at a time"): claimed in one statement, every write that ends it made only
 * while the claim is still its own, and what a submit that lost its claim did at the gateway undone.
 */

/**
 * A submit's claim lasts this long (wall time): past it, another submit may take the session over
 * (docs/design/hosted-pages.md, "One submit at a time").
 */
const CLAIM_MS = 2 * 60 * 1000;

/** Another submit holds the session, or took it over from this one. */
const inProgress = () =>
  new ConflictError('capture_in_progress', 'Another submit of this session is under way');

/**
 * Claims the session for this submit under a new random claim id (repo.claimCaptureSession), or a 409 while another
 * submit holds it (docs/design/hosted-pages.md, "One submit at a time").
 */
export async function claimSession(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
): Promise<ClaimedCaptureSession> {
  // Wall time: the claim bounds how long a gateway's answer may take, which a test clock does not move.
  const wallNow = ctx.wallClock.now().getTime();
  const row = await repo.claimCaptureSession(ctx.db, ctx.account.id, found.id, {
    claimId: crypto.randomBytes(16).toString('hex'),
    wallNow: new Date(wallNow).toISOString(),
    claimedUntil: new Date(wallNow + CLAIM_MS).toISOString(),
    now: nowInstant(ctx),
  });
  if (!row) throw inProgress();
  return row;
}

/** Claims the session waiting on the challenge `challengeId` for its answer; undefined when none waits. */
export async function claimChallenge(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  challengeId: string,
): Promise<ClaimedCaptureSession | undefined> {
  // Wall time: the claim bounds how long a gateway's answer may take, which a test clock does not move.
  const wallNow = ctx.wallClock.now().getTime();
  return repo.claimCaptureChallenge(ctx.db, ctx.account.id, found.id, challengeId, {
    claimId: crypto.randomBytes(16).toString('hex'),
    claimedUntil: new Date(wallNow + CLAIM_MS).toISOString(),
    now: nowInstant(ctx),
  });
}

/**
 * Ends the claim with `changes` and clears it, only while this submit still holds it: false, with nothing written,
 * when another submit took the session over meanwhile.
 */
export function endClaim(
  ctx: ServiceContext,
  row: ClaimedCaptureSession,
  changes: Omit<CaptureSessionChanges, 'claimId' | 'claimTakeovers'>,
): Promise<boolean> {
  return repo.endCaptureClaim(ctx.db, ctx.account.id, row.id, row.claimId, changes);
}

/**
 * This submit outlived its claim and another submit took the session over (docs/design/hosted-pages.md, "One submit
 * at a time"): it recorded nothing over that submit. Logged for an operator (what it did at the gateway, never a
 * token or a number); the frame is told another submit is under way.
 */
export function claimLost(
  ctx: ServiceContext,
  row: ClaimedCaptureSession,
  step: string,
  details: Record<string, unknown> = {},
): ConflictError {
  ctx.log.warn(
    { captureSessionId: row.id, step, ...details },
    'capture submit lost its claim to a later submit: recorded nothing',
  );
  return inProgress();
}

/**
 * The idempotency key of the attempt's charges. One charge per session and attempt: a submit asked again after a
 * lost answer gets the first answer. A claim taken over from a submit that outlived it starts a key of its own, so
 * that the late submit's charge is apart from its successor's, and is refunded without touching it.
 */
export function attemptKey(row: ClaimedCaptureSession): string {
  const takeovers = row.claimTakeovers === 0 ? '' : `:takeover:${row.claimTakeovers}`;
  return `capture-session:${row.id}:${row.failedAttempts}${takeovers}`;
}

/**
 * Hands the session back as it was claimed without counting (the gateway did not answer: nothing is known): open,
 * or still waiting on its challenge. A submit that lost its claim hands back nothing; `details` (a charge's key
 * that got no answer) are logged for an operator.
 */
export async function releaseClaim(
  ctx: ServiceContext,
  row: ClaimedCaptureSession,
  details: Record<string, unknown> = {},
): Promise<void> {
  const held = await endClaim(ctx, row, {
    state: (row.challengeId === null ? 'open' : 'challenging') satisfies StoredState,
    updatedAt: nowInstant(ctx),
  });
  if (!held) claimLost(ctx, row, 'release', details);
}

/**
 * Charges the claimed session's sale. A charge that got no answer hands the claim back (releaseClaim) with its key
 * for the log, and the frame is told to try again: asked again under the same key, the gateway gives its first answer.
 */
export async function chargeUnderClaim(
  ctx: ServiceContext,
  gateway: Gateway,
  row: ClaimedCaptureSession,
  request: SealedChargeRequest,
): Promise<ChargeResult> {
  try {
    return await chargeStoredMethod(ctx, gateway, request);
  } catch (error) {
    await releaseClaim(ctx, row, { unanswered: request.idempotencyKey });
    if (error instanceof GatewayTimeoutError) {
      throw new ConflictError('gateway_no_answer', 'The payment could not be confirmed: try again');
    }
    throw error;
  }
}

/**
 * Refunds the whole of a charge this submit made and will not record, outside any transaction: the gateway
 * contract has no void, and a refund of all of it leaves nothing taken. Answers how it went, for the log; a refund
 * that did not go through is logged as an error, for an operator to refund by hand.
 */
export async function undoCharge(
  ctx: ServiceContext,
  gateway: Gateway,
  row: ClaimedCaptureSession,
  chargeId: string,
): Promise<string> {
  let undone: string;
  try {
    const result = await refundCharge(ctx, gateway, {
      chargeId,
      amountMinor: row.amountMinor ?? 0,
      currencyCode: row.currencyCode,
      // One refund per charge, however often this is asked.
      idempotencyKey: `capture-session:${row.id}:undo:${chargeId}`,
    });
    undone = result.outcome === 'succeeded' ? 'refunded' : `refund_${result.outcome}`;
  } catch (error) {
    undone = error instanceof GatewayTimeoutError ? 'refund_unanswered' : 'refund_failed';
  }
  if (undone !== 'refunded') {
    ctx.log.error(
      { captureSessionId: row.id, chargeId, undone },
      'capture submit that lost its claim could not refund its charge: refund it at the gateway',
    );
  }
  return undone;
}
