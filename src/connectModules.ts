import { registerCatalogueUses } from './modules/catalogue/index.ts';
import { countCustomersWithCurrency, registerCustomerUses } from './modules/customers/index.ts';
import {
  INVOICE_PDF_ATTACHMENT,
  countInvoicesOfCustomer,
  countInvoicesUsingPaymentMethod,
  countRecurringInvoicesOfCustomer,
  countRecurringInvoicesUsingPaymentMethod,
  renderInvoicePdfAttachment,
} from './modules/invoicing/index.ts';
import { registerEventObjects } from './modules/events/index.ts';
import { hasMoneyRecords } from './modules/ledger/index.ts';
import { registerAttachmentRenderer } from './modules/mail/index.ts';
import {
  deletePaymentMethodsOfCustomer,
  registerNewPrimaryListener,
  registerPaymentMethodUses,
} from './modules/paymentMethods/index.ts';
import { openCollectionAttempts, retryWithNewPrimary } from './modules/collections/index.ts';
import {
  countLiveSubscriptionsByPackageVersion,
  countSubscriptionsByPackageVersion,
  countSubscriptionsOfCustomer,
  countSubscriptionsWithComponent,
} from './modules/subscriptions/index.ts';
import { eventObjectRenderers } from './views/eventObjects.ts';

/**
 * Plugs higher modules into the ports of lower ones, so that modules import only downwards
 * (docs/architecture.md, "Module order"): a lower module asks through a port whether a higher one still uses its
 * rows, and the mail outbox renders invoice PDFs with invoicing's renderer. Called by every entry point before
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
  registerPaymentMethodUses({
    invoices: countInvoicesUsingPaymentMethod,
    recurringInvoices: countRecurringInvoicesUsingPaymentMethod,
    openCollectionAttempts,
  });
  // A customer's new primary card retries its failed card invoices.
  registerNewPrimaryListener(retryWithNewPrimary);
  // Invoice e-mails carry their PDF by reference; the mail worker renders it when it delivers the message.
  registerAttachmentRenderer(INVOICE_PDF_ATTACHMENT, renderInvoicePdfAttachment);
  // Events show resources as the API does; some of those shapes combine modules (src/views/).
  registerEventObjects(eventObjectRenderers);
}
