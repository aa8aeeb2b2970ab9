/**
 * Collecting invoices through gateways: automatic card collection with retries (dunning). The engine
 * (src/billing/billRun.ts) runs `collectDueInvoices` for each account after its bill run.
 */
export type { CollectionOptions, CollectionSummary } from './collection.service.ts';
export {
  collectDueInvoices,
  emptyCollectionSummary,
  invoicesBeingCollected,
  invoicesInFlight,
  openCollectionAttempts,
} from './collection.service.ts';
/** For the simulate route (in batches, which handles batch lines itself): a card payment's late event. */
export { SIMULATE_SCENARIOS, SIMULATION_IS_FOR, simulateGatewayEvent } from './simulate.service.ts';
/** For batches: a debit order whose presentations ran out is told and acted on as a card's retries are. */
export { afterRetriesRanOut, noticeRetriesRanOut } from './retriesRanOut.service.ts';
export type { UncollectedInvoice } from './retriesRanOut.service.ts';
/** For batches: a debit-order invoice the customer's settings cannot collect is told as a card invoice's is. */
export { reportBlockedCollection } from './blockedCollection.service.ts';
/** For batches and widgets: the customer's own money applied to invoices before they are collected. */
export { applyCreditFirst } from './creditFirst.ts';
/** For the bill run: the daily pass that pays open invoices from their customers' credit (docs/credits.md). */
export { payOpenInvoicesFromCredit } from './openInvoiceCredit.service.ts';
/** For the customer portal: a customer paying invoices now with the primary card. */
export type { PayNowInput, PayNowOutcome } from './payNow.service.ts';
export { payInvoicesNow } from './payNow.service.ts';
/** For src/modulePorts.ts: what collections asks of capture sessions. */
export type { CapturedCharges, CollectionPorts, ProviderSessions, SalesInFlight } from './ports.ts';
/** For widgets: a popup's charge recorded after its invoice was paid, refunded or kept, and told. */
export type { LateCharge, LateChargeOutcome } from './lateCharge.service.ts';
export { settleLateCharge } from './lateCharge.service.ts';
/** For src/modulePorts.ts: a customer's new primary card retries its failed card invoices. */
export { retryWithNewPrimary } from './newPrimaryRetry.ts';

/** For batches, widgets and the portal: what customers are told of payments collected and collections failed. */
export type { CollectionFailure, DebitMove } from './customerNotices.ts';
export {
  asksForConfirmation,
  noticeCollectionFailed,
  noticeDebitMoved,
  noticePaymentCollected,
  takesDebitOrders,
} from './customerNotices.ts';
/**
 * For the bill run: reminders of the invoices customers pay themselves, on the account's schedule; remindInvoice is
 * its one invoice's step, which checks the invoice again under the customer's lock.
 */
export { remindInvoice, sendDueReminders } from './reminders.service.ts';
/** For batches and the collection loop: notices to the account's own staff. */
export { queueStaffMail } from './staffNotices.ts';
/** For e-mails that ask a customer to pay one invoice, and the hosted page that opens their links. */
export type { PayLinkClaims } from './payLink.ts';
export type { LastCollection } from './lastCollection.ts';
export { lastCollectionOf } from './lastCollection.ts';
export { invoicePayLink, PAY_LINK_PATH, readPayLinkToken, signPayLinkToken } from './payLink.ts';

/** The event types collection emits, on invoices (docs/webhooks.md; the catalogue walk triggers each). */
export const COLLECTION_EVENT_TYPES = [
  'invoice.payment_failed',
  'invoice.collection_exhausted',
  'invoice.collection_blocked',
  'invoice.payment_succeeded',
  'invoice.payment_action_required',
  'invoice.payment_reminder',
] as const;
export type { ReasonMapping, ReturnReason } from './returnReasons.ts';
export { achReason, saEftReason, sepaReason } from './returnReasons.ts';

/** A calendar date as a letter writes it: "14 December 2026". */
export { longDate } from './noticeWords.ts';
