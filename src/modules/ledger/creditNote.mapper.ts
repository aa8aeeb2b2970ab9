import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CreditNotesTable } from './tables.ts';
import type { CreditNoteChanges, CreditNoteRecord, NewCreditNote } from './creditNote.ts';

/** The one mapping between a credit note's row and its record, used by creditNote.repository.ts. */
export function creditNoteFromRow(row: Selectable<CreditNotesTable>): CreditNoteRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.credit_date,
    creditNumber: row.credit_number,
    memo: row.memo,
  };
}

export function newCreditNoteToRow(creditNote: NewCreditNote): Insertable<CreditNotesTable> {
  return {
    account_id: creditNote.accountId,
    customer_id: creditNote.customerId,
    currency_code: creditNote.currencyCode,
    amount_minor: creditNote.amountMinor,
    credit_date: creditNote.date,
    credit_number: creditNote.creditNumber,
    memo: creditNote.memo,
    created_at: creditNote.createdAt,
    updated_at: creditNote.updatedAt,
  };
}

export function creditNoteChangesToRow(changes: CreditNoteChanges): Updateable<CreditNotesTable> {
  return {
    currency_code: changes.currencyCode,
    amount_minor: changes.amountMinor,
    credit_date: changes.date,
    credit_number: changes.creditNumber,
    memo: changes.memo,
    updated_at: changes.updatedAt,
  };
}
