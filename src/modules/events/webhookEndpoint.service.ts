import crypto from 'node:crypto';
import type { MemoryPart, SendingEndpoint, ServiceContext, ServiceMemory } from '../../context.ts';
import { nowInstant, withTransaction } from '../../context.ts';
import { isEventTypePattern, matchesSomeType, nearestEventPattern } from './eventTypes.ts';
import type { Page } from '../../core/paging.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import { emitEvent, emitEvents, snapshotResource } from './event.service.ts';
import { knownEventTypes } from './eventTypeCatalogue.ts';
import type { EventToEmit } from './event.service.ts';
import type { ResourceRef } from './ports.ts';
import * as repo from './webhookEndpoint.repository.ts';
import type { WebhookEndpoint, WebhookEndpointStatus } from './webhookEndpoint.ts';
import { webhookRulesOf, webhookUrlProblem } from './webhookUrlPolicy.ts';

export interface WebhookEndpointInput {
  url: string;
  description?: string | null;
  enabledEvents: readonly string[];
  isActive?: boolean;
  /** Why an endpoint made inactive is (not taken from the API: a go-live's copy says it). */
  disabledReason?: string;
}

export interface WebhookEndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: readonly string[];
  status?: WebhookEndpointStatus;
}

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks asks for 24 to 64 random bytes; 32 is our choice (docs/design/webhooks.md, "Secrets"). */
const SECRET_BYTES = 32;

const endpointRef = (id: number): ResourceRef => ({ type: 'webhook_endpoint', id });

/**
 * Now on the service's clock, which delivery runs on (retries, rotation windows, the recover rate limit).
 * NOTE: a test account's context carries its own test clock, which stands still between moves; the service's
 * clock is then the wall clock. Elsewhere the context's clock is the service's.
 */
export function serviceNow(ctx: ServiceContext): Date {
  return ctx.account.isTest && ctx.account.testClockAt ? ctx.wallClock.now() : ctx.clock.now();
}

function newSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(SECRET_BYTES).toString('base64');
}

function checkedUrl(ctx: ServiceContext, url: string, problems: FieldProblem[]): string {
  const trimmed = url.trim();
  const problem = webhookUrlProblem(trimmed, webhookRulesOf(ctx).urlPolicy);
  if (problem) problems.push({ field: 'Url', message: problem });
  return trimmed;
}

/** What is wrong with one pattern: not a pattern, or one that names no event type (docs/event-catalogue.md). */
function patternProblem(pattern: string, types: readonly string[]): string | undefined {
  let problem: string | undefined;
  if (!isEventTypePattern(pattern))
    problem = 'must be an event type (invoice.paid), a prefix wildcard (invoice.*) or *';
  else if (matchesSomeType(pattern, types)) return undefined;
  else if (pattern.endsWith('.*')) problem = `${pattern} matches no event type`;
  else problem = `${pattern} is not an event type`;
  const nearest = nearestEventPattern(pattern, types);
  return nearest === undefined ? problem : `${problem}; did you mean ${nearest}?`;
}

/**
 * Patterns as sent, without repeats (first occurrence kept). Each must subscribe to a type the service emits: a
 * misspelt one (`invoice.payed`) would otherwise be kept and never receive anything.
 */
function checkedEnabledEvents(
  ctx: ServiceContext,
  patterns: readonly string[],
  problems: FieldProblem[],
): string[] {
  const types = knownEventTypes(ctx.ports);
  const kept: string[] = [];
  patterns.forEach((pattern, i) => {
    const problem = patternProblem(pattern, types);
    if (problem) problems.push({ field: `EnabledEvents[${i}]`, message: problem });
    else if (!kept.includes(pattern)) kept.push(pattern);
  });
  if (patterns.length === 0)
    problems.push({ field: 'EnabledEvents', message: 'must name at least one event type' });
  return kept;
}

function checkedDescription(description: string | null | undefined): string | null {
  const trimmed = description?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export async function getWebhookEndpoint(ctx: ServiceContext, id: number): Promise<WebhookEndpoint> {
  const row = await repo.findEndpoint(ctx.db, ctx.account.id, id);
  if (!row) throw new NotFoundError('Webhook endpoint', id);
  return row;
}

export function listWebhookEndpoints(ctx: ServiceContext, page: Page): Promise<WebhookEndpoint[]> {
  return repo.listEndpoints(ctx.db, ctx.account.id, page);
}

/** The account's endpoints by id, for event objects; ids not found are left out. */
export async function webhookEndpointsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, WebhookEndpoint>> {
  const rows = await repo.endpointsByIds(ctx.db, ctx.account.id, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

/** 409 `webhook_endpoint_limit_reached` when the account has as many endpoints as it may; run in the transaction. */
async function assertRoomForEndpoint(ctx: ServiceContext): Promise<void> {
  await repo.lockAccountEndpointCreation(ctx.db, ctx.account.id);
  const existing = await repo.countEndpoints(ctx.db, ctx.account.id);
  const { maxEndpointsPerAccount } = webhookRulesOf(ctx);
  if (existing >= maxEndpointsPerAccount) {
    throw new ConflictError(
      'webhook_endpoint_limit_reached',
      `An account may have at most ${maxEndpointsPerAccount} webhook endpoints, and this one has ${existing}: ` +
        'delete one, or subscribe an existing one to more event types (EnabledEvents)',
    );
  }
}

/** Creates the endpoint with a new signing secret, returned here and never again (only rotation shows one). */
export async function createWebhookEndpoint(
  ctx: ServiceContext,
  input: WebhookEndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const problems: FieldProblem[] = [];
  const url = checkedUrl(ctx, input.url, problems);
  const enabledEvents = checkedEnabledEvents(ctx, input.enabledEvents, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  const secret = newSecret();
  const now = nowInstant(ctx);
  return withTransaction(ctx, async (tctx) => {
    await assertRoomForEndpoint(tctx);
    const id = await repo.insertEndpoint(tctx.db, tctx.account.id, {
      url,
      description: checkedDescription(input.description),
      enabledEvents,
      status: input.isActive === false ? 'disabled' : 'enabled',
      disabledReason: input.isActive === false ? (input.disabledReason ?? null) : null,
      secretSealed: tctx.secrets.seal(secret),
      createdAt: now,
    });
    await emitEvent(tctx, 'webhook_endpoint.created', endpointRef(id));
    return { endpoint: await getWebhookEndpoint(tctx, id), secret };
  });
}

/** Whether two lists of event types hold the same types in the same order (as the stored list compares). */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * Changes what is given. Enabling a disabled endpoint clears why it was disabled and its failure clock; disabling
 * it by hand records no reason. Nothing changed, nothing written (no event either).
 */
export async function editWebhookEndpoint(
  ctx: ServiceContext,
  id: number,
  changes: WebhookEndpointChanges,
): Promise<void> {
  const problems: FieldProblem[] = [];
  const url = changes.url === undefined ? undefined : checkedUrl(ctx, changes.url, problems);
  const enabledEvents =
    changes.enabledEvents === undefined
      ? undefined
      : checkedEnabledEvents(ctx, changes.enabledEvents, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  await withTransaction(ctx, async (tctx) => {
    const current = await repo.lockEndpoint(tctx.db, tctx.account.id, id);
    if (!current) throw new NotFoundError('Webhook endpoint', id);
    const next = {
      url: url ?? current.url,
      description:
        changes.description === undefined ? current.description : checkedDescription(changes.description),
      enabledEvents: enabledEvents ?? current.enabledEvents,
      status: changes.status ?? current.status,
    };
    const enabling = current.status === 'disabled' && next.status === 'enabled';
    const unchanged =
      next.url === current.url &&
      next.description === current.description &&
      sameList(next.enabledEvents, current.enabledEvents) &&
      next.status === current.status;
    if (unchanged) return;
    const before = await snapshotResource(tctx, endpointRef(id));
    await repo.updateEndpoint(tctx.db, tctx.account.id, id, {
      ...next,
      ...(enabling ? { disabledReason: null, failingSince: null } : {}),
      updatedAt: nowInstant(tctx),
    });
    const events: EventToEmit[] = [{ type: 'webhook_endpoint.updated', ref: endpointRef(id), before }];
    if (current.status === 'enabled' && next.status === 'disabled')
      events.push({ type: 'webhook_endpoint.disabled', ref: endpointRef(id), before });
    await emitEvents(tctx, events);
  });
}

/** Deletes the endpoint with its deliveries and their attempts (foreign keys cascade). */
export async function deleteWebhookEndpoint(ctx: ServiceContext, id: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, endpointRef(id));
    if (!(await repo.deleteEndpoint(tctx.db, tctx.account.id, id)))
      throw new NotFoundError('Webhook endpoint', id);
    await emitEvent(tctx, 'webhook_endpoint.deleted', endpointRef(id), { before });
  });
}

/**
 * Disables an endpoint the service gave up on (410 Gone, days of failures), saying why; emits
 * `webhook_endpoint.updated` and `webhook_endpoint.disabled`. False when it was disabled already or is gone.
 */
export async function disableEndpoint(ctx: ServiceContext, id: number, reason: string): Promise<boolean> {
  return withTransaction(ctx, async (tctx) => {
    const current = await repo.lockEndpoint(tctx.db, tctx.account.id, id);
    if (!current || current.status === 'disabled') return false;
    const before = await snapshotResource(tctx, endpointRef(id));
    await repo.updateEndpoint(tctx.db, tctx.account.id, id, {
      status: 'disabled',
      disabledReason: reason,
      updatedAt: nowInstant(tctx),
    });
    await emitEvents(tctx, [
      { type: 'webhook_endpoint.updated', ref: endpointRef(id), before },
      { type: 'webhook_endpoint.disabled', ref: endpointRef(id), before },
    ]);
    return true;
  });
}

/**
 * Replaces the signing secret. The replaced one keeps signing beside the new one for `previousExpiresInSeconds`
 * (docs/design/webhooks.md, "Secrets": 0 ends it at once, after a leak); a secret replaced earlier is dropped, so at
 * most two sign.
 */
export async function rotateWebhookSecret(
  ctx: ServiceContext,
  id: number,
  previousExpiresInSeconds: number,
): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const secret = newSecret();
  const previousSecretExpiresAt = new Date(
    serviceNow(ctx).getTime() + previousExpiresInSeconds * 1000,
  ).toISOString();
  await withTransaction(ctx, async (tctx) => {
    const current = await repo.lockEndpoint(tctx.db, tctx.account.id, id);
    if (!current) throw new NotFoundError('Webhook endpoint', id);
    const before = await snapshotResource(tctx, endpointRef(id));
    const keepsPrevious = previousExpiresInSeconds > 0;
    await repo.updateEndpoint(tctx.db, tctx.account.id, id, {
      secretSealed: tctx.secrets.seal(secret),
      previousSecretSealed: keepsPrevious ? current.secretSealed : null,
      previousSecretExpiresAt: keepsPrevious ? previousSecretExpiresAt : null,
      updatedAt: nowInstant(tctx),
    });
    // The audit log records who rotated; the object shows no secret, so UpdatedDate is all that changes.
    await emitEvent(tctx, 'webhook_endpoint.secret_rotated', endpointRef(id), { before });
  });
  return { secret, previousSecretExpiresAt };
}

/** The secrets that sign a delivery at `now`, current first; the replaced one until its window ends. */
export function endpointSigningSecrets(
  ctx: { secrets: SecretBox; memory: ServiceMemory },
  endpoint: Pick<SendingEndpoint, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const secrets = [openSecret(ctx, endpoint.secretSealed)];
  const { previousSecretSealed: previous, previousSecretExpiresAt: expiresAt } = endpoint;
  if (previous && expiresAt && now.getTime() < Date.parse(expiresAt)) secrets.push(openSecret(ctx, previous));
  return secrets;
}

/**
 * In the service's memory, opened secrets by their sealed text, per key: every delivery signs, and opening one
 * costs a decryption.
 */
const OPENED_SECRETS: MemoryPart<WeakMap<SecretBox, Map<string, string>>> = {
  name: 'opened webhook secrets',
  make: () => new WeakMap(),
};
const OPENED_SECRETS_KEPT = 1_000;

function openSecret(ctx: { secrets: SecretBox; memory: ServiceMemory }, sealed: string): string {
  const box = ctx.secrets;
  const openedSecrets = ctx.memory.part(OPENED_SECRETS);
  let opened = openedSecrets.get(box);
  if (!opened) {
    opened = new Map();
    openedSecrets.set(box, opened);
  }
  let secret = opened.get(sealed);
  if (secret === undefined) {
    secret = box.open(sealed);
    if (opened.size >= OPENED_SECRETS_KEPT) opened.clear();
    opened.set(sealed, secret);
  }
  return secret;
}

/** Emits a `webhook.test` event of the endpoint, delivered to it alone whatever it subscribes to. */
export async function sendTestEvent(ctx: ServiceContext, id: number): Promise<string> {
  return withTransaction(ctx, async (tctx) => {
    await getWebhookEndpoint(tctx, id);
    const [event] = await emitEvent(tctx, 'webhook.test', endpointRef(id), { onlyToEndpoint: id });
    return event!.id;
  });
}

/**
 * Gives a new account a copy of each webhook endpoint of another, disabled until the merchant confirms it
 * (docs/going-live.md, "Webhook endpoints"): a live account's events must not reach a receiver set up for tests
 * before someone says it is ready. Each copy has a signing secret of its own, returned here and never again.
 */
export async function copyWebhookEndpoints(
  from: ServiceContext,
  to: ServiceContext,
): Promise<{ endpoint: WebhookEndpoint; secret: string }[]> {
  const limit = webhookRulesOf(from).maxEndpointsPerAccount;
  const endpoints = await listWebhookEndpoints(from, { limit, offset: 0 });
  const copies: { endpoint: WebhookEndpoint; secret: string }[] = [];
  for (const endpoint of endpoints) {
    copies.push(
      await createWebhookEndpoint(to, {
        url: endpoint.url,
        description: endpoint.description,
        enabledEvents: endpoint.enabledEvents,
        isActive: false,
        disabledReason: `copied from test account ${from.account.id}: enable it once its receiver takes live events`,
      }),
    );
  }
  return copies;
}
