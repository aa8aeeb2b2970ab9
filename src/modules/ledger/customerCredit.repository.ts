import type { Db } from '../../storage/database.ts';
import type { LedgerSourceType } from './allocation.repository.ts';
import { unappliedSourceFromRow } from './customerCredit.mapper.ts';
import type { UnappliedSource } from './customerCredit.mapper.ts';

export type { UnappliedSource } from './customerCredit.mapper.ts';

/** Payments before credit notes before adjustments on one day: the order the ledger lists a statement's records. */
const TYPE_RANK: Record<LedgerSourceType, number> = { payment: 0, credit_note: 1, adjustment: 2 };

/**
 * The customer's money in a currency with something left to allocate, oldest first (its date, then kind, then id):
 * settled payments (a pending one is not yet received, a failed one never was), credit notes and negative
 * adjustments. Read under the customer's lock, which every money movement takes, so none changes meanwhile.
 */
export async function listUnappliedSources(
  db: Db,
  accountId: number,
  of: { customerId: number; currencyCode: string },
): Promise<UnappliedSource[]> {
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
  const sources: UnappliedSource[] = [
    ...payments.map((row) => unappliedSourceFromRow('payment', row)),
    ...creditNotes.map((row) => unappliedSourceFromRow('credit_note', row)),
    ...adjustments.map((row) => unappliedSourceFromRow('adjustment', row)),
  ];
  return sources.sort(
    (a, b) =>
      (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) ||
      TYPE_RANK[a.sourceType] - TYPE_RANK[b.sourceType] ||
      a.id - b.id,
  );
}

/**
 * Every customer and currency of the account in which the customer holds money with something left to allocate (as
 * listUnappliedSources counts it), each once: where the daily pass of open invoices looks (docs/credits.md,
 * "Consumption order"). Read without a lock: the pass reads each customer's money again under its lock.
 */
export async function listCustomersWithUnappliedMoney(
  db: Db,
  accountId: number,
): Promise<{ customerId: number; currencyCode: string }[]> {
  const payments = db
    .selectFrom('payments')
    .select(['customer_id', 'currency_code'])
    .where('account_id', '=', accountId)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .where('state', '=', 'settled');
  const creditNotes = db
    .selectFrom('credit_notes')
    .select(['customer_id', 'currency_code'])
    .where('account_id', '=', accountId)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')));
  const adjustments = db
    .selectFrom('adjustments')
    .select(['customer_id', 'currency_code'])
    .where('account_id', '=', accountId)
    .where((eb) => eb('amount_minor', '>', eb.ref('allocated_minor')))
    .where('direction', '=', 'negative');
  // UNION, not UNION ALL: each customer and currency once.
  const rows = await payments.union(creditNotes).union(adjustments).execute();
  return rows
    .map((row) => ({ customerId: Number(row.customer_id), currencyCode: row.currency_code }))
    .sort((a, b) => a.customerId - b.customerId || (a.currencyCode < b.currencyCode ? -1 : 1));
}
