import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import * as repo from './gateway.repository.ts';
import { KEPT, canVaultCards, gatewayAccepts } from './gateway.service.ts';
import type { Gateway } from './gateway.service.ts';
import { recordedCall } from './gatewayCalls.ts';
import type {
  CardSetupRequest,
  CardSetupResult,
  CardSetupStart,
  HostedFields,
  HostedFieldsRequest,
  SettingsCheck,
  WebhookRequest,
  WebhookResult,
} from './gatewayContract.ts';
import { operationOf } from './gatewayDrivers.ts';
import { gatewayTypeInfo } from './gatewayTypes.ts';

/**
 * What real providers add to a gateway (docs/gateways.md, "Grown for real providers"): cards entered in the
 * provider's hosted fields and saved from its token, its keys tried, its webhooks verified and read.
 */

/** Whether cards are entered in the gateway's provider's own hosted fields (docs/hosted-pages.md). */
export function usesHostedFields(gateway: Gateway): boolean {
  return gatewayTypeInfo(gateway.type)?.hostedFields ?? false;
}

/**
 * Whether the capture widget can take a card for the gateway: in our fields for a simulator's vault, or in the
 * provider's hosted fields (docs/design/hosted-pages.md, "Card data and PCI scope").
 */
export function capturesCards(gateway: Gateway): boolean {
  return gatewayAccepts(gateway, 'credit_card') && (canVaultCards(gateway) || usesHostedFields(gateway));
}

/** What the capture frame loads for the gateway's hosted fields (no call to the provider). */
export async function hostedFieldsOf(
  ctx: ServiceContext,
  gateway: Gateway,
  request: HostedFieldsRequest,
): Promise<HostedFields> {
  const fields = await operationOf(ctx, gateway, 'hostedFields');
  if (!fields) throw new Error(`gateway ${gateway.id} (${gateway.type}) has no hosted fields`);
  return fields(gateway, request);
}

const maskedPayer = (request: CardSetupRequest) => ({
  amountMinor: request.amountMinor ?? null,
  currencyCode: request.currencyCode,
  keepCard: request.keepCard,
  payer: request.payer.ref,
});

/** A setup as callers ask for it: a stored card's token sealed, opened only for the call. */
export type SealedCardSetupRequest = Omit<CardSetupRequest, 'storedToken'> & { sealedStoredToken?: string };

/** A setup's outcome as callers see it: the token a later charge uses, sealed. */
export type SealedCardSetupResult =
  | (Omit<Extract<CardSetupResult, { outcome: 'ok' }>, 'token'> & { sealedToken: string | null })
  | Exclude<CardSetupResult, { outcome: 'ok' }>;

/**
 * Starts a card setup (or a sale) in the provider's hosted fields, recorded by its key. A stored card's token is
 * opened here, for the driver's call only (docs/gateways.md, "Provider tokens are sealed").
 */
export async function startCardSetup(
  ctx: ServiceContext,
  gateway: Gateway,
  sealedRequest: SealedCardSetupRequest,
): Promise<CardSetupStart> {
  const { sealedStoredToken, ...rest } = sealedRequest;
  const request: CardSetupRequest =
    sealedStoredToken === undefined ? rest : { ...rest, storedToken: ctx.secrets.open(sealedStoredToken) };
  const start = await operationOf(ctx, gateway, 'startCardSetup');
  if (!start) throw new Error(`gateway ${gateway.id} (${gateway.type}) has no hosted fields`);
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'start_card_setup',
      idempotencyKey: request.idempotencyKey,
      request: maskedPayer(request),
      // What the browser confirms the setup with (a client secret, an access code) is the browser's alone.
      answerRecorded: (answer) =>
        answer.outcome === 'ok' ? { outcome: 'ok', setupRef: answer.setupRef } : answer,
    },
    () => start(gateway, request, nowInstant(ctx)),
  );
}

/**
 * The outcome of a card setup, asked of the provider by the reference its start answered; the token a later charge
 * uses is sealed before it leaves this module (docs/gateways.md, "Provider tokens are sealed").
 */
export async function completeCardSetup(
  ctx: ServiceContext,
  gateway: Gateway,
  setupRef: string,
): Promise<SealedCardSetupResult> {
  const complete = await operationOf(ctx, gateway, 'completeCardSetup');
  if (!complete) throw new Error(`gateway ${gateway.id} (${gateway.type}) has no hosted fields`);
  const result = await recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'complete_card_setup',
      request: { setupRef },
      undoOperation: 'refund',
      // The token charges the card again: it is kept on the payment method, sealed, never in a call's record.
      answerRecorded: (answer) =>
        answer.outcome === 'ok' ? { ...answer, token: answer.token && KEPT } : answer,
    },
    () => complete(gateway, setupRef, nowInstant(ctx)),
  );
  if (result.outcome !== 'ok') return result;
  const { token, ...shown } = result;
  return { ...shown, sealedToken: token === null ? null : ctx.secrets.seal(token) };
}

/** Tries the gateway's settings (its keys) with its provider; undefined for a type with no provider to ask. */
export async function checkGatewaySettings(
  ctx: ServiceContext,
  gateway: Gateway,
): Promise<SettingsCheck | undefined> {
  const check = await operationOf(ctx, gateway, 'checkSettings');
  if (!check) return undefined;
  return recordedCall(ctx, gateway.id, { operation: 'check_settings', request: {} }, () => check(gateway));
}

/**
 * A webhook the gateway's provider sent, verified from its raw body with the provider's own scheme and read into
 * late events (nothing of it is applied here). A type without webhooks answers unverified.
 */
export async function readGatewayWebhook(
  ctx: ServiceContext,
  gateway: Gateway,
  request: WebhookRequest,
): Promise<WebhookResult> {
  const read = await operationOf(ctx, gateway, 'readWebhook');
  if (!read) return { outcome: 'unverified', message: `a ${gateway.type} gateway sends no webhooks` };
  return read(gateway, request);
}

/** The account and gateway a webhook's URL names by its GatewayToken, of any account; undefined when none. */
export async function findGatewayForWebhook(
  db: Db,
  gatewayToken: string,
): Promise<{ accountId: number; gatewayId: number } | undefined> {
  return repo.findGatewayOwnerByToken(db, gatewayToken);
}
