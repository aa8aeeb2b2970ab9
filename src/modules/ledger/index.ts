/**
 * Money movements: payments, credit notes, adjustments, and their allocations to invoices. Routes: payments,
 * creditNotes and adjustments (`*.routes.ts`).
 */
export type { Allocation } from './allocation.service.ts';
export { allocationsToTargets, customerBalances, hasMoneyRecords } from './allocation.service.ts';
export type { CreditNoteAdjustmentInput } from './adjustment.service.ts';
export { issueCreditNoteAdjustment } from './adjustment.service.ts';
