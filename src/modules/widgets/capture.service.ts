import crypto from 'node:crypto';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import {
  CARD_NUMBER_MAX_DIGITS,
  CARD_NUMBER_MIN_DIGITS,
  cardDigits,
  cardTypesOf,
  isLuhnValid,
} from '../gateways/index.ts';
import { ConflictError, DomainError, GoneError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { emitEvents } from '../events/index.ts';
import { getGateway, isGatewayUsable, vaultCard } from '../gateways/index.ts';
import type { CardToVault, Gateway } from '../gateways/index.ts';
import { newPaymentMethodToken } from '../paymentMethods/index.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../storage/database.ts';
import {
  ADDRESS_WINDOW_MS,
  MAX_FAILED_ATTEMPTS,
  MAX_FAILURES_PER_ADDRESS,
  includesSale,
  keepsMethod,
  stateAt,
} from './captureSession.ts';
import type { CaptureSessionRecord, ClaimedCaptureSession, StoredState } from './captureSession.ts';
import * as repo from './captureSession.repository.ts';
import {
  attemptKey,
  chargeUnderClaim,
  claimChallenge,
  claimLost,
  claimSession,
  endClaim,
  releaseClaim,
  undoCharge,
} from './captureClaim.ts';
import { claimForSale } from './captureInvoiceSale.ts';
import { captureSessionRef, sha256 } from './captureSession.service.ts';

/**
 * The frame's side of a capture session (docs/design/hosted-pages.md, "Capture widget"): the session found by its
 * HashToken, and a card submitted to it. No API key: the HashToken in the frame's URL is the capability, so a
 * submit is limited (locked after MAX_FAILED_ATTEMPTS failures) and answers nothing a card tester could use.
 */

/** The card as the frame posts it (the frame's own fields, not the spec's). */
export interface SubmittedCard {
  number: string;
  /** MM/YY or MM/YYYY. */
  expiry: string;
  securityCode: string;
  name: string;
}

/** A bank account as the frame posts it; the rail is the session's (bankRailFor). */
export interface SubmittedBankAccount {
  accountHolder: string;
  bank: string;
  accountType: string;
  accountNumber?: string;
  branchCode?: string;
  routingNumber?: string;
  iban?: string;
  bic?: string;
  /** A debit order's: the debtor's identity number and its kind (docs/gateways/netcash.md, "Account verification"). */
  idNumber?: string;
  idType?: string;
}

/** What the frame may tell the page: a display summary, never a token or a number. */
export type CaptureSummary =
  | {
      type: 'card';
      cardType: string;
      lastFour: string;
      expiryMonth: number;
      expiryYear: number;
      charged: boolean;
    }
  | { type: 'bank_account'; bank: string; lastFour: string; charged: false };

/**
 * The card's sale needs the cardholder's authentication (3-D Secure): the frame shows the challenge and answers it
 * with this id (docs/design/hosted-pages.md, "3-D Secure in the frame"). What a person may see, never a token.
 */
export interface CaptureChallenge {
  challenge: { id: string; cardType: string; lastFour: string };
}

/** The card as a person sees it, as the session keeps it once captured (or while a challenge waits). */
export interface CardShown {
  cardType: string;
  lastFour: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

export type SaleCharge = { chargeId: string; state: 'settled' | 'pending' };

/**
 * One message for a card the vault refused and a charge declined: telling them apart would tell a card tester how
 * far a stolen number got. The session's events and gateway calls keep which it was.
 */
const CARD_DECLINED = 'The card was declined';

/** A card may be at most this many years from expiring, as an added card (card.service.ts). */
const CARD_YEARS_AHEAD = 20;

/** The session whose HashToken this is, of any account (the caller then acts for that account). */
export function findSessionByHashToken(
  ctx: Pick<ServiceContext, 'db'>,
  hashToken: string,
): Promise<CaptureSessionRecord | undefined> {
  return repo.findCaptureSessionByHashDigest(ctx.db, sha256(hashToken));
}

/** Whether the frame can still take a card now, or why not (as the frame says it). */
export function openState(ctx: ServiceContext, row: CaptureSessionRecord) {
  return stateAt(row.state, row.expiresAt, nowInstant(ctx));
}

export function assertOpen(ctx: ServiceContext, row: CaptureSessionRecord): void {
  const state = openState(ctx, row);
  if (state === 'expired') throw new GoneError('capture_session_expired', 'The session has expired');
  if (state === 'locked') {
    throw new ConflictError('capture_session_locked', 'Too many failed attempts: the session is locked');
  }
  if (state !== 'open')
    throw new ConflictError('capture_session_captured', 'The session has captured already');
}

/** The frame's fields, checked as an added card is (card.service.ts), keyed by the frame's field names. */
function checkedCard(ctx: ServiceContext, input: SubmittedCard, problems: FieldProblem[]): CardToVault {
  const digits = cardDigits(input.number);
  if (
    digits === undefined ||
    digits.length < CARD_NUMBER_MIN_DIGITS ||
    digits.length > CARD_NUMBER_MAX_DIGITS ||
    !isLuhnValid(digits)
  ) {
    problems.push({ field: 'number', message: 'Enter a valid card number' });
  }
  const cardType = digits === undefined ? undefined : cardTypesOf(digits)[0];
  const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(input.expiry);
  let expiryMonth = 0;
  let expiryYear = 0;
  if (!expiry) {
    problems.push({ field: 'expiry', message: 'Enter the expiry as MM/YY' });
  } else {
    expiryMonth = Number(expiry[1]);
    expiryYear = expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
    const [thisYear, thisMonth] = today(ctx).split('-').map(Number) as [number, number];
    if (expiryMonth < 1 || expiryMonth > 12) {
      problems.push({ field: 'expiry', message: 'The month must be 01 to 12' });
    } else if (expiryYear < thisYear || (expiryYear === thisYear && expiryMonth < thisMonth)) {
      // A card is good to the end of its expiry month, in the account's time zone.
      problems.push({ field: 'expiry', message: 'The card has expired' });
    } else if (expiryYear > thisYear + CARD_YEARS_AHEAD) {
      problems.push({ field: 'expiry', message: 'Check the expiry year' });
    }
  }
  const codeLength = cardType === 'American Express' ? 4 : 3;
  if (!new RegExp(`^\\d{${codeLength}}$`).test(input.securityCode.trim())) {
    problems.push({ field: 'securityCode', message: `Enter the ${codeLength}-digit security code` });
  }
  const name = input.name.trim().replace(/\s+/g, ' ');
  if (name.length === 0 || name.length > 100)
    problems.push({ field: 'name', message: 'Enter the name on the card' });
  const words = name.split(' ');
  const lastNameOnCard = words.length > 1 ? words.pop()! : name;
  return {
    number: digits ?? '',
    cardType: cardType ?? 'Unknown',
    nameOnCard: words.join(' '),
    lastNameOnCard,
    expiryMonth,
    expiryYear,
  };
}

/**
 * A failed submit: counted, the session open again or locked after the last attempt, and told by events. The
 * frame's problem is thrown after; the count is committed whatever it says. A submit that lost its claim counts
 * nothing: the session is its successor's.
 */
export async function failAttempt(
  ctx: ServiceContext,
  row: ClaimedCaptureSession,
  reason: string,
): Promise<number> {
  return withTransaction(ctx, async (tctx) => {
    const failed = row.failedAttempts + 1;
    const locked = failed >= MAX_FAILED_ATTEMPTS;
    const held = await endClaim(tctx, row, {
      state: (locked ? 'locked' : 'open') satisfies StoredState,
      failedAttempts: failed,
      // A challenge the attempt ends (or a new card replaced) is gone, with the card it waited on.
      ...NO_CHALLENGE,
      updatedAt: nowInstant(tctx),
    });
    if (!held) throw claimLost(tctx, row, 'failed_attempt', { reason });
    tctx.log.info({ captureSessionId: row.id, failed, reason }, 'capture attempt failed');
    await emitEvents(tctx, [
      { type: 'capture_session.failed', ref: captureSessionRef(row.id) },
      ...(locked ? [{ type: 'capture_session.locked', ref: captureSessionRef(row.id) }] : []),
    ]);
    return MAX_FAILED_ATTEMPTS - failed;
  });
}

/** Attempts left, for the frame to show; never why the gateway declined (a card tester's answer). */
export function refused(left: number, problems: FieldProblem[]): ValidationError {
  const error = new ValidationError(problems, left > 0 ? 'capture_refused' : 'capture_session_locked');
  return Object.assign(error, { attemptsLeft: left });
}

const NO_CHALLENGE = {
  providerSetupSealed: null,
  challengeId: null,
  methodToken: null,
  methodVaultTokenSealed: null,
  cardType: null,
  lastFour: null,
  nameOnCard: null,
  lastNameOnCard: null,
  expiryMonth: null,
  expiryYear: null,
} as const;

/**
 * The session's gateway, or a 409 when it was disabled since the session was made: the claim is handed back
 * uncounted, as nothing is vaulted or charged and the attempt is not the customer's fault.
 */
export async function usableGateway(ctx: ServiceContext, row: ClaimedCaptureSession): Promise<Gateway> {
  const gateway = await getGateway(ctx, row.gatewayId);
  if (!isGatewayUsable(gateway)) {
    await releaseClaim(ctx, row);
    throw new ConflictError('gateway_not_usable', 'Payments cannot be taken here just now');
  }
  return gateway;
}

/**
 * The card put in the gateway's vault, answered by its token, sealed. The vault's refusal is a failed attempt, told as any
 * decline is; any other failure hands the claim back uncounted.
 */
async function vaultSubmittedCard(
  ctx: ServiceContext,
  gateway: Gateway,
  row: ClaimedCaptureSession,
  card: CardToVault,
): Promise<string> {
  try {
    const { sealedToken } = await vaultCard(ctx, gateway, card, 'number');
    return sealedToken;
  } catch (error) {
    if (!(error instanceof DomainError)) {
      await releaseClaim(ctx, row);
      throw error;
    }
    const left = await failAttempt(ctx, row, 'vault_declined');
    throw refused(left, [{ field: 'number', message: CARD_DECLINED }]);
  }
}

/** What a person may see of the card: the number only by its last four digits. */
function cardShownOf(card: CardToVault): CardShown {
  return {
    cardType: card.cardType,
    lastFour: card.number.slice(-4),
    nameOnCard: card.nameOnCard,
    lastNameOnCard: card.lastNameOnCard,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
  };
}

/**
 * POST /widget/capture/{HashToken}/submit: the card goes to the gateway's vault (the test gateway only,
 * docs/design/hosted-pages.md, "Card data and PCI scope"); a sale charges Amount; the session becomes captured
 * with what a person may see of the card. The number is in memory only: never stored, logged or echoed.
 */
export async function submitCard(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  input: SubmittedCard,
): Promise<CaptureSummary | CaptureChallenge> {
  assertOpen(ctx, found);
  const row = await claimForSale(ctx, found, (tctx) => claimSession(tctx, found));

  const problems: FieldProblem[] = [];
  const card = checkedCard(ctx, input, problems);
  if (problems.length > 0) throw refused(await failAttempt(ctx, row, 'invalid_fields'), problems);

  const gateway = await usableGateway(ctx, row);
  const sealedToken = await vaultSubmittedCard(ctx, gateway, row, card);

  const shown = cardShownOf(card);
  let charge: SaleCharge | undefined;
  if (includesSale(row.saleType) && row.amountMinor !== null) {
    const result = await chargeUnderClaim(ctx, gateway, row, {
      sealedToken,
      amountMinor: row.amountMinor,
      currencyCode: row.currencyCode,
      // A card that replaces one waiting on its challenge is a new charge (that card's was answered already).
      idempotencyKey: attemptKey(row) + (row.challengeId === null ? '' : `:after:${row.challengeId}`),
      description: row.description ?? `Capture session ${row.id}`,
    });
    if (result.outcome === 'declined' && result.reason === 'authentication_required') {
      // The shopper is here: the issuer's challenge, rather than a decline (docs/design/hosted-pages.md,
      // "3-D Secure in the frame").
      return awaitChallenge(ctx, row, shown, sealedToken);
    }
    if (result.outcome === 'succeeded' || result.outcome === 'pending') {
      charge = { chargeId: result.chargeId, state: result.outcome === 'succeeded' ? 'settled' : 'pending' };
    } else if (row.vaultOnlyOnSuccess || !keepsMethod(row.vaultingType)) {
      const left = await failAttempt(ctx, row, `charge_${result.outcome}`);
      throw refused(left, [{ field: 'number', message: CARD_DECLINED }]);
    }
    // Else (VaultSale, isVaultOnlyOnSuccess false): the card is kept although the sale was declined.
  }
  return recordCapturedCard(ctx, gateway, row, shown, sealedToken, charge);
}

/**
 * The session captured with the card as a person sees it, its token if kept, and the sale's charge if any. A submit
 * that lost its claim records nothing and refunds its charge (docs/design/hosted-pages.md, "One submit at a time").
 * A kept card is shown by a token of our own, its payment method's to be; the vault's token stays sealed
 * (docs/spec-decisions.md, "Payment-method tokens").
 */
export async function recordCapturedCard(
  ctx: ServiceContext,
  gateway: Gateway,
  row: ClaimedCaptureSession,
  card: CardShown,
  sealedToken: string | null,
  charge: SaleCharge | undefined,
): Promise<CaptureSummary> {
  const keep = keepsMethod(row.vaultingType) && sealedToken !== null;
  const held = await withTransaction(ctx, async (tctx) => {
    const now = nowInstant(tctx);
    const ended = await endClaim(tctx, row, {
      state: 'captured' satisfies StoredState,
      challengeId: null,
      providerSetupSealed: null,
      methodType: 'credit_card',
      methodToken: keep ? newPaymentMethodToken() : null,
      methodVaultTokenSealed: keep ? sealedToken : null,
      cardType: card.cardType,
      lastFour: card.lastFour,
      nameOnCard: card.nameOnCard,
      lastNameOnCard: card.lastNameOnCard,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      chargeId: charge?.chargeId ?? null,
      chargeState: charge?.state ?? null,
      capturedAt: now,
      updatedAt: now,
    });
    if (ended) await emitEvents(tctx, [{ type: 'capture_session.captured', ref: captureSessionRef(row.id) }]);
    return ended;
  });
  if (!held) {
    // The card stays in the gateway's vault, unused: the contract has no way to delete it.
    const undone = charge === undefined ? undefined : await undoCharge(ctx, gateway, row, charge.chargeId);
    throw claimLost(ctx, row, 'capture', { chargeId: charge?.chargeId, undone });
  }
  return {
    type: 'card',
    cardType: card.cardType,
    lastFour: card.lastFour,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    charged: charge !== undefined,
  };
}

/**
 * The session waits on the cardholder's challenge: its random id, the vault's token (sealed) and the card as a
 * person sees it are kept on the session (the server's word, never the browser's), until the frame answers the
 * challenge.
 */
export async function awaitChallenge(
  ctx: ServiceContext,
  row: ClaimedCaptureSession,
  card: CardShown,
  sealedToken: string,
): Promise<CaptureChallenge> {
  const challengeId = crypto.randomBytes(16).toString('hex');
  const held = await endClaim(ctx, row, {
    state: 'challenging' satisfies StoredState,
    challengeId,
    methodVaultTokenSealed: sealedToken,
    cardType: card.cardType,
    lastFour: card.lastFour,
    nameOnCard: card.nameOnCard,
    lastNameOnCard: card.lastNameOnCard,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    updatedAt: nowInstant(ctx),
  });
  // Nothing was charged (the issuer asked for the challenge first); the card stays in the vault, unused.
  if (!held) throw claimLost(ctx, row, 'challenge');
  ctx.log.info({ captureSessionId: row.id }, 'capture waits on the cardholder’s authentication');
  return { challenge: { id: challengeId, cardType: card.cardType, lastFour: card.lastFour } };
}

/**
 * POST /widget/capture/{HashToken}/challenge: the shopper's answer to the simulated 3-D Secure challenge
 * (docs/design/hosted-pages.md, "3-D Secure in the frame"). Approved, the sale is charged as authenticated and the
 * session captured as after any good card; failed, it is a failed attempt and the form takes a card again.
 */
export async function answerChallenge(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  input: { challengeId: string; approved: boolean },
): Promise<CaptureSummary> {
  assertOpen(ctx, found);
  const row = await claimForSale(ctx, found, (tctx) => claimChallenge(tctx, found, input.challengeId));
  if (!row) {
    throw ValidationError.field(
      'challengeId',
      'No such challenge waits on this session',
      'challenge_not_pending',
    );
  }
  if (!input.approved) {
    const left = await failAttempt(ctx, row, 'authentication_failed');
    throw refused(left, [{ field: 'number', message: 'Your bank did not confirm the payment' }]);
  }
  const shown: CardShown = {
    cardType: row.cardType ?? 'Unknown',
    lastFour: row.lastFour ?? '',
    nameOnCard: row.nameOnCard ?? '',
    lastNameOnCard: row.lastNameOnCard ?? '',
    expiryMonth: row.expiryMonth ?? 0,
    expiryYear: row.expiryYear ?? 0,
  };
  // claimChallenge found the session waiting on its challenge, which awaitChallenge keeps with the card's token.
  const sealedToken = row.methodVaultTokenSealed;
  if (sealedToken === null)
    throw new Error(`capture session ${row.id} waits on a challenge without its card`);
  const gateway = await usableGateway(ctx, row);
  const result = await chargeUnderClaim(ctx, gateway, row, {
    sealedToken,
    amountMinor: row.amountMinor ?? 0,
    currencyCode: row.currencyCode,
    // The authenticated charge of this attempt: asked again after a lost answer, it gets the first answer.
    idempotencyKey: `${attemptKey(row)}:authenticated`,
    description: row.description ?? `Capture session ${row.id}`,
    authenticated: true,
  });
  if (result.outcome !== 'succeeded' && result.outcome !== 'pending') {
    const left = await failAttempt(ctx, row, `charge_${result.outcome}`);
    throw refused(left, [{ field: 'number', message: 'The payment was declined' }]);
  }
  return recordCapturedCard(ctx, gateway, row, shown, sealedToken, {
    chargeId: result.chargeId,
    state: result.outcome === 'succeeded' ? 'settled' : 'pending',
  });
}

/**
 * What the limit per client address needs: the database its count lives in, shared by instances, and the service's
 * clock, not a session's account's: an address's failures span accounts, each of which may be on a test clock.
 */
export interface AddressLimitDeps {
  db: Db;
  clock: Clock;
}

/**
 * Seconds until `clientAddress` may submit to a frame again, or undefined when it may now (docs/design/
 * hosted-pages.md, "Capture widget": MAX_FAILURES_PER_ADDRESS failed submits in ADDRESS_WINDOW_MS, any session).
 */
async function addressRetryAfter(deps: AddressLimitDeps, clientAddress: string): Promise<number | undefined> {
  const now = deps.clock.now().getTime();
  const { count, oldest } = await repo.addressFailuresSince(
    deps.db,
    clientAddress,
    new Date(now - ADDRESS_WINDOW_MS).toISOString(),
  );
  if (count < MAX_FAILURES_PER_ADDRESS || oldest === null) return undefined;
  return Math.max(1, Math.ceil((Date.parse(oldest) + ADDRESS_WINDOW_MS - now) / 1000));
}

/** What opening a frame's request needs: the address limit's, and a context for the account a session names. */
export interface FrameRequestDeps extends AddressLimitDeps {
  /** A context acting for the account, as a request under /v1 acts for its key's. */
  contextFor(accountId: number): Promise<ServiceContext>;
}

/** A frame's submit or challenge answer, opened: the session its HashToken names, and its account's context. */
export interface FrameRequest {
  ctx: ServiceContext;
  session: CaptureSessionRecord;
}

/**
 * The first step of the frame's submit and challenge answer: the session the HashToken names (NotFound, of any
 * account), then the limit per client address (docs/design/hosted-pages.md, "Capture widget"), answered as the
 * seconds to wait, then a context acting for the session's account.
 */
export async function openFrameRequest(
  deps: FrameRequestDeps,
  hashToken: string,
  clientAddress: string,
): Promise<FrameRequest | { retryAfter: number }> {
  const session = await findSessionByHashToken(deps, hashToken);
  if (!session) throw new NotFoundError('Capture session', '[token]');
  const retryAfter = await addressRetryAfter(deps, clientAddress);
  if (retryAfter !== undefined) return { retryAfter };
  return { ctx: await deps.contextFor(session.accountId), session };
}

/** Counts a failed submit (or a failed challenge) against the address it came from. */
export async function countAddressFailure(deps: AddressLimitDeps, clientAddress: string): Promise<void> {
  const now = deps.clock.now().getTime();
  await repo.insertAddressFailure(deps.db, {
    clientAddress,
    failedAt: new Date(now).toISOString(),
    prunedBefore: new Date(now - ADDRESS_WINDOW_MS).toISOString(),
  });
}
