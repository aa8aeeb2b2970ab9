import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable, StringEnum, WireDate } from '../../http/schemas.ts';

export const VatReportQuery = Type.Object({
  from: WireDate({ description: 'The first day of the tax period (inclusive)' }),
  to: WireDate({ description: 'The last day of the tax period (inclusive)' }),
  basis: Type.Optional(
    StringEnum(['invoice', 'payments'] as const, {
      description:
        "invoice (documents by their date) or payments (money by the date it came); the account's VatBasis when left out",
    }),
  ),
});
export type VatReportQuery = Static<typeof VatReportQuery>;

const Figures = (description: string) =>
  Type.Object({ AmountEx: Type.Number(), Tax: Type.Number(), AmountInc: Type.Number() }, { description });

export const VatReportOut = Type.Object(
  {
    From: Type.String({ format: 'date-time' }),
    To: Type.String({ format: 'date-time', description: 'The start of the last day of the period' }),
    Basis: StringEnum(['invoice', 'payments'] as const),
    Currencies: Type.Array(
      Type.Object({
        CurrencyCode: Type.String(),
        StandardRated: Figures('Supplies taxed above 0 %, their credit notes netted'),
        ZeroRated: Figures('Supplies taxed at 0 % to customers at home'),
        Exported: Figures("Supplies without VAT to customers in another country than the seller's"),
        Exempt: Figures('Supplies without tax to customers at home (or whose country is not known)'),
        NonSupplies: Figures('Prepaid credit taxed when used: no supply when sold'),
        CreditNotes: Figures(
          'The tax credit notes of the period, all boxes together (negative; already netted above)',
        ),
        OutputTax: Type.Number({ description: 'The VAT of the period: Σ of the documents’ Tax' }),
        ByRate: Type.Array(
          Type.Object({
            Rates: Type.String({
              description: 'The taxes the documents were charged, as "VAT 15%"; "" for none',
            }),
            AmountEx: Type.Number(),
            Tax: Type.Number(),
            AmountInc: Type.Number(),
          }),
          {
            description:
              'The documents summed per rate they were taxed at, credit notes netted (docs/tax.md)',
          },
        ),
        Vat201: Type.Object(
          {
            Field1: Type.Number({ description: 'Standard-rated supplies, consideration including VAT' }),
            Field2: Type.Number({ description: 'Zero-rated supplies, excluding exports' }),
            Field2A: Type.Number({ description: 'Zero-rated exports' }),
            Field3: Type.Number({ description: 'Exempt and non-supplies' }),
            Field4: Type.Number({ description: 'Output tax on Field1' }),
          },
          { description: "The sales boxes of SARS's VAT201 return, credit notes netted (docs/tax.md)" },
        ),
        Documents: Type.Array(
          Type.Object({
            Kind: StringEnum(['invoice', 'credit_note', 'credit_returned', 'payment'] as const),
            Number: Type.String(),
            Date: Type.String({ format: 'date-time' }),
            invoiceID: Type.Integer(),
            invoiceNum: Nullable(Type.Integer()),
            taxCreditNoteID: Nullable(Type.Integer()),
            paymentID: Nullable(Type.Integer()),
            customerID: Type.Integer(),
            Customer: Type.String(),
            VatNo: Nullable(Type.String()),
            Category: StringEnum(['standard', 'zero_rated', 'export', 'exempt', 'non_supply'] as const),
            Rates: Type.String({ description: 'The invoice\'s taxes, as "VAT 15%"' }),
            AmountEx: Type.Number(),
            Tax: Type.Number(),
            AmountInc: Type.Number(),
          }),
          {
            description:
              'Every document the figures sum: invoices, credit notes (negative) or money received',
          },
        ),
      }),
    ),
  },
  { $id: 'VatReport' },
);
export type VatReportOut = Static<typeof VatReportOut>;
