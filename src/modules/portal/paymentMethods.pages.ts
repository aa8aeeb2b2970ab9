import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../errors.ts';
import type { App } from '../../http/types.ts';
import { getCustomer } from '../customers/index.ts';
import { canVaultCards, findPrimaryGateway } from '../gateways/index.ts';
import {
  emandateTokensOfPaymentMethods,
  emandatesOfPaymentMethods,
  mandatePdfFilename,
  renderMandatePdf,
} from '../mandates/index.ts';
import type { Emandate } from '../mandates/index.ts';
import {
  deletePaymentMethod,
  getPaymentMethod,
  listPaymentMethods,
  setPrimaryPaymentMethod,
} from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import { captureHtml, completeCaptureSession, createCaptureSession } from '../widgets/index.ts';
import type { PortalDeps, PortalRequests, SignedInPage } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import { ownedBySession } from './signedInCustomer.ts';

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

const MANDATE_STATUS: Record<Emandate['status'], string> = {
  pending_signature: 'Waiting for your signature',
  signed: 'Signed',
  expired: 'Expired before it was signed',
  rejected: 'Declined',
  cancelled: 'Cancelled',
};

/**
 * A method as a person reads it, masked: a card's brand, last four digits and expiry; a bank account's bank and
 * last digits. The vault's token and the sealed numbers never reach the page.
 */
export function methodView(method: PaymentMethod, mandate?: Emandate) {
  const card = method.creditCard;
  const bank = method.bankAccount;
  return {
    id: method.id,
    isPrimary: method.isPrimary,
    isValid: method.isValid,
    name: card
      ? `${card.cardType} ending ${card.lastFour}`
      : `${bank!.bank} account ending ${bank!.lastFour}`,
    detail: card
      ? `Expires ${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`
      : `Account holder ${bank!.accountHolder}`,
    mandate: mandate && {
      status: MANDATE_STATUS[mandate.status],
      signedOn: mandate.signing ? mandate.signing.signedAt.slice(0, 10) : null,
    },
  };
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
        notice: DONE[request.query.done ?? ''],
        methods: methods.map((method) => methodView(method, mandates.get(method.id))),
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
      if (!gateway || !canVaultCards(gateway)) {
        return page.message(409, {
          title: 'Cards cannot be added',
          heading: 'Cards cannot be added here',
          message: `${page.portal.account.name} does not take cards in the portal at the moment.`,
          link: { href: `${page.portal.base}payment-methods`, text: 'Back to payment methods' },
        });
      }
      const customer = await getCustomer(ctx, page.session.customerId);
      // The portal is the merchant here: its own origin frames the widget, and its server completes the session.
      const session = await createCaptureSession(ctx, {
        vaultingType: 'VaultGateway',
        saleType: 'VaultOnly',
        expiresIn: '00:30:00',
        vaultOnlyOnSuccess: false,
        currencyCode: customer.currencyCode,
        gatewayToken: gateway.token,
        authDomain: ownOrigin(request),
        description: 'A card added in the customer portal',
        // Whose session it is, for the business to complete one the customer's page never came back to.
        extRef: portalExtRef(page.session.customerId),
      });
      return page.render(200, 'addCard', {
        title: 'Add a card',
        current: 'payment-methods',
        widget: captureHtml(ownOrigin(request), session.id, session.hashToken),
        capture: sealCapture(page, session.sessionToken),
        csrf: page.session.csrfToken,
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
      try {
        await completeCaptureSession(page.portal.ctx, { customerId: page.session.customerId, sessionToken });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'capture_session_not_captured') throw error;
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

/** The ExtRef of the portal's capture sessions: the customer it was made for (docs/portal.md). */
export const portalExtRef = (customerId: number) => `portal:customer:${customerId}`;

/** Where browsers reach the service, the portal's page and the widget's frame alike. */
export const portalOrigin = (deps: PortalDeps, request: FastifyRequest) =>
  deps.publicUrl ? new URL(deps.publicUrl).origin : `${request.protocol}://${request.host}`;

/**
 * The capture session's SessionToken travels in the page's form sealed with the customer it was made for: the
 * browser never reads it, and the portal completes a session only for the customer whose page made it.
 */
export function sealCapture(page: SignedInPage, sessionToken: string): string {
  return page.portal.ctx.secrets.seal(JSON.stringify({ c: page.session.customerId, s: sessionToken }));
}

export function openCapture(page: SignedInPage, sealed: string): string | undefined {
  try {
    const opened = JSON.parse(page.portal.ctx.secrets.open(sealed)) as { c?: unknown; s?: unknown };
    return opened.c === page.session.customerId && typeof opened.s === 'string' ? opened.s : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The add-card page frames the capture widget: its policy lets the loader script and the frame come from the
 * service's own origin (docs/hosted-pages.md, "Your page's Content-Security-Policy"), on this page only; every
 * other portal page keeps frame-src at 'none'.
 */
export function allowWidget(ownOrigin: (request: FastifyRequest) => string) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy !== 'string') return payload;
    const origin = ownOrigin(request);
    reply.header(
      'content-security-policy',
      `${policy.replace(/script-src ([^;]+)/, `script-src $1 ${origin}`)}; frame-src ${origin}`,
    );
    return payload;
  };
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
