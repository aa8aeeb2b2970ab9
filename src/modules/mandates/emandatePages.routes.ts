import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { DomainError, ValidationError } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import { refuseOddFormFields } from '../../http/formFields.ts';
import { IMMUTABLE, sendScript } from '../../http/pinnedScript.ts';
import { problem, sendProblem } from '../../http/problem.ts';
import type { App } from '../../http/types.ts';
import { pageRateLimit } from '../../http/pageRateLimit.ts';
import * as emandates from './emandate.service.ts';
import type { Emandate } from './emandate.ts';
import { EMANDATE_LOADER_V1_PATH, EMANDATE_SCRIPT } from './emandateLoader.ts';
import { PAGE_TITLE, renderErrorPage, renderMandatePage } from './emandatePage.ts';
import { isPublicDownloadOpen, mandatePdfFilename, renderMandatePdf } from './mandatePdf.ts';
import type { PageOptions, PageVariant } from './emandatePage.ts';

/** What the hosted pages need from the composition root: they have no API key to say whose they are. */
export interface EmandatePageDeps {
  db: Db;
  /** A context for the account (its clock, a test account's test clock), without an API key. */
  contextFor(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 128 }) });
const FrameQuery = Type.Object({ widgetId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{1,64}$' })) });

/**
 * Requests a client address may make to each page route a minute (docs/design/hosted-pages.md, "eMandate pages":
 * the token is a bearer capability, rate-limited). A signee needs a handful; a guesser of 256-bit tokens gets
 * nowhere faster with more, but is kept from loading the service.
 */
export const PAGE_REQUESTS_PER_MINUTE = 300;
const config = pageRateLimit(PAGE_REQUESTS_PER_MINUTE);

/**
 * The frame may be shown only by the mandate's AuthDomain; the redirect page by nobody (docs/design/hosted-pages.md,
 * "eMandate pages"). Sent as a header: frame-ancestors is ignored in a meta tag.
 */
function setPageHeaders(reply: FastifyReply, nonce: string, frameAncestors: string): void {
  reply
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        `frame-ancestors ${frameAncestors}`,
      ].join('; '),
    )
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8');
  // For browsers older than frame-ancestors; never beside an allowed origin, which it would override.
  if (frameAncestors === "'none'") reply.header('x-frame-options', 'DENY');
}

/**
 * Whether a form post comes from the mandate's own page (the signing page or its frame, both on the service's
 * origin). Signing and declining are the signee's acts: a page of another site that holds the token must not post
 * them from the signee's browser, which would make the stored evidence name the signee. Browsers say where a post
 * comes from (Sec-Fetch-Site, and Origin on every POST); a client that says neither is not a browser acting for
 * someone else.
 */
function isFromOwnPage(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** The answer to a form posted from another site: nothing is changed, and the page says why. */
function refuseForeignForm(reply: FastifyReply, variant: PageVariant) {
  const nonce = crypto.randomBytes(16).toString('base64');
  setPageHeaders(reply, nonce, "'none'");
  return reply.code(403).send(
    renderErrorPage(
      'Not sent from the mandate page',
      'A mandate can only be signed or declined on its own page. Open the link you were sent and try again.',
      {
        variant,
        token: null,
        nonce,
        widgetId: null,
        parentOrigin: null,
        signAction: '',
        declineAction: '',
        downloadUrl: '',
      },
    ),
  );
}

interface Located {
  ctx: ServiceContext;
  mandate: Emandate;
}

async function locate(
  deps: EmandatePageDeps,
  request: FastifyRequest,
  token: string,
): Promise<Located | undefined> {
  const accountId = await emandates.findAccountIdOfToken({ db: deps.db }, token);
  if (accountId === undefined) return undefined;
  const ctx = await deps.contextFor(accountId, request);
  return { ctx, mandate: await emandates.getEmandate(ctx, token) };
}

const frameQuery = (variant: PageVariant, widgetId: string | null) =>
  variant === 'frame' ? `?frame=1${widgetId ? `&widgetId=${widgetId}` : ''}` : '';

function pathsOf(variant: PageVariant, token: string, widgetId: string | null) {
  const encoded = encodeURIComponent(token);
  const query = widgetId ? `?widgetId=${widgetId}` : '';
  return {
    page: variant === 'frame' ? `/widget/emandate/frame/${encoded}${query}` : `/widget/emandate/${encoded}`,
    sign: `/widget/emandate/${encoded}/sign${frameQuery(variant, widgetId)}`,
    decline: `/widget/emandate/${encoded}/decline${frameQuery(variant, widgetId)}`,
    download: `/widget/emandate/download?token=${encoded}`,
  };
}

/** What frames the variant: the frame its mandate's AuthDomain, or nobody when it has none. */
function frameAncestorsOf(variant: PageVariant, mandate: Emandate | undefined): string {
  return variant === 'frame' && mandate?.authDomain ? mandate.authDomain : "'none'";
}

function optionsFor(
  ctx: ServiceContext,
  variant: PageVariant,
  token: string,
  mandate: Emandate,
  widgetId: string | null,
  nonce: string,
): PageOptions {
  const paths = pathsOf(variant, token, widgetId);
  return {
    variant,
    token,
    nonce,
    widgetId,
    parentOrigin: mandate.authDomain,
    signAction: paths.sign,
    declineAction: paths.decline,
    // docs/spec-decisions.md, "The signed PDF": the link is offered only while it downloads.
    downloadUrl: isPublicDownloadOpen(ctx, mandate) ? paths.download : '',
    timeZone: ctx.account.timeZone,
  };
}

async function showPage(
  deps: EmandatePageDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  variant: PageVariant,
  token: string,
  widgetId: string | null,
) {
  const nonce = crypto.randomBytes(16).toString('base64');
  const located = await locate(deps, request, token);
  setPageHeaders(reply, nonce, frameAncestorsOf(variant, located?.mandate));
  const bare: PageOptions = {
    variant,
    token: null,
    nonce,
    widgetId,
    parentOrigin: null,
    signAction: '',
    declineAction: '',
    downloadUrl: '',
  };
  if (!located) {
    return reply
      .code(404)
      .send(
        renderErrorPage(
          'Mandate not found',
          'This link does not name a mandate. Check the link you were sent.',
          bare,
        ),
      );
  }
  if (variant === 'frame' && !located.mandate.authDomain) {
    // docs/design/hosted-pages.md, "eMandate pages": never frame-ancestors * on a page that asks for a debit authority.
    return reply
      .code(403)
      .send(
        renderErrorPage(
          'Mandate cannot be shown here',
          'This mandate was created without an AuthDomain, so no site may show it in a frame. Create it with the AuthDomain of the page that embeds it, or use the redirect flow.',
          bare,
        ),
      );
  }
  request.log.info({ emandate: located.mandate.id, variant }, 'eMandate page shown');
  return reply.send(
    renderMandatePage(
      located.mandate,
      optionsFor(located.ctx, variant, token, located.mandate, widgetId, nonce),
    ),
  );
}

/** A form body as fields; a field sent twice keeps its last value. */
function formFields(body: unknown): Record<string, string> {
  return typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
}

/** A path of the service as a route of the /widget scope these routes are registered in. */
function underWidget(path: string): string {
  if (!path.startsWith('/widget/')) throw new Error(`${path} is not under /widget`);
  return path.slice('/widget'.length);
}

/** The hosted pages under /widget, outside the API key's reach: the token in the URL is the signee's capability. */
export function registerEmandatePageRoutes(widget: App, deps: EmandatePageDeps): void {
  widget.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(String(body))) fields[name] = value;
      done(null, fields);
    },
  );
  refuseOddFormFields(widget);

  // docs/hosted-pages.md, "eMandates: a debit authority signed online": the pinned path, immutable; the path from
  // before pinning keeps working for the pages that load it, with the same bytes, briefly cached.
  widget.get(underWidget(EMANDATE_SCRIPT.path), { schema: { hide: true } }, async (_request, reply) =>
    sendScript(reply, EMANDATE_SCRIPT.source, IMMUTABLE),
  );
  widget.get(underWidget(EMANDATE_LOADER_V1_PATH), { schema: { hide: true } }, async (_request, reply) =>
    sendScript(reply, EMANDATE_SCRIPT.source, 'public, max-age=300'),
  );

  // docs/design/hosted-pages.md, "eMandate pages": the method is not shown, so both are accepted.
  const download = async (request: FastifyRequest, reply: FastifyReply, token: string | undefined) => {
    const accountId = token ? await emandates.findAccountIdOfToken({ db: deps.db }, token) : undefined;
    if (!token || accountId === undefined) {
      return sendProblem(reply, problem(404, 'emandate_not_found', 'No eMandate has this token'));
    }
    const ctx = await deps.contextFor(accountId, request);
    const { mandate, pdf } = await renderMandatePdf(ctx, token, 'link');
    request.log.info({ emandate: mandate.id }, 'signed eMandate downloaded');
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="${mandatePdfFilename(mandate)}"`)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .send(pdf);
  };
  const DownloadQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 128 })) });
  widget.get(
    '/emandate/download',
    { schema: { hide: true, querystring: DownloadQuery }, config },
    async (request, reply) => download(request, reply, request.query.token),
  );
  widget.post(
    '/emandate/download',
    { schema: { hide: true, querystring: DownloadQuery }, config },
    async (request, reply) =>
      download(request, reply, request.query.token ?? formFields(request.body)['token']),
  );

  widget.get(
    '/emandate/:token',
    { schema: { hide: true, params: TokenParams }, config },
    async (request, reply) => showPage(deps, request, reply, 'redirect', request.params.token, null),
  );

  widget.get(
    '/emandate/frame/:token',
    { schema: { hide: true, params: TokenParams, querystring: FrameQuery }, config },
    async (request, reply) =>
      showPage(deps, request, reply, 'frame', request.params.token, request.query.widgetId ?? null),
  );

  widget.post(
    '/emandate/:token/sign',
    {
      schema: {
        hide: true,
        params: TokenParams,
        querystring: Type.Object({
          frame: Type.Optional(Type.String({ maxLength: 1 })),
          widgetId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{1,64}$' })),
        }),
      },
      config,
    },
    async (request, reply) => {
      const variant: PageVariant = request.query.frame ? 'frame' : 'redirect';
      const widgetId = request.query.widgetId ?? null;
      const token = request.params.token;
      if (!isFromOwnPage(request)) return refuseForeignForm(reply, variant);
      const located = await locate(deps, request, token);
      if (!located || (variant === 'frame' && !located.mandate.authDomain)) {
        return showPage(deps, request, reply, variant, token, widgetId);
      }
      const fields = formFields(request.body);
      try {
        await emandates.signEmandate(located.ctx, token, {
          consent: fields['Consent'] === 'yes',
          typedName: fields['TypedName'] ?? '',
          clientAddress: request.ip,
          userAgent: String(request.headers['user-agent'] ?? ''),
          signee: Object.fromEntries(
            (
              [
                ['tel', 'Tel'],
                ['email', 'Email'],
                ['address1', 'Address1'],
                ['address2', 'Address2'],
                ['city', 'City'],
                ['state', 'State'],
                ['postalCode', 'PostalCode'],
              ] as const
            )
              .filter(([, wire]) => fields[wire] !== undefined)
              .map(([name, wire]) => [name, fields[wire]!]),
          ),
        });
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
        const nonce = crypto.randomBytes(16).toString('base64');
        setPageHeaders(reply, nonce, frameAncestorsOf(variant, located.mandate));
        if (error instanceof ValidationError) {
          const options = {
            ...optionsFor(located.ctx, variant, token, located.mandate, widgetId, nonce),
            problems: error.fields,
            values: fields,
          };
          return reply.code(422).send(renderMandatePage(located.mandate, options));
        }
        // Signed or expired meanwhile: the page as the mandate now is.
        const now = await emandates.getEmandate(located.ctx, token);
        return reply
          .code(409)
          .send(renderMandatePage(now, optionsFor(located.ctx, variant, token, now, widgetId, nonce)));
      }
      request.log.info({ emandate: located.mandate.id }, 'eMandate signed');
      return reply
        .code(303)
        .header('location', pathsOf(variant, token, widgetId).page)
        .send();
    },
  );

  const FrameFormQuery = Type.Object({
    frame: Type.Optional(Type.String({ maxLength: 1 })),
    widgetId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{1,64}$' })),
  });
  // docs/design/mandates.md, "Lifecycle": the signee may decline (rejected, terminal).
  widget.post(
    '/emandate/:token/decline',
    { schema: { hide: true, params: TokenParams, querystring: FrameFormQuery }, config },
    async (request, reply) => {
      const variant: PageVariant = request.query.frame ? 'frame' : 'redirect';
      const widgetId = request.query.widgetId ?? null;
      const token = request.params.token;
      if (!isFromOwnPage(request)) return refuseForeignForm(reply, variant);
      const located = await locate(deps, request, token);
      if (!located || (variant === 'frame' && !located.mandate.authDomain)) {
        return showPage(deps, request, reply, variant, token, widgetId);
      }
      try {
        await emandates.declineEmandate(located.ctx, token);
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
        const nonce = crypto.randomBytes(16).toString('base64');
        setPageHeaders(reply, nonce, frameAncestorsOf(variant, located.mandate));
        const now = await emandates.getEmandate(located.ctx, token);
        return reply
          .code(409)
          .send(renderMandatePage(now, optionsFor(located.ctx, variant, token, now, widgetId, nonce)));
      }
      request.log.info({ emandate: located.mandate.id }, 'eMandate declined');
      return reply
        .code(303)
        .header('location', pathsOf(variant, token, widgetId).page)
        .send();
    },
  );
}

export { PAGE_TITLE };
