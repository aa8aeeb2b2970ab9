import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, PagingQuery, StringEnum, WireDate } from '../../http/schemas.ts';

export const TaxCreditNoteIdParams = Type.Object({ taxCreditNoteID: Id() });

export const TaxCreditNotesQuery = Type.Object({
  ...PagingQuery.properties,
  customerID: Type.Optional(Id({ description: "Only this customer's" })),
  from: Type.Optional(WireDate({ description: 'Inclusive lower bound on Date' })),
  to: Type.Optional(WireDate({ description: 'Inclusive upper bound on Date' })),
});
export type TaxCreditNotesQuery = Static<typeof TaxCreditNotesQuery>;

export const TaxCreditNoteOut = Type.Object(
  {
    taxCreditNoteID: Type.Integer(),
    CreditNumber: Type.String({ description: "Its number in the account's one sequence of credit notes" }),
    Kind: StringEnum(['credit_note', 'adjustment', 'prepaid_credit'] as const, {
      description:
        'credit_note: a credit note of /v1/credits (creditNoteID); adjustment: a negative adjustment of type ' +
        "credit_note (adjustmentID), such as a subscription's credit for unused time; prepaid_credit: prepaid " +
        'credit that took the VAT off an invoice after its issue (docs/tax.md, "Tax credit notes")',
    }),
    customerID: Type.Integer(),
    CurrencyCode: Type.String(),
    Date: Type.String({ format: 'date-time', description: "The document's date, the start of that day" }),
    Reason: Type.String({ description: "Why: the credit's Memo, or what prepaid credit did" }),
    creditNoteID: Nullable(Type.Integer()),
    adjustmentID: Nullable(Type.Integer()),
    Amount: Type.Number({ description: 'The credit, taxes included' }),
    AmountEx: Type.Number({ description: 'What it takes off the supplies, without their VAT' }),
    Tax: Type.Number({ description: 'The VAT it takes off' }),
    Unapplied: Type.Number({
      description: 'What of Amount reduces no supply yet (not applied to an invoice): it carries no VAT',
    }),
    Lines: Type.Array(
      Type.Object({
        invoiceID: Type.Integer(),
        invoiceNum: Nullable(Type.Integer()),
        InvoiceDate: Type.String({ format: 'date-time' }),
        AmountEx: Type.Number(),
        Tax: Type.Number(),
        AmountInc: Type.Number(),
        Taxes: Type.Array(Type.Object({ Name: Type.String(), Perc: Type.Number(), Amount: Type.Number() })),
      }),
      { description: 'Each tax invoice it reduces, with what it takes off it' },
    ),
    PdfURL: Type.String({ description: 'The document as a PDF' }),
  },
  { $id: 'TaxCreditNote' },
);
export type TaxCreditNoteOut = Static<typeof TaxCreditNoteOut>;
