/**
 * Money movements: payments, credit notes, adjustments, and their allocations to invoices. Routes: payments,
 * creditNotes and adjustments (`*.routes.ts`).
 */
export type { Allocation } from './allocation.service.ts';
export { allocationsToTargets, customerBalances, hasMoneyRecords } from './allocation.service.ts';
export type { CreditNoteAdjustmentInput } from './adjustment.service.ts';
export { adjustmentsByIds, issueCreditNoteAdjustment } from './adjustment.service.ts';
export { toAdjustmentDetailDto } from './adjustments.serializer.ts';
export { creditNotesByIds } from './creditNote.service.ts';
export { toCreditNoteDto } from './creditNotes.serializer.ts';
export { paymentsByIds, recordCollectedPayment } from './payment.service.ts';
export type { CollectedPaymentInput } from './payment.service.ts';
export { withLockedCustomer } from './moneySource.ts';
export { toPaymentDto } from './payments.serializer.ts';
export const PAYMENT_EVENT_TYPES = [
  'payment.created',
  'payment.updated',
  'payment.allocated',
  'payment.deleted',
] as const;
export const CREDIT_NOTE_EVENT_TYPES = [
  'credit_note.created',
  'credit_note.updated',
  'credit_note.allocated',
  'credit_note.deleted',
] as const;
/** An adjustment's allocations changing is an `adjustment.updated` (it has no `.allocated`). */
export const ADJUSTMENT_EVENT_TYPES = [
  'adjustment.created',
  'adjustment.updated',
  'adjustment.deleted',
] as const;
