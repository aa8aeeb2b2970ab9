import crypto from 'node:crypto';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { optionalText } from '../../core/text.ts';
import { ConflictError, GoneError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { emitEvents } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { topUpInvoicesAmong } from '../credits/index.ts';
import { canCharge, capturesCards, gatewaysByIds, usableGatewayByToken } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { getInvoice, lockInvoicesForAllocation } from '../invoicing/index.ts';
import { noticePaymentCollected, settleLateCharge } from '../collections/index.ts';
import type { LateCharge } from '../collections/index.ts';
import { recordCollectedPayment, withLockedCustomer } from '../ledger/index.ts';
import { addBankAccount, addVaultedCard } from '../paymentMethods/index.ts';
import type { BankAccountInput } from '../paymentMethods/index.ts';
import { normaliseAuthDomain } from './authDomain.ts';
import {
  SALE_TYPES,
  VAULTING_TYPES,
  completeGraceOver,
  includesSale,
  parseExpiresIn,
  stateAt,
  typesConflict,
} from './captureSession.ts';
import type {
  CaptureSessionKey,
  CaptureSessionRecord,
  CaptureState,
  SaleType,
  SessionPurposeKind,
  StoredState,
  VaultingType,
} from './captureSession.ts';
import * as repo from './captureSession.repository.ts';

/** What a person may see of a captured card: never its number. */
export interface CapturedCard {
  cardType: string;
  lastFour: string;
  nameOnCard: string;
  lastNameOnCard: string;
  expiryMonth: number;
  expiryYear: number;
}

/** A capture session as the use cases answer it. */
export interface CaptureSession {
  id: number;
  accountId: number;
  /** The API key that made it (AppId). */
  apiKeyId: number | null;
  sessionToken: string;
  /** The browser's token, derived again from the SessionToken (only its SHA-256 is stored). */
  hashToken: string;
  extRef: string | null;
  currencyCode: string;
  vaultingType: VaultingType;
  saleType: SaleType;
  vaultOnlyOnSuccess: boolean;
  amountMinor: number | null;
  gatewayId: number;
  gatewayToken: string;
  authDomain: string;
  description: string | null;
  invoiceId: number | null;
  /** What it is for: keeping a card, paying `invoiceId`, buying credit through `invoiceId`, or a bare charge. */
  purpose: SessionPurposeKind;
  /** The reference of the setup or sale started at a provider (no secret); null for the test gateway's. */
  providerRef: string | null;
  state: CaptureState;
  failedAttempts: number;
  card: CapturedCard | null;
  /**
   * The kept card's token of our own, which its payment method keeps (docs/spec-decisions.md, "Payment-method
   * tokens"); null for a Sale, which keeps nothing. Never the vault's.
   */
  methodToken: string | null;
  chargeId: string | null;
  customerId: number | null;
  paymentMethodId: number | null;
  paymentId: number | null;
  createdAt: string;
  expiresAt: string;
}

export interface CaptureSessionInput {
  vaultingType: string;
  saleType: string;
  expiresIn: string;
  vaultOnlyOnSuccess: boolean;
  currencyCode: string;
  gatewayToken: string;
  authDomain: string;
  amount?: number | string | null;
  description?: string | null;
  extRef?: string | null;
  invoiceId?: number | null;
  /**
   * A sale of the invoice's balance (the portal's "Pay with a new card"): it charges at most what the invoice owes
   * when the card is submitted (captureInvoiceSale.ts). Not on the wire: a merchant's Amount is charged as sent.
   */
  upToOwed?: boolean;
}

export const DESCRIPTION_MAX = 255;

/** Events name a session by its iframeCapturePayID. */
export const captureSessionRef = (id: number) => ({ type: 'capture_session', id });

/** docs/design/hosted-pages.md, "Capture widget": only the SHA-256 of the browser's token is stored. */
export const sha256 = (text: string): string => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The HashToken of a session: a keyed digest of its SessionToken, so that it can be given again (GET, build)
 * without being stored, and cannot be made from the SessionToken without the service's key.
 */
export const hashTokenOf = (ctx: Pick<ServiceContext, 'secrets'>, sessionToken: string): string =>
  ctx.secrets.fingerprint(`capture-session:${sessionToken}`);

function sessionFromRecord(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
  gatewayToken: string,
  topUpInvoices: ReadonlySet<number>,
): CaptureSession {
  return {
    id: row.id,
    accountId: row.accountId,
    apiKeyId: row.apiKeyId,
    sessionToken: row.sessionToken,
    hashToken: hashTokenOf(ctx, row.sessionToken),
    extRef: row.extRef,
    currencyCode: row.currencyCode,
    vaultingType: row.vaultingType,
    saleType: row.saleType,
    vaultOnlyOnSuccess: row.vaultOnlyOnSuccess,
    amountMinor: row.amountMinor,
    gatewayId: row.gatewayId,
    gatewayToken,
    authDomain: row.authDomain,
    description: row.description,
    invoiceId: row.invoiceId,
    purpose: purposeOf(row, topUpInvoices),
    providerRef: row.providerRef,
    state: stateAt(row.state, row.expiresAt, nowInstant(ctx)),
    failedAttempts: row.failedAttempts,
    card:
      row.lastFour === null
        ? null
        : {
            cardType: row.cardType ?? '',
            lastFour: row.lastFour,
            nameOnCard: row.nameOnCard ?? '',
            lastNameOnCard: row.lastNameOnCard ?? '',
            expiryMonth: row.expiryMonth ?? 0,
            expiryYear: row.expiryYear ?? 0,
          },
    methodToken: row.methodToken,
    chargeId: row.chargeId,
    customerId: row.customerId,
    paymentMethodId: row.paymentMethodId,
    paymentId: row.paymentId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}

function purposeOf(row: CaptureSessionRecord, topUpInvoices: ReadonlySet<number>): SessionPurposeKind {
  if (!includesSale(row.saleType)) return 'save_card';
  if (row.invoiceId === null) return 'charge';
  return topUpInvoices.has(row.invoiceId) ? 'buy_credit' : 'pay_invoice';
}

async function assemble(ctx: ServiceContext, rows: CaptureSessionRecord[]): Promise<CaptureSession[]> {
  const gateways = await gatewaysByIds(ctx, [...new Set(rows.map((row) => row.gatewayId))]);
  const invoiceIds = rows.flatMap((row) => (row.invoiceId === null ? [] : [row.invoiceId]));
  const topUps = invoiceIds.length > 0 ? await topUpInvoicesAmong(ctx, invoiceIds) : new Set<number>();
  return rows.map((row) => sessionFromRecord(ctx, row, gateways.get(row.gatewayId)?.token ?? '', topUps));
}

export async function readCaptureSession(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
): Promise<CaptureSession> {
  const [session] = await assemble(ctx, [row]);
  return session!;
}

/** What events show of sessions (src/readModels/). */
export async function captureSessionsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, CaptureSession>> {
  const found = await assemble(ctx, await repo.findCaptureSessions(ctx.db, ctx.account.id, ids));
  return new Map(found.map((session) => [session.id, session]));
}

/** GET …/capturepaymethod/get/{SessionToken}: 404 for an unknown token or another account's. */
export async function getCaptureSession(ctx: ServiceContext, sessionToken: string): Promise<CaptureSession> {
  const row = await repo.findCaptureSessionByToken(ctx.db, ctx.account.id, sessionToken);
  if (!row) throw new NotFoundError('Capture session', '[token]');
  return readCaptureSession(ctx, row);
}

interface CheckedSession {
  vaultingType: VaultingType;
  saleType: SaleType;
  expiresInSeconds: number;
  currencyCode: string;
  gateway: Gateway;
  authDomain: string;
  amountMinor: number | null;
  description: string | null;
  extRef: string | null;
  invoiceId: number | null;
}

function oneOf<T extends string>(
  values: readonly T[],
  value: string,
  field: string,
  problems: FieldProblem[],
): T | undefined {
  if ((values as readonly string[]).includes(value)) return value as T;
  problems.push({ field, message: `must be one of ${values.join(', ')}` });
  return undefined;
}

/** The gateway a session names: the account's, usable, and able to keep cards (a real one would host its fields). */
async function captureGateway(
  ctx: ServiceContext,
  token: string,
  sells: boolean,
  problems: FieldProblem[],
): Promise<Gateway | undefined> {
  const gateway = await usableGatewayByToken(ctx, token, 'GatewayToken', problems);
  if (!gateway) return undefined;
  if (!capturesCards(gateway)) {
    // docs/design/hosted-pages.md, "Card data and PCI scope": only the test gateway's cards reach our server; a real
    // provider's are taken in its own hosted fields (docs/hosted-pages.md, "With a real provider").
    problems.push({
      field: 'GatewayToken',
      message: `gateway ${gateway.id} (${gateway.type}) cannot capture cards in the widget`,
    });
    return undefined;
  }
  if (sells && !canCharge(gateway)) {
    problems.push({
      field: 'GatewayToken',
      message: `gateway ${gateway.id} (${gateway.type}) cannot charge`,
    });
    return undefined;
  }
  return gateway;
}

/** The invoice a sale pays (beyond the spec): issued, not cancelled, and in the session's currency. */
async function checkInvoice(
  ctx: ServiceContext,
  invoiceId: number,
  currencyCode: string,
  problems: FieldProblem[],
): Promise<void> {
  const invoice = await getInvoice(ctx, invoiceId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!invoice) {
    problems.push({ field: 'invoiceID', message: `invoice ${invoiceId} was not found` });
  } else if (invoice.isDraft || invoice.isCancelled) {
    problems.push({
      field: 'invoiceID',
      message: `invoice ${invoiceId} is ${invoice.isDraft ? 'a draft' : 'cancelled'}`,
    });
  } else if (invoice.currencyCode !== currencyCode) {
    problems.push({
      field: 'invoiceID',
      message: `invoice ${invoiceId} is in ${invoice.currencyCode}, not ${currencyCode}`,
    });
  }
}

async function checkSession(ctx: ServiceContext, input: CaptureSessionInput): Promise<CheckedSession> {
  const problems: FieldProblem[] = [];
  const vaultingType = oneOf(VAULTING_TYPES, input.vaultingType, 'VaultingType', problems);
  const saleType = oneOf(SALE_TYPES, input.saleType, 'SaleType', problems);
  if (vaultingType && saleType) {
    const conflict = typesConflict(vaultingType, saleType);
    if (conflict) problems.push({ field: 'SaleType', message: conflict });
  }
  const expiresIn = parseExpiresIn(input.expiresIn);
  if ('refused' in expiresIn) problems.push({ field: 'ExpiresIn', message: expiresIn.refused });
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const sells = saleType !== undefined && includesSale(saleType);
  const gateway = await captureGateway(ctx, input.gatewayToken, sells, problems);
  const authDomain = normaliseAuthDomain(input.authDomain);
  if ('refused' in authDomain) problems.push({ field: 'AuthDomain', message: authDomain.refused });

  let amountMinor: number | null = null;
  const zero = input.amount !== undefined && input.amount !== null && Number(input.amount) === 0;
  if (input.amount !== undefined && input.amount !== null && !zero) {
    const read = wireAmountToMinor(input.amount, currencyCode);
    if ('message' in read) problems.push({ field: 'Amount', message: read.message });
    else amountMinor = read.minor;
  }
  if (saleType === 'VaultSale' && (zero || input.amount == null)) {
    // What a client copying the spec's only sample sends to save a card: the card is kept, verified by the gateway
    // (its vault's check, or a provider's setup), and nothing is charged (docs/spec-decisions.md, "Capture widget
    // sessions").
    amountMinor = null;
  } else if (saleType === 'Sale' && input.amount == null) {
    problems.push({ field: 'Amount', message: `is required when SaleType is ${saleType}` });
  } else if (saleType === 'Sale' && zero) {
    problems.push({ field: 'Amount', message: 'must be above 0 when SaleType is Sale' });
  } else if (saleType === 'VaultOnly' && input.amount != null) {
    problems.push({
      field: 'Amount',
      message: 'must be left out when SaleType is VaultOnly (nothing is charged)',
    });
  }
  const description = optionalText(input.description) ?? null;
  const extRef = optionalText(input.extRef) ?? null;
  const invoiceId = input.invoiceId ?? null;
  if (invoiceId !== null) {
    if (!sells)
      problems.push({ field: 'invoiceID', message: 'names the invoice a sale pays: SaleType must sell' });
    else await checkInvoice(ctx, invoiceId, currencyCode, problems);
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    vaultingType: vaultingType!,
    saleType: saleType!,
    expiresInSeconds: (expiresIn as { seconds: number }).seconds,
    currencyCode,
    gateway: gateway!,
    authDomain: (authDomain as { origin: string }).origin,
    amountMinor,
    description,
    extRef,
    invoiceId,
  };
}

/**
 * POST /v1/widgets/capturepaymethod/create: an open session with its SessionToken (at least 128 random bits; 192
 * here) for the merchant's server and its HashToken for the browser (docs/design/hosted-pages.md, "Capture
 * widget"). Nothing else is made until the customer submits the frame.
 */
export async function createCaptureSession(
  ctx: ServiceContext,
  input: CaptureSessionInput,
): Promise<CaptureSession> {
  return insertSession(ctx, input, await checkSession(ctx, input));
}

/** A session reused by openCaptureSessionFor has at least this long left: time to type a card. */
const REUSE_MIN_LEFT_MS = 10 * 60 * 1000;

/**
 * A session for a page that names its customer in `extRef` (the customer portal's): the newest open session of the
 * same ExtRef made for the same purpose (the same sale of the same invoice, or keeping a card) with at least
 * REUSE_MIN_LEFT_MS left, else a new one (docs/portal.md, "Paying and payment methods"). A page loaded again and
 * again makes one session and one `capture_session.created`, not one a load.
 */
export async function openCaptureSessionFor(
  ctx: ServiceContext,
  input: CaptureSessionInput & { extRef: string },
): Promise<CaptureSession> {
  const checked = await checkSession(ctx, input);
  const openAfter = new Date(Date.parse(nowInstant(ctx)) + REUSE_MIN_LEFT_MS).toISOString();
  const found = await repo.findOpenCaptureSessionFor(
    ctx.db,
    ctx.account.id,
    {
      extRef: input.extRef,
      currencyCode: checked.currencyCode,
      vaultingType: checked.vaultingType,
      saleType: checked.saleType,
      vaultOnlyOnSuccess: input.vaultOnlyOnSuccess,
      upToOwed: upToOwed(input, checked),
      amountMinor: checked.amountMinor,
      gatewayId: checked.gateway.id,
      authDomain: checked.authDomain,
      description: checked.description,
      invoiceId: checked.invoiceId,
    },
    openAfter,
  );
  return found ? readCaptureSession(ctx, found) : insertSession(ctx, input, checked);
}

const upToOwed = (input: CaptureSessionInput, checked: CheckedSession) =>
  checked.invoiceId !== null && input.upToOwed === true;

async function insertSession(
  ctx: ServiceContext,
  input: CaptureSessionInput,
  checked: CheckedSession,
): Promise<CaptureSession> {
  const sessionToken = `cs_${crypto.randomBytes(24).toString('base64url')}`;
  const now = nowInstant(ctx);
  const expiresAt = new Date(Date.parse(now) + checked.expiresInSeconds * 1000).toISOString();
  return withTransaction(ctx, async (tctx) => {
    const id = await repo.insertCaptureSession(tctx.db, {
      accountId: tctx.account.id,
      sessionToken,
      hashTokenSha256: sha256(hashTokenOf(tctx, sessionToken)),
      apiKeyId: tctx.actor?.kind === 'api_key' ? tctx.actor.apiKeyId : null,
      extRef: checked.extRef,
      currencyCode: checked.currencyCode,
      vaultingType: checked.vaultingType,
      saleType: checked.saleType,
      vaultOnlyOnSuccess: input.vaultOnlyOnSuccess,
      amountMinor: checked.amountMinor,
      gatewayId: checked.gateway.id,
      authDomain: checked.authDomain,
      description: checked.description,
      invoiceId: checked.invoiceId,
      upToOwed: upToOwed(input, checked),
      state: 'open' satisfies StoredState,
      createdAt: now,
      expiresAt,
      updatedAt: now,
    });
    await emitEvents(tctx, [{ type: 'capture_session.created', ref: captureSessionRef(id) }]);
    const row = await repo.findCaptureSessions(tctx.db, tctx.account.id, [id]);
    return readCaptureSession(tctx, row[0]!);
  });
}

/**
 * What the session captured, kept for the customer: a bank account as an add makes it (unproven: isValid false,
 * docs/spec-decisions.md, "Bank accounts"), a card from the vault; nothing for a Sale.
 */
async function keepMethod(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
  customerId: number,
): Promise<number | null> {
  if (row.methodType === 'bank_account' && row.bankAccountSealed !== null) {
    const details = JSON.parse(ctx.secrets.open(row.bankAccountSealed)) as BankAccountInput;
    return (await addBankAccount(ctx, { customerId, isPrimary: false, bankAccount: details })).id;
  }
  if (row.methodToken === null || row.methodVaultTokenSealed === null || row.lastFour === null) return null;
  return addVaultedCard(ctx, {
    customerId,
    gatewayId: row.gatewayId,
    token: row.methodToken,
    vaultTokenSealed: row.methodVaultTokenSealed,
    cardType: row.cardType ?? 'Unknown',
    lastFour: row.lastFour,
    nameOnCard: row.nameOnCard ?? '',
    lastNameOnCard: row.lastNameOnCard ?? '',
    expiryMonth: row.expiryMonth ?? 0,
    expiryYear: row.expiryYear ?? 0,
  });
}

/**
 * The sale's money as a payment of the customer (docs/spec-decisions.md, "Capture widget sessions"): allocated to
 * the session's invoice up to what it still owes, the rest unallocated; `lateMinor` is the part charged for an
 * invoice that was paid another way meanwhile (lateChargeOf).
 */
async function recordSale(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
  customerId: number,
  paymentMethodId: number | null,
): Promise<{ paymentId: number; events: EventToEmit[]; lateMinor: number } | null> {
  if (row.chargeId === null || row.amountMinor === null) return null;
  let allocateMinor = 0;
  if (row.invoiceId !== null) {
    const [target] = await lockInvoicesForAllocation(ctx, customerId, [row.invoiceId], []);
    if (target && target.customerId !== customerId) {
      throw new ConflictError(
        'capture_session_invoice_customer',
        `Capture session ${row.id} pays invoice ${row.invoiceId}, which is not customer ${customerId}'s`,
      );
    }
    allocateMinor = target && !target.refusal ? Math.max(0, Math.min(target.openMinor, row.amountMinor)) : 0;
  }
  const recorded = await recordCollectedPayment(ctx, {
    customerId,
    invoiceId: row.invoiceId,
    currencyCode: row.currencyCode,
    amountMinor: row.amountMinor,
    allocateMinor,
    date: today(ctx),
    method: 'credit_card',
    // The payment names its card only when the card is kept.
    paymentMethodId,
    state: row.chargeState === 'pending' ? 'pending' : 'settled',
    ref: row.chargeId,
    memo: row.description ?? `Capture session ${row.id}`,
  });
  return { ...recorded, lateMinor: lateChargeOf(row, allocateMinor) };
}

/**
 * How much of a settled sale that named an invoice came after the invoice was paid another way
 * (docs/hosted-pages.md, "When the browser never comes back"): a sale of the invoice's balance (the service's own
 * pages) owed all it charged when it was claimed, so whatever the invoice no longer takes is late; a merchant's sale
 * of a fixed Amount may mean to leave a rest as credit (docs/spec-decisions.md, "Capture widget sessions"), so only
 * a sale the invoice takes nothing of is late.
 */
function lateChargeOf(row: CaptureSessionRecord, allocateMinor: number): number {
  if (row.invoiceId === null || row.amountMinor === null || row.chargeState === 'pending') return 0;
  if (row.upToOwed) return row.amountMinor - allocateMinor;
  return allocateMinor === 0 ? row.amountMinor : 0;
}

/**
 * PUT /v1/widgets/capturepaymethod/complete: links what the session captured to the customer, under the
 * customer's lock then the session's: the card becomes a payment method of the customer, a sale a payment.
 * Idempotent for the same customer; 409 for another customer or a session that captured nothing; 410 once a
 * day has passed since Expires, unless the session charged (docs/design/hosted-pages.md, "Capture widget").
 */
export async function completeCaptureSession(
  ctx: ServiceContext,
  input: { customerId: number } & CaptureSessionKey,
): Promise<void> {
  const late = await recordCompletion(ctx, input);
  // After the commit: a refund asks the provider, which no transaction waits on. Only the completion that recorded
  // the payment finds it late, so it is settled once.
  if (late) await settleLateCharge(ctx, late);
}

/** The completion under the customer's lock then the session's; the late part of its sale, if any. */
function recordCompletion(
  ctx: ServiceContext,
  input: { customerId: number } & CaptureSessionKey,
): Promise<LateCharge | undefined> {
  return withLockedCustomer(ctx, input.customerId, async (tctx) => {
    const row = await repo.lockCaptureSession(tctx.db, tctx.account.id, input);
    if (!row) throw new NotFoundError('Capture session', '[token]');
    if (row.state === 'completed') {
      if (row.customerId === input.customerId) return undefined;
      throw new ConflictError(
        'capture_session_completed',
        `Capture session ${row.id} was completed for customer ${row.customerId}`,
      );
    }
    const now = nowInstant(tctx);
    // A session that took money is completed whenever the merchant comes: refusing it would leave a charge the
    // ledger never records (docs/spec-decisions.md, "Capture widget sessions").
    if (row.chargeId === null && completeGraceOver(row.expiresAt, now)) {
      throw new GoneError('capture_session_expired', `Capture session ${row.id} expired at ${row.expiresAt}`);
    }
    if (row.state !== 'captured') {
      throw new ConflictError(
        'capture_session_not_captured',
        `Capture session ${row.id} has captured nothing (${stateAt(row.state, row.expiresAt, now)})`,
      );
    }
    const paymentMethodId = await keepMethod(tctx, row, input.customerId);
    const sale = await recordSale(tctx, row, input.customerId, paymentMethodId);
    await repo.updateCaptureSession(tctx.db, tctx.account.id, row.id, {
      state: 'completed' satisfies StoredState,
      customerId: input.customerId,
      paymentMethodId: paymentMethodId,
      paymentId: sale?.paymentId ?? null,
      completedAt: now,
      updatedAt: now,
    });
    await emitEvents(tctx, [
      ...(sale?.events ?? []),
      { type: 'capture_session.completed', ref: captureSessionRef(row.id) },
    ]);
    // The customer's receipt for a sale that took the money (docs/gateways.md, "The collection loop"); the card is
    // named from the session when the customer did not keep it. A sale the invoice took nothing of is told by the
    // late charge's own notice instead (settleLateCharge).
    if (!sale || row.chargeState === 'pending') return undefined;
    const card = row.cardType && row.lastFour ? `${row.cardType} ending ${row.lastFour}` : undefined;
    if (sale.lateMinor < row.amountMinor!)
      await noticePaymentCollected(tctx, sale.paymentId, card ? { method: card } : {});
    if (sale.lateMinor <= 0) return undefined;
    return {
      paymentId: sale.paymentId,
      invoiceId: row.invoiceId!,
      amountMinor: sale.lateMinor,
      currencyCode: row.currencyCode,
      ...(card ? { card } : {}),
    };
  });
}
