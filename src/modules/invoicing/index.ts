import type { App } from '../../http/types.ts';
import { registerAttachmentRenderer } from '../mail/index.ts';
import { INVOICE_PDF_ATTACHMENT } from './invoice.service.ts';
import { renderInvoicePdfAttachment } from './invoicePdf.ts';
import { registerInvoicesRoutes } from './invoices.routes.ts';
import { registerRecurringInvoicesRoutes } from './recurringInvoices.routes.ts';

/** Invoices (one-off and made by the bill run) and recurring invoices. */
export function registerInvoicingModule(app: App): void {
  registerInvoicesRoutes(app);
  // Invoice e-mails carry their PDF by reference; the mail worker renders it when it delivers the message.
  registerAttachmentRenderer(INVOICE_PDF_ATTACHMENT, renderInvoicePdfAttachment);
  registerRecurringInvoicesRoutes(app);
}

export type {
  AllocatableInvoice,
  Invoice,
  InvoiceMoneyColumn,
  InvoiceCharge,
  InvoiceSource,
  InvoiceTax,
  NewInvoice,
  NewInvoiceCharge,
} from './invoice.service.ts';
export {
  COLLECTION_METHODS,
  addToInvoiceMoney,
  lockInvoicesForAllocation,
  lockOpenInvoices,
  countInvoicesOfCustomer,
  countInvoicesUsingPaymentMethod,
  customerInvoiceSums,
  getInvoice,
  insertInvoices,
  invoiceTaxPercs,
  previewInvoice,
  queueInvoiceMails,
} from './invoice.service.ts';
export type { InvoiceOut } from './invoices.schemas.ts';
export { invoiceOutSchema, unsavedInvoiceOutSchema } from './invoices.schemas.ts';
export { toInvoiceDto } from './invoices.serializer.ts';
export { invoicePdf, renderInvoicePdf } from './invoicePdf.ts';
export type { RecurringInvoice } from './recurringInvoice.service.ts';
export {
  billRecurringInvoice,
  countRecurringInvoicesOfCustomer,
  countRecurringInvoicesUsingPaymentMethod,
  getRecurringInvoice,
  listDueRecurringInvoiceIds,
  parkRecurringInvoice,
} from './recurringInvoice.service.ts';
