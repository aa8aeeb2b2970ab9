import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import type { PortalDeps, PortalRequests } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import { allowWidget, portalOrigin } from './portalCapture.ts';
import {
  addCardPage,
  deleteMethodConfirmPage,
  deleteMethodPage,
  makePrimaryPage,
  mandatePdfPage,
  paymentMethodsPage,
  saveCardPage,
} from './paymentMethodsPage.ts';

const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/**
 * Payment methods: the customer's cards and bank accounts, masked; make one primary; delete one that is not
 * (docs/portal.md, "Paying and payment methods"). Each route parses and answers with its page (paymentMethodsPage.ts).
 */
export function registerPaymentMethodRoutes(portal: App, pages: PortalRequests, deps: PortalDeps): void {
  const ownOrigin = (request: FastifyRequest) => portalOrigin(deps, request);
  const hidden = { schema: { hide: true, params: IdParams } };

  portal.get(
    '/portal/:slug/payment-methods',
    { schema: { hide: true, params: SlugParams, querystring: DoneQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? paymentMethodsPage(page, request.query.done) : reply;
    },
  );
  portal.post('/portal/:slug/payment-methods/:id/primary', hidden, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? makePrimaryPage(form.page, request.params.id) : reply;
  });
  portal.get('/portal/:slug/payment-methods/:id/delete', hidden, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    return page ? deleteMethodConfirmPage(page, request.params.id) : reply;
  });
  portal.post('/portal/:slug/payment-methods/:id/delete', hidden, async (request, reply) => {
    const form = await pages.signedInForm(request, reply, request.params.slug);
    return form ? deleteMethodPage(form.page, request.params.id) : reply;
  });
  portal.get(
    '/portal/:slug/payment-methods/add',
    { schema: { hide: true, params: SlugParams }, onSend: allowWidget(ownOrigin) },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? addCardPage(page, ownOrigin(request)) : reply;
    },
  );
  portal.post(
    '/portal/:slug/payment-methods/add',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      return form ? saveCardPage(form.page, form.fields) : reply;
    },
  );
  portal.get('/portal/:slug/payment-methods/:id/mandate', hidden, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    return page ? mandatePdfPage(page, request.params.id) : reply;
  });
}
