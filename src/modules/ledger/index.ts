import type { App } from '../../http/types.ts';
import { registerPaymentsRoutes } from './payments.routes.ts';

/** Money movements: payments, credit notes, adjustments, and their allocations to invoices. */
export function registerLedgerModule(app: App): void {
  registerPaymentsRoutes(app);
}

export type { Allocation } from './allocation.service.ts';
export { allocationsToTargets, customerBalances } from './allocation.service.ts';
