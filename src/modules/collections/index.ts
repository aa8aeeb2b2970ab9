/**
 * Collecting invoices through gateways: automatic card collection with retries (dunning). The engine
 * (src/billing/billRun.ts) runs `collectDueInvoices` for each account after its bill run.
 */
export type { CollectionOptions, CollectionSummary } from './collection.service.ts';
export { collectDueInvoices, emptyCollectionSummary } from './collection.service.ts';
