import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.ts';
import { contextFor } from '../../context.ts';
import type {
  Account,
  Ports,
  SendingEndpoint,
  ServiceContext,
  ServiceMemory,
  WebhookRules,
  WebhookSender,
} from '../../context.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import type { Db } from '../../storage/database.ts';
import { queueMail } from '../mail/index.ts';
import { disableEndpoint, endpointSigningSecrets } from './webhookEndpoint.service.ts';
import * as repo from './webhookDelivery.repository.ts';
import type { LeasedDelivery } from './webhookDelivery.repository.ts';
import { nextRetryDelayMs, parseRetryAfter } from './webhookDeliverySchedule.ts';
import { groupCommit } from './groupCommit.ts';
import { EXCERPT_BYTES, postWebhook } from './webhookHttp.ts';
import type { WebhookResponse } from './webhookHttp.ts';
import { signWebhook } from './webhookSigning.ts';
import { addressAllowed, webhookRulesOf } from './webhookUrlPolicy.ts';

/**
 * Sends webhook deliveries and records each attempt (docs/design/webhooks.md, "Sending"). The worker
 * (webhook.worker.ts) leases due deliveries and hands each to `attemptDelivery`; an attempt is a POST of the stored
 * event body, signed, and one transaction recording the attempt, the delivery's new state and the endpoint's
 * (failing since when, disabled).
 */

/** What the worker needs of accounts, which live in a module above this one: the composition root supplies it. */
export interface WebhookAccounts {
  account(db: Db, accountId: number): Promise<Account>;
  /** The seller's contact e-mail address (the account's ContactEmail), told when an endpoint is disabled. */
  contactEmail(db: Db, accountId: number): Promise<string | null>;
}

export interface WebhookDeliveryDeps {
  db: Db;
  /** The service clock: schedules, leases and attempt times (a test moves it). */
  clock: Clock;
  /** The wall clock (ServiceContext.wallClock): signatures and an HTTP-date Retry-After. */
  wallClock: Clock;
  secrets: SecretBox;
  log: Logger;
  accounts: WebhookAccounts;
  timeoutMs: number;
  mailQueued(): void;
  ports: Ports;
  /** The service's memory (ServiceContext.memory): the secrets it opened, among others. */
  memory: ServiceMemory;
  /** The service's webhook settings (ServiceContext.webhookRules); absent: the defaults. */
  webhookRules?: WebhookRules;
  /** Draws the schedule's jitter, in [0, 1). */
  random?: () => number;
}

/** An endpoint that has not taken a delivery for this long while failing is disabled (Svix's rule). */
export const FAILING_DISABLE_MS = 5 * 24 * 60 * 60 * 1000;
/** Longer than an attempt may take, so that a lease never runs out while its POST is still in flight. */
export const LEASE_MARGIN_MS = 30_000;

function readUserAgent(): string {
  // package.json sits beside src/ and dist/ alike (tsconfig.build.json keeps the depth).
  const manifest = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  return `${manifest.name}-webhooks/${manifest.version}`;
}
export const USER_AGENT = readUserAgent();

export interface PreparedDelivery {
  lease: LeasedDelivery;
  payload: string | undefined;
  endpoint: SendingEndpoint | undefined;
}

/** Reads the bodies and endpoints of leased deliveries, a few statements for the whole batch. */
export async function prepareDeliveries(
  db: Db,
  leases: readonly LeasedDelivery[],
): Promise<PreparedDelivery[]> {
  const payloads = await repo.eventPayloads(
    db,
    leases.map((lease) => lease.eventId),
  );
  const endpoints = await repo.endpointsForSending(
    db,
    leases.map((lease) => lease.endpointId),
  );
  return leases.map((lease) => ({
    lease,
    payload: payloads.get(lease.eventId),
    endpoint: endpoints.get(lease.endpointId),
  }));
}

export function webhookHeaders(
  secrets: readonly string[],
  eventId: string,
  body: string,
  wallNow: Date,
): Record<string, string> {
  // Standard Webhooks: the attempt's wall-clock time, which receivers compare with their own Date.now().
  const timestamp = Math.floor(wallNow.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secrets, { id: eventId, timestamp, body }),
  };
}

function isSuccess(response: WebhookResponse): boolean {
  return (
    response.error === undefined &&
    response.statusCode !== undefined &&
    response.statusCode < 300 &&
    response.statusCode >= 200
  );
}

function attemptError(response: WebhookResponse): string | null {
  if (response.error !== undefined) return response.error;
  const code = response.statusCode!;
  if (code >= 200 && code < 300) return null;
  if (code >= 300 && code < 400) return `HTTP ${code}: redirects are not followed`;
  return `HTTP ${code}`;
}

/** What an attempt needs besides the worker's deps: the worker itself, as the sender of the events it emits. */
export type AttemptDeps = WebhookDeliveryDeps & { webhookSender: WebhookSender };

/** Records a delivered attempt; false when its lease ran out. */
export type RecordDelivered = (delivered: {
  settled: repo.SettledAttempt;
  endpoint: SendingEndpoint;
}) => Promise<boolean>;

/**
 * Records delivered attempts in batches (groupCommit): a busy endpoint's successes, the common case, share one
 * write (a statement on PostgreSQL, a transaction on SQLite). Failures, which may disable the endpoint and e-mail
 * the account, are recorded one by one.
 */
export function deliveredRecorder(db: Db): RecordDelivered {
  return groupCommit(async (items: Parameters<RecordDelivered>[0][]) => {
    const settled = items.map((item) => item.settled);
    // NOTE: failingSince as read with the lease; a failure recorded since is cleared by the next success.
    if (items.every((item) => item.endpoint.failingSince === null)) return repo.recordAttempts(db, settled);
    // A success that ends an endpoint's failing run clears it in the same transaction: no reader sees the
    // delivery done while its endpoint still counts as failing, and a crash leaves both or neither.
    return db.transaction().execute(async (trx) => {
      const recorded = await repo.recordAttempts(trx, settled);
      const recovered = items
        .filter((item, i) => recorded[i] && item.endpoint.failingSince !== null)
        .map((item) => item.endpoint.id);
      await repo.clearFailingSince(trx, [...new Set(recovered)]);
      return recorded;
    });
  });
}

/**
 * POSTs one leased delivery and records the outcome. Returns quietly when the signal aborted the POST (the
 * service stopping): the lease is given back, and the delivery is tried again by whichever worker leases it next.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  prepared: PreparedDelivery,
  recordDelivered: RecordDelivered,
  signal?: AbortSignal,
): Promise<void> {
  const { lease, payload, endpoint } = prepared;
  if (!endpoint || endpoint.status !== 'enabled') {
    await repo.releaseLeases(deps.db, [lease]);
    return;
  }
  const attemptedAt = deps.clock.now();
  if (payload === undefined) {
    await settle(deps, recordDelivered, prepared, attemptedAt, {
      statusCode: undefined,
      retryAfter: undefined,
      durationMs: 0,
      excerpt: undefined,
      error: 'the event no longer exists',
    });
    return;
  }
  const policy = webhookRulesOf(deps).urlPolicy;
  let secrets: string[];
  try {
    secrets = endpointSigningSecrets(deps, endpoint, attemptedAt);
  } catch (error) {
    // A secret that cannot be opened (ENCRYPTION_KEY changed): a failed attempt on the schedule, not a silent loop.
    deps.log.error({ err: error, endpointId: lease.endpointId }, 'cannot open a webhook endpoint secret');
    await settle(deps, recordDelivered, prepared, attemptedAt, {
      statusCode: undefined,
      retryAfter: undefined,
      durationMs: 0,
      excerpt: undefined,
      error: "the endpoint's secret cannot be read (was ENCRYPTION_KEY changed?); rotate the secret",
    });
    return;
  }
  const response = await postWebhook({
    url: endpoint.url,
    body: payload,
    headers: webhookHeaders(secrets, lease.eventId, payload, deps.wallClock.now()),
    timeoutMs: deps.timeoutMs,
    allowHttp: policy.allowHttp,
    addressAllowed: (ip) => addressAllowed(ip, policy),
    signal,
  });
  if (signal?.aborted) {
    await repo.releaseLeases(deps.db, [lease]);
    return;
  }
  await settle(deps, recordDelivered, prepared, attemptedAt, response);
}

function workerContext(deps: AttemptDeps, account: Account, db: Db): ServiceContext {
  // Events the worker emits carry business time, as the bill run's do: contextFor gives a test account its own clock.
  const log = deps.log.child({ accountId: account.id }) as unknown as FastifyBaseLogger;
  return contextFor({ ...deps, db, log }, account);
}

async function settle(
  deps: AttemptDeps,
  recordDelivered: RecordDelivered,
  { lease, endpoint }: PreparedDelivery,
  attemptedAt: Date,
  response: WebhookResponse,
): Promise<void> {
  const at = attemptedAt.toISOString();
  const attemptsMade = lease.attempts + 1;
  const success = isSuccess(response);
  const gone = response.error === undefined && response.statusCode === 410;
  let outcome: repo.DeliveryOutcome;
  if (success) outcome = { status: 'delivered', at };
  else if (gone) outcome = { status: 'failed' };
  else {
    const throttled = response.statusCode === 429 || response.statusCode === 503;
    const delay = nextRetryDelayMs(attemptsMade, {
      random: (deps.random ?? Math.random)(),
      retryAfterMs: throttled
        ? parseRetryAfter(response.retryAfter, deps.wallClock.now().getTime())
        : undefined,
    });
    outcome =
      delay === undefined
        ? { status: 'failed' }
        : { status: 'pending', nextAttemptAt: new Date(attemptedAt.getTime() + delay).toISOString() };
  }
  const attempt = {
    attemptedAt: at,
    statusCode: response.statusCode ?? null,
    durationMs: response.durationMs,
    excerpt: response.excerpt ? response.excerpt.slice(0, EXCERPT_BYTES) : null,
    error: attemptError(response),
  };

  const settled = { lease, attempt, outcome };
  const recorded = success
    ? await recordDelivered({ settled, endpoint: endpoint! })
    : await recordFailure(deps, settled, endpoint!, gone);
  if (!recorded) {
    deps.log.warn(
      { deliveryId: lease.id, eventId: lease.eventId },
      'webhook attempt not recorded: its lease ran out and another worker may have taken the delivery over',
    );
  }
}

/** Records a failed attempt; disables the endpoint on 410 Gone or after failing for FAILING_DISABLE_MS. */
async function recordFailure(
  deps: AttemptDeps,
  settled: repo.SettledAttempt & { lease: LeasedDelivery },
  endpoint: SendingEndpoint,
  gone: boolean,
): Promise<boolean> {
  const { lease } = settled;
  const at = settled.attempt.attemptedAt;
  const attemptedAt = new Date(at);
  let mailed = false;
  const recorded = await deps.db.transaction().execute(async (trx) => {
    const [written] = await repo.recordAttempts(trx, [settled]);
    if (!written) return false;
    const failingSince = await repo.markFailing(trx, lease.endpointId, at);
    const reason = gone
      ? '410 Gone'
      : failingSince !== undefined && attemptedAt.getTime() - Date.parse(failingSince) >= FAILING_DISABLE_MS
        ? `failing since ${failingSince}`
        : undefined;
    if (reason !== undefined) mailed = await disableAndTell(deps, trx, lease, endpoint, reason);
    return true;
  });
  if (mailed) deps.mailQueued();
  return recorded;
}

/** Disables the endpoint and e-mails the account, which can no longer hear of it through the endpoint itself. */
async function disableAndTell(
  deps: AttemptDeps,
  trx: Db,
  lease: LeasedDelivery,
  endpoint: SendingEndpoint,
  reason: string,
): Promise<boolean> {
  const account = await deps.accounts.account(trx, lease.accountId);
  const ctx = workerContext(deps, account, trx);
  if (!(await disableEndpoint(ctx, lease.endpointId, reason))) return false;
  deps.log.warn({ accountId: account.id, endpointId: endpoint.id, reason }, 'webhook endpoint disabled');
  const to = await deps.accounts.contactEmail(trx, account.id);
  if (!to) {
    deps.log.warn(
      { accountId: account.id, endpointId: endpoint.id },
      'webhook endpoint disabled, but the account has no ContactEmail to tell',
    );
    return false;
  }
  await queueMail(trx, deps, account.id, {
    to,
    subject: `Webhook endpoint ${endpoint.id} has been disabled`,
    text: [
      `Your webhook endpoint ${endpoint.id} (${endpoint.url}) has been disabled: ${reason}.`,
      '',
      'No events are sent to it while it is disabled. Once the receiver works again, re-enable the endpoint',
      `(PUT /v1/webhookendpoints/${endpoint.id} with Status "enabled"), and recover the deliveries that failed`,
      `(POST /v1/webhookendpoints/${endpoint.id}/recover).`,
    ].join('\n'),
  });
  return true;
}
