import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { sql } from 'kysely';
import { isPostgres } from '../storage/columns.ts';
import type { Db } from '../storage/database.ts';
import type { InFlight } from './inflight.ts';
import type { IdempotencyLease } from './idempotencyLease.ts';
import type { SecretBox } from '../security/secretBox.ts';
import { ConflictError, ValidationError } from '../errors.ts';
import * as repo from './idempotency.repository.ts';

/** Keys are honoured for at least this long; the worker purges them after it. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * A key still without a response after this long belongs to a request that died; a retry may take it over.
 * A dead lease is taken over at once instead, but only for an operation recording its response inside its own
 * transaction (idempotentCreate); this delay covers every other case.
 */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds, under its own reservation of it (see repo.HeldKey). */
    idempotency: repo.HeldKey | undefined;
  }
}

/**
 * Each reservation is its own: the process's lease plus a random part, so that a request can tell its hold from
 * that of a later request of the same process that took the key over (after the abandonment delay).
 */
function reservationId(processLease: string): string {
  return `${processLease}#${crypto.randomBytes(6).toString('hex')}`;
}

function processLeaseOf(reservation: string): string {
  return reservation.replace(/#[0-9a-f]+$/, '');
}

/** JSON with object keys sorted, so that the same body sent with its keys in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Keyed: a body may hold a card or bank account number (see SecretBox.fingerprint). */
export function requestHash(secrets: SecretBox, method: string, url: string, body: unknown): string {
  return secrets.fingerprint(`${method} ${url}\n${canonicalJson(body ?? null)}`);
}

/**
 * `Idempotency-Key` on POST: the first request with a key runs and its response (any status below 500) is
 * kept; the same key with the same request replays that response; with a different request it is a 409.
 * A 5xx releases the key so that the client's retry runs again.
 */
export function registerIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.decorateRequest('idempotency', undefined);
  app.addHook('preHandler', async (request, reply) => claimIdempotencyKey(deps, request, reply));
  app.addHook('onSend', async (request, reply, payload) =>
    recordIdempotentResponse(deps, request, reply, payload),
  );
}

interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  inflight: InFlight;
  secrets: SecretBox;
  lease: IdempotencyLease;
}

/** Before a POST with a key runs: the key claimed for it, or the response kept for it replayed, or a 409. */
async function claimIdempotencyKey(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (request.method !== 'POST') return;
  const header = request.headers['idempotency-key'];
  if (header === undefined) return;
  if (typeof header !== 'string' || header.length === 0 || header.length > 255) {
    throw ValidationError.field('Idempotency-Key', 'must be one value of 1 to 255 characters');
  }
  const accountId = request.ctx.account.id;
  const now = deps.clock.now();
  const claim = {
    accountId,
    key: header,
    requestHash: requestHash(deps.secrets, request.method, request.url, request.body),
    now: now.toISOString(),
    lease: reservationId(deps.lease.id),
  };
  const retake = (olderThanMs: number) =>
    repo.retakeIdempotencyKey(deps.db, {
      ...claim,
      staleBefore: new Date(now.getTime() - olderThanMs).toISOString(),
      unanswered: olderThanMs < IDEMPOTENCY_RETENTION_MS,
    });

  // A reservation whose process is gone, for an operation that records its response inside its own transaction
  // (idempotentCreate), died with its work: nothing of it committed, or its response would be recorded. It is as
  // if it had never been made. Any other operation records its response after its commit (in onSend), so a
  // process killed in between committed work without a response: only the abandonment delay applies to it.
  const takeOverIfDead = async (stored: repo.StoredResponse) =>
    stored.response_status === null &&
    Boolean(stored.records_in_transaction) &&
    stored.lease !== null &&
    (await deps.lease.isDead(processLeaseOf(stored.lease))) &&
    repo.takeOverDeadLease(deps.db, { ...claim, deadLease: stored.lease });

  let claimed = await repo.reserveIdempotencyKey(deps.db, claim);
  if (!claimed) {
    const stored = await repo.findIdempotencyKey(deps.db, accountId, header);
    if (!stored) {
      claimed = await repo.reserveIdempotencyKey(deps.db, claim);
    } else if (await retake(IDEMPOTENCY_RETENTION_MS)) {
      claimed = true;
    } else if (stored.request_hash !== claim.requestHash) {
      // Before any takeover: a different request never runs under a key in use, whatever became of its holder.
      throw new ConflictError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request; use a new key for a new request',
      );
    } else if (stored.response_status === null) {
      if (!(await takeOverIfDead(stored)) && !(await retake(ABANDONED_AFTER_MS))) {
        throw new ConflictError(
          'idempotency_key_in_progress',
          'A request with this Idempotency-Key is still being processed; retry later',
        );
      }
      claimed = true;
    } else {
      reply.code(stored.response_status).header('Idempotent-Replayed', 'true');
      if (stored.response_type) reply.type(stored.response_type);
      return reply.send(
        stored.response_body === null ? undefined : openStoredBody(deps.secrets, stored.response_body),
      );
    }
  }
  if (!claimed) throw new ConflictError('idempotency_key_in_progress', 'Retry the request');
  request.idempotency = { accountId, key: header, lease: claim.lease };
}

/** After a claimed POST answered: its response kept for the key's replays, or the key released after a 5xx. */
async function recordIdempotentResponse(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const held = request.idempotency;
  if (held === undefined) return payload;
  request.idempotency = undefined;
  // Counted as in flight: when the client has hung up, nothing else keeps shutdown waiting for this write.
  // A failure to record is logged, not answered: the operation itself has already committed.
  // Both writes touch the key only while this request still holds it: a request that lost it to a takeover
  // (idempotentCreate's 409) leaves the new holder's reservation alone.
  await deps.inflight.around(async () => {
    try {
      if (reply.statusCode >= 500) {
        await repo.releaseIdempotencyKey(deps.db, held);
        return;
      }
      const contentType = reply.getHeader('content-type');
      await repo.storeIdempotentResponse(deps.db, {
        ...held,
        status: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : null,
        body: typeof payload === 'string' ? deps.secrets.seal(payload) : null,
      });
    } catch (error) {
      request.log.error({ err: error }, 'could not record the idempotent response');
    }
  });
  return payload;
}

/**
 * Stored responses are sealed: some carry what must not rest in clear (a webhook endpoint's secret, shown once).
 * Rows written before they were sealed hold the JSON itself.
 */
function openStoredBody(secrets: SecretBox, body: string): string {
  return body.startsWith('{') || body.startsWith('[') ? body : secrets.open(body);
}

/**
 * A POST that creates (a money movement, a batch): opens the transaction, runs the use case in it with a context
 * bound to it, and answers 201 with `toDto` (pure) of what it made. The use case joins that transaction
 * (withTransaction) and knows nothing of HTTP; nothing runs in it before the use case but the lock timeout below,
 * which takes no lock, so the use case's first lock (a money movement's customer) is the transaction's first. The
 * response is then recorded under the request's Idempotency-Key in the same transaction, last: it commits with the
 * change or not at all, and a crash between the commit and onSend's record cannot let a retry make the change
 * twice. onSend records the response again as serialized.
 *
 * A money movement names its customer (`moneyOf`): it waits for the customer's turn in this process before its
 * transaction takes a connection (CustomerQueue), and once in it waits for a row lock at most the queue's lock
 * timeout (PostgreSQL `lock_timeout`, for a lock another process holds). Either refusal is a 503 with nothing
 * written, which releases the key (onSend), so a retry with the same key runs it.
 *
 * The record is made only while the request still holds its key. When another process took it over meanwhile (it
 * judged ours dead: our PostgreSQL lease connection broke, or the abandonment delay ran out), the record changes no
 * row, and a 409 idempotency_key_in_progress rolls the whole change back: of the two requests, only the holder's
 * commits.
 */
export async function idempotentCreate<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  create: (ctx: ServiceContext) => Promise<T>,
  toDto: (created: T) => unknown,
  moneyOf?: { customerId: number },
): Promise<FastifyReply> {
  const held = request.idempotency;
  // Marked before the transaction starts (and before waiting for a turn), so that a dead lease on the key now
  // means that nothing was committed.
  if (held !== undefined && !(await repo.markRecordsInTransaction(request.ctx.db, held)))
    throw keyTakenOver();
  const createAndRecord = () =>
    withTransaction(request.ctx, async (ctx) => {
      if (moneyOf !== undefined) await limitLockWaits(ctx, request.customerQueue.lockTimeoutMs);
      const created = toDto(await create(ctx));
      if (held !== undefined) await recordCreated(ctx, held, created);
      return created;
    });
  const dto =
    moneyOf === undefined
      ? await createAndRecord()
      : await request.customerQueue.inTurn(request.ctx.account.id, moneyOf.customerId, createAndRecord);
  return reply.code(201).send(dto);
}

/**
 * PostgreSQL: the transaction's lock waits end after `timeoutMs` with 55P03 (a 503, src/http/errors.ts). Local to
 * the transaction; SQLite's one writer waits its busy timeout instead (src/storage/database.ts).
 */
async function limitLockWaits(ctx: ServiceContext, timeoutMs: number): Promise<void> {
  if (!isPostgres(ctx.db)) return;
  await sql`select set_config('lock_timeout', ${`${timeoutMs}ms`}, true)`.execute(ctx.db);
}

/** Records a create's 201 under the key in the create's transaction; a 409 when the request no longer holds it. */
async function recordCreated(ctx: ServiceContext, held: repo.HeldKey, dto: unknown): Promise<void> {
  const recorded = await repo.storeIdempotentResponse(ctx.db, {
    ...held,
    status: 201,
    contentType: 'application/json; charset=utf-8',
    body: ctx.secrets.seal(JSON.stringify(dto)),
    keepLease: true,
  });
  if (!recorded) throw keyTakenOver();
}

function keyTakenOver(): ConflictError {
  return new ConflictError(
    'idempotency_key_in_progress',
    'Another request took this Idempotency-Key over while this one ran, so this one did nothing; retry later to get its response',
  );
}

export const { purgeIdempotencyKeys } = repo;
