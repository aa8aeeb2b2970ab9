import type { Db } from '../../storage/database.ts';
import type { SourceType } from './allocation.repository.ts';

/** A money source with something not yet allocated: what credit first may apply. */
export interface UnappliedSourceRow {
  source_type: SourceType;
  id: number;
  customer_id: number;
  currency_code: string;
  amount_minor: number;
  allocated_minor: number;
  date: string;
}

/** Payments before credit notes before adjustments on one day: the order the ledger lists a statement's records. */
const TYPE_RANK: Record<SourceType, number> = { payment: 0, credit_note: 1, adjustment: 2 };

/**
 * The customer's money in a currency with something left to allocate, oldest first (its date, then kind, then id):
 * settled payments (a pending one is not yet received, a failed one never was), credit notes and negative
 * adjustments. Read under the customer's lock, which every money movement takes, so none changes meanwhile.
 */
export async function listUnappliedSources(
  db: Db,
  accountId: number,
  of: { customerId: number; currencyCode: string },
): Promise<UnappliedSourceRow[]> {
  const columns = ['id', 'customer_id', 'currency_code', 'amount_minor', 'allocated_minor'] as const;
  const payments = await db
    .selectFrom('payments')
    .select([...columns, 'payment_date as date'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', of.customerId)
    .where('currency_code', '=', of.currencyCode)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .where('state', '=', 'settled')
    .execute();
  const creditNotes = await db
    .selectFrom('credit_notes')
    .select([...columns, 'credit_date as date'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', of.customerId)
    .where('currency_code', '=', of.currencyCode)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .execute();
  const adjustments = await db
    .selectFrom('adjustments')
    .select([...columns, 'adjustment_date as date'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', of.customerId)
    .where('currency_code', '=', of.currencyCode)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .where('direction', '=', 'negative')
    .execute();
  const rows: UnappliedSourceRow[] = [
    ...payments.map((row) => ({ ...row, source_type: 'payment' as const })),
    ...creditNotes.map((row) => ({ ...row, source_type: 'credit_note' as const })),
    ...adjustments.map((row) => ({ ...row, source_type: 'adjustment' as const })),
  ];
  return rows.sort(
    (a, b) =>
      (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
      TYPE_RANK[a.source_type] - TYPE_RANK[b.source_type] ||
      a.id - b.id,
  );
}
