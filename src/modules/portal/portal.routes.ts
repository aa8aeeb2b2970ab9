import crypto from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyView from '@fastify/view';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { DomainError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import type { App } from '../../http/types.ts';
import { findAccountByPortalSlug, findAccountLogo } from '../auth/index.ts';
import type { Account } from '../auth/index.ts';
import { getCustomer } from '../customers/index.ts';
import {
  getInvoice,
  invoicePdfFilename,
  listInvoicesOfCustomer,
  previewInvoice,
  renderInvoicePdf,
} from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import { liveSubscriptionIdsOfCustomer, upcomingInvoice } from '../subscriptions/index.ts';
import { customerWithFigures } from '../../views/customers.view.ts';
import { invoiceWithFigures } from '../../views/invoices.view.ts';
import * as auth from './portalAuth.service.ts';
import type { PortalSession } from './portalAuth.service.ts';
import { PORTAL_CSS, TEMPLATES_DIR, eta, invoiceDetail, invoiceRow, money } from './portalPages.ts';
import { CreatePortalSessionBody, PortalSessionOut } from './portal.schemas.ts';

/** What the portal's pages need from the composition root: they have no API key to say whose they are. */
export interface PortalDeps {
  db: Db;
  /** A context for the account (its clock, a test account's test clock), without an API key. */
  contextFor(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
  /** PUBLIC_URL: where browsers reach the service; undefined: the origin each request came to. */
  publicUrl?: string;
}

const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
const TokenParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  token: Type.String({ maxLength: 200 }),
});
const InvoiceParams = Type.Object({
  slug: Type.String({ maxLength: 100 }),
  id: Type.String({ maxLength: 20 }),
});
const PageQuery = Type.Object({ page: Type.Optional(Type.String({ maxLength: 6 })) });

const INVOICES_PER_PAGE = 25;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

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

/**
 * Whether the portal is served over HTTPS: PUBLIC_URL's scheme when set, else the request's (X-Forwarded-Proto
 * counts only from TRUSTED_PROXIES). Plain HTTP is allowed only on a loopback address, for development
 * (docs/portal.md, "HTTPS").
 */
function transportOf(deps: PortalDeps, request: FastifyRequest): 'https' | 'loopback' | 'refused' {
  const secure = deps.publicUrl ? deps.publicUrl.startsWith('https:') : request.protocol === 'https';
  if (secure) return 'https';
  return LOOPBACK_HOSTS.has(request.hostname) ? 'loopback' : 'refused';
}

/**
 * Where a reset e-mail's link points: PUBLIC_URL, or the request's own origin on a loopback address only. Elsewhere
 * the Host header (or X-Forwarded-Host) is the client's to choose, and a link built from it would carry the reset
 * token to whatever host the client named.
 */
function resetLinkOrigin(deps: PortalDeps, request: FastifyRequest): string | undefined {
  if (deps.publicUrl) return deps.publicUrl;
  return LOOPBACK_HOSTS.has(request.hostname) ? `${request.protocol}://${request.host}` : undefined;
}

/**
 * The session cookie: `__Host-` over HTTPS (Secure, Path=/, no Domain), one per portal. The two cookies differ
 * before the slug, so no slug's session cookie shares a name with another slug's form cookie.
 */
const sessionCookieName = (secure: boolean, slug: string) => `${secure ? '__Host-' : ''}portal-s-${slug}`;
/** The CSRF cookie of the forms shown before sign-in (double submit). */
const formCookieName = (secure: boolean, slug: string) => `${secure ? '__Host-' : ''}portal-f-${slug}`;

/**
 * Whether a form post comes from the portal's own pages: browsers say where a post comes from
 * (Sec-Fetch-Site, and Origin on every POST); a client that says neither is not a browser acting for someone else.
 */
function isFromOwnPage(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

const sameToken = (a: string | undefined, b: string | undefined) =>
  a !== undefined &&
  b !== undefined &&
  a.length === b.length &&
  crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

function formFields(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null) return {};
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    // A field sent twice arrives as a list: its last value counts.
    const last = Array.isArray(value) ? value[value.length - 1] : value;
    if (typeof last === 'string') fields[name] = last;
  }
  return fields;
}

interface Portal {
  account: Account;
  ctx: ServiceContext;
  slug: string;
  /** /portal/{slug}/ */
  base: string;
  hasLogo: boolean;
  secure: boolean;
}

export function registerPortalRoutes(app: App, deps: PortalDeps): void {
  app.get('/portal/assets/portal.css', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(PORTAL_CSS),
  );

  void app.register(async (portal) => {
    await portal.register(fastifyCookie);
    await portal.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
    await portal.register(fastifyView, { engine: { eta }, root: TEMPLATES_DIR, viewExt: 'eta' });
    registerPages(portal as unknown as App, deps);
  });
}

function registerPages(portal: App, deps: PortalDeps): void {
  /** The portal a slug names, with a context for its account; undefined when no account has the slug. */
  const portalOf = async (request: FastifyRequest, slug: string): Promise<Portal | undefined> => {
    const account = await findAccountByPortalSlug(deps.db, slug);
    if (!account) return undefined;
    const ctx = await deps.contextFor(account.id, request);
    const hasLogo = (await findAccountLogo(deps.db, account.id)) !== undefined;
    return {
      account,
      ctx,
      slug,
      base: `/portal/${slug}/`,
      hasLogo,
      secure: transportOf(deps, request) === 'https',
    };
  };

  const render = async (
    reply: FastifyReply,
    status: number,
    template: string,
    portalInfo: Portal | undefined,
    data: Record<string, unknown>,
    session?: PortalSession,
  ) => {
    const nonce = crypto.randomBytes(16).toString('base64');
    setPageHeaders(reply, nonce);
    const now = portalInfo ? portalInfo.ctx.clock.now().getTime() : 0;
    const html = await reply.viewAsync(template, {
      accountName: portalInfo?.account.name ?? 'Customer portal',
      hasLogo: portalInfo?.hasLogo ?? false,
      base: portalInfo?.base ?? '/',
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
  };

  const notFound = (reply: FastifyReply, portalInfo?: Portal, session?: PortalSession) =>
    render(
      reply,
      404,
      'message',
      portalInfo,
      {
        title: 'Not found',
        heading: 'Page not found',
        message: 'There is no such page in this portal. Check the address.',
        link: portalInfo ? { href: portalInfo.base, text: 'Go to the overview' } : undefined,
      },
      session,
    );

  /** Plain HTTP away from loopback: the portal refuses to set a cookie that anyone on the path could read. */
  const refuseInsecure = (reply: FastifyReply, portalInfo: Portal) =>
    render(reply, 403, 'message', portalInfo, {
      title: 'HTTPS needed',
      heading: 'This portal needs HTTPS',
      message: 'The customer portal is served over HTTPS only. Open it with an https:// address.',
    });

  const setCookie = (reply: FastifyReply, portalInfo: Portal, name: string, value: string) =>
    reply.setCookie(name, value, {
      path: portalInfo.secure ? '/' : portalInfo.base,
      httpOnly: true,
      sameSite: 'lax',
      secure: portalInfo.secure,
    });

  const clearCookie = (reply: FastifyReply, portalInfo: Portal, name: string) =>
    reply.clearCookie(name, {
      path: portalInfo.secure ? '/' : portalInfo.base,
      httpOnly: true,
      sameSite: 'lax',
      secure: portalInfo.secure,
    });

  /** The CSRF token of a form shown before sign-in: the one in the form cookie, or a new one set now. */
  const formToken = (request: FastifyRequest, reply: FastifyReply, portalInfo: Portal): string => {
    const name = formCookieName(portalInfo.secure, portalInfo.slug);
    const existing = request.cookies[name];
    if (existing && /^[\w-]{43}$/.test(existing)) return existing;
    const token = crypto.randomBytes(32).toString('base64url');
    setCookie(reply, portalInfo, name, token);
    return token;
  };

  const sessionOf = async (request: FastifyRequest, portalInfo: Portal) =>
    auth.currentSession(
      portalInfo.ctx,
      request.cookies[sessionCookieName(portalInfo.secure, portalInfo.slug)],
    );

  /** A form posted from another site, or without the form's token: nothing changes, and the page says why. */
  const refuseForeignForm = (reply: FastifyReply, portalInfo: Portal) =>
    render(reply, 403, 'message', portalInfo, {
      title: 'Form refused',
      heading: 'This form was not sent from the portal',
      message:
        'For your safety, forms are accepted only from the portal’s own pages. Open the page again and retry.',
      link: { href: portalInfo.base, text: 'Go to the portal' },
    });

  /** The signed-in page's session, or an answer already sent (sign-in page, or a note that the session ended). */
  const requireSession = async (
    request: FastifyRequest,
    reply: FastifyReply,
    slug: string,
  ): Promise<{ portal: Portal; session: PortalSession } | undefined> => {
    const portalInfo = await portalOf(request, slug);
    if (!portalInfo) {
      await notFound(reply);
      return undefined;
    }
    if (transportOf(deps, request) === 'refused') {
      await refuseInsecure(reply, portalInfo);
      return undefined;
    }
    const found = await sessionOf(request, portalInfo);
    if (found.kind !== 'active') {
      clearCookie(reply, portalInfo, sessionCookieName(portalInfo.secure, slug));
      const query = found.kind === 'ended' ? '?ended=1' : '';
      await reply.code(303).header('location', `${portalInfo.base}login${query}`).send();
      return undefined;
    }
    return { portal: portalInfo, session: found.session };
  };

  const loginPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    portalInfo: Portal,
    status: number,
    data: Record<string, unknown>,
  ) =>
    render(reply, status, 'login', portalInfo, {
      title: 'Sign in',
      csrf: formToken(request, reply, portalInfo),
      ...data,
    });

  portal.get('/portal/:slug', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const signedIn = await requireSession(request, reply, request.params.slug);
    if (!signedIn) return reply;
    const { portal: portalInfo, session } = signedIn;
    const ctx = portalInfo.ctx;
    const customer = await customerWithFigures(ctx, await getCustomer(ctx, session.customerId));
    const invoices = (
      await listInvoicesOfCustomer(ctx, session.customerId, { limit: 1000, offset: 0 })
    ).filter((invoice) => !invoice.isDraft);
    const currency = customer.currencyCode;
    const overdueMinor = invoices
      .filter((i) => i.status === 'Past Due' && i.currencyCode === currency)
      .reduce((sum, i) => sum + i.balances.balanceMinor, 0);
    const next = await nextInvoice(ctx, session.customerId);
    const name =
      customer.isCompany && customer.company
        ? customer.company
        : `${customer.name} ${customer.lastName ?? ''}`;
    return render(
      reply,
      200,
      'dashboard',
      portalInfo,
      {
        title: 'Overview',
        current: 'dashboard',
        customerName: name.trim(),
        balance: money(customer.figures.balanceMinor, currency),
        overdue: money(overdueMinor, currency),
        next: next && { amount: money(next.money.totalMinor, next.currencyCode), date: next.invoiceDate },
        caption: 'Your most recent invoices',
        invoices: newestFirst(invoices).slice(0, 5).map(invoiceRow),
      },
      session,
    );
  });

  portal.get(
    '/portal/:slug/login',
    {
      schema: {
        hide: true,
        params: SlugParams,
        querystring: Type.Object({
          ended: Type.Optional(Type.String({ maxLength: 1 })),
          reset: Type.Optional(Type.String({ maxLength: 1 })),
          out: Type.Optional(Type.String({ maxLength: 1 })),
        }),
      },
    },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      const notice = request.query.ended
        ? 'Your session ended. Sign in again to continue.'
        : request.query.reset
          ? 'Your password was changed. Sign in with the new one.'
          : request.query.out
            ? 'You are signed out.'
            : undefined;
      return loginPage(request, reply, portalInfo, 200, { notice });
    },
  );

  portal.post(
    '/portal/:slug/login',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      const fields = formFields(request.body);
      const formCookie = request.cookies[formCookieName(portalInfo.secure, portalInfo.slug)];
      if (!isFromOwnPage(request) || !sameToken(fields['csrf'], formCookie)) {
        return refuseForeignForm(reply, portalInfo);
      }
      const username = (fields['username'] ?? '').slice(0, 200);
      const password = (fields['password'] ?? '').slice(0, 1024);
      const errors: FieldProblem[] = [];
      if (username.trim() === '') errors.push({ field: 'username', message: 'Enter your username' });
      if (password === '') errors.push({ field: 'password', message: 'Enter your password' });
      if (errors.length) return loginPage(request, reply, portalInfo, 422, { errors, username });
      const result = await auth.signIn(portalInfo.ctx, { username, password, clientAddress: request.ip });
      if (result.kind === 'locked') {
        const until = result.until.slice(11, 16);
        return loginPage(request, reply, portalInfo, 429, {
          username,
          invalid: true,
          errorsTitle: 'Sign-in is paused',
          errors: [
            {
              field: 'username',
              message: `Too many failed sign-ins. Try again after ${until} UTC; the pause ends by itself.`,
            },
          ],
        });
      }
      if (result.kind === 'refused') {
        return loginPage(request, reply, portalInfo, 401, {
          username,
          invalid: true,
          errors: [{ field: 'username', message: 'The username or password is not right.' }],
        });
      }
      setCookie(reply, portalInfo, sessionCookieName(portalInfo.secure, portalInfo.slug), result.sessionId);
      request.log.info({ accountId: portalInfo.account.id }, 'portal sign-in');
      return reply.code(303).header('location', portalInfo.base).send();
    },
  );

  portal.get(
    '/portal/:slug/link/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      const sessionId = await auth.signInWithLink(portalInfo.ctx, request.params.token);
      if (!sessionId) {
        return render(reply, 410, 'message', portalInfo, {
          title: 'Link not valid',
          heading: 'This sign-in link cannot be used',
          message:
            'Sign-in links work once and for a few minutes only. Sign in with your username and password, or ask for a new link.',
          link: { href: `${portalInfo.base}login`, text: 'Sign in' },
        });
      }
      setCookie(reply, portalInfo, sessionCookieName(portalInfo.secure, portalInfo.slug), sessionId);
      return reply.code(303).header('location', portalInfo.base).send();
    },
  );

  portal.post(
    '/portal/:slug/logout',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      const found = await sessionOf(request, portalInfo);
      const fields = formFields(request.body);
      if (found.kind === 'active') {
        if (!isFromOwnPage(request) || !sameToken(fields['csrf'], found.session.csrfToken)) {
          return refuseForeignForm(reply, portalInfo);
        }
        await auth.endSession(portalInfo.ctx, found.session.id);
      }
      clearCookie(reply, portalInfo, sessionCookieName(portalInfo.secure, portalInfo.slug));
      return reply.code(303).header('location', `${portalInfo.base}login?out=1`).send();
    },
  );

  portal.get(
    '/portal/:slug/invoices',
    { schema: { hide: true, params: SlugParams, querystring: PageQuery } },
    async (request, reply) => {
      const signedIn = await requireSession(request, reply, request.params.slug);
      if (!signedIn) return reply;
      const { portal: portalInfo, session } = signedIn;
      const page = /^\d{1,5}$/.test(request.query.page ?? '') ? Math.max(1, Number(request.query.page)) : 1;
      const all = newestFirst(
        (await listInvoicesOfCustomer(portalInfo.ctx, session.customerId, { limit: 1000, offset: 0 })).filter(
          (invoice) => !invoice.isDraft,
        ),
      );
      const shown = all.slice((page - 1) * INVOICES_PER_PAGE, page * INVOICES_PER_PAGE);
      const link = (n: number) => `${portalInfo.base}invoices${n === 1 ? '' : `?page=${n}`}`;
      return render(
        reply,
        200,
        'invoices',
        portalInfo,
        {
          title: 'Invoices',
          current: 'invoices',
          caption: 'Your invoices, newest first',
          invoices: shown.map(invoiceRow),
          previous: page > 1 ? link(page - 1) : undefined,
          next: all.length > page * INVOICES_PER_PAGE ? link(page + 1) : undefined,
        },
        session,
      );
    },
  );

  /** The session's customer's issued invoice, or undefined: another customer's, a draft or none is not found. */
  const invoiceOfSession = async (portalInfo: Portal, session: PortalSession, id: string) => {
    if (!/^\d{1,15}$/.test(id)) return undefined;
    try {
      const invoice = await getInvoice(portalInfo.ctx, Number(id));
      return invoice.customer.id === session.customerId && !invoice.isDraft ? invoice : undefined;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return undefined;
      throw error;
    }
  };

  portal.get(
    '/portal/:slug/invoices/:id',
    { schema: { hide: true, params: InvoiceParams } },
    async (request, reply) => {
      const signedIn = await requireSession(request, reply, request.params.slug);
      if (!signedIn) return reply;
      const { portal: portalInfo, session } = signedIn;
      const invoice = await invoiceOfSession(portalInfo, session, request.params.id);
      if (!invoice) return notFound(reply, portalInfo, session);
      const detail = invoiceDetail(await invoiceWithFigures(portalInfo.ctx, invoice));
      return render(
        reply,
        200,
        'invoice',
        portalInfo,
        { title: `Invoice ${detail.number}`, current: 'invoices', invoice: detail },
        session,
      );
    },
  );

  portal.get(
    '/portal/:slug/invoices/:id/pdf',
    { schema: { hide: true, params: InvoiceParams } },
    async (request, reply) => {
      const signedIn = await requireSession(request, reply, request.params.slug);
      if (!signedIn) return reply;
      const { portal: portalInfo, session } = signedIn;
      const invoice = await invoiceOfSession(portalInfo, session, request.params.id);
      if (!invoice) return notFound(reply, portalInfo, session);
      const { pdf } = await renderInvoicePdf(portalInfo.ctx, invoice.id!);
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="${invoicePdfFilename(invoice)}"`)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'same-origin')
        .header('x-content-type-options', 'nosniff')
        .send(pdf);
    },
  );

  portal.get('/portal/:slug/logo', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const account = await findAccountByPortalSlug(deps.db, request.params.slug);
    const logo = account && (await findAccountLogo(deps.db, account.id));
    if (!logo) return reply.code(404).type('text/plain; charset=utf-8').send('No logo');
    return reply
      .type(logo.contentType)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(logo.image);
  });

  const passwordPage = (
    reply: FastifyReply,
    portalInfo: Portal,
    status: number,
    data: {
      csrf: string;
      action: string;
      askCurrent: boolean;
      errors?: FieldProblem[];
      heading: string;
      notice?: string;
    },
    session?: PortalSession,
  ) =>
    render(
      reply,
      status,
      'newPassword',
      portalInfo,
      {
        title: data.heading,
        current: 'password',
        invalidFields: (data.errors ?? []).map((e) => e.field),
        ...data,
      },
      session,
    );

  /** A new password and its confirmation, checked as the form shows them; the rule itself is the service's. */
  const newPasswordProblems = (fields: Record<string, string>): FieldProblem[] =>
    (fields['Password'] ?? '') !== (fields['ConfirmPassword'] ?? '')
      ? [{ field: 'ConfirmPassword', message: 'The two new passwords are not the same' }]
      : [];

  const asFormErrors = (error: ValidationError): FieldProblem[] =>
    error.fields.map((p) => ({
      field: p.field,
      message:
        p.field === 'CurrentPassword'
          ? 'Your current password is not right'
          : `The new password ${p.message}`,
    }));

  portal.get(
    '/portal/:slug/password',
    {
      schema: {
        hide: true,
        params: SlugParams,
        querystring: Type.Object({ changed: Type.Optional(Type.String({ maxLength: 1 })) }),
      },
    },
    async (request, reply) => {
      const signedIn = await requireSession(request, reply, request.params.slug);
      if (!signedIn) return reply;
      const { portal: portalInfo, session } = signedIn;
      return passwordPage(
        reply,
        portalInfo,
        200,
        {
          csrf: session.csrfToken,
          action: `${portalInfo.base}password`,
          askCurrent: true,
          heading: 'Change your password',
          notice: request.query.changed
            ? 'Your password was changed. Other devices signed in with the old one have been signed out.'
            : undefined,
        },
        session,
      );
    },
  );

  portal.post(
    '/portal/:slug/password',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const signedIn = await requireSession(request, reply, request.params.slug);
      if (!signedIn) return reply;
      const { portal: portalInfo, session } = signedIn;
      const fields = formFields(request.body);
      if (!isFromOwnPage(request) || !sameToken(fields['csrf'], session.csrfToken)) {
        return refuseForeignForm(reply, portalInfo);
      }
      const page = {
        csrf: session.csrfToken,
        action: `${portalInfo.base}password`,
        askCurrent: true,
        heading: 'Change your password',
      };
      const mismatch = newPasswordProblems(fields);
      if (mismatch.length)
        return passwordPage(reply, portalInfo, 422, { ...page, errors: mismatch }, session);
      try {
        const sessionId = await auth.changePassword(portalInfo.ctx, session, {
          currentPassword: (fields['CurrentPassword'] ?? '').slice(0, 1024),
          newPassword: fields['Password'] ?? '',
        });
        setCookie(reply, portalInfo, sessionCookieName(portalInfo.secure, portalInfo.slug), sessionId);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return passwordPage(reply, portalInfo, 422, { ...page, errors: asFormErrors(error) }, session);
      }
      return reply.code(303).header('location', `${portalInfo.base}password?changed=1`).send();
    },
  );

  portal.get(
    '/portal/:slug/reset',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      return render(reply, 200, 'reset', portalInfo, {
        title: 'Forgotten password',
        csrf: formToken(request, reply, portalInfo),
      });
    },
  );

  portal.post(
    '/portal/:slug/reset',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      const fields = formFields(request.body);
      const formCookie = request.cookies[formCookieName(portalInfo.secure, portalInfo.slug)];
      if (!isFromOwnPage(request) || !sameToken(fields['csrf'], formCookie)) {
        return refuseForeignForm(reply, portalInfo);
      }
      const username = (fields['username'] ?? '').slice(0, 200);
      if (username.trim() === '') {
        return render(reply, 422, 'reset', portalInfo, {
          title: 'Forgotten password',
          csrf: formToken(request, reply, portalInfo),
          errors: [{ field: 'username', message: 'Enter your username' }],
        });
      }
      const origin = resetLinkOrigin(deps, request);
      if (origin === undefined) {
        request.log.warn(
          'PUBLIC_URL is not set: a password reset e-mail was not sent (docs/portal.md, "HTTPS")',
        );
      } else {
        await auth.requestPasswordReset(portalInfo.ctx, {
          username,
          portalUrl: `${origin}${portalInfo.base}`,
        });
      }
      return render(reply, 200, 'reset', portalInfo, { title: 'Forgotten password', sent: true });
    },
  );

  portal.get(
    '/portal/:slug/reset/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      if (!(await auth.isResetTokenUsable(portalInfo.ctx, request.params.token))) {
        return resetLinkUnusable(reply, portalInfo);
      }
      return passwordPage(reply, portalInfo, 200, {
        csrf: formToken(request, reply, portalInfo),
        action: `${portalInfo.base}reset/${request.params.token}`,
        askCurrent: false,
        heading: 'Choose a new password',
      });
    },
  );

  const resetLinkUnusable = (reply: FastifyReply, portalInfo: Portal) =>
    render(reply, 410, 'message', portalInfo, {
      title: 'Link not valid',
      heading: 'This link cannot be used',
      message: 'Password links work once, for 30 minutes. Ask for a new one.',
      link: { href: `${portalInfo.base}reset`, text: 'Ask for a new link' },
    });

  portal.post(
    '/portal/:slug/reset/:token',
    { schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      const portalInfo = await portalOf(request, request.params.slug);
      if (!portalInfo) return notFound(reply);
      if (transportOf(deps, request) === 'refused') return refuseInsecure(reply, portalInfo);
      const fields = formFields(request.body);
      const formCookie = request.cookies[formCookieName(portalInfo.secure, portalInfo.slug)];
      if (!isFromOwnPage(request) || !sameToken(fields['csrf'], formCookie)) {
        return refuseForeignForm(reply, portalInfo);
      }
      const page = {
        csrf: formToken(request, reply, portalInfo),
        action: `${portalInfo.base}reset/${request.params.token}`,
        askCurrent: false,
        heading: 'Choose a new password',
      };
      const mismatch = newPasswordProblems(fields);
      if (mismatch.length) return passwordPage(reply, portalInfo, 422, { ...page, errors: mismatch });
      try {
        if (!(await auth.resetPassword(portalInfo.ctx, request.params.token, fields['Password'] ?? ''))) {
          return resetLinkUnusable(reply, portalInfo);
        }
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return passwordPage(reply, portalInfo, 422, { ...page, errors: asFormErrors(error) });
      }
      return reply.code(303).header('location', `${portalInfo.base}login?reset=1`).send();
    },
  );
}

const newestFirst = (invoices: Invoice[]) =>
  [...invoices].sort((a, b) => b.invoiceDate.localeCompare(a.invoiceDate) || (b.id ?? 0) - (a.id ?? 0));

/** The earliest invoice the customer's live subscriptions will get, priced as the bill run would. */
async function nextInvoice(ctx: ServiceContext, customerId: number): Promise<Invoice | undefined> {
  let next: Invoice | undefined;
  for (const subscriptionId of await liveSubscriptionIdsOfCustomer(ctx, customerId)) {
    let upcoming;
    try {
      upcoming = await upcomingInvoice(ctx, subscriptionId);
    } catch (error) {
      // A subscription the bill run cannot plan (it parks it) has no next invoice to show.
      if (error instanceof DomainError) continue;
      throw error;
    }
    if (!upcoming) continue;
    const priced = await previewInvoice(ctx, upcoming);
    if (!next || priced.invoiceDate < next.invoiceDate) next = priced;
  }
  return next;
}

/** POST /v1/portal/sessions: a sign-in link made by the merchant's server (docs/portal.md, "Sign-in links"). */
export function registerPortalApiRoutes(v1: App, options: { publicUrl?: string }): void {
  v1.post(
    '/portal/sessions',
    {
      schema: {
        summary: 'Create a customer portal sign-in link',
        operationId: 'createPortalSession',
        tags: ['Customer portal'],
        description:
          "A single-use link that signs a customer's contact in to the account's portal, valid for 5 minutes, as " +
          "Stripe's billing portal sessions are. Give ContactID, or CustomerID for the customer's first active " +
          'contact with a login. The account needs a PortalSlug (PUT /v1/account). Send the customer to URL ' +
          'straight away; never e-mail it.',
        body: CreatePortalSessionBody,
        response: { 200: PortalSessionOut },
      },
    },
    async (request) => {
      const ctx = request.ctx;
      const slug = ctx.account.portalSlug;
      if (!slug)
        throw ValidationError.field(
          'PortalSlug',
          'the account has no portal: set PortalSlug with PUT /v1/account',
        );
      const body = request.body;
      const returnUrl = checkedReturnUrl(body.ReturnUrl);
      const link = await auth.createSignInLink(ctx, {
        customerId: body.CustomerID,
        contactId: body.ContactID,
        returnUrl,
      });
      const origin = options.publicUrl ?? `${request.protocol}://${request.host}`;
      return { URL: `${origin}/portal/${slug}/link/${link.token}`, ExpiresAt: link.expiresAt };
    },
  );
}

/** A ReturnUrl is an absolute http(s) URL without credentials: the portal links back to it. */
function checkedReturnUrl(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ValidationError.field('ReturnUrl', 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw ValidationError.field('ReturnUrl', 'must be an http or https URL');
  }
  if (url.username || url.password) throw ValidationError.field('ReturnUrl', 'must not carry credentials');
  return url.toString();
}
