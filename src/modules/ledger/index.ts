import type { App } from '../../http/types.ts';

/** Money movements: payments, credit notes, adjustments, and their allocations to invoices. */
export function registerLedgerModule(app: App): void {
  void app;
}
