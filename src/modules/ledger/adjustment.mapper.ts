import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AdjustmentsTable } from './tables.ts';
import type {
  AdjustmentChanges,
  AdjustmentDirection,
  AdjustmentRecord,
  NewAdjustment,
} from './adjustment.ts';

/** The one mapping between an adjustment's row and its record, used by adjustment.repository.ts. */
export function adjustmentFromRow(row: Selectable<AdjustmentsTable>): AdjustmentRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    direction: row.direction as AdjustmentDirection,
    adjustmentType: row.adjustment_type,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.adjustment_date,
    dueDate: row.direction === 'positive' ? row.due_date : null,
    ref: row.ref,
    memo: row.memo,
    subscriptionId: row.subscription_id,
  };
}

export function newAdjustmentToRow(adjustment: NewAdjustment): Insertable<AdjustmentsTable> {
  return {
    account_id: adjustment.accountId,
    customer_id: adjustment.customerId,
    direction: adjustment.direction,
    adjustment_type: adjustment.adjustmentType,
    subscription_id: adjustment.subscriptionId,
    currency_code: adjustment.currencyCode,
    amount_minor: adjustment.amountMinor,
    adjustment_date: adjustment.date,
    due_date: adjustment.dueDate,
    ref: adjustment.ref,
    memo: adjustment.memo,
    created_at: adjustment.createdAt,
    updated_at: adjustment.updatedAt,
  };
}

/** The columns an edit sets: only the fields given, in one order whatever the edit. */
export function adjustmentChangesToRow(changes: AdjustmentChanges): Updateable<AdjustmentsTable> {
  const row: Updateable<AdjustmentsTable> = {};
  if (changes.adjustmentType !== undefined) row.adjustment_type = changes.adjustmentType;
  if (changes.amountMinor !== undefined) row.amount_minor = changes.amountMinor;
  if (changes.date !== undefined) row.adjustment_date = changes.date;
  if (changes.dueDate !== undefined) row.due_date = changes.dueDate;
  if (changes.ref !== undefined) row.ref = changes.ref;
  if (changes.memo !== undefined) row.memo = changes.memo;
  row.updated_at = changes.updatedAt;
  return row;
}
