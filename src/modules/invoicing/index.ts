/**
 * Invoices (one-off and made by the bill run) and recurring invoices. Routes: invoices.routes.ts,
 * recurringInvoices.routes.ts.
 */
export type {
  Invoice,
  InvoiceApplied,
  InvoiceCharge,
  InvoiceCredited,
  InvoiceSource,
  InvoiceTax,
  InvoiceWithFigures,
  NegativeAdjustmentApplied,
  NewInvoice,
  NewInvoiceCharge,
  PaymentApplied,
} from './invoice.ts';
export { COLLECTION_METHODS, checkedOwnCollection } from './invoiceInput.ts';
export type { Collection } from './invoiceInput.ts';
export type { CollectableInvoice } from './invoiceCollection.service.ts';
export {
  collectionMethodOf,
  countCollectionTries,
  customerCollectionsOf,
  findInvoiceDue,
  findInvoicesDue,
  listInvoicesDue,
  listOwedInvoicesForNewPrimary,
  setCollectionMethodAndTry,
  setCollectionProblem,
  setCollectionSchedule,
  setCollectionSchedules,
  withEffectiveCollection,
} from './invoiceCollection.service.ts';
export { insertInvoices, payIssuedWithCredit, previewInvoice } from './invoiceInsert.service.ts';
/** For subscriptions: the first invoice of one that expired unpaid is cancelled as DELETE /v1/invoices/{id} does. */
export { deleteInvoice } from './invoice.service.ts';
/** Prepaid credit's part in issuing and cancelling invoices (docs/credits.md), filled by the credits module. */
export type {
  BeforeInvoiceCancel,
  DebitDatesReader,
  InvoicesIssuedListener,
  InvoiceCreditReader,
  InvoiceCreditWords,
  InvoicingPorts,
  IssuedInvoice,
  PendingDebit,
  PendingDebitsReader,
} from './ports.ts';
export { INVOICE_PDF_ATTACHMENT, queueInvoiceMails } from './invoiceMail.service.ts';
export type {
  AllocatableInvoice,
  InvoiceMoneyAfter,
  InvoiceMoneyColumn,
  StatementInvoice,
  TaxedInvoiceTotal,
} from './invoiceMoney.service.ts';
export {
  addToInvoiceMoney,
  addToInvoicesMoney,
  invoiceTaxedTotals,
  issuedInvoicesBalanceOf,
  issuedInvoicesBetween,
  lockInvoicesForAllocation,
  lockInvoicesForCollection,
  lockOpenInvoices,
  statementInvoicesOf,
} from './invoiceMoney.service.ts';
export {
  countInvoicesOfCustomer,
  countInvoicesUsingPaymentMethod,
  customersOfInvoices,
  getInvoice,
  invoiceNumbersByIds,
  invoicePartsByIds,
  invoicesByIds,
  invoicesFromParts,
  invoiceTaxPercs,
  invoiceTaxParts,
  listInvoicesOfCustomer,
} from './invoiceReads.service.ts';
export type { InvoiceParts } from './invoiceReads.service.ts';
/** Wire pieces other modules return: a subscription change answers with the invoices it made. */
export { InvoiceOut, UnsavedInvoiceOut } from './invoices.schemas.ts';
export {
  customersOwingIn,
  dueDatesOfUnpaidInvoices,
  unpaidInvoicesDueOn,
} from './unpaidInvoices.repository.ts';
export { toInvoiceDto } from './invoices.serializer.ts';
export {
  INVOICE_DOCUMENT,
  billedPartyLines,
  drawInvoiceDocument,
  invoicePdfFilename,
  renderInvoicePdf,
  renderInvoicePdfAttachment,
} from './invoicePdf.ts';
export type { InvoiceDocument } from './invoicePdf.ts';
export { dateForDocument, percentText } from './documentText.ts';
export { debitDatesOf, pendingDebitsOf, pendingDebitWords } from './pendingDebits.ts';
export type { RecurringInvoice } from './recurringInvoice.ts';
export {
  billRecurringInvoice,
  listDueRecurringInvoiceIds,
  parkRecurringInvoice,
} from './recurringInvoiceBilling.service.ts';
export {
  countRecurringInvoicesOfCustomer,
  countRecurringInvoicesUsingPaymentMethod,
  getRecurringInvoice,
  recurringInvoicesByIds,
} from './recurringInvoiceReads.service.ts';
export { toRecurringInvoiceDto } from './recurringInvoices.serializer.ts';
export {
  INVOICE_EVENT_TYPES,
  RECURRING_INVOICE_EVENT_TYPES,
  TIME_EVENTS_LOOKBACK_DAYS,
  emitInvoicingTimeEvents,
} from './invoicingEvents.ts';
export { BillingInvariantError } from './billingInvariant.ts';
export type {
  CardProblemCode,
  CollectionProblemCode,
  DebitProblemCode,
  HeldCollection,
} from './customerCollection.ts';
export {
  automaticMethodOf,
  handedToCustomer,
  heldCollectionProblem,
  heldCollectionReason,
} from './customerCollection.ts';
export { invoiceBoundsProblem, priceInvoice } from './invoiceMath.ts';
