import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../errors.ts';
import type { Gateway } from '../gateways/index.ts';
import { captureHtml, completeCaptureSession, openCaptureSessionFor } from '../widgets/index.ts';
import type { PortalDeps, SignedInPage } from './portalHttp.ts';

/**
 * The capture widget in the portal's pages (adding a card, paying with a new card): the portal is the merchant, its
 * own origin frames the widget, and its server completes the session for the signed-in customer (docs/portal.md,
 * "Paying and payment methods"). The pages' shared script is templates/captureScript.eta.
 */

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

/** What a capture session of the portal differs in: a card kept, or a sale of an invoice's balance. */
export type CaptureOptions = Pick<
  Parameters<typeof openCaptureSessionFor>[1],
  'saleType' | 'vaultOnlyOnSuccess' | 'currencyCode' | 'description' | 'amount' | 'invoiceId' | 'upToOwed'
>;

/**
 * A capture session of the customer's page, on `gateway`, and what its template needs: the widget's HTML, the
 * sealed SessionToken and the form's CSRF token. The page loaded again reuses the customer's open session for the
 * same purpose rather than making one a load (openCaptureSessionFor; docs/portal.md, "Paying and payment methods").
 */
export async function startCapture(
  page: SignedInPage,
  origin: string,
  gateway: Gateway,
  options: CaptureOptions,
): Promise<{ widget: string; capture: string; csrf: string }> {
  const session = await openCaptureSessionFor(page.portal.ctx, {
    vaultingType: 'VaultGateway',
    expiresIn: '00:30:00',
    gatewayToken: gateway.token,
    authDomain: origin,
    // Whose session it is, for the business to complete one the customer's page never came back to.
    extRef: portalExtRef(page.session.customerId),
    ...options,
  });
  return {
    widget: captureHtml(origin, session.id, session.hashToken),
    capture: sealCapture(page, session.sessionToken),
    csrf: page.session.csrfToken,
  };
}

/**
 * Completes the customer's session (idempotent for one customer: the form sent twice completes once); false when
 * nothing was captured yet (the page posted before the card was entered).
 */
export async function completeCapture(page: SignedInPage, sessionToken: string): Promise<boolean> {
  try {
    await completeCaptureSession(page.portal.ctx, { customerId: page.session.customerId, sessionToken });
    return true;
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'capture_session_not_captured') throw error;
    return false;
  }
}
