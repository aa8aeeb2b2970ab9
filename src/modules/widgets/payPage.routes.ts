import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import { pageRateLimit } from '../../http/pageRateLimit.ts';
import type { SecretBox } from '../../security/secretBox.ts';
import { findAccountLogo, getSellerDetails } from '../auth/index.ts';
import { longDate, readPayLinkToken } from '../collections/index.ts';
import { subscriptionAwaitingInvoice } from '../subscriptions/index.ts';
import type { AwaitingPayment } from '../subscriptions/index.ts';
import { linkOrigin } from '../../http/origin.ts';
import type { HostedFields } from '../gateways/index.ts';
import { invoicePdfFilename, pendingDebitWords, renderInvoicePdf } from '../invoicing/index.ts';
import { captureHtml } from './widgetAssets.ts';
import {
  completeChargedSessions,
  completeConfirmedPayment,
  completePagePayment,
  completeStartedConfirm,
  confirmSession,
  confirmWithStoredCard,
  newCardSession,
  isShownOnPayPage,
  pageSession,
  readPayPage,
} from './payPage.service.ts';
import type { PayPage } from './payPage.service.ts';
import { NOT_FOUND_DOCUMENT, payPageDocument } from './payPageHtml.ts';

/**
 * The page that pays one invoice, outside /v1 and without an API key (docs/hosted-pages.md, "Paying one invoice"):
 * the signed token in its path names the account and the invoice. A token that does not hold, has expired, or names
 * an invoice that is gone is a 404 like any unknown page.
 */

export interface PayPageDeps {
  secrets: SecretBox;
  /** Links expire by wall time (docs/architecture.md, "Two clocks"): a test clock does not lengthen them. */
  wallClock: Clock;
  /** A context acting for the account the token names, as a customer in a hosted page. */
  contextFor(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
  publicUrl?: string;
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) });
const SessionBody = Type.Object({
  session: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  way: Type.Optional(Type.Union([Type.Literal('confirm'), Type.Literal('card')])),
});

/** As the eMandate pages: the token is a bearer capability, so a client address is kept to a human's pace. */
const config = pageRateLimit(300);

/**
 * The page's own policy: scripts and styles by nonce, the capture frame and its loader from our origin only, and
 * no Referer, so that the token in the path never leaves in one (docs/hosted-pages.md, "Paying one invoice").
 * "Confirm payment" with a provider adds the provider's origins for its script, its challenge's frames and calls
 * (as the capture frame's policy does: widgetAssets.ts, frameHeaders), and nothing else.
 */
function setPageHeaders(
  reply: FastifyReply,
  nonce: string,
  origin: string | undefined,
  providerOrigins: readonly string[] = [],
): FastifyReply {
  const ours = origin ?? "'self'";
  const provider = providerOrigins.map((each) => ` ${each}`).join('');
  return reply
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}' ${ours}${provider}`,
        `style-src 'nonce-${nonce}'`,
        `img-src 'self'${provider}`,
        `connect-src 'self'${provider}`,
        `frame-src ${ours}${provider}`,
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff');
}

/**
 * A session the account's settings refuse now (its currency disabled since the invoice was issued, its gateway
 * unable to charge): that way to pay is left off the page rather than the page failing.
 */
const unlessRefused = <T>(made: Promise<T>): Promise<T | undefined> =>
  made.catch((error: unknown) => {
    if (error instanceof ValidationError) return undefined;
    throw error;
  });

/** What a route of the page works with, once its token has held. */
interface Opened {
  ctx: ServiceContext;
  page: PayPage;
  token: string;
}

/**
 * The origin the page's frame and scripts come from, as every link's (docs/portal.md, "PUBLIC_URL and links");
 * undefined off the loopback without PUBLIC_URL, when the page offers no way to pay (docs/hosted-pages.md,
 * "Paying one invoice").
 */
const originOf = (request: FastifyRequest, publicUrl: string | undefined): string | undefined => {
  const origin = linkOrigin(request, publicUrl);
  return origin === undefined ? undefined : new URL(origin).origin;
};

/** The context and page the token names, or undefined (answered 404 by the caller). */
async function openPage(deps: PayPageDeps, request: FastifyRequest): Promise<Opened | undefined> {
  const opened = await openToken(deps, request);
  const page = opened && (await readPayPage(opened.ctx, opened.claims));
  return opened && page ? { ctx: opened.ctx, page, token: opened.token } : undefined;
}

/** The token's claims and its account's context, read before the page (no invoice is read yet). */
async function openToken(deps: PayPageDeps, request: FastifyRequest) {
  const { token } = request.params as { token: string };
  const claims = readPayLinkToken(deps.secrets, token, deps.wallClock.now());
  if (!claims) return undefined;
  const ctx = await deps.contextFor(claims.accountId, request).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  return ctx && claims.accountId === ctx.account.id ? { ctx, claims, token } : undefined;
}

const sendNotFound = (reply: FastifyReply, origin: string | undefined) =>
  setPageHeaders(reply, crypto.randomBytes(16).toString('base64'), origin)
    .code(404)
    .type('text/html; charset=utf-8')
    .send(NOT_FOUND_DOCUMENT);
const problem404 = (reply: FastifyReply) =>
  reply.code(404).header('cache-control', 'no-store').send({ status: 404, detail: 'Not found' });

/**
 * GET /pay/{token}: a sale the page charged and nothing recorded yet (the tab closed before it came back) is
 * recorded first, then the invoice is read again and shown with the ways left to pay it.
 */
async function showPage(deps: PayPageDeps, request: FastifyRequest, reply: FastifyReply) {
  const origin = originOf(request, deps.publicUrl);
  let opened = await openPage(deps, request);
  if (
    opened &&
    ((await completeChargedSessions(opened.ctx, opened.page.invoice)) ||
      (await completeStartedConfirm(opened.ctx, opened.page, origin)))
  ) {
    opened = await openPage(deps, request);
  }
  if (!opened) return sendNotFound(reply, origin);
  const nonce = crypto.randomBytes(16).toString('base64');
  const view = await pageView(opened, nonce, origin);
  return setPageHeaders(reply, nonce, origin, view.confirm?.provider?.origins)
    .type('text/html; charset=utf-8')
    .send(payPageDocument(view));
}

/** The page as the document shows it: the invoice, what it owes, and a session for each way to pay left. */
async function pageView({ ctx, page, token }: Opened, nonce: string, origin: string | undefined) {
  const { invoice } = page;
  const money = (minor: number) =>
    `${minorToDecimalText(minor, invoice.currencyCode)} ${invoice.currencyCode}`;
  const confirm = origin && page.storedCard && (await unlessRefused(confirmSession(ctx, page, origin)));
  const card = origin && page.cardGateway && (await unlessRefused(newCardSession(ctx, page, origin)));
  const seller = await getSellerDetails(ctx);
  const method = page.storedCard?.method.creditCard;
  const fields = page.storedCard?.fields;
  return {
    nonce,
    base: `/pay/${token}`,
    seller: seller.legalName ?? ctx.account.name,
    hasLogo: (await findAccountLogo(ctx.db, ctx.account.id)) !== undefined,
    invoiceNumber: String(invoice.invoiceNum ?? invoice.id),
    invoiceDate: invoice.invoiceDate,
    dueDate: invoice.dueDate,
    total: money(invoice.money.totalMinor),
    owed: money(page.owedMinor),
    owesNow: page.owedMinor > 0,
    amountDue: money(Math.max(0, invoice.balances.actualBalanceMinor)),
    pendingDebits: page.pendingDebits.map(
      (debit) => `${pendingDebitWords(debit)}: ${money(debit.amountMinor)}`,
    ),
    paidOn: page.paid ? (page.paidOn ?? '') : null,
    confirm:
      confirm && method
        ? {
            card: `${method.cardType} ending in ${method.lastFour}`,
            hashToken: confirm.hashToken,
            ...(fields ? { provider: providerView(fields) } : {}),
          }
        : null,
    widget: card && origin ? captureHtml(origin, card.id, card.hashToken) : null,
    startsWhenPaid: startsWhenPaidWords(await subscriptionAwaitingInvoice(ctx, invoice.id!), today(ctx)),
  };
}

/** The first invoice of a subscription that starts when paid says so (docs/subscriptions.md). */
function startsWhenPaidWords(awaiting: AwaitingPayment | undefined, on: PlainDate): string | null {
  if (!awaiting) return null;
  const from = awaiting.startDate > on ? `from ${longDate(awaiting.startDate)}` : 'from the day it is paid';
  return (
    `Paying this invoice starts your subscription to ${awaiting.packageName}, ${from}. ` +
    `If it is still unpaid on ${longDate(awaiting.incompleteUntil)}, the subscription and this invoice are cancelled.`
  );
}

/** What the page loads to confirm with a provider: its script, the adapter's mount, and its origins for the CSP. */
function providerView(fields: HostedFields) {
  return {
    name: fields.provider,
    scriptUrl: fields.scriptUrl,
    mount: fields.mount,
    origins: fields.origins,
  };
}

/**
 * GET /pay/{token}/invoice.pdf: the invoice's PDF through the same token, of an invoice the page shows. Its place
 * among the customer's documents is taken before the invoice is read (docs/operations.md, "PDF documents"): a
 * download refused for the customer's share or rate reads nothing.
 */
async function sendPdf(deps: PayPageDeps, request: FastifyRequest, reply: FastifyReply) {
  const opened = await openToken(deps, request);
  const rendered =
    opened &&
    (await renderInvoicePdf(opened.ctx, opened.claims.invoiceId, isShownOnPayPage).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }));
  if (!rendered) return sendNotFound(reply, originOf(request, deps.publicUrl));
  const { pdf, invoice } = rendered;
  return reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${invoicePdfFilename(invoice)}"`)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(pdf);
}

/** GET /pay/{token}/logo: the seller's logo through the same token. */
async function sendLogo(deps: PayPageDeps, request: FastifyRequest, reply: FastifyReply) {
  const opened = await openPage(deps, request);
  const logo = opened && (await findAccountLogo(opened.ctx.db, opened.ctx.account.id));
  if (!logo) return sendNotFound(reply, originOf(request, deps.publicUrl));
  return reply
    .type(logo.contentType)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(logo.image);
}

/**
 * POST /pay/{token}/confirm, "Confirm payment": the stored card charged in the page's session and, charged, the
 * payment recorded at once; a challenge comes back to be answered (its approval records it as well), or, with a
 * provider, the action its script finishes in the page (then /complete asks the provider how it went).
 */
async function confirmPayment(deps: PayPageDeps, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  const opened = await openPage(deps, request);
  const { session } = request.body as { session: string };
  const offer = opened?.page.storedCard;
  const row = opened && offer && (await pageSession(opened.ctx, opened.page.invoice.id!, session, 'confirm'));
  if (!opened || !offer || !row) return problem404(reply);
  return confirmWithStoredCard(opened.ctx, opened.page.invoice, row, offer);
}

/**
 * POST /pay/{token}/complete: a session of the page that captured (the frame's sale) recorded as the payment; for
 * one the server recorded already (a confirmed charge), the same answer: it is idempotent. "Confirm payment" that a
 * provider's script finished is first asked of the provider (a decline answers 422, as the frame's).
 */
async function completePayment(deps: PayPageDeps, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  const opened = await openPage(deps, request);
  const { session, way } = request.body as { session: string; way?: 'confirm' | 'card' };
  const row = opened && (await pageSession(opened.ctx, opened.page.invoice.id!, session, way ?? 'card'));
  if (!opened || !row) return problem404(reply);
  const complete = way === 'confirm' ? completeConfirmedPayment : completePagePayment;
  if (!(await complete(opened.ctx, opened.page.invoice, row))) {
    return reply.code(409).send({ status: 409, detail: 'Nothing was paid yet: enter the card, then pay.' });
  }
  return { paid: true };
}

export function registerPayPageRoutes(app: App, deps: PayPageDeps): void {
  const page = { config, schema: { hide: true, params: TokenParams } };
  const post = { config, schema: { hide: true, params: TokenParams, body: SessionBody } };
  app.get('/pay/:token', page, (request, reply) => showPage(deps, request, reply));
  app.get('/pay/:token/invoice.pdf', page, (request, reply) => sendPdf(deps, request, reply));
  app.get('/pay/:token/logo', page, (request, reply) => sendLogo(deps, request, reply));
  app.post('/pay/:token/confirm', post, (request, reply) => confirmPayment(deps, request, reply));
  app.post('/pay/:token/complete', post, (request, reply) => completePayment(deps, request, reply));
}
