import type { ServiceContext } from '../../context.ts';
import { automaticMethodOf } from '../invoicing/index.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { DomainError, NotFoundError } from '../../errors.ts';
import { lastCollectionOf } from '../collections/index.ts';
import { getCustomer } from '../customers/index.ts';
import type { PayLinkClaims } from '../collections/index.ts';
import {
  capturesCards,
  findPrimaryGateway,
  getGateway,
  hostedFieldsOf,
  isGatewayUsable,
  usesHostedFields,
} from '../gateways/index.ts';
import type { Gateway, HostedFields } from '../gateways/index.ts';
import { getInvoice, pendingDebitsOf, setCollectionSchedule } from '../invoicing/index.ts';
import type { Invoice, PendingDebit } from '../invoicing/index.ts';
import { allocationsToTargets, paymentsByIds, withLockedCustomer } from '../ledger/index.ts';
import {
  getPaymentMethod,
  primaryPaymentMethodsOf,
  setPrimaryPaymentMethod,
} from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import {
  assertOpen,
  awaitChallenge,
  failAttempt,
  findSessionByHashToken,
  recordCapturedCard,
  refused,
  usableGateway,
} from './capture.service.ts';
import type { CaptureChallenge, CaptureSummary, CardShown } from './capture.service.ts';
import { attemptKey, chargeUnderClaim, claimSession } from './captureClaim.ts';
import { completeProviderSetup, startProviderSetup } from './captureProvider.service.ts';
import { claimForSale } from './captureInvoiceSale.ts';
import type { CaptureSession } from './captureSession.service.ts';
import {
  captureSessionsByIds,
  completeCaptureSession,
  openCaptureSessionFor,
} from './captureSession.service.ts';
import { findCaptureSessionByHashDigest, listChargedSessions } from './captureSession.repository.ts';
import type { CaptureSessionRecord } from './captureSession.ts';

/**
 * The hosted page that pays one invoice (docs/hosted-pages.md, "Paying one invoice"), opened by the signed link of
 * an e-mail: no portal account, the token names the invoice. It pays through capture sessions the server makes for
 * the invoice's customer, so that a sale is claimed, charged and recorded once whatever the browser does
 * (captureInvoiceSale.ts, captureClaim.ts): "Confirm payment" charges the stored card in a session that keeps
 * nothing, "Pay with another card" is the capture frame selling the invoice's balance and keeping the card.
 */

/** The ExtRef of the page's sessions: which invoice, and which of its two ways to pay. */
export const payPageExtRef = (invoiceId: number, way: 'confirm' | 'card') =>
  `pay:invoice:${invoiceId}:${way}`;

/**
 * The card whose charge the bank wants the cardholder to confirm, on session. `fields`: the provider's script the
 * page confirms with (Stripe's, Paystack's), absent for the test gateway, whose simulated challenge the page shows.
 */
export interface StoredCardOffer {
  method: PaymentMethod;
  gateway: Gateway;
  fields?: HostedFields;
}

/**
 * What the page's provider script does next for "Confirm payment" (docs/hosted-pages.md, "Paying one invoice"):
 * Stripe.js finishes the bank's challenge on the intent the server confirmed (`clientSecret`, `nextAction`),
 * Paystack's checkout takes the payment (`accessCode`). Never a token of ours.
 */
export interface ProviderAction {
  action: Record<string, string>;
}

/** What the page shows: the invoice, whether and when it was paid, and the ways left to pay it. */
export interface PayPage {
  invoice: Invoice;
  /** What the page may take now: the balance less what is already being debited or charged (pending). */
  owedMinor: number;
  /** Whether it owes nothing, not even what is pending. */
  paid: boolean;
  /** The date of the last payment applied to it, when it is paid. */
  paidOn: string | null;
  /** Its payments the bank has not paid yet: still due, but not to be paid here again (docs/hosted-pages.md). */
  pendingDebits: PendingDebit[];
  storedCard: StoredCardOffer | undefined;
  /** The gateway a new card is taken with, when the account has one that captures cards. */
  cardGateway: Gateway | undefined;
}

/**
 * The invoice the claims name, as the page shows it; undefined for one that does not exist (deleted), a draft or
 * a cancelled one: the page is then one that does not exist either.
 */
/** Whether a pay link shows the invoice: not a draft, nor cancelled. */
export function isShownOnPayPage(invoice: Pick<Invoice, 'isDraft' | 'isCancelled'>): boolean {
  return !invoice.isDraft && !invoice.isCancelled;
}

export async function readPayPage(ctx: ServiceContext, claims: PayLinkClaims): Promise<PayPage | undefined> {
  if (claims.accountId !== ctx.account.id) return undefined;
  const invoice = await getInvoice(ctx, claims.invoiceId).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!invoice || !isShownOnPayPage(invoice)) return undefined;
  const owedMinor = Math.max(0, invoice.balances.balanceMinor);
  const paid = invoice.balances.actualBalanceMinor <= 0;
  const pendingDebits = paid ? [] : ((await pendingDebitsOf(ctx, [invoice.id!])).get(invoice.id!) ?? []);
  // Nothing left to take: paid, or what it owes is already being debited (docs/hosted-pages.md, "Paying one
  // invoice": a pending debit is shown as due, and not offered to be paid twice).
  if (owedMinor === 0) {
    return {
      invoice,
      owedMinor,
      paid,
      paidOn: paid ? await lastPaidOn(ctx, invoice.id!) : null,
      pendingDebits,
      storedCard: undefined,
      cardGateway: undefined,
    };
  }
  const gateway = await findPrimaryGateway(ctx);
  return {
    invoice,
    owedMinor,
    paid: false,
    paidOn: null,
    pendingDebits,
    storedCard: await storedCardToConfirm(ctx, invoice),
    cardGateway: gateway && capturesCards(gateway) ? gateway : undefined,
  };
}

/** The date of the latest payment applied to the invoice; null when credit alone paid it. */
async function lastPaidOn(ctx: ServiceContext, invoiceId: number): Promise<string | null> {
  const allocations = (await allocationsToTargets(ctx, 'invoice', [invoiceId])).get(invoiceId) ?? [];
  const paymentIds = allocations.filter((a) => a.sourceType === 'payment').map((a) => a.sourceId);
  const payments = [...(await paymentsByIds(ctx, paymentIds)).values()];
  return (
    payments
      .map((payment) => payment.date)
      .sort()
      .at(-1) ?? null
  );
}

/**
 * The stored card to confirm the payment with: only when the invoice's last collection was declined because the
 * bank wants the cardholder (authentication_required) and that card is still the customer's primary and valid, on
 * a usable gateway whose challenge the page can show: the test gateway's simulated one, or a provider's own
 * (docs/hosted-pages.md, "Paying one invoice").
 */
async function storedCardToConfirm(
  ctx: ServiceContext,
  invoice: Invoice,
): Promise<StoredCardOffer | undefined> {
  const last = await lastCollectionOf(ctx, invoice.id!);
  if (last?.reason !== 'authentication_required') return undefined;
  const customerId = invoice.customer.id;
  const primary = (await primaryPaymentMethodsOf(ctx, [customerId])).get(customerId);
  if (primary?.paymentMethodId !== last.paymentMethodId) return undefined;
  const method = await getPaymentMethod(ctx, last.paymentMethodId);
  if (method.type !== 'credit_card' || !method.isValid || method.gatewayId === null) return undefined;
  const gateway = await getGateway(ctx, method.gatewayId).catch(() => undefined);
  if (!gateway || !isGatewayUsable(gateway)) return undefined;
  if (gateway.type === 'test') return { method, gateway };
  if (!usesHostedFields(gateway)) return undefined;
  const fields = await hostedFieldsOf(ctx, gateway, {
    amountMinor: Math.max(0, invoice.balances.balanceMinor),
    currencyCode: invoice.currencyCode,
    keepCard: false,
  });
  // A provider that ties a payment to an e-mail (Paystack) needs the customer's: the page has no field to ask it.
  if (fields.needsEmail && !hasEmail((await getCustomer(ctx, customerId)).email)) return undefined;
  return { method, gateway, fields };
}

const hasEmail = (email: string | null) => email !== null && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);

/** The session "Confirm payment" charges the stored card in: a sale of what the invoice owes, keeping nothing. */
export function confirmSession(ctx: ServiceContext, page: PayPage, origin: string): Promise<CaptureSession> {
  const { invoice, storedCard } = page;
  return openCaptureSessionFor(ctx, {
    vaultingType: 'None',
    saleType: 'Sale',
    vaultOnlyOnSuccess: false,
    expiresIn: '00:30:00',
    currencyCode: invoice.currencyCode,
    gatewayToken: storedCard!.gateway.token,
    authDomain: origin,
    amount: minorToDecimalText(page.owedMinor, invoice.currencyCode),
    invoiceId: invoice.id!,
    upToOwed: true,
    extRef: payPageExtRef(invoice.id!, 'confirm'),
    description: `Invoice ${invoice.invoiceNum ?? invoice.id}, confirmed by the customer`,
  });
}

/** The session of "Pay with another card": the frame sells what the invoice owes and keeps the card. */
export function newCardSession(ctx: ServiceContext, page: PayPage, origin: string): Promise<CaptureSession> {
  const { invoice } = page;
  return openCaptureSessionFor(ctx, {
    vaultingType: 'VaultGateway',
    saleType: 'VaultSale',
    vaultOnlyOnSuccess: true,
    expiresIn: '00:30:00',
    currencyCode: invoice.currencyCode,
    gatewayToken: page.cardGateway!.token,
    authDomain: origin,
    amount: minorToDecimalText(page.owedMinor, invoice.currencyCode),
    invoiceId: invoice.id!,
    upToOwed: true,
    extRef: payPageExtRef(invoice.id!, 'card'),
    description: `Invoice ${invoice.invoiceNum ?? invoice.id}`,
  });
}

/** One of the page's sessions for this invoice, by the HashToken the page holds; undefined for any other. */
export async function pageSession(
  ctx: ServiceContext,
  invoiceId: number,
  hashToken: string,
  way: 'confirm' | 'card',
): Promise<CaptureSessionRecord | undefined> {
  const row = await findSessionByHashToken(ctx, hashToken);
  const ours =
    row !== undefined &&
    row.accountId === ctx.account.id &&
    row.invoiceId === invoiceId &&
    row.extRef === payPageExtRef(invoiceId, way);
  return ours ? row : undefined;
}

/**
 * "Confirm payment": the stored card charged on session in the page's session, claimed as a frame's submit is
 * (one at a time, the invoice looked at again under its customer's lock). A bank that asks for the cardholder
 * answers the challenge the page shows (docs/hosted-pages.md, "3-D Secure"), answered as the frame's is.
 */
export async function confirmWithStoredCard(
  ctx: ServiceContext,
  invoice: Invoice,
  found: CaptureSessionRecord,
  offer: StoredCardOffer,
): Promise<CaptureSummary | CaptureChallenge | ProviderAction> {
  if (offer.fields) return confirmWithProvider(ctx, invoice, found, offer.method, offer.fields);
  assertOpen(ctx, found);
  const row = await claimForSale(ctx, found, (tctx) => claimSession(tctx, found));
  const gateway = await usableGateway(ctx, row);
  const card = offer.method.creditCard!;
  const shown: CardShown = {
    cardType: card.cardType,
    lastFour: card.lastFour,
    nameOnCard: card.nameOnCard,
    lastNameOnCard: card.lastNameOnCard,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
  };
  const result = await chargeUnderClaim(ctx, gateway, row, {
    sealedToken: offer.method.vaultTokenSealed!,
    amountMinor: row.amountMinor!,
    currencyCode: row.currencyCode,
    idempotencyKey: attemptKey(row),
    description: row.description ?? `Capture session ${row.id}`,
  });
  if (result.outcome === 'declined' && result.reason === 'authentication_required') {
    return awaitChallenge(ctx, row, shown, offer.method.vaultTokenSealed!);
  }
  if (result.outcome !== 'succeeded' && result.outcome !== 'pending') {
    const left = await failAttempt(ctx, row, `charge_${result.outcome}`);
    throw refused(left, [{ field: 'number', message: 'The payment was declined' }]);
  }
  const summary = await recordCapturedCard(ctx, gateway, row, shown, null, {
    chargeId: result.chargeId,
    state: result.outcome === 'succeeded' ? 'settled' : 'pending',
  });
  // Recorded now, not when the browser comes back: a tab closed after the charge still leaves the payment.
  await completePagePayment(ctx, invoice, row);
  return summary;
}

/**
 * "Confirm payment" with a provider (docs/hosted-pages.md, "Paying one invoice"), through the capture frame's
 * provider steps (captureProvider.service.ts), so that one submit holds the session and the outcome is asked of
 * the provider, never taken from the browser. Stripe charges the stored card on session: a bank that lets it
 * through is recorded at once; one that asks for the cardholder leaves the intent for Stripe.js's
 * `handleNextAction` in the page. Paystack cannot confirm a stored authorization on session (docs/spec-decisions.md,
 * "Confirming a stored card with a provider"): its checkout takes the payment, asking the bank itself. A second
 * press answers the first one's action (one intent, one transaction per attempt).
 */
async function confirmWithProvider(
  ctx: ServiceContext,
  invoice: Invoice,
  found: CaptureSessionRecord,
  method: PaymentMethod,
  fields: HostedFields,
): Promise<CaptureSummary | ProviderAction> {
  const sealedStoredToken = fields.confirmsStoredCard ? (method.vaultTokenSealed ?? undefined) : undefined;
  const { confirm } = await startProviderSetup(
    ctx,
    found,
    sealedStoredToken === undefined ? {} : { sealedStoredToken },
  );
  if (sealedStoredToken !== undefined && confirm.nextAction === undefined) {
    // Charged without a challenge: nothing for the browser to do but come back to a paid page.
    const started = await findCaptureSessionByHashDigest(ctx.db, found.hashTokenSha256);
    const summary = await completeProviderSetup(ctx, started ?? found);
    await completePagePayment(ctx, invoice, found);
    return summary;
  }
  return { action: { provider: fields.provider, ...confirm } };
}

/**
 * POST /pay/{token}/complete for "Confirm payment": a provider's confirmation the page finished (or gave up on) is
 * asked of the provider and, taken, recorded; then completed as any sale of the page. The provider's webhook on
 * the same charge records nothing more (docs/gateways.md, "The collection loop"): the payment is found by its Ref.
 */
export async function completeConfirmedPayment(
  ctx: ServiceContext,
  invoice: Invoice,
  found: CaptureSessionRecord,
): Promise<boolean> {
  if (found.state === 'open' && found.providerSetupSealed !== null) await completeProviderSetup(ctx, found);
  return completePagePayment(ctx, invoice, found);
}

/**
 * The page's "Confirm payment" a provider was left to finish when the tab closed (a challenge passed, nothing
 * recorded): asked of the provider when the page is opened again, and recorded when it went through. False when
 * there is none, or it did not go through (a decline is counted as the session's failed attempt).
 */
export async function completeStartedConfirm(
  ctx: ServiceContext,
  page: PayPage,
  origin: string | undefined,
): Promise<boolean> {
  if (!origin || !page.storedCard?.fields) return false;
  // A session the account's settings refuse now is a page without "Confirm payment": nothing was started.
  const session = await confirmSession(ctx, page, origin).catch((error: unknown) => {
    if (error instanceof DomainError) return undefined;
    throw error;
  });
  const row = session && (await pageSession(ctx, page.invoice.id!, session.hashToken, 'confirm'));
  if (!row || row.state !== 'open' || row.providerSetupSealed === null) return false;
  try {
    return await completeConfirmedPayment(ctx, page.invoice, row);
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/**
 * The page's sessions of this invoice that charged and were not completed (the tab closed before it came back),
 * completed now: opening the page again records what was taken (docs/hosted-pages.md, "Paying one invoice").
 */
export async function completeChargedSessions(ctx: ServiceContext, invoice: Invoice): Promise<boolean> {
  const charged = await listChargedSessions(ctx.db, ctx.account.id, invoice.id!, [
    payPageExtRef(invoice.id!, 'confirm'),
    payPageExtRef(invoice.id!, 'card'),
  ]);
  for (const row of charged) await completePagePayment(ctx, invoice, row);
  return charged.length > 0;
}

/**
 * A captured session of the page completed for the invoice's customer: the sale becomes a payment allocated to
 * the invoice (once: complete is idempotent for one customer), a new card becomes the customer's primary, and the
 * invoice's automatic tries stop as after a successful collection. False while nothing was captured yet.
 */
export async function completePagePayment(
  ctx: ServiceContext,
  invoice: Invoice,
  row: CaptureSessionRecord,
): Promise<boolean> {
  const customerId = invoice.customer.id;
  try {
    await completeCaptureSession(ctx, { customerId, sessionToken: row.sessionToken });
  } catch (error) {
    if (error instanceof DomainError && error.code === 'capture_session_not_captured') return false;
    throw error;
  }
  const session = (await captureSessionsByIds(ctx, [row.id])).get(row.id);
  if (session?.paymentMethodId != null)
    await primaryUnlessOtherKind(ctx, customerId, session.paymentMethodId);
  const paid = (await getInvoice(ctx, invoice.id!)).balances.balanceMinor <= 0;
  if (paid) {
    await withLockedCustomer(ctx, customerId, (tctx) =>
      setCollectionSchedule(tctx, invoice.id!, { addTry: false, nextTryDate: null }),
    );
  }
  return true;
}

/**
 * The card taken to pay is the one to charge from now on when the customer is charged by card, or has no primary
 * of the kind it is collected by; a debit-order customer's bank account stays primary and the card is kept beside
 * it (docs/hosted-pages.md, "Paying one invoice"): a card primary would block every later debit.
 */
async function primaryUnlessOtherKind(
  ctx: ServiceContext,
  customerId: number,
  paymentMethodId: number,
): Promise<void> {
  const method = await getPaymentMethod(ctx, paymentMethodId);
  if (method.isPrimary) return;
  const collectedBy = automaticMethodOf((await getCustomer(ctx, customerId)).paymentMethod);
  if (collectedBy === 'debit_order') {
    const primary = (await primaryPaymentMethodsOf(ctx, [customerId])).get(customerId);
    const primaryType = primary && (await getPaymentMethod(ctx, primary.paymentMethodId)).type;
    if (primaryType === 'bank_account') return;
  }
  await setPrimaryPaymentMethod(ctx, method.id);
}
