import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { TaxCreditNote } from './taxCreditNote.service.ts';
import type { TaxCreditNoteOut } from './taxCreditNotes.schemas.ts';

export const taxCreditNotePdfPath = (id: number): string => `/v1/tax-credit-notes/${id}/pdf`;

export function toTaxCreditNoteDto(note: TaxCreditNote, timeZone: string): TaxCreditNoteOut {
  const amount = (minor: number) => minorToWireNumber(minor, note.currencyCode);
  const reducedMinor = note.lines.reduce((sum, line) => sum + line.amountMinor, 0);
  return {
    taxCreditNoteID: note.id,
    CreditNumber: note.creditNumber,
    Kind: note.kind,
    customerID: note.customerId,
    CurrencyCode: note.currencyCode,
    Date: startOfDate(note.date, timeZone),
    Reason: note.reason,
    creditNoteID: note.creditNoteId,
    adjustmentID: note.adjustmentId,
    Amount: amount(note.amountMinor),
    AmountEx: amount(reducedMinor - note.taxMinor),
    Tax: amount(note.taxMinor),
    Unapplied: amount(note.unappliedMinor),
    Lines: note.lines.map((line) => ({
      invoiceID: line.invoiceId,
      invoiceNum: line.invoiceNum,
      InvoiceDate: startOfDate(line.invoiceDate, timeZone),
      AmountEx: amount(line.amountMinor - line.taxMinor),
      Tax: amount(line.taxMinor),
      AmountInc: amount(line.amountMinor),
      Taxes: line.taxes.map((tax) => ({
        Name: tax.name,
        Perc: Number(tax.perc),
        Amount: amount(tax.amountMinor),
      })),
    })),
    PdfURL: taxCreditNotePdfPath(note.id),
  };
}
