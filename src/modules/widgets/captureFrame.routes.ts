import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { ValidationError } from '../../errors.ts';
import { addressKey } from '../../http/clientAddress.ts';
import { problem, sendProblem } from '../../http/problem.ts';
import type { App } from '../../http/types.ts';
import type { Db } from '../../storage/database.ts';
import {
  answerChallenge,
  countAddressFailure,
  findSessionByHashToken,
  openFrameRequest,
  openState,
  submitCard,
} from './capture.service.ts';
import type { FrameRequest } from './capture.service.ts';
import { bankRailOf, submitBankAccount } from './captureBank.service.ts';
import { completeProviderSetup, frameHostedFields, startProviderSetup } from './captureProvider.service.ts';
import { includesSale } from './captureSession.ts';
import type { CaptureSessionRecord } from './captureSession.ts';
import { completeOwnSession } from './captureRecovery.service.ts';
import { LOADER_PATH, LOADER_SOURCE, frameDocument, frameHeaders } from './widgetAssets.ts';

/**
 * The browser's side of the capture widget, outside /v1 and without an API key (docs/design/hosted-pages.md,
 * "Capture widget"): the loader, the frame (found by its HashToken) and the frame's submit. Each sets its own
 * headers: the API's (no-store, the reference page's CSP and X-Frame-Options) would break embedding.
 */

/** A context acting for the session's account, as a request under /v1 acts for its key's. */
export type AccountContext = (accountId: number, request: FastifyRequest) => Promise<ServiceContext>;

const HashTokenParams = Type.Object({ HashToken: Type.String({ pattern: '^[0-9a-f]{64}$' }) });

const Field = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
/** The frame's own fields: a card, or (kind bank_account) a bank account of the session's rail. */
const SubmitBody = Type.Object({
  kind: Type.Optional(Type.Union([Type.Literal('card'), Type.Literal('bank_account')])),
  number: Field(40),
  expiry: Field(10),
  securityCode: Field(8),
  name: Field(200),
  accountHolder: Field(200),
  bank: Field(200),
  accountType: Field(40),
  accountNumber: Field(40),
  branchCode: Field(40),
  routingNumber: Field(40),
  iban: Field(60),
  bic: Field(20),
  idNumber: Field(40),
  idType: Field(40),
});
type SubmitBody = Static<typeof SubmitBody>;

/** The shopper's answer to the simulated 3-D Secure challenge a submit answered. */
const ChallengeBody = Type.Object({
  challengeId: Type.String({ pattern: '^[0-9a-f]{32}$' }),
  outcome: Type.Union([Type.Literal('approve'), Type.Literal('fail')]),
});
type ChallengeBody = Static<typeof ChallengeBody>;

/** The start of a provider's setup: the payer's e-mail, where the provider needs one the session does not know. */
const ProviderStartBody = Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) });
type ProviderStartBody = Static<typeof ProviderStartBody>;

/** A year, as the loader is immutable: a new loader gets a new path. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface CaptureFrameDeps {
  /** The service's database, to find a session by its HashToken before its account is known. */
  db: Db;
  contextFor: AccountContext;
  /** The service's clock, which the limit per client address reads (capture.service.ts, AddressLimitDeps). */
  clock: Clock;
}

export function registerCaptureFrameRoutes(app: App, deps: CaptureFrameDeps): void {
  app.get(LOADER_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': IMMUTABLE,
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
      })
      .send(LOADER_SOURCE),
  );

  app.get(
    '/widget/capture/:HashToken',
    { schema: { hide: true, params: HashTokenParams } },
    async (request, reply) => {
      const { HashToken } = request.params as { HashToken: string };
      const nonce = crypto.randomBytes(16).toString('base64');
      const row = await findSessionByHashToken(deps, HashToken);
      if (!row) {
        // Nobody may frame a page about a session we do not know.
        return reply
          .code(404)
          .headers(frameHeaders(nonce, "'none'"))
          .type('text/html; charset=utf-8')
          .send(
            '<!doctype html><html lang="en"><title>Not found</title><p>This payment form does not exist.</p></html>',
          );
      }
      const ctx = await deps.contextFor(row.accountId, request);
      const sells = includesSale(row.saleType) && row.amountMinor !== null;
      const state = openState(ctx, row);
      const hosted = state === 'open' ? await frameHostedFields(ctx, row) : undefined;
      return reply
        .headers(frameHeaders(nonce, row.authDomain, hosted?.fields.origins ?? []))
        .type('text/html; charset=utf-8')
        .send(
          frameDocument({
            nonce,
            hashToken: HashToken,
            parentOrigin: row.authDomain,
            state,
            bankRail: hosted ? null : ((await bankRailOf(ctx, row)) ?? null),
            hostedFields: hosted
              ? { ...hosted.fields, askEmail: hosted.fields.needsEmail && !hosted.emailKnown }
              : null,
            description: row.description,
            amountText: sells
              ? `${minorToDecimalText(row.amountMinor!, row.currencyCode)} ${row.currencyCode}`
              : null,
          }),
        );
    },
  );

  /**
   * A POST of the frame: never cached; the session its HashToken names opened with a context acting for the
   * session's account, after the limit per client address; the use case's refusals counted against the address.
   */
  const framePost = <B>(
    path: string,
    body: TSchema | undefined,
    work: (opened: FrameRequest, body: B) => Promise<unknown>,
  ) =>
    app.post(
      `/widget/capture/:HashToken${path}`,
      { schema: { hide: true, params: HashTokenParams, ...(body ? { body } : {}) } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const opened = await openFrameRequest(
          { ...deps, contextFor: (accountId) => deps.contextFor(accountId, request) },
          (request.params as { HashToken: string }).HashToken,
          addressKey(request.ip),
        );
        if ('retryAfter' in opened) return sendTooManyFailures(reply, opened.retryAfter);
        return answerCountingRefusals(deps, request, reply, () => work(opened, request.body as B));
      },
    );

  framePost<SubmitBody>('/submit', SubmitBody, ({ ctx, session }, body) =>
    body.kind === 'bank_account'
      ? submitBankAccount(ctx, session, {
          accountHolder: body.accountHolder ?? '',
          bank: body.bank ?? '',
          accountType: body.accountType ?? '',
          accountNumber: body.accountNumber,
          branchCode: body.branchCode,
          routingNumber: body.routingNumber,
          iban: body.iban,
          bic: body.bic,
          idNumber: body.idNumber,
          idType: body.idType,
        })
      : recordingPageSale(ctx, session, () =>
          submitCard(ctx, session, {
            number: body.number ?? '',
            expiry: body.expiry ?? '',
            securityCode: body.securityCode ?? '',
            name: body.name ?? '',
          }),
        ),
  );
  // A provider's hosted fields (docs/hosted-pages.md, "With a real provider"): the setup started, then completed.
  framePost<ProviderStartBody>('/provider/start', ProviderStartBody, ({ ctx, session }, body) =>
    startProviderSetup(ctx, session, body.email === undefined ? {} : { email: body.email }),
  );
  framePost('/provider/complete', undefined, ({ ctx, session }) =>
    recordingPageSale(ctx, session, () => completeProviderSetup(ctx, session)),
  );
  framePost<ChallengeBody>('/challenge', ChallengeBody, ({ ctx, session }, body) =>
    recordingPageSale(ctx, session, () =>
      answerChallenge(ctx, session, { challengeId: body.challengeId, approved: body.outcome === 'approve' }),
    ),
  );
}

/**
 * A step of the frame that may charge, then, for a session of the service's own pages (the pay page, the portal),
 * the session completed at once rather than when the page's browser comes back (docs/hosted-pages.md, "Paying one
 * invoice" and "When the browser never comes back"); the merchant's sessions are left for the merchant.
 */
async function recordingPageSale<T>(
  ctx: ServiceContext,
  session: CaptureSessionRecord,
  step: () => Promise<T>,
): Promise<T> {
  const answer = await step();
  await completeOwnSession(ctx, session);
  return answer;
}

/**
 * The use case's answer; a refusal (a failed attempt, with the attempts left) is counted against the client's
 * address before the frame is told (docs/design/hosted-pages.md, "Capture widget").
 */
async function answerCountingRefusals<T>(
  deps: CaptureFrameDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ValidationError && 'attemptsLeft' in error) {
      await countAddressFailure(deps, addressKey(request.ip));
      return sendRefusal(reply, error, (error as { attemptsLeft: number }).attemptsLeft);
    }
    throw error;
  }
}

function sendRefusal(reply: FastifyReply, error: ValidationError, attemptsLeft: number): FastifyReply {
  return sendProblem(reply, {
    ...problem(422, error.code, error.message, error.fields),
    attemptsLeft,
  } as never);
}

/** The address failed too often, in any session (docs/design/hosted-pages.md, "Capture widget"). */
function sendTooManyFailures(reply: FastifyReply, retryAfter: number): FastifyReply {
  reply.header('retry-after', String(retryAfter));
  return sendProblem(
    reply,
    problem(429, 'too_many_failed_attempts', 'Too many failed attempts from this address; retry later'),
  );
}
