import type { PlainDate } from '../../core/calendar.ts';

/**
 * Tax credit notes (docs/tax.md, "Tax credit notes"): the documents of reductions of a supply. One register
 * (tax_credit_notes) of every kind, numbered in the credit notes' one sequence:
 * - credit_note: a credit note of /v1/credits (its CreditNumber is its number);
 * - adjustment: a negative adjustment of type credit_note (a subscription's credit, or one made through the API);
 * - prepaid_credit: prepaid credit that took the VAT off an invoice after it was issued (VAT charged when the credit
 *   was sold, or a free grant's discount).
 */
export type TaxCreditNoteKind = 'credit_note' | 'adjustment' | 'prepaid_credit';

export interface TaxCreditNoteRecord {
  id: number;
  customerId: number;
  currencyCode: string;
  /** The credit note, the adjustment, or (prepaid_credit) the invoice it reduces. */
  source: { type: TaxCreditNoteKind; id: number };
  creditNumber: string;
  date: PlainDate;
  /** Why: a credit note's or adjustment's Memo, prepaid credit's words. */
  reason: string;
  createdAt: string;
}

export type NewTaxCreditNoteRecord = Omit<TaxCreditNoteRecord, 'id' | 'createdAt'>;
