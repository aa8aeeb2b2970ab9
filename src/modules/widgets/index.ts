/**
 * The hosted capture widget (spec part 2, Capture widget sessions; docs/design/hosted-pages.md): capture sessions
 * made by the merchant's server, the frame that takes a card into the test gateway's vault (and charges a sale),
 * and complete, which makes the card a payment method (and the sale a payment) of a customer. Routes:
 * widgets.routes.ts under /v1, captureFrame.routes.ts for the browser (loader, frame, submit).
 */
export type { CaptureSession, CaptureSessionInput } from './captureSession.service.ts';
/**
 * For the customer portal, which is a merchant of its own: it creates a session for its page, embeds the session's
 * Html and completes it for the signed-in customer.
 */
export {
  captureSessionsByIds,
  completeCaptureSession,
  createCaptureSession,
  getCaptureSession,
  openCaptureSessionFor,
} from './captureSession.service.ts';
export { captureHtml } from './widgetAssets.ts';
/** For src/modulePorts.ts: the invoices a sale is paying now, which the collections module charges not meanwhile. */
export { salesInFlight } from './captureInvoiceSale.ts';
/** For src/modulePorts.ts: the charge behind a payment a session recorded, which collections' refunds name. */
export { capturedChargeOfPayment } from './captureInvoiceSale.ts';
export { toCaptureSessionDto } from './widgets.serializer.ts';
/**
 * For src/modulePorts.ts (a provider's webhook naming a session's reference) and the collection run (the sessions
 * browsers left with a provider): docs/hosted-pages.md, "When the browser never comes back".
 */
export {
  PROVIDER_SWEEP_AFTER_MS,
  recoverCaptureSessions,
  recoverSessionOfReference,
} from './captureRecovery.service.ts';

/**
 * Every event type the widget emits (docs/webhooks.md lists them; the catalogue walk triggers each). Expiry is
 * read from Expires, not announced (docs/spec-decisions.md, "Capture widget sessions").
 */
export const CAPTURE_SESSION_EVENT_TYPES = [
  'capture_session.created',
  'capture_session.captured',
  'capture_session.failed',
  'capture_session.locked',
  'capture_session.completed',
] as const;
