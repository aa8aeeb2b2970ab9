import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, PagingQuery, Text, WireDate } from '../../http/schemas.ts';
import { AllocationList, WireAmount } from './ledger.schemas.ts';

const creditNoteFields = {
  customerID: Id({ description: "The credit note's customer; on edit it must stay the same" }),
  Date: WireDate(),
  CurrencyCode: Text(3, { minLength: 3, description: 'Enabled for the account; allocations must match it' }),
  Amount: WireAmount(),
  CreditNumber: Type.Optional(
    Text(100, {
      minLength: 1,
      description:
        'The credit reference, unique per account. Left out: a new credit note takes the next number of the ' +
        "account's sequence (`CN-0001`, `CN-0002`, ...; numbers given by hand are passed over), an edit keeps " +
        "the credit note's own",
    }),
  ),
  Memo: Type.Optional(Nullable(Text(1000))),
  Allocations: Type.Optional(AllocationList),
  allocations: Type.Optional(AllocationList),
};

export const CreateCreditNoteBody = Type.Object({
  ...creditNoteFields,
  AutoApply: Type.Optional(
    Type.Boolean({ description: 'Apply to the earliest open invoices; Allocations are then not used' }),
  ),
  isAutoApply: Type.Optional(Type.Boolean({ description: 'Same as AutoApply' })),
});
export type CreateCreditNoteBody = Static<typeof CreateCreditNoteBody>;

/**
 * PUT takes the allocation list as sent (docs/spec-decisions.md, credit notes' edits); AutoApply is accepted and
 * ignored there, so that a client sending the body it created with keeps working.
 */
export const EditCreditNoteBody = Type.Object({
  ...creditNoteFields,
  AutoApply: Type.Optional(
    Type.Boolean({ description: 'Accepted and ignored: an edit takes the list as sent' }),
  ),
  isAutoApply: Type.Optional(Type.Boolean({ description: 'Accepted and ignored, as AutoApply' })),
});
export type EditCreditNoteBody = Static<typeof EditCreditNoteBody>;

export const CreditNoteOut = Type.Object(
  {
    creditNoteID: Type.Integer(),
    customerID: Type.Integer(),
    Status: Type.String({ description: 'Allocated, Partial or Unallocated' }),
    Date: Type.String({ format: 'date-time' }),
    CurrencyCode: Type.String(),
    Amount: Type.Number(),
    CreditNumber: Type.String(),
    Memo: Nullable(Type.String()),
    Allocations: Type.Array(
      Type.Object({
        allocationID: Type.Integer(),
        amountApplied: Type.Number(),
        invoiceID: Type.Integer(),
        creditNoteID: Type.Integer(),
      }),
    ),
  },
  { $id: 'CreditNote' },
);
export type CreditNoteOut = Static<typeof CreditNoteOut>;

export const CreditNoteIdParams = Type.Object({ creditNoteID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });
export { PagingQuery };
