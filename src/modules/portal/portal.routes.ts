import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyView from '@fastify/view';
import type { FastifyError } from 'fastify';
import type { DomainError } from '../../errors.ts';
import { problemOf } from '../../http/errors.ts';
import { refuseOddFormFields } from '../../http/formFields.ts';
import type { App } from '../../http/types.ts';
import { findAccountByPortalSlug, findAccountLogo } from '../auth/index.ts';
import { registerCreditRoutes } from './credit.pages.ts';
import { registerCreditNoteRoutes } from './creditNotes.pages.ts';
import { registerDetailsRoutes } from './details.pages.ts';
import { registerInvoiceRoutes } from './invoices.pages.ts';
import { registerMandateRoutes } from './mandates.pages.ts';
import { registerOverviewRoutes } from './overview.pages.ts';
import { registerPasswordRoutes } from './password.pages.ts';
import { registerPaymentsRoutes } from './payments.pages.ts';
import { registerPayRoutes } from './pay.pages.ts';
import { registerPaymentMethodRoutes } from './paymentMethods.pages.ts';
import { registerRetentionRoutes } from './retention.pages.ts';
import { registerPauseRoutes } from './pause.pages.ts';
import { portalRequests, renderPage } from './portalHttp.ts';
import type { PortalDeps } from './portalHttp.ts';
import { PORTAL_CSS, TEMPLATES_DIR, eta } from './portalViews.ts';
import { SlugParams } from './portal.schemas.ts';
import { registerSignInRoutes } from './signIn.pages.ts';
import { registerStatementRoutes } from './statement.pages.ts';
import { registerSubscriptionRoutes } from './subscriptions.pages.ts';

export type { PortalDeps } from './portalHttp.ts';

/** The portal's pages under /portal/{slug}/, server-rendered (docs/portal.md, docs/design/portal.md). */
export function registerPortalRoutes(app: App, deps: PortalDeps): void {
  app.get('/portal/assets/portal.css', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(PORTAL_CSS),
  );

  app.get('/portal/:slug/logo', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const account = await findAccountByPortalSlug(deps.db, request.params.slug);
    const logo = account && (await findAccountLogo(deps.db, account.id));
    if (!logo) return reply.code(404).type('text/plain; charset=utf-8').send('No logo');
    return reply
      .type(logo.contentType)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(logo.image);
  });

  void app.register(async (scope) => {
    await scope.register(fastifyCookie);
    await scope.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
    refuseOddFormFields(scope);
    await scope.register(fastifyView, { engine: { eta }, root: TEMPLATES_DIR, viewExt: 'eta' });
    scope.setErrorHandler(answerErrorAsPage);
    const portal = scope as unknown as App;
    const pages = portalRequests(deps);
    registerSignInRoutes(portal, pages);
    registerPasswordRoutes(portal, pages, deps);
    registerOverviewRoutes(portal, pages);
    registerInvoiceRoutes(portal, pages);
    registerCreditNoteRoutes(portal, pages);
    registerStatementRoutes(portal, pages);
    registerPaymentsRoutes(portal, pages);
    registerCreditRoutes(portal, pages);
    registerSubscriptionRoutes(portal, pages);
    registerRetentionRoutes(portal, pages);
    registerPauseRoutes(portal, pages);
    registerDetailsRoutes(portal, pages);
    registerPaymentMethodRoutes(portal, pages, deps);
    registerPayRoutes(portal, pages, deps);
    registerMandateRoutes(portal, pages);
  });
}

/**
 * A page's request that failed (a concurrent change, a refused value, a fault of ours) is answered as a page a
 * person can read, not as the API's problem+json: the same status, and what to do next.
 */
async function answerErrorAsPage(
  this: unknown,
  error: FastifyError | DomainError,
  request: Parameters<typeof problemOf>[1],
  reply: Parameters<typeof renderPage>[0],
) {
  const { problem, retryAfterSeconds } = problemOf(error, request);
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  const serverFault = problem.status >= 500;
  return renderPage(reply, problem.status, 'message', undefined, {
    title: problem.title,
    heading: serverFault ? 'Something went wrong' : 'This could not be done',
    message: serverFault
      ? // A server fault may come after a charge went through (its record failed): nothing is promised unchanged.
        `Try again in a moment; if it keeps happening, quote ${request.id} to the business.`
      : `${problem.detail.replace(/\.$/, '')}. Nothing was changed: go back and try again.`,
  });
}
