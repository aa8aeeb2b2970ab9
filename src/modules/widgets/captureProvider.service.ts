import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, DomainError, ValidationError } from '../../errors.ts';
import { getCustomer } from '../customers/index.ts';
import {
  GatewayTimeoutError,
  completeCardSetup,
  getGateway,
  hostedFieldsOf,
  startCardSetup,
  usesHostedFields,
} from '../gateways/index.ts';
import type { Gateway, HostedFields, PayerDetails, SealedCardSetupResult } from '../gateways/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import { assertOpen, failAttempt, recordCapturedCard, refused, usableGateway } from './capture.service.ts';
import type { CaptureSummary } from './capture.service.ts';
import { attemptKey, claimLost, claimSession, endClaim, releaseClaim } from './captureClaim.ts';
import { claimForSale } from './captureInvoiceSale.ts';
import { includesSale, keepsMethod } from './captureSession.ts';
import type { CaptureSessionRecord, ClaimedCaptureSession, StoredState } from './captureSession.ts';

/**
 * The capture frame on a provider's hosted fields (docs/hosted-pages.md, "With a real provider"): the card number
 * goes from the customer's browser to the provider, never to us. The frame loads the provider's script with what
 * `frameHostedFields` says (no call to the provider); on submit, `startProviderSetup` starts the setup (or the
 * sale) at the provider and hands the frame what its script confirms it with; then `completeProviderSetup` asks
 * the provider, server-side, how it went, and the session is captured as after our own fields. The browser's word
 * is never taken: only the setup reference the service kept is looked up.
 */

/** The setup the session started at the provider, sealed on the session until it is completed or fails. */
interface ProviderSetup {
  setupRef: string;
  confirm: Record<string, string>;
}

/** What the frame shows of a card the provider refused: never why (a card tester's answer, capture.service.ts). */
const CARD_DECLINED = 'The card was declined';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The sale's amount, or undefined for a card saved without one. */
const saleAmount = (row: CaptureSessionRecord) =>
  includesSale(row.saleType) && row.amountMinor !== null ? row.amountMinor : undefined;

/** What the frame loads for the session's gateway, or undefined when it takes cards in our own fields. */
export async function frameHostedFields(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
): Promise<{ fields: HostedFields; emailKnown: boolean } | undefined> {
  const gateway = await getGateway(ctx, row.gatewayId);
  if (!usesHostedFields(gateway)) return undefined;
  const amountMinor = saleAmount(row);
  const fields = await hostedFieldsOf(ctx, gateway, {
    ...(amountMinor === undefined ? {} : { amountMinor }),
    currencyCode: row.currencyCode,
    keepCard: keepsMethod(row.vaultingType),
  });
  return { fields, emailKnown: (await payerOf(ctx, row, undefined)).email !== null };
}

/**
 * The customer the session pays for, as the provider is told of them: the session's customer, the portal's
 * (its ExtRef, docs/portal.md), or the invoice's; else the session itself, with the e-mail the frame asked for.
 */
async function payerOf(
  ctx: ServiceContext,
  row: CaptureSessionRecord,
  email: string | undefined,
): Promise<PayerDetails> {
  const portalCustomer = /^portal:customer:(\d+)$/.exec(row.extRef ?? '');
  const customerId =
    row.customerId ??
    (portalCustomer ? Number(portalCustomer[1]) : null) ??
    (row.invoiceId === null ? null : (await getInvoice(ctx, row.invoiceId)).customer.id);
  if (customerId === null) return { ref: `capture-session:${row.id}`, email: email ?? null, name: '' };
  const customer = await getCustomer(ctx, customerId);
  return {
    ref: `customer:${customer.id}`,
    // The customer's own address when it is one; else what the payer typed in the frame.
    email:
      (customer.email !== null && EMAIL.test(customer.email) ? customer.email : undefined) ?? email ?? null,
    name: [customer.name, customer.lastName].filter(Boolean).join(' '),
  };
}

const sealSetup = (ctx: ServiceContext, setup: ProviderSetup) => ctx.secrets.seal(JSON.stringify(setup));
/** The setup the session keeps; undefined when none, or when it cannot be opened (a new one is then started). */
function openSetup(ctx: ServiceContext, row: CaptureSessionRecord): ProviderSetup | undefined {
  if (row.providerSetupSealed === null) return undefined;
  try {
    return JSON.parse(ctx.secrets.open(row.providerSetupSealed)) as ProviderSetup;
  } catch {
    return undefined;
  }
}

/** The provider did not answer: the claim is handed back uncounted and the frame asked to try again. */
async function unanswered(ctx: ServiceContext, row: ClaimedCaptureSession, error: unknown): Promise<never> {
  await releaseClaim(ctx, row);
  if (error instanceof GatewayTimeoutError) {
    throw new ConflictError('gateway_no_answer', 'The payment provider did not answer: try again');
  }
  throw error;
}

/** The gateway of the claimed session, which must take cards in a provider's hosted fields. */
async function hostedFieldsGateway(ctx: ServiceContext, row: ClaimedCaptureSession): Promise<Gateway> {
  const gateway = await usableGateway(ctx, row);
  if (usesHostedFields(gateway)) return gateway;
  await releaseClaim(ctx, row);
  throw new ConflictError('hosted_fields_not_used', 'This form takes the card in its own fields: use submit');
}

/**
 * POST /widget/capture/{HashToken}/provider/start: the setup (or the sale) started at the provider, once per
 * attempt: a second start answers the first one's. The e-mail is asked only when the provider needs one and the
 * session knows none (a 422 naming `email`, not counted as a failed attempt). `sealedStoredToken` is never the
 * browser's: the pay page's "Confirm payment" names the customer's stored card itself (payPage.service.ts).
 */
export async function startProviderSetup(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
  input: { email?: string; sealedStoredToken?: string },
): Promise<{ confirm: Record<string, string> }> {
  assertOpen(ctx, found);
  const row = await claimForSale(ctx, found, (tctx) => claimSession(tctx, found));
  const gateway = await hostedFieldsGateway(ctx, row);
  const started = openSetup(ctx, row);
  if (started) {
    await releaseClaim(ctx, row);
    return { confirm: started.confirm };
  }
  const email = input.email?.trim() || undefined;
  const payer = await payerOf(ctx, row, email);
  const fields = await frameHostedFields(ctx, row);
  if (fields?.fields.needsEmail && (payer.email === null || !EMAIL.test(payer.email))) {
    await releaseClaim(ctx, row);
    throw ValidationError.field('email', 'Enter the e-mail address for your receipt', 'email_required');
  }
  const amountMinor = saleAmount(row);
  const start = await startCardSetup(ctx, gateway, {
    idempotencyKey: attemptKey(row),
    ...(amountMinor === undefined ? {} : { amountMinor }),
    currencyCode: row.currencyCode,
    payer,
    description: row.description ?? `Capture session ${row.id}`,
    keepCard: keepsMethod(row.vaultingType),
    ...(input.sealedStoredToken === undefined ? {} : { sealedStoredToken: input.sealedStoredToken }),
  }).catch((error: unknown) => unanswered(ctx, row, error));
  if (start.outcome !== 'ok') {
    const left = await failAttempt(ctx, row, `setup_${start.outcome}`);
    throw refused(left, [{ field: 'number', message: CARD_DECLINED }]);
  }
  const setup: ProviderSetup = { setupRef: start.setupRef, confirm: { ...start.confirm } };
  const held = await endClaim(ctx, row, {
    state: 'open' satisfies StoredState,
    providerSetupSealed: sealSetup(ctx, setup),
    providerRef: start.setupRef,
    // Wall time: the run asks the provider about a session whose browser never came back after a real delay
    // (docs/hosted-pages.md, "When the browser never comes back"), however a test clock stands.
    providerStartedAt: ctx.wallClock.now().toISOString(),
    updatedAt: nowInstant(ctx),
  });
  if (!held) throw claimLost(ctx, row, 'provider_setup', { setupRef: start.setupRef });
  return { confirm: setup.confirm };
}

/**
 * POST /widget/capture/{HashToken}/provider/complete: the setup's outcome asked of the provider by the reference
 * the service kept. Done, the session is captured with the card as the provider shows it (and the sale's charge);
 * not finished in the browser yet, a 409 that changes nothing; declined, a failed attempt (a new setup next time).
 */
export async function completeProviderSetup(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
): Promise<CaptureSummary> {
  const recorded = recordedBefore(found);
  if (recorded) return recorded;
  assertOpen(ctx, found);
  return finishProviderSetup(ctx, found);
}

/**
 * A provider's setup the service recorded before the browser asked (its webhook, the run's sweep;
 * captureRecovery.service.ts): the frame is answered as if this call had recorded it.
 */
function recordedBefore(found: CaptureSessionRecord): CaptureSummary | undefined {
  if (found.providerRef === null || found.lastFour === null) return undefined;
  if (found.state !== 'captured' && found.state !== 'completed') return undefined;
  return {
    type: 'card',
    cardType: found.cardType ?? '',
    lastFour: found.lastFour,
    expiryMonth: found.expiryMonth ?? 0,
    expiryYear: found.expiryYear ?? 0,
    charged: found.chargeId !== null,
  };
}

/**
 * The setup the session started asked of the provider and, done, recorded (completeProviderSetup's steps after
 * its checks). Also the service's own way when the browser never came back (captureRecovery.service.ts): a session
 * past its Expires is still asked, since the money may have been taken.
 */
export async function finishProviderSetup(
  ctx: ServiceContext,
  found: CaptureSessionRecord,
): Promise<CaptureSummary> {
  const setup = openSetup(ctx, found);
  if (!setup) {
    throw new ConflictError(
      'capture_not_started',
      'Nothing was sent to the payment provider yet: submit the form',
    );
  }
  const row = await claimSession(ctx, found);
  const gateway = await hostedFieldsGateway(ctx, row);
  const result = await completeCardSetup(ctx, gateway, setup.setupRef).catch((error: unknown) =>
    unanswered(ctx, row, error),
  );
  if (result.outcome === 'incomplete') {
    await releaseClaim(ctx, row);
    throw new ConflictError(
      'capture_not_confirmed',
      'The card was not confirmed with the payment provider yet',
    );
  }
  if (result.outcome === 'error') {
    // No decision (the provider's trouble, not the customer's): nothing counts, the setup is kept to ask again.
    await releaseClaim(ctx, row, { setupRef: setup.setupRef, rawCode: result.rawCode });
    throw new ConflictError('gateway_error', 'The payment provider could not finish just now: try again');
  }
  const problem = capturedProblem(row, result);
  if (problem !== undefined || result.outcome !== 'ok') {
    const left = await failAttempt(ctx, row, problem ?? `setup_${result.outcome}`);
    throw refused(left, [{ field: 'number', message: CARD_DECLINED }]);
  }
  const shown = { ...result.card, nameOnCard: '', lastNameOnCard: '' };
  const charge = result.charge && {
    chargeId: result.charge.chargeId,
    state: result.charge.state === 'succeeded' ? ('settled' as const) : ('pending' as const),
  };
  try {
    return await recordCapturedCard(ctx, gateway, row, shown, result.sealedToken, charge);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    await releaseClaim(ctx, row);
    throw error;
  }
}

/** Why a setup the provider says went through cannot be captured as the session asked, or undefined when it can. */
function capturedProblem(row: CaptureSessionRecord, result: SealedCardSetupResult): string | undefined {
  if (result.outcome !== 'ok') return undefined;
  if (keepsMethod(row.vaultingType) && result.sealedToken === null) return 'card_not_reusable';
  if (saleAmount(row) !== undefined && result.charge === undefined) return 'sale_not_charged';
  return undefined;
}
