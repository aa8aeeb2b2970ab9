import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actingAsContact } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { arrivedOnLoopback } from '../../http/origin.ts';
import { findAccountByPortalSlug, findAccountLogo } from '../auth/index.ts';
import type { Account } from '../auth/index.ts';
import * as auth from './portalAuth.service.ts';
import type { PortalSession } from './portalAuth.service.ts';
import type { VerificationSlots } from './verificationSlots.ts';

/** What the portal's pages need from the composition root: they have no API key to say whose they are. */
export interface PortalDeps {
  db: Db;
  /** A context for the account (its clock, a test account's test clock), without an API key. */
  contextFor(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
  /** PUBLIC_URL: where browsers reach the service; undefined: links for loopback requests only (linkOrigin). */
  publicUrl?: string;
  /** This service's password-check slots (auth.passwordCheckSlots), which no other service in the process shares. */
  passwordChecks: VerificationSlots;
}

export interface Portal {
  account: Account;
  ctx: ServiceContext;
  slug: string;
  /** /portal/{slug}/ */
  base: string;
  hasLogo: boolean;
  secure: boolean;
  /** The service's password-check slots, which every check of a password in the portal waits for. */
  passwordChecks: VerificationSlots;
}

/** The text of a page that only says something: a refusal, a link that no longer works, a missing page. */
export interface MessageText {
  title: string;
  heading: string;
  message: string;
  link?: { href: string; text: string };
}

/** One request to a portal's page, with what every answer needs. */
export interface PortalPage {
  portal: Portal;
  request: FastifyRequest;
  reply: FastifyReply;
  session?: PortalSession;
  render(status: number, template: string, data: Record<string, unknown>): Promise<FastifyReply>;
  message(status: number, text: MessageText): Promise<FastifyReply>;
  notFound(): Promise<FastifyReply>;
  /** A 303 to a path under the portal's base ('' is the overview). */
  redirect(path: string): FastifyReply;
  /** The CSRF token of a form shown before sign-in: the one in the form cookie, or a new one set now. */
  formToken(): string;
  setSessionCookie(sessionId: string): void;
  /** A PDF download: never cached, never sniffed. */
  sendPdf(filename: string, pdf: Buffer | Uint8Array): FastifyReply;
  clearSessionCookie(): void;
}

export interface SignedInPage extends PortalPage {
  session: PortalSession;
}

/** A form's fields, each the last value sent under its name. */
export type FormFields = Record<string, string>;

/**
 * Whether the portal is served over HTTPS: PUBLIC_URL's scheme when set, else the request's (X-Forwarded-Proto
 * counts only from TRUSTED_PROXIES). Plain HTTP is allowed only for a request that arrived on loopback, judged by
 * the connection and never by the Host header, for development (docs/portal.md, "HTTPS").
 */
function transportOf(deps: PortalDeps, request: FastifyRequest): 'https' | 'loopback' | 'refused' {
  const secure = deps.publicUrl ? deps.publicUrl.startsWith('https:') : request.protocol === 'https';
  if (secure) return 'https';
  return arrivedOnLoopback(request) ? 'loopback' : 'refused';
}

/**
 * The session cookie: `__Host-` over HTTPS (Secure, Path=/, no Domain), one per portal. The two cookies differ
 * before the slug, so no slug's session cookie shares a name with another slug's form cookie.
 */
const sessionCookieName = (portal: Portal) => `${portal.secure ? '__Host-' : ''}portal-s-${portal.slug}`;
/** The CSRF cookie of the forms shown before sign-in (double submit). */
const formCookieName = (portal: Portal) => `${portal.secure ? '__Host-' : ''}portal-f-${portal.slug}`;

/**
 * Whether a form post comes from the portal's own pages: browsers say where a post comes from (Sec-Fetch-Site, and
 * Origin on every POST); a client that says neither is not a browser acting for someone else. The Origin is
 * compared with PUBLIC_URL's host when set: behind a proxy the Host header may name an inner address.
 */
function isFromOwnPage(deps: PortalDeps, request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return true;
  const ownHost = deps.publicUrl ? new URL(deps.publicUrl).host : request.headers.host;
  try {
    return new URL(origin).host === ownHost;
  } catch {
    return false;
  }
}

const sameToken = (a: string | undefined, b: string | undefined) =>
  a !== undefined &&
  b !== undefined &&
  a.length === b.length &&
  crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

function formFields(body: unknown): FormFields {
  if (typeof body !== 'object' || body === null) return {};
  const fields: FormFields = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    // A field sent twice arrives as a list: its last value counts.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (typeof last === 'string') fields[name] = last;
  }
  return fields;
}

/** The answers of the portal's pages (docs/design/portal.md, "Sessions and CSRF"). */
function setPageHeaders(reply: FastifyReply, nonce: string): void {
  reply
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        "style-src 'self'",
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8');
}

/** Renders a template in the portal's layout, for a portal or (unknown slug) for none. */
export async function renderPage(
  reply: FastifyReply,
  status: number,
  template: string,
  portal: Portal | undefined,
  data: Record<string, unknown>,
  session?: PortalSession,
): Promise<FastifyReply> {
  const nonce = crypto.randomBytes(16).toString('base64');
  setPageHeaders(reply, nonce);
  // Session times run on wall time (portalAuth.service.ts).
  const now = portal ? portal.ctx.wallClock.now().getTime() : 0;
  const html = await reply.viewAsync(template, {
    accountName: portal?.account.name ?? 'Customer portal',
    hasLogo: portal?.hasLogo ?? false,
    base: portal?.base ?? '/',
    nonce,
    warnBeforeSeconds: auth.EXPIRY_WARNING_MS / 1000,
    session: session
      ? {
          ...session,
          expiresInSeconds: Math.max(0, Math.floor((Date.parse(session.expiresAt) - now) / 1000)),
        }
      : undefined,
    focusErrors: Array.isArray(data['errors']) && (data['errors'] as unknown[]).length > 0,
    errors: [],
    ...data,
  });
  return reply.code(status).send(html);
}

const NOT_FOUND: MessageText = {
  title: 'Not found',
  heading: 'Page not found',
  message: 'There is no such page in this portal. Check the address.',
};

/** A page for an address no portal has. */
export const portalNotFound = (reply: FastifyReply) =>
  renderPage(reply, 404, 'message', undefined, { ...NOT_FOUND });

/**
 * Opening the portal's pages: each route starts with one of these steps, which answers by itself (not found,
 * HTTPS needed, sign in, form refused) when the request cannot go on.
 */
export function portalRequests(deps: PortalDeps) {
  const currentSession = (page: PortalPage) =>
    auth.currentSession(page.portal.ctx, page.request.cookies[sessionCookieName(page.portal)]);

  /** A signed-in contact's page; otherwise the answer (sign-in page, or a note that the session ended) is sent. */
  const signedIn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    slug: string,
  ): Promise<SignedInPage | undefined> => {
    const page = await openPortal(deps, request, reply, slug);
    if (!page) return undefined;
    const found = await currentSession(page);
    if (found.kind !== 'active') {
      page.clearSessionCookie();
      page.redirect(found.kind === 'ended' ? 'login?ended=1' : 'login');
      return undefined;
    }
    page.session = found.session;
    page.portal.ctx = actingAsContact(page.portal.ctx, found.session.contactId);
    return page as SignedInPage;
  };

  const open = (request: FastifyRequest, reply: FastifyReply, slug: string) =>
    openPortal(deps, request, reply, slug);

  return {
    open,
    signedIn,
    currentSession,

    /** A form a signed-in contact posted from the portal's pages, with the session's CSRF token. */
    async signedInForm(
      request: FastifyRequest,
      reply: FastifyReply,
      slug: string,
    ): Promise<{ page: SignedInPage; fields: FormFields } | undefined> {
      const page = await signedIn(request, reply, slug);
      if (!page) return undefined;
      const fields = formFields(request.body);
      if (!isFromOwnPage(deps, request) || !sameToken(fields['csrf'], page.session.csrfToken)) {
        await refuseForeignForm(page);
        return undefined;
      }
      return { page, fields };
    },

    /**
     * A sign-in, reset, details or password form within the address's request limit (FORM_POSTS_PER_MINUTE to the
     * portal); over it, a 429 page with Retry-After is sent and nothing else is done.
     */
    async withinFormLimit(page: PortalPage): Promise<boolean> {
      const wait = await auth.formPostWait(page.portal.ctx, page.request.ip);
      if (wait === undefined) return true;
      page.reply.header('retry-after', String(wait));
      await page.message(429, {
        title: 'Too many requests',
        heading: 'Too many requests from your network',
        message:
          'This portal received too many forms from your network in the last minute. Wait a minute, then try again.',
        link: { href: `${page.portal.base}login`, text: 'Sign in' },
      });
      return false;
    },

    /** A form posted before sign-in (sign-in, reset), with the form cookie's CSRF token. */
    async publicForm(
      request: FastifyRequest,
      reply: FastifyReply,
      slug: string,
    ): Promise<{ page: PortalPage; fields: FormFields } | undefined> {
      const page = await openPortal(deps, request, reply, slug);
      if (!page) return undefined;
      const fields = formFields(request.body);
      if (
        !isFromOwnPage(deps, request) ||
        !sameToken(fields['csrf'], request.cookies[formCookieName(page.portal)])
      ) {
        await refuseForeignForm(page);
        return undefined;
      }
      return { page, fields };
    },

    /** Signing out: the form is checked only when a session is there to end. */
    signOut: (request: FastifyRequest, reply: FastifyReply, slug: string) =>
      signOut(deps, request, reply, slug),
  };
}

/** The portal a slug names, with the context of its account; undefined when no portal has the slug. */
async function portalOf(
  deps: PortalDeps,
  request: FastifyRequest,
  slug: string,
): Promise<Portal | undefined> {
  const account = await findAccountByPortalSlug(deps.db, slug);
  if (!account) return undefined;
  return {
    account,
    ctx: await deps.contextFor(account.id, request),
    slug,
    base: `/portal/${slug}/`,
    hasLogo: (await findAccountLogo(deps.db, account.id)) !== undefined,
    secure: transportOf(deps, request) === 'https',
    passwordChecks: deps.passwordChecks,
  };
}

/** A page of the portal: how it answers, with the portal's cookies and headers. */
function pageOf(
  portal: Portal,
  request: FastifyRequest,
  reply: FastifyReply,
  session?: PortalSession,
): PortalPage {
  // docs/design/portal.md, "Sessions and CSRF": HSTS on every answer of a portal served over HTTPS (a year), so
  // that a browser that has seen it never tries the portal over plain HTTP again.
  if (portal.secure) reply.header('strict-transport-security', 'max-age=31536000');
  const cookieOptions = {
    path: portal.secure ? '/' : portal.base,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: portal.secure,
  };
  const page: PortalPage = {
    portal,
    request,
    reply,
    session,
    render: (status, template, data) => renderPage(reply, status, template, portal, data, page.session),
    message: (status, text) => page.render(status, 'message', { ...text }),
    notFound: () =>
      page.message(404, { ...NOT_FOUND, link: { href: portal.base, text: 'Go to the overview' } }),
    redirect: (path) => reply.code(303).header('location', `${portal.base}${path}`).send(),
    formToken: () => {
      const existing = request.cookies[formCookieName(portal)];
      if (existing && /^[\w-]{43}$/.test(existing)) return existing;
      const token = crypto.randomBytes(32).toString('base64url');
      reply.setCookie(formCookieName(portal), token, cookieOptions);
      return token;
    },
    setSessionCookie: (sessionId) =>
      void reply.setCookie(sessionCookieName(portal), sessionId, cookieOptions),
    clearSessionCookie: () => void reply.clearCookie(sessionCookieName(portal), cookieOptions),
    sendPdf: (filename, pdf) =>
      reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'same-origin')
        .header('x-content-type-options', 'nosniff')
        .send(pdf),
  };
  return page;
}

/** The portal a slug names, served over HTTPS (or loopback); otherwise the answer is sent. */
async function openPortal(
  deps: PortalDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  slug: string,
): Promise<PortalPage | undefined> {
  const portal = await portalOf(deps, request, slug);
  if (!portal) {
    await portalNotFound(reply);
    return undefined;
  }
  const page = pageOf(portal, request, reply);
  if (transportOf(deps, request) === 'refused') {
    // Plain HTTP away from loopback: the portal refuses to set a cookie that anyone on the path could read.
    await page.message(403, {
      title: 'HTTPS needed',
      heading: 'This portal needs HTTPS',
      message: 'The customer portal is served over HTTPS only. Open it with an https:// address.',
    });
    return undefined;
  }
  return page;
}

/** A form posted from another site, or without the form's token: nothing changes, and the page says why. */
function refuseForeignForm(page: PortalPage) {
  return page.message(403, {
    title: 'Form refused',
    heading: 'This form was not sent from the portal',
    message:
      'For your safety, forms are accepted only from the portal’s own pages. Open the page again and retry.',
    link: { href: page.portal.base, text: 'Go to the portal' },
  });
}

/** Signing out: the form is checked only when a session is there to end. */
async function signOut(
  deps: PortalDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  slug: string,
): Promise<FastifyReply> {
  const portal = await portalOf(deps, request, slug);
  if (!portal) return portalNotFound(reply);
  const page = pageOf(portal, request, reply);
  const found = await auth.currentSession(portal.ctx, request.cookies[sessionCookieName(portal)]);
  if (found.kind === 'active') {
    const fields = formFields(request.body);
    if (!isFromOwnPage(deps, request) || !sameToken(fields['csrf'], found.session.csrfToken)) {
      return refuseForeignForm(page);
    }
    await auth.endSession(portal.ctx, found.session.id);
  }
  page.clearSessionCookie();
  return page.redirect('login?out=1');
}

export type PortalRequests = ReturnType<typeof portalRequests>;
