import type { Ports, ServiceContext } from './context.ts';
import { TEST_CLOCK_EVENT_TYPES } from './billing/testClock.ts';
import { ENTITLEMENT_EVENT_TYPES } from './modules/entitlements/index.ts';
import { USAGE_ALERT_EVENT_TYPES } from './modules/usageAlerts/index.ts';
import { COUPON_EVENT_TYPES } from './modules/coupons/index.ts';
import { RETENTION_EVENT_TYPES } from './modules/retention/index.ts';
import { ACCOUNT_EVENT_TYPES } from './modules/auth/index.ts';
import { BATCH_EVENT_TYPES, debitDatesOfPayments } from './modules/batches/index.ts';
import { CATALOGUE_EVENT_TYPES } from './modules/catalogue/index.ts';
import { CUSTOMER_EVENT_TYPES } from './modules/customers/index.ts';
import { GATEWAY_EVENT_TYPES } from './modules/gateways/index.ts';
import {
  INVOICE_EVENT_TYPES,
  INVOICE_PDF_ATTACHMENT,
  RECURRING_INVOICE_EVENT_TYPES,
  renderInvoicePdfAttachment,
} from './modules/invoicing/index.ts';
import {
  ADJUSTMENT_EVENT_TYPES,
  CREDIT_NOTE_EVENT_TYPES,
  PAYMENT_EVENT_TYPES,
  TAX_CREDIT_NOTE_EVENT_TYPES,
  TAX_CREDIT_NOTE_PDF_ATTACHMENT,
  renderTaxCreditNotePdfAttachment,
} from './modules/ledger/index.ts';
import { EMANDATE_EVENT_TYPES } from './modules/mandates/index.ts';
import { PAYMENT_METHOD_EVENT_TYPES, invalidatePaymentMethod } from './modules/paymentMethods/index.ts';
import {
  COLLECTION_EVENT_TYPES,
  invoicesBeingCollected,
  retryWithNewPrimary,
} from './modules/collections/index.ts';
import {
  SUBSCRIPTION_EVENT_TYPES,
  activatePaidSubscriptions,
  resumePaidSubscriptions,
} from './modules/subscriptions/index.ts';
import {
  CREDIT_EVENT_TYPES,
  creditTopUpInvoices,
  grantPaidTopUps,
  payFromGrants,
  payIssuedInvoices,
  creditWordsOfInvoices,
  releaseCreditForCreditNote,
  releaseCreditOfInvoice,
  voidUnpaidTopUps,
} from './modules/credits/index.ts';
import {
  CAPTURE_SESSION_EVENT_TYPES,
  capturedChargeOfPayment,
  recoverSessionOfReference,
  salesInFlight,
} from './modules/widgets/index.ts';
import { STATEMENT_PDF_ATTACHMENT, renderStatementPdfAttachment } from './modules/statements/index.ts';
import { eventObjectRenderers } from './readModels/eventObjects.ts';
import { pendingDebitsToInvoices } from './readModels/pendingDebits.view.ts';

/**
 * The answers of higher modules to lower ones' questions (docs/architecture.md, "Ports"), so that modules import
 * only downwards: each member is declared by the module that asks, in its `ports.ts`, and a member left out here
 * is a type error. Every entry point (buildApp, startService, the CLI, the benchmarks) hands this object to the
 * contexts it makes; it holds no state, so two services in one process each hold their own.
 */
export function modulePorts(): Ports {
  return {
    // A customer's new primary card retries its failed card invoices.
    paymentMethods: { newPrimary: retryWithNewPrimary },
    // A cancelled eMandate's bank account is no longer valid for collection (docs/spec-decisions.md, "Cancelling an
    // eMandate").
    mandates: { cancelled: invalidatePaymentMethod },
    // Events show resources as the API does; some of those shapes combine modules (src/readModels/). Webhook
    // endpoints subscribe to the types the modules declare, and to no other.
    events: { objects: eventObjectRenderers, types: MODULE_EVENT_TYPES },
    // E-mails carry their PDF by reference; the mail worker renders it when it delivers the message.
    mail: {
      attachments: {
        [INVOICE_PDF_ATTACHMENT]: renderInvoicePdfAttachment,
        [STATEMENT_PDF_ATTACHMENT]: renderStatementPdfAttachment,
        [TAX_CREDIT_NOTE_PDF_ATTACHMENT]: renderTaxCreditNotePdfAttachment,
      },
    },
    // Prepaid credit pays invoices as they are issued, goes back to its grants when an invoice is cancelled
    // (docs/credits.md); invoices' documents show a pending debit as still due, with its date and bank account.
    invoicing: {
      invoicesIssued: payIssuedInvoices,
      beforeCancel: releaseCreditOfInvoice,
      creditWords: creditWordsOfInvoices,
      pendingDebits: pendingDebitsToInvoices,
      // Statements date a pending payment by its batch's action date, as the invoice's documents do.
      debitDates: debitDatesOfPayments,
    },
    ledger: {
      grantCredit: payFromGrants,
      giveBack: releaseCreditForCreditNote,
      invoicesPaid,
      // A reversed or deleted payment of a top-up invoice voids what is left of its credit (docs/credits.md).
      invoicesUnpaid: voidUnpaidTopUps,
      // Money going back for a top-up (a credit note on its invoice) takes the credit it bought with it.
      invoicesCredited: creditTopUpInvoices,
    },
    // Credit that arrives pays open invoices, but not one being charged right now (docs/credits.md, "Consumption
    // order").
    credits: { invoicesBeingCollected },
    // A capture widget's sale of an invoice is in flight for the portal's Pay button and the collection run; a
    // payment a capture session recorded is refunded through the session's gateway and charge (docs/gateways.md,
    // "Refunds"); a provider's webhook on a charge no payment holds records the session that started it
    // (docs/hosted-pages.md, "When the browser never comes back").
    collections: {
      salesInFlight,
      capturedCharges: capturedChargeOfPayment,
      providerSessions: recoverSessionOfReference,
    },
  };
}

/**
 * An invoice that became paid makes a paid top-up's grant (docs/credits.md), starts a subscription that waited for
 * its first invoice's payment (docs/subscriptions.md, "Subscriptions that start when paid"), and resumes one that
 * waited for its resumption invoice's ("Resuming when paid").
 */
async function invoicesPaid(ctx: ServiceContext, invoiceIds: readonly number[]): Promise<void> {
  await grantPaidTopUps(ctx, invoiceIds);
  await activatePaidSubscriptions(ctx, invoiceIds);
  await resumePaidSubscriptions(ctx, invoiceIds);
}

const MODULE_EVENT_TYPES: readonly string[] = [
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
];
