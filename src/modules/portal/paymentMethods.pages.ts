import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import { getCustomer } from '../customers/index.ts';
import { asksForConfirmation, takesDebitOrders } from '../collections/index.ts';
import { capturesCards, findPrimaryGateway } from '../gateways/index.ts';
import {
  emandateTokensOfPaymentMethods,
  emandatesOfPaymentMethods,
  mandatePdfFilename,
  renderMandatePdf,
} from '../mandates/index.ts';
import {
  deletePaymentMethod,
  getPaymentMethod,
  listPaymentMethods,
  setPrimaryPaymentMethod,
} from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import type { PortalDeps, PortalRequests, SignedInPage } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import { ownedBySession } from './signedInCustomer.ts';
import { allowWidget, completeCapture, openCapture, portalOrigin, startCapture } from './portalCapture.ts';
import { methodView } from './portalViews.ts';

/** What the list's notice says after a change (post/redirect/get: the change's 303 names it). */
const DONE: Record<string, string> = {
  primary: 'Your primary payment method was changed. Invoices that failed before are tried again with it.',
  deleted: 'The payment method was deleted.',
  added: 'Your card was added.',
};

const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });

/** The session's customer's payment methods, in the order they were added (at most 100: a person's wallet). */
export async function methodsOfSession(page: SignedInPage): Promise<PaymentMethod[]> {
  return listPaymentMethods(page.portal.ctx, { limit: 100, offset: 0 }, page.session.customerId);
}

/** One of the session's customer's methods, or undefined: another customer's, or none, is not found. */
function methodOfSession(page: SignedInPage, id: string): Promise<PaymentMethod | undefined> {
  return ownedBySession(page, id, getPaymentMethod, (method) => method.customerId);
}

/**
 * What the page says when the primary card's bank asked the customer to confirm its last charge (as it will each
 * renewal): save another card here and make it primary, or, where the account takes debit orders, ask for a
 * mandate (docs/portal.md, "Paying and payment methods"). Undefined otherwise.
 */
async function confirmationAdvice(page: SignedInPage, methods: PaymentMethod[]): Promise<string | undefined> {
  const primary = methods.find((method) => method.isPrimary && method.creditCard);
  if (!primary || !(await asksForConfirmation(page.portal.ctx, primary.id))) return undefined;
  const name = methodView(primary, undefined, page.portal.account.timeZone).name;
  const debit = (await takesDebitOrders(page.portal.ctx))
    ? ` Or pay by debit order from your bank account: ask ${page.portal.account.name} for a debit order mandate to sign.`
    : '';
  return (
    `Your bank asks you to confirm each payment from ${name}, so each renewal waits for you. Add another card ` +
    `and make it primary, and renewals go through on their own.${debit}`
  );
}

/**
 * Payment methods: the customer's cards and bank accounts, masked; make one primary; delete one that is not
 * (docs/portal.md, "Paying and payment methods").
 */
export function registerPaymentMethodRoutes(portal: App, pages: PortalRequests, deps: PortalDeps): void {
  portal.get(
    '/portal/:slug/payment-methods',
    { schema: { hide: true, params: SlugParams, querystring: DoneQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const methods = await methodsOfSession(page);
      const mandates = await emandatesOfPaymentMethods(
        page.portal.ctx,
        methods.filter((method) => method.bankAccount).map((method) => method.id),
      );
      return page.render(200, 'paymentMethods', {
        title: 'Payment methods',
        current: 'payment-methods',
        // The query is the client's text: only the table's own entries (docs/spec-decisions.md, "Request bodies").
        notice: Object.hasOwn(DONE, request.query.done ?? '') ? DONE[request.query.done!] : undefined,
        confirmEachTime: await confirmationAdvice(page, methods),
        methods: methods.map((method) =>
          methodView(method, mandates.get(method.id), page.portal.account.timeZone),
        ),
        csrf: page.session.csrfToken,
      });
    },
  );

  portal.post(
    '/portal/:slug/payment-methods/:id/primary',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form) return reply;
      const method = await methodOfSession(form.page, request.params.id);
      if (!method) return form.page.notFound();
      // The API's make-primary: the new primary also retries the customer's failed invoices (collections).
      await setPrimaryPaymentMethod(form.page.portal.ctx, method.id);
      return form.page.redirect('payment-methods?done=primary');
    },
  );

  portal.get(
    '/portal/:slug/payment-methods/:id/delete',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const method = await methodOfSession(page, request.params.id);
      if (!method) return page.notFound();
      return renderDelete(page, 200, method, []);
    },
  );

  portal.post(
    '/portal/:slug/payment-methods/:id/delete',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form) return reply;
      const { page } = form;
      const method = await methodOfSession(page, request.params.id);
      if (!method) return page.notFound();
      // Spec, Limits: a primary payment method cannot be deleted.
      if (method.isPrimary) {
        return renderDelete(page, 422, method, [
          {
            field: null,
            message: 'Your primary payment method cannot be deleted. Make another method primary first.',
          },
        ]);
      }
      try {
        await deletePaymentMethod(page.portal.ctx, method.id);
      } catch (error) {
        // An invoice, a recurring invoice or a payment still names it: the records keep pointing at it.
        if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
        return renderDelete(page, 422, method, [
          {
            field: null,
            message:
              error.code === 'payment_method_is_primary'
                ? 'Your primary payment method cannot be deleted. Make another method primary first.'
                : 'This payment method is still used by your invoices or payments, so it cannot be deleted.',
          },
        ]);
      }
      return page.redirect('payment-methods?done=deleted');
    },
  );

  const ownOrigin = (request: FastifyRequest) => portalOrigin(deps, request);

  portal.get(
    '/portal/:slug/payment-methods/add',
    { schema: { hide: true, params: SlugParams }, onSend: allowWidget(ownOrigin) },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const ctx = page.portal.ctx;
      const gateway = await findPrimaryGateway(ctx);
      if (!gateway || !capturesCards(gateway)) {
        return page.message(409, {
          title: 'Cards cannot be added',
          heading: 'Cards cannot be added here',
          message: `${page.portal.account.name} does not take cards in the portal at the moment.`,
          link: { href: `${page.portal.base}payment-methods`, text: 'Back to payment methods' },
        });
      }
      const customer = await getCustomer(ctx, page.session.customerId);
      return page.render(200, 'addCard', {
        title: 'Add a card',
        current: 'payment-methods',
        ...(await startCapture(page, ownOrigin(request), gateway, {
          saleType: 'VaultOnly',
          vaultOnlyOnSuccess: false,
          currencyCode: customer.currencyCode,
          description: 'A card added in the customer portal',
        })),
      });
    },
  );

  portal.post(
    '/portal/:slug/payment-methods/add',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form) return reply;
      const { page, fields } = form;
      const sessionToken = openCapture(page, fields['capture'] ?? '');
      if (!sessionToken) return page.notFound();
      if (!(await completeCapture(page, sessionToken))) {
        return page.render(422, 'payRefused', {
          title: 'No card was saved',
          current: 'payment-methods',
          errors: [{ field: null, message: 'No card was saved: enter the card in the form, then save it.' }],
          backLink: { href: `${page.portal.base}payment-methods/add`, text: 'Add the card again' },
        });
      }
      return page.redirect('payment-methods?done=added');
    },
  );

  portal.get(
    '/portal/:slug/payment-methods/:id/mandate',
    { schema: { hide: true, params: IdParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      if (!page) return reply;
      const method = await methodOfSession(page, request.params.id);
      if (!method?.bankAccount) return page.notFound();
      const token = (await emandateTokensOfPaymentMethods(page.portal.ctx, [method.id])).get(method.id);
      const mandate = (await emandatesOfPaymentMethods(page.portal.ctx, [method.id])).get(method.id);
      if (!token || !mandate?.signing) return page.notFound();
      // The merchant's download (GET /v1/emandate/download), not the public link that closes after 30 days.
      const { pdf } = await renderMandatePdf(page.portal.ctx, token, 'api');
      return page.sendPdf(mandatePdfFilename(mandate), pdf);
    },
  );
}

function renderDelete(
  page: SignedInPage,
  status: number,
  method: PaymentMethod,
  errors: { field: string | null; message: string }[],
) {
  const view = methodView(method);
  return page.render(status, 'deletePaymentMethod', {
    title: `Delete ${view.name}`,
    current: 'payment-methods',
    method: view,
    errors,
    csrf: page.session.csrfToken,
  });
}
