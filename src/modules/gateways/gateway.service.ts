import crypto from 'node:crypto';
import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import * as repo from './gateway.repository.ts';
import type { Gateway, NewGateway } from './gateway.repository.ts';
import { recordedCall } from './gatewayCalls.ts';
import type {
  BankAccountToValidate,
  BankValidationResult,
  CardToVault,
  ChargeEvent,
  ChargeRequest,
  ChargeResult,
  RefundRequest,
  RefundResult,
} from './gatewayContract.ts';
import { operationOf, settingsCheckOf } from './gatewayDrivers.ts';
import { GATEWAY_TYPES, GATEWAY_TYPE_NAMES, gatewayTypeInfo } from './gatewayTypes.ts';

export type { Gateway } from './gateway.repository.ts';

/** The kinds of stored payment method a gateway may collect from. */
export type PaymentMethodKind = 'credit_card' | 'bank_account';

export interface AddGatewayInput {
  /** One of GATEWAY_TYPES. */
  type: string;
  friendlyName: string;
  isTestMode?: boolean;
  /** Make it the account's primary gateway (the others stop being primary). */
  isPrimary?: boolean;
  /** Credentials or simulator knobs, sealed at rest and never returned. */
  settings?: unknown;
}

const FRIENDLY_NAME_MAX = 255;
const SETTINGS_MAX_CHARS = 10_000;

/** Whether invoices, subscriptions and customers may name the gateway now. */
export function isGatewayUsable(gateway: Gateway): boolean {
  return gateway.isActive && gateway.isEnabled;
}

/** Whether the gateway collects from that kind of payment method (spec: "a kind the gateway supports"). */
export function gatewayAccepts(gateway: Gateway, kind: PaymentMethodKind): boolean {
  return kind === 'credit_card' ? gateway.acceptsCreditCard : gateway.acceptsBankAccount;
}

export const gatewayRef = (id: number) => ({ type: 'gateway', id });

/** The account's gateways with these ids, by id, as GET /v1/gateways/{id} shows them (never their settings). */
export async function gatewaysByIds(
  ctx: ServiceContext,
  gatewayIds: readonly number[],
): Promise<Map<number, Gateway>> {
  const gateways = await repo.findGateways(ctx.db, ctx.account.id, gatewayIds);
  return new Map(gateways.map((gateway) => [gateway.id, gateway]));
}

/** The gateways that are primary now, before a change of primary: each that stops being one is updated. */
async function primarySnapshots(ctx: ServiceContext, except: number): Promise<Snapshot[]> {
  const snapshots: Snapshot[] = [];
  for (const id of await repo.primaryGatewayIds(ctx.db, ctx.account.id)) {
    if (id !== except) snapshots.push(await snapshotResource(ctx, gatewayRef(id)));
  }
  return snapshots;
}

const updatedEvents = (snapshots: Snapshot[]): EventToEmit[] =>
  snapshots.map((before) => ({ type: 'gateway.updated', ref: before.ref, before }));

export async function getGateway(ctx: ServiceContext, gatewayId: number): Promise<Gateway> {
  const gateway = await repo.findGateway(ctx.db, ctx.account.id, gatewayId);
  if (!gateway) throw new NotFoundError('Gateway', gatewayId);
  return gateway;
}

/**
 * For requests that name a gateway by its GatewayToken (a GUID): the account's gateway with that token when it is
 * usable (active and enabled); else undefined, with a problem naming `field` added to `problems` (the same words
 * whether the token is unknown or another account's). The caller adds its own checks of what the gateway does.
 */
export async function usableGatewayByToken(
  ctx: ServiceContext,
  token: string,
  field: string,
  problems: FieldProblem[],
): Promise<Gateway | undefined> {
  const gateway = await repo.findGatewayByToken(ctx.db, ctx.account.id, token);
  if (!gateway) {
    problems.push({ field, message: `no gateway of the account has the token ${token}` });
    return undefined;
  }
  if (!isGatewayUsable(gateway)) {
    problems.push({ field, message: `gateway ${gateway.id} is disabled or no longer active` });
    return undefined;
  }
  return gateway;
}

export async function listGateways(ctx: ServiceContext, page: Page): Promise<Gateway[]> {
  return repo.listGateways(ctx.db, ctx.account.id, page);
}

/**
 * For requests that name a gateway in their body (a customer's PrimaryGatewayID, an invoice's gatewayID): a
 * gateway the account cannot see is a 422 naming `field`, with the same message whether it is missing or
 * another account's; a disabled or retired one is refused too. Returns the gateway for further checks.
 */
export async function assertGatewayUsable(
  ctx: ServiceContext,
  gatewayId: number,
  field: string,
): Promise<Gateway> {
  const gateway = await repo.findGateway(ctx.db, ctx.account.id, gatewayId);
  if (!gateway)
    throw ValidationError.field(field, `gateway ${gatewayId} does not exist`, 'gateway_not_found');
  if (!gateway.isActive) {
    throw ValidationError.field(field, `gateway ${gatewayId} is no longer active`, 'gateway_not_usable');
  }
  if (!gateway.isEnabled) {
    throw ValidationError.field(field, `gateway ${gatewayId} is disabled`, 'gateway_not_usable');
  }
  return gateway;
}

/**
 * The account's primary gateway when it can be used, else undefined: disabling the primary leaves the account
 * without one (its flag stays, so enabling it again restores it) rather than silently promoting another.
 */
export async function findPrimaryGateway(ctx: ServiceContext): Promise<Gateway | undefined> {
  const gateway = await repo.findPrimaryGateway(ctx.db, ctx.account.id);
  return gateway && isGatewayUsable(gateway) ? gateway : undefined;
}

/** What the deployment allows of the test gateway (TEST_GATEWAY_ON_LIVE_ACCOUNTS, src/config.ts). */
export interface TestGatewayPolicy {
  /** Live accounts may collect through the built-in test gateway (a staging deployment, the service's tests). */
  testGatewayOnLiveAccounts: boolean;
}

/** The default: a live account never collects through the test gateway. */
export const LIVE_ONLY: TestGatewayPolicy = { testGatewayOnLiveAccounts: false };

/**
 * The built-in test gateway every account starts with. Called by account creation inside its transaction (hence
 * the database handle rather than a context: the account does not exist outside it yet). It moves no money, so it
 * is the primary of a test account only: a live account's starts disabled and not primary, unless the deployment
 * lets live accounts use it (docs/gateways.md, "Live means live").
 */
export async function createTestGateway(
  db: Db,
  account: { id: number; isTest: boolean },
  createdAt: string,
  deployment: TestGatewayPolicy = LIVE_ONLY,
): Promise<number> {
  const test = GATEWAY_TYPES.test;
  const usable = account.isTest || deployment.testGatewayOnLiveAccounts;
  const gateway: NewGateway = {
    token: crypto.randomUUID(),
    gatewayName: test.gatewayName,
    friendlyName: 'Test gateway',
    type: test.type,
    isActive: true,
    isTestMode: true,
    acceptsCreditCard: test.acceptsCreditCard,
    acceptsBankAccount: test.acceptsBankAccount,
    isEnabled: usable,
    isPrimary: usable,
    isManualRecon: test.manualRecon,
    createdAt,
  };
  return repo.insertGateway(db, account.id, gateway, null);
}

/** Whether the gateway is the built-in test gateway of a live account, which moves no money. */
export function isTestGatewayOfLiveAccount(account: { isTest: boolean }, gateway: Gateway): boolean {
  return gateway.type === GATEWAY_TYPES.test.type && !account.isTest;
}

/** Words for a live account's test gateway that is refused: what it is and what to do instead. */
export function testGatewayOnLiveWords(gatewayId: number): string {
  return (
    `gateway ${gatewayId} is the built-in test gateway, which moves no money: a live account collects through a ` +
    'live gateway (add one: billing gateway add; docs/going-live.md), or try things out on a test account'
  );
}

/** Refuses to make a live account's test gateway usable unless the deployment allows it (docs/gateways.md). */
async function assertNotTestGatewayOnLive(
  ctx: ServiceContext,
  gatewayId: number,
  deployment: TestGatewayPolicy,
): Promise<void> {
  if (deployment.testGatewayOnLiveAccounts) return;
  const gateway = await getGateway(ctx, gatewayId);
  if (isTestGatewayOfLiveAccount(ctx.account, gateway)) {
    throw new ConflictError('test_gateway_on_live_account', capitalised(testGatewayOnLiveWords(gatewayId)));
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function sealedSettings(ctx: ServiceContext, settings: unknown, problems: FieldProblem[]): string | null {
  if (settings === undefined) return null;
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    problems.push({ field: 'Settings', message: 'must be a JSON object' });
    return null;
  }
  const text = JSON.stringify(settings);
  if (text.length > SETTINGS_MAX_CHARS) {
    problems.push({ field: 'Settings', message: `must be at most ${SETTINGS_MAX_CHARS} characters of JSON` });
    return null;
  }
  return ctx.secrets.seal(text);
}

/**
 * Adds a gateway of a known type. Its capabilities come from the type. A test account's gateways are all in
 * test mode: an account made for trying things out must never move real money; and a live account adds no test
 * gateway, which moves none (docs/gateways.md, "Live means live"). The account's first primary is the gateway
 * added while it has none.
 */
export async function addGateway(
  ctx: ServiceContext,
  input: AddGatewayInput,
  deployment: TestGatewayPolicy = LIVE_ONLY,
  options: { waitingForCheck?: boolean } = {},
): Promise<Gateway> {
  const problems: FieldProblem[] = [];
  const typeName = input.type.trim().toLowerCase();
  const type = gatewayTypeInfo(typeName);
  if (!type) {
    problems.push({
      field: 'GatewayType',
      message: `"${input.type}" is not a gateway type; known: ${GATEWAY_TYPE_NAMES.join(', ')}`,
    });
  }
  if (
    type?.type === GATEWAY_TYPES.test.type &&
    !ctx.account.isTest &&
    !deployment.testGatewayOnLiveAccounts
  ) {
    problems.push({
      field: 'GatewayType',
      message:
        'a test gateway moves no money: a live account collects through a live gateway (docs/going-live.md)',
    });
  }
  const friendlyName = input.friendlyName.trim();
  if (friendlyName === '') problems.push({ field: 'FriendlyName', message: 'must not be blank' });
  if (friendlyName.length > FRIENDLY_NAME_MAX) {
    problems.push({ field: 'FriendlyName', message: `must be at most ${FRIENDLY_NAME_MAX} characters` });
  }
  if (type && !type.takesSettings && input.settings !== undefined) {
    problems.push({ field: 'Settings', message: `a ${type.type} gateway has no settings` });
  }
  const settingsSealed = sealedSettings(ctx, input.settings, problems);
  const isTestMode =
    type !== undefined && (type.alwaysTestMode || ctx.account.isTest || (input.isTestMode ?? false));
  const checkSettings = type && problems.length === 0 ? settingsCheckOf(type.type) : undefined;
  if (checkSettings)
    problems.push(...checkSettings((input.settings ?? {}) as Record<string, unknown>, isTestMode));
  if (problems.length || !type) throw new ValidationError(problems);

  const id = await ctx.db.transaction().execute(async (trx) => {
    await repo.lockAccountGateways(trx, ctx.account.id);
    const gateway: NewGateway = {
      token: crypto.randomUUID(),
      gatewayName: type.gatewayName,
      friendlyName,
      type: type.type,
      isActive: true,
      isTestMode,
      acceptsCreditCard: type.acceptsCreditCard,
      acceptsBankAccount: type.acceptsBankAccount,
      // A gateway waiting for its provider's check is kept out of use until it passes (addCheckedGateway).
      isEnabled: !options.waitingForCheck,
      isPrimary: false,
      isManualRecon: type.manualRecon,
      createdAt: ctx.clock.now().toISOString(),
    };
    const gatewayId = await repo.insertGateway(trx, ctx.account.id, gateway, settingsSealed);
    const tctx = inTransaction(ctx, trx);
    let formerPrimaries: Snapshot[] = [];
    if (
      !options.waitingForCheck &&
      (input.isPrimary || !(await repo.findPrimaryGateway(trx, ctx.account.id)))
    ) {
      formerPrimaries = await primarySnapshots(tctx, gatewayId);
      await repo.setPrimaryGateway(trx, ctx.account.id, gatewayId);
    }
    await emitEvents(tctx, [
      { type: 'gateway.created', ref: gatewayRef(gatewayId) },
      ...updatedEvents(formerPrimaries),
    ]);
    return gatewayId;
  });
  return getGateway(ctx, id);
}

/**
 * Enables or disables a gateway. Disabling the primary is allowed: it keeps its primary flag, and until it is
 * enabled again or another gateway is made primary the account has no usable primary (findPrimaryGateway
 * answers none) and requests naming it are refused.
 */
export async function setGatewayEnabled(
  ctx: ServiceContext,
  gatewayId: number,
  isEnabled: boolean,
  deployment: TestGatewayPolicy = LIVE_ONLY,
): Promise<Gateway> {
  if (isEnabled) await assertNotTestGatewayOnLive(ctx, gatewayId, deployment);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, gatewayRef(gatewayId));
    if (!(await repo.updateGatewayEnabled(tctx.db, ctx.account.id, gatewayId, isEnabled))) {
      throw new NotFoundError('Gateway', gatewayId);
    }
    await emitEvent(tctx, 'gateway.updated', gatewayRef(gatewayId), { before });
  });
  return getGateway(ctx, gatewayId);
}

/**
 * Replaces a gateway's settings (new keys), checked as when it is added; the gateway's type must take settings.
 * Nothing of them is shown or told: `gateway.updated` says only that the gateway changed.
 */
export async function setGatewaySettings(
  ctx: ServiceContext,
  gatewayId: number,
  settings: unknown,
): Promise<Gateway> {
  const gateway = await getGateway(ctx, gatewayId);
  const type = gatewayTypeInfo(gateway.type);
  const problems: FieldProblem[] = [];
  if (!type?.takesSettings)
    problems.push({ field: 'Settings', message: `a ${gateway.type} gateway has no settings` });
  else if (settings === undefined) problems.push({ field: 'Settings', message: 'is required' });
  const sealed = sealedSettings(ctx, settings, problems);
  const check = problems.length === 0 ? settingsCheckOf(gateway.type) : undefined;
  if (check) problems.push(...check(settings as Record<string, unknown>, gateway.isTestMode));
  if (problems.length > 0 || sealed === null) throw new ValidationError(problems);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, gatewayRef(gatewayId));
    await repo.updateGatewaySettings(tctx.db, ctx.account.id, gatewayId, sealed);
    await emitEvent(tctx, 'gateway.updated', gatewayRef(gatewayId), { before });
  });
  return getGateway(ctx, gatewayId);
}

/**
 * Makes the gateway the account's only primary, in one transaction. A disabled gateway must be enabled first, and a
 * live account's test gateway cannot be its primary unless the deployment allows it.
 */
export async function setPrimaryGateway(
  ctx: ServiceContext,
  gatewayId: number,
  deployment: TestGatewayPolicy = LIVE_ONLY,
): Promise<Gateway> {
  await assertNotTestGatewayOnLive(ctx, gatewayId, deployment);
  const switched = await ctx.db.transaction().execute(async (trx) => {
    await repo.lockAccountGateways(trx, ctx.account.id);
    const tctx = inTransaction(ctx, trx);
    const target = await snapshotResource(tctx, gatewayRef(gatewayId));
    const formerPrimaries = await primarySnapshots(tctx, gatewayId);
    if (!(await repo.setPrimaryGateway(trx, ctx.account.id, gatewayId))) return false;
    await emitEvents(tctx, updatedEvents([target, ...formerPrimaries]));
    return true;
  });
  if (!switched) {
    await getGateway(ctx, gatewayId);
    throw new ConflictError(
      'gateway_not_usable',
      `Gateway ${gatewayId} is disabled or inactive: enable it before making it primary`,
    );
  }
  return getGateway(ctx, gatewayId);
}

/** Whether the gateway's provider keeps card numbers for us and hands back a token. */
export function canVaultCards(gateway: Gateway): boolean {
  return gatewayTypeInfo(gateway.type)?.vaultsCards ?? false;
}

const maskedCard = (card: CardToVault) => ({
  cardType: card.cardType,
  lastFour: card.number.slice(-4),
  expiryMonth: card.expiryMonth,
  expiryYear: card.expiryYear,
});

/**
 * Hands a card to the gateway's vault and returns the token that stands for it from now on, sealed: a vault token
 * charges the card, so outside this module it exists only sealed (docs/gateways.md, "Provider tokens are sealed").
 * A gateway whose type has no vault, and a card the provider refuses, are a ValidationError (422) naming `field`.
 */
export async function vaultCard(
  ctx: ServiceContext,
  gateway: Gateway,
  card: CardToVault,
  field: string,
): Promise<{ sealedToken: string }> {
  const vault = canVaultCards(gateway) ? await operationOf(ctx, gateway, 'vaultCard') : undefined;
  if (!vault) {
    throw ValidationError.field(
      field,
      `gateway ${gateway.id} (${gateway.type}) cannot keep card numbers`,
      'gateway_cannot_vault',
    );
  }
  const result = await recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'vault_card',
      request: maskedCard(card),
      answerRecorded: (answer) => (answer.outcome === 'ok' ? { ...answer, token: KEPT } : answer),
    },
    () => vault(gateway, card, nowInstant(ctx)),
  );
  if (result.outcome !== 'ok') {
    throw ValidationError.field(field, `was declined by the gateway (${result.reason})`, 'card_declined');
  }
  return { sealedToken: ctx.secrets.seal(result.token) };
}

/**
 * Asks the gateway whether a bank account exists and takes debits (after the offline checks), recorded with the
 * account masked to its last four. A gateway with no validation of its own (manual) answers ok: only the offline
 * checks apply there.
 */
export async function validateBankAccountAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  account: BankAccountToValidate,
): Promise<BankValidationResult> {
  const validate = await operationOf(ctx, gateway, 'validateBankAccount');
  if (!validate) return { outcome: 'ok', detail: 'checked offline only' };
  const identifier = account.iban ?? account.accountNumber ?? '';
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'validate_bank_account',
      request: { method: account.method, lastFour: identifier.slice(-4), branchCode: account.branchCode },
    },
    () => validate(gateway, account),
  );
}

/** Whether the gateway charges stored methods itself (every type with a driver that charges does). */
export function canCharge(gateway: Gateway): boolean {
  return gatewayTypeInfo(gateway.type)?.chargesCards === true;
}

/** A charge's answer off session: a charge that waits on the customer is their decline (below). */
export type StoredChargeResult = Exclude<ChargeResult, { outcome: 'requires_action' }>;

/**
 * Off session nobody is there to act: a charge that needs the customer in a browser (3-D Secure, a bank's
 * confirmation) is the customer-action decline `authentication_required` (src/modules/gateways/failureReasons.ts), which stops
 * retries until the customer pays on a hosted page (docs/gateways.md, "Adding a real provider"). The provider's
 * action stays in the call's record.
 */
function offSession(result: ChargeResult): StoredChargeResult {
  if (result.outcome !== 'requires_action') return result;
  return { outcome: 'declined', reason: 'authentication_required', rawCode: result.rawCode };
}

/** What a call's record shows in place of a vault token (docs/gateways.md, "Provider tokens are sealed"). */
export const KEPT = '[kept]';

/** A charge of a stored method as callers ask for it: the vault's token sealed, opened only for the call. */
export type SealedChargeRequest = Omit<ChargeRequest, 'token'> & { sealedToken: string };

/**
 * Charges a stored method off-session, recorded with the request's idempotency key. Throws GatewayTimeoutError
 * when no answer came: the caller asks again later with the same key. The sealed token is opened here, for the
 * driver's call only (docs/gateways.md, "Provider tokens are sealed").
 */
export async function chargeStoredMethod(
  ctx: ServiceContext,
  gateway: Gateway,
  sealedRequest: SealedChargeRequest,
): Promise<StoredChargeResult> {
  const { sealedToken, ...rest } = sealedRequest;
  const request: ChargeRequest = { ...rest, token: ctx.secrets.open(sealedToken) };
  const charge = await operationOf(ctx, gateway, 'charge');
  if (!charge) throw new Error(`gateway ${gateway.id} (${gateway.type}) cannot charge`);
  const result = await recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'charge',
      idempotencyKey: request.idempotencyKey,
      request: {
        amountMinor: request.amountMinor,
        currencyCode: request.currencyCode,
        description: request.description,
      },
      undoOperation: 'refund',
      // A client secret is the customer's browser's alone: only the kind of action is recorded.
      answerRecorded: (answer) =>
        answer.outcome === 'requires_action' ? { ...answer, action: { kind: answer.action.kind } } : answer,
    },
    () => charge(gateway, request, nowInstant(ctx)),
  );
  return offSession(result);
}

/**
 * Refunds (part of) a charge the gateway made, recorded with the request's idempotency key. Throws
 * GatewayTimeoutError when no answer came: asking again with the same key refunds at most once. A gateway that
 * cannot refund (manual) throws: the caller checks `canCharge` first.
 */
export async function refundCharge(
  ctx: ServiceContext,
  gateway: Gateway,
  request: RefundRequest,
): Promise<RefundResult> {
  const refund = await operationOf(ctx, gateway, 'refund');
  if (!refund) throw new Error(`gateway ${gateway.id} (${gateway.type}) cannot refund`);
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'refund',
      idempotencyKey: request.idempotencyKey,
      request: {
        chargeId: request.chargeId,
        amountMinor: request.amountMinor,
        currencyCode: request.currencyCode,
      },
    },
    () => refund(gateway, request, nowInstant(ctx)),
  );
}

/** The account a gateway belongs to, for operator commands that name a gateway by id alone. */
export async function getGatewayAccountId(db: Db, gatewayId: number): Promise<number> {
  const accountId = await repo.findGatewayAccountId(db, gatewayId);
  if (accountId === undefined) throw new NotFoundError('Gateway', gatewayId);
  return accountId;
}

/** The late events the gateway's provider has reported on its charges by `asOf`; none for a type without them. */
export async function readChargeEvents(
  ctx: ServiceContext,
  gateway: Gateway,
  asOf: PlainDate,
): Promise<ChargeEvent[]> {
  const read = await operationOf(ctx, gateway, 'chargeEvents');
  if (!read) return [];
  const answer = await recordedCall(
    ctx,
    gateway.id,
    { operation: 'charge_events', request: { asOf }, reportDate: asOf },
    async () => ({
      outcome: 'ok',
      events: await read(gateway, asOf),
    }),
  );
  return answer.events;
}

/**
 * The charge made under our idempotency key, found with the provider (beyond its own idempotency window), as an
 * off-session charge answers (`offSession`); `not_found` for a gateway that cannot look one up, whose `charge`
 * with the same key answers instead.
 */
export async function findChargeByKey(
  ctx: ServiceContext,
  gateway: Gateway,
  idempotencyKey: string,
): Promise<StoredChargeResult | { outcome: 'not_found' }> {
  const find = await operationOf(ctx, gateway, 'findCharge');
  if (!find) return { outcome: 'not_found' };
  const found = await recordedCall(
    ctx,
    gateway.id,
    { operation: 'find_charge', idempotencyKey, request: {} },
    () => find(gateway, idempotencyKey, nowInstant(ctx)),
  );
  return found.outcome === 'not_found' ? found : offSession(found);
}
