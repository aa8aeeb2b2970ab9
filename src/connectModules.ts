import { TEST_CLOCK_EVENT_TYPES } from './billing/testClock.ts';
import { ENTITLEMENT_EVENT_TYPES } from './modules/entitlements/index.ts';
import { USAGE_ALERT_EVENT_TYPES } from './modules/usageAlerts/index.ts';
import { COUPON_EVENT_TYPES } from './modules/coupons/index.ts';
import { RETENTION_EVENT_TYPES } from './modules/retention/index.ts';
import { ACCOUNT_EVENT_TYPES } from './modules/auth/index.ts';
import { BATCH_EVENT_TYPES, debitDatesOfPayments } from './modules/batches/index.ts';
import { CATALOGUE_EVENT_TYPES, registerCatalogueUses } from './modules/catalogue/index.ts';
import {
  CUSTOMER_EVENT_TYPES,
  countCustomersWithCurrency,
  registerCustomerUses,
} from './modules/customers/index.ts';
import { GATEWAY_EVENT_TYPES } from './modules/gateways/index.ts';
import {
  INVOICE_EVENT_TYPES,
  INVOICE_PDF_ATTACHMENT,
  RECURRING_INVOICE_EVENT_TYPES,
  countInvoicesOfCustomer,
  countInvoicesUsingPaymentMethod,
  countRecurringInvoicesOfCustomer,
  countRecurringInvoicesUsingPaymentMethod,
  registerInvoiceCredit,
  registerPendingDebits,
  renderInvoicePdfAttachment,
} from './modules/invoicing/index.ts';
import { registerEventObjects, registerEventTypes } from './modules/events/index.ts';
import {
  ADJUSTMENT_EVENT_TYPES,
  CREDIT_NOTE_EVENT_TYPES,
  PAYMENT_EVENT_TYPES,
  TAX_CREDIT_NOTE_EVENT_TYPES,
  TAX_CREDIT_NOTE_PDF_ATTACHMENT,
  renderTaxCreditNotePdfAttachment,
  hasMoneyRecords,
  registerGrantCredit,
  registerInvoicesCreditedListener,
  registerInvoicesPaidListener,
  registerInvoicesUnpaidListener,
} from './modules/ledger/index.ts';
import { registerAttachmentRenderer } from './modules/mail/index.ts';
import { EMANDATE_EVENT_TYPES, registerMandateCancelledListener } from './modules/mandates/index.ts';
import {
  PAYMENT_METHOD_EVENT_TYPES,
  deletePaymentMethodsOfCustomer,
  invalidatePaymentMethod,
  registerNewPrimaryListener,
  registerPaymentMethodUses,
} from './modules/paymentMethods/index.ts';
import {
  COLLECTION_EVENT_TYPES,
  invoicesBeingCollected,
  openCollectionAttempts,
  registerCapturedCharges,
  registerProviderSessions,
  registerSalesInFlight,
  retryWithNewPrimary,
} from './modules/collections/index.ts';
import {
  SUBSCRIPTION_EVENT_TYPES,
  activatePaidSubscriptions,
  resumePaidSubscriptions,
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
  countSubscriptionsOfCustomer,
  countSubscriptionsWithComponent,
  subscriptionCustomers,
} from './modules/subscriptions/index.ts';
import { registerUsageUses } from './modules/usage/index.ts';
import {
  CREDIT_EVENT_TYPES,
  creditTopUpInvoices,
  grantPaidTopUps,
  payFromGrants,
  payIssuedInvoices,
  creditWordsOfInvoices,
  releaseCreditForCreditNote,
  registerInvoicesBeingCollected,
  releaseCreditOfInvoice,
  voidUnpaidTopUps,
} from './modules/credits/index.ts';
import {
  CAPTURE_SESSION_EVENT_TYPES,
  capturedChargeOfPayment,
  recoverSessionOfReference,
  salesInFlight,
} from './modules/widgets/index.ts';
import {
  STATEMENT_PDF_ATTACHMENT,
  registerDebitDates,
  renderStatementPdfAttachment,
} from './modules/statements/index.ts';
import { eventObjectRenderers } from './readModels/eventObjects.ts';
import { pendingDebitsToInvoices } from './readModels/pendingDebits.view.ts';

/**
 * Plugs higher modules into the ports of lower ones, so that modules import only downwards
 * (docs/architecture.md, "Module order"): a lower module asks through a port whether a higher one still uses its
 * rows, the mail outbox renders invoice PDFs with invoicing's renderer, and webhook endpoints check their
 * subscriptions against every module's event types. Called by every entry point before
 * it serves or works (buildApp, startService, the CLI); calling it again changes nothing.
 */
export function connectModules(): void {
  registerCatalogueUses({
    customersWithCurrency: countCustomersWithCurrency,
    subscriptionsByPackageVersion: countSubscriptionsByPackageVersion,
    liveSubscriptionsByPackageVersion: countLiveSubscriptionsByPackageVersion,
    subscriptionsWithComponent: countSubscriptionsWithComponent,
  });
  registerCustomerUses({
    invoices: countInvoicesOfCustomer,
    subscriptions: countSubscriptionsOfCustomer,
    recurringInvoices: countRecurringInvoicesOfCustomer,
    moneyRecords: hasMoneyRecords,
    deleteDetails: deletePaymentMethodsOfCustomer,
  });
  // Usage events may name a subscription, which must be their customer's.
  registerUsageUses({ subscriptionCustomers });
  registerPaymentMethodUses({
    invoices: countInvoicesUsingPaymentMethod,
    recurringInvoices: countRecurringInvoicesUsingPaymentMethod,
    openCollectionAttempts,
  });
  // A capture widget's sale of an invoice is in flight for the portal's Pay button and the collection run, as their
  // charges are for it (docs/portal.md, "Paying and payment methods").
  registerSalesInFlight(salesInFlight);
  // A payment a capture session recorded is refunded through the session's gateway and charge (docs/gateways.md,
  // "Refunds"), kept card or not.
  registerCapturedCharges(capturedChargeOfPayment);
  // A provider's webhook on a charge or setup no payment holds yet records the capture session that started it
  // (docs/hosted-pages.md, "When the browser never comes back").
  registerProviderSessions(recoverSessionOfReference);
  // A customer's new primary card retries its failed card invoices.
  registerNewPrimaryListener(retryWithNewPrimary);
  // A cancelled eMandate's bank account is no longer valid for collection (docs/spec-decisions.md, "Cancelling an
  // eMandate").
  registerMandateCancelledListener(invalidatePaymentMethod);
  // Invoice e-mails carry their PDF by reference; the mail worker renders it when it delivers the message.
  registerAttachmentRenderer(INVOICE_PDF_ATTACHMENT, renderInvoicePdfAttachment);
  registerAttachmentRenderer(STATEMENT_PDF_ATTACHMENT, renderStatementPdfAttachment);
  registerAttachmentRenderer(TAX_CREDIT_NOTE_PDF_ATTACHMENT, renderTaxCreditNotePdfAttachment);
  // Invoices' documents show a pending debit as still due, with its date and bank account (ledger's payments).
  registerPendingDebits(pendingDebitsToInvoices);
  // Statements date a pending payment by its batch's action date, as the invoice's documents do.
  registerDebitDates(debitDatesOfPayments);
  // Prepaid credit pays invoices as they are issued and at credit first, goes back to its grants when an invoice is
  // cancelled, and a paid top-up's grant is made when its invoice is paid (docs/credits.md).
  registerInvoiceCredit({
    invoicesIssued: payIssuedInvoices,
    beforeCancel: releaseCreditOfInvoice,
    creditApplied: creditWordsOfInvoices,
  });
  registerGrantCredit({ pay: payFromGrants, giveBack: releaseCreditForCreditNote });
  // The same moment starts a subscription that waited for its first invoice's payment (docs/subscriptions.md,
  // "Subscriptions that start when paid"), and resumes one that waited for its resumption invoice's ("Resuming when
  // paid").
  registerInvoicesPaidListener(async (ctx, invoiceIds) => {
    await grantPaidTopUps(ctx, invoiceIds);
    await activatePaidSubscriptions(ctx, invoiceIds);
    await resumePaidSubscriptions(ctx, invoiceIds);
  });
  // A reversed or deleted payment of a top-up invoice voids what is left of its credit (docs/credits.md).
  registerInvoicesUnpaidListener(voidUnpaidTopUps);
  // Money going back for a top-up (a credit note on its invoice) takes the credit it bought with it.
  registerInvoicesCreditedListener(creditTopUpInvoices);
  // Credit that arrives pays open invoices, but not one being charged right now (docs/credits.md, "Consumption
  // order").
  registerInvoicesBeingCollected(invoicesBeingCollected);
  // Events show resources as the API does; some of those shapes combine modules (src/readModels/).
  registerEventObjects(eventObjectRenderers);
  // Webhook endpoints subscribe to the types the modules declare, and to no other.
  registerEventTypes([
    ...ACCOUNT_EVENT_TYPES,
    ...TEST_CLOCK_EVENT_TYPES,
    ...GATEWAY_EVENT_TYPES,
    ...CATALOGUE_EVENT_TYPES,
    ...CUSTOMER_EVENT_TYPES,
    ...PAYMENT_METHOD_EVENT_TYPES,
    ...SUBSCRIPTION_EVENT_TYPES,
    ...ENTITLEMENT_EVENT_TYPES,
    ...USAGE_ALERT_EVENT_TYPES,
    ...COUPON_EVENT_TYPES,
    ...RETENTION_EVENT_TYPES,
    ...INVOICE_EVENT_TYPES,
    ...COLLECTION_EVENT_TYPES,
    ...RECURRING_INVOICE_EVENT_TYPES,
    ...PAYMENT_EVENT_TYPES,
    ...CREDIT_NOTE_EVENT_TYPES,
    ...TAX_CREDIT_NOTE_EVENT_TYPES,
    ...ADJUSTMENT_EVENT_TYPES,
    ...CREDIT_EVENT_TYPES,
    ...BATCH_EVENT_TYPES,
    ...CAPTURE_SESSION_EVENT_TYPES,
    ...EMANDATE_EVENT_TYPES,
  ]);
}
