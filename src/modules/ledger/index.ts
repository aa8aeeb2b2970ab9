import type { App } from '../../http/types.ts';
import { registerAdjustmentsRoutes } from './adjustments.routes.ts';
import { registerCreditNotesRoutes } from './creditNotes.routes.ts';
import { registerPaymentsRoutes } from './payments.routes.ts';

/** Money movements: payments, credit notes, adjustments, and their allocations to invoices. */
export function registerLedgerModule(app: App): void {
  registerPaymentsRoutes(app);
  registerAdjustmentsRoutes(app);
  registerCreditNotesRoutes(app);
}

export type { Allocation } from './allocation.service.ts';
export { allocationsToTargets, customerBalances, hasMoneyRecords } from './allocation.service.ts';
export type { CreditNoteAdjustmentInput } from './adjustment.service.ts';
export { issueCreditNoteAdjustment } from './adjustment.service.ts';
