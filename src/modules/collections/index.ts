/**
 * Collecting invoices through gateways: automatic card collection with retries (dunning). The engine
 * (src/billing/billRun.ts) runs `collectDueInvoices` for each account after its bill run.
 */
export type { CollectionOptions, CollectionSummary } from './collection.service.ts';
export {
  collectDueInvoices,
  emptyCollectionSummary,
  invoicesInFlight,
  openCollectionAttempts,
} from './collection.service.ts';
/** For the simulate route (in batches, which handles batch lines itself): a card payment's late event. */
export { SIMULATE_SCENARIOS, SIMULATION_IS_FOR, simulateGatewayEvent } from './simulate.service.ts';
/** For batches: a debit order whose presentations ran out is told and acted on as a card's retries are. */
export { afterRetriesRanOut, queueRetriesRanOutMails } from './retriesRanOut.service.ts';
export type { UncollectedInvoice } from './retriesRanOut.service.ts';
/** For batches: a debit-order invoice the customer's settings cannot collect is told as a card invoice's is. */
export { reportBlockedCollection } from './blockedCollection.service.ts';
/** For the customer portal: a customer paying invoices now with the primary card. */
export type { PayNowInput, PayNowOutcome } from './payNow.service.ts';
export { payInvoicesNow } from './payNow.service.ts';
/** For connectModules: the capture widget's sales in flight, which no other charge may overlap. */
export type { SalesInFlight } from './salesInFlight.ts';
export { registerSalesInFlight } from './salesInFlight.ts';
/** For connectModules: a customer's new primary card retries its failed card invoices. */
export { retryWithNewPrimary } from './newPrimaryRetry.ts';

/** The event types collection emits, on invoices (docs/webhooks.md; the catalogue walk triggers each). */
export const COLLECTION_EVENT_TYPES = [
  'invoice.payment_failed',
  'invoice.collection_exhausted',
  'invoice.collection_blocked',
] as const;
