import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, WireDate } from '../../http/schemas.ts';
import { STATEMENT_ENTRY_KINDS } from './statements.ts';

export const StatementParams = Type.Object({ customerID: Id() });
export type StatementParams = Static<typeof StatementParams>;

export const StatementQuery = Type.Object(
  {
    startDate: Type.Optional(
      WireDate({
        description:
          'First day of the statement, in the account time zone; default: the day the last statement was sent, else the first day of the month of endDate',
      }),
    ),
    endDate: Type.Optional(
      WireDate({ description: 'Last day of the statement, in the account time zone; default: today' }),
    ),
  },
  // A misspelt parameter (`from`, `to`) is a 422 naming it, not another period's statement.
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuery>;

const Money = (description: string) => Type.Number({ description });
const Day = (description: string) => Type.String({ format: 'date-time', description });

export const StatementLineOut = Type.Object(
  {
    Type: StringEnum(STATEMENT_ENTRY_KINDS, { description: 'What the line records' }),
    ID: Type.Integer({
      description: 'invoiceID, paymentID, creditNoteID or adjustmentID, as Type says',
    }),
    Date: Day("The record's own date: InvoiceDate, or the payment's, credit note's or adjustment's Date"),
    DueDate: Nullable(
      Type.String({
        format: 'date-time',
        description: "An invoice's or a positive adjustment's due date; null for credits",
      }),
    ),
    Reference: Nullable(
      Type.String({
        description: "invoiceNum of an invoice, CreditNumber of a credit note, else the record's Ref",
      }),
    ),
    Description: Type.String(),
    Amount: Money('Positive raises what is owed (invoice, positive adjustment); negative lowers it'),
    Balance: Money('The running balance after this line'),
    taxCreditNoteID: Nullable(
      Type.Integer({
        description:
          'The tax credit note of a credit note or a negative credit_note adjustment (GET /v1/tax-credit-notes/{taxCreditNoteID}/pdf); null for other lines',
      }),
    ),
  },
  { $id: 'StatementLine' },
);

export const StatementOut = Type.Object(
  {
    customerID: Type.Integer(),
    CurrencyCode: Type.String({ description: "The customer's currency: the only one a statement counts" }),
    StartDate: Day('First day covered'),
    EndDate: Day('Last day covered'),
    OpeningBalance: Money('The balance of everything dated before StartDate'),
    Lines: Type.Array(StatementLineOut, {
      description: 'Every record dated within the range, in date order',
    }),
    ClosingBalance: Money(
      "OpeningBalance plus every line's Amount; with EndDate today or later, the customer's Balance",
    ),
    Ageing: Type.Object(
      {
        Current: Money('Owed and not past due at EndDate'),
        Overdue1To30: Money('Owed 1 to 30 days past due'),
        Overdue31To60: Money('Owed 31 to 60 days past due'),
        Overdue61To90: Money('Owed 61 to 90 days past due'),
        OverdueOver90: Money('Owed more than 90 days past due'),
        Total: Money('Everything owed: the sum of the buckets'),
      },
      { description: 'What is owed on invoices and positive adjustments dated by EndDate, by days past due' },
    ),
    Unapplied: Money(
      'Credit dated by EndDate not yet allocated (payments, credit notes, negative adjustments)',
    ),
    PendingDebits: Money(
      'Payments dated by EndDate the bank has not paid yet: ClosingBalance counts them as paid, as Balance does; they are still due',
    ),
  },
  { $id: 'Statement' },
);
export type StatementOut = Static<typeof StatementOut>;
