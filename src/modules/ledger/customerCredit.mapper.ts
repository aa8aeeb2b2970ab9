import type { LedgerSourceType } from './allocation.repository.ts';

/** A money source with something not yet allocated: what credit first may apply. */
export interface UnappliedSource {
  sourceType: LedgerSourceType;
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: string;
}

/** A payment's or adjustment's columns as listUnappliedSources reads them. */
export interface UnappliedSourceRow {
  id: number;
  customer_id: number;
  currency_code: string;
  amount_minor: number;
  allocated_minor: number;
  date: string;
}

/** The one mapping between a money source's row and what credit first reads of it. */
export function unappliedSourceFromRow(
  sourceType: LedgerSourceType,
  row: UnappliedSourceRow,
): UnappliedSource {
  return {
    sourceType,
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.date,
  };
}
