import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import { invoiceAllocationInputs } from './allocationInput.ts';
import type { CreditNote, CreditNoteInput } from './creditNote.ts';
import { amountFromWire, dateFromWire } from './moneyInput.ts';
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
 * AutoApply sent anyway is accepted by the edit's schema and not read here. The list may come as `Allocations` or
 * `allocations`. Dates are read in the account's time zone.
 */
export function creditNoteInputFromWire(body: EditCreditNoteBody, timeZone: string): CreditNoteInput {
  const list = body.Allocations ?? body.allocations;
  const listField =
    body.Allocations === undefined && body.allocations !== undefined ? 'allocations' : 'Allocations';
  return {
    customerId: body.customerID,
    amount: amountFromWire(body.Amount),
    currencyCode: body.CurrencyCode,
    date: dateFromWire(body.Date, timeZone),
    creditNumber: body.CreditNumber,
    memo: body.Memo,
    autoApply: false,
    // Spec, Credit notes: allocations name invoices only (invoiceID, else invoiceNumber).
    allocations: list && invoiceAllocationInputs(list, listField, { adjustments: false }),
    allocationsField: listField,
  };
}

/** A new credit note: as an edit's, with AutoApply (or isAutoApply), default false. */
export function newCreditNoteInputFromWire(body: CreateCreditNoteBody, timeZone: string): CreditNoteInput {
  return {
    ...creditNoteInputFromWire(body, timeZone),
    autoApply: body.AutoApply ?? body.isAutoApply ?? false,
  };
}
