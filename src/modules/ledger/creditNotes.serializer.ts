import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { CreditNote, CreditNoteInput } from './creditNote.service.ts';
import type { CreateCreditNoteBody, CreditNoteOut, EditCreditNoteBody } from './creditNotes.schemas.ts';

/** The wire credit note: Date is the calendar date in the account's time zone, as the instant that day begins. */
export function toCreditNoteDto(credit: CreditNote, timeZone: string): CreditNoteOut {
  const amount = (minor: number) => minorToWireNumber(minor, credit.currencyCode);
  return {
    creditNoteID: credit.id,
    customerID: credit.customerId,
    Status: credit.status,
    Date: startOfDate(credit.date, timeZone),
    CurrencyCode: credit.currencyCode,
    Amount: amount(credit.amountMinor),
    CreditNumber: credit.creditNumber,
    Memo: credit.memo,
    // Credit notes allocate to invoices only.
    Allocations: credit.allocations.map((a) => ({
      allocationID: a.id,
      amountApplied: amount(a.amountMinor),
      invoiceID: a.targetId,
      creditNoteID: credit.id,
    })),
  };
}

/**
 * An edit's credit note. Spec, Credit notes: PUT takes the Allocations list (required) and no AutoApply; an
 * AutoApply sent anyway is not part of the edit's schema and is ignored. The list may come as `Allocations` or
 * `allocations`.
 */
export function creditNoteInputFromWire(body: EditCreditNoteBody): CreditNoteInput {
  return {
    customerId: body.customerID,
    amount: body.Amount,
    currencyCode: body.CurrencyCode,
    date: body.Date,
    creditNumber: body.CreditNumber,
    memo: body.Memo,
    autoApply: false,
    allocations: body.Allocations ?? body.allocations,
    allocationsField:
      body.Allocations === undefined && body.allocations !== undefined ? 'allocations' : 'Allocations',
  };
}

/** A new credit note: as an edit's, with AutoApply (or isAutoApply), default false. */
export function newCreditNoteInputFromWire(body: CreateCreditNoteBody): CreditNoteInput {
  return { ...creditNoteInputFromWire(body), autoApply: body.AutoApply ?? body.isAutoApply ?? false };
}
