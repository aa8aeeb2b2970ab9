/**
 * Money movements: payments, credit notes, adjustments, and their allocations to invoices. Routes: payments,
 * creditNotes and adjustments (`*.routes.ts`).
 */
/** The payments' state other modules join in their own statements (docs/architecture.md, "Tables and their owners"). */
export { paymentAmount, paymentStates } from './paymentStates.ts';
export type { Allocation } from './allocation.service.ts';
/** A paid top-up's refund finds the card payment that paid its invoice (collections' grantRefund.service.ts). */
export { paymentsOnInvoice } from './allocation.service.ts';
export {
  allocationsOfSources,
  allocationsToTargets,
  customerBalanceFigure,
  hasMoneyRecords,
} from './allocation.service.ts';
/** Credit first: the customer's unapplied money paid to invoices before they are charged or bundled. */
export type { CustomerCreditRequest } from './customerCredit.service.ts';
export {
  applyCustomerCredit,
  customersWithUnappliedMoney,
  unappliedMoneyMinor,
} from './customerCredit.service.ts';
/** Credit grants as a source of allocations, and the ports the credits module fills (docs/credits.md). */
export type { GrantAllocationOutcome, GrantAsSource } from './grantAllocation.service.ts';
export type { SupplyReduction } from './reduction.ts';
export {
  creditNoteLinesBetween,
  creditShownOnInvoicesBetween,
  creditedOnInvoices,
  creditsOnInvoiceDocuments,
} from './reduction.service.ts';
export { moneyReceivedBetween } from './allocation.service.ts';
export type { MoneyReceived } from './allocation.service.ts';
export type { InvoiceCreditOnDocument } from './reduction.service.ts';
export { allocateGrant, grantAllocations, releaseGrantAllocations } from './grantAllocation.service.ts';
export type {
  CreditGiveBack,
  GrantCreditPort,
  GrantCreditRequest,
  InvoiceCredited,
  InvoicesCreditedListener,
  InvoicesPaidListener,
  InvoicesUnpaidListener,
  LedgerPorts,
} from './ports.ts';
export type { CreditNoteAdjustmentInput } from './adjustment.service.ts';
export type { ReductionTaxPart } from './reductionTaxParts.ts';
export { adjustmentsByIds, issueCreditNoteAdjustment } from './adjustment.service.ts';
export { toAdjustmentDetailDto } from './adjustments.serializer.ts';
export { creditNotesByIds, listCreditNotes } from './creditNote.service.ts';
export { toCreditNoteDto } from './creditNotes.serializer.ts';
export {
  findPaymentIdByChargeRef,
  listPaymentIdsByChargeRef,
  findPaymentIdOfCharge,
  getPayment,
  listPayments,
  paymentsByIds,
  recordCollectedPayment,
  reversePayment,
  settlePayment,
} from './payment.service.ts';
export type { CollectedPaymentInput } from './payment.service.ts';
export type { RecordedPayment } from './collectedPayments.service.ts';
export { recordCollectedPayments } from './collectedPayments.service.ts';
export type { Payment } from './payment.ts';
export type { CreditNote } from './creditNote.ts';
export type { BatchLinePaymentInput, CheckedBatchLine } from './batchPayment.service.ts';
export {
  checkBatchLinePayment,
  createBatchLinePayment,
  deleteBatchLinePayment,
  updateBatchLinePayment,
} from './batchPayment.service.ts';
export type { AllocationInput, WireAllocation } from './allocationInput.ts';
export { invoiceAllocationInputs } from './allocationInput.ts';
export { amountFromWire, dateFromWire } from './moneyInput.ts';
export type { DecimalAmount, Read } from './moneyInput.ts';
export {
  afterMoneyMovement,
  MONEY_SCOPES,
  withLockedCustomer,
  withLockedCustomers,
} from './moneyMovement.ts';
export { toPaymentDto } from './payments.serializer.ts';
export type { StatementMoneyRecord } from './statementRecords.repository.ts';
export { statementMoneyRecordsOf } from './statementRecords.repository.ts';
/** Wire pieces other modules answer with: a simulated gateway event answers the payment. */
export { PaymentOut } from './payments.schemas.ts';
export { WireAmount } from './ledger.schemas.ts';
export {
  PAID_INVOICES_CHOICES,
  assertRefundable,
  confirmRefund,
  releaseRefund,
  reserveRefund,
} from './refundReservation.service.ts';
export type { PaidInvoices, RefundReservation, TakenFromInvoice } from './refundReservation.service.ts';
export const PAYMENT_EVENT_TYPES = [
  'payment.created',
  'payment.updated',
  'payment.allocated',
  'payment.deleted',
  'payment.reversed',
  'payment.refunded',
] as const;
export const CREDIT_NOTE_EVENT_TYPES = [
  'credit_note.created',
  'credit_note.updated',
  'credit_note.allocated',
  'credit_note.deleted',
] as const;
/** A tax credit note issued (docs/tax.md, "Tax credit notes"): its object is the document. */
export const TAX_CREDIT_NOTE_EVENT_TYPES = ['tax_credit_note.issued'] as const;
/** An adjustment's allocations changing is an `adjustment.updated` (it has no `.allocated`). */
export const ADJUSTMENT_EVENT_TYPES = [
  'adjustment.created',
  'adjustment.updated',
  'adjustment.deleted',
] as const;
/** Tax credit notes (docs/tax.md, "Tax credit notes"): the register, its documents and their PDFs. */
export type { TaxCreditNote, TaxCreditNoteLine } from './taxCreditNote.service.ts';
export {
  getTaxCreditNote,
  listTaxCreditNotes,
  taxCreditNotesByIds,
  taxCreditNotesOfSources,
} from './taxCreditNote.service.ts';
export { toTaxCreditNoteDto } from './taxCreditNotes.serializer.ts';
export { TAX_CREDIT_NOTE_PDF_ATTACHMENT } from './taxCreditNoteNotice.ts';
export type { TaxCreditNoteDocument } from './taxCreditNotePdf.ts';
export {
  TAX_CREDIT_NOTE_DOCUMENT,
  drawTaxCreditNoteDocument,
  renderTaxCreditNotePdf,
  renderTaxCreditNotePdfAttachment,
  taxCreditNotePdfFilename,
} from './taxCreditNotePdf.ts';
