import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, PagingQuery, Text, WireDate } from '../../http/schemas.ts';
import { AllocationList, WireAmount } from './ledger.schemas.ts';

const paymentFields = {
  customerID: Id(),
  Amount: WireAmount(),
  CurrencyCode: Text(3, { minLength: 3, description: 'Enabled for the account; allocations must match it' }),
  Date: WireDate(),
  Method: Text(40, {
    description: 'cash, cheque, credit_card, bank_account, eft, debit_order, ach, sepa or other',
  }),
  Memo: Type.Optional(Nullable(Text(1000))),
  Ref: Type.Optional(Nullable(Text(255))),
  allocations: Type.Optional(AllocationList),
  Allocations: Type.Optional(AllocationList),
};

export const CreatePaymentBody = Type.Object({
  ...paymentFields,
  AutoApply: Type.Optional(
    Type.Boolean({ description: 'Apply to the earliest open invoices; allocations are then not used' }),
  ),
  isAutoApply: Type.Optional(Type.Boolean({ description: 'Same as AutoApply' })),
});
export type CreatePaymentBody = Static<typeof CreatePaymentBody>;

/**
 * PUT takes the allocation list as sent (docs/spec-decisions.md, Payments); AutoApply is accepted and ignored
 * there, so that a client sending the body it created with keeps working.
 */
export const EditPaymentBody = Type.Object({
  ...paymentFields,
  AutoApply: Type.Optional(
    Type.Boolean({ description: 'Accepted and ignored: an edit takes the list as sent' }),
  ),
  isAutoApply: Type.Optional(Type.Boolean({ description: 'Accepted and ignored, as AutoApply' })),
});
export type EditPaymentBody = Static<typeof EditPaymentBody>;

export const PaymentOut = Type.Object(
  {
    paymentID: Type.Integer(),
    customerID: Type.Integer(),
    Amount: Type.Number(),
    CurrencyCode: Type.String(),
    Date: Type.String({ format: 'date-time' }),
    Memo: Nullable(Type.String()),
    Ref: Nullable(Type.String()),
    Method: Type.String(),
    Status: Type.String({ description: 'Allocated, Partial, Unallocated, Pending or Failed' }),
    FailureReason: Nullable(
      Type.String({
        description:
          'Beyond the spec: why a payment collected through a gateway failed (a reason of docs/gateways.md, such as insufficient_funds); null otherwise',
      }),
    ),
    Allocations: Type.Array(
      Type.Object({
        allocationID: Type.Integer(),
        amountApplied: Type.Number(),
        invoiceID: Type.Integer({ description: '0 when allocated to a positive adjustment' }),
        positiveAdjustmentID: Type.Integer({ description: '0 when allocated to an invoice' }),
        paymentID: Type.Integer(),
      }),
    ),
  },
  { $id: 'Payment' },
);
export type PaymentOut = Static<typeof PaymentOut>;

export const PaymentIdParams = Type.Object({ paymentID: Id() });
export const CustomerIdParams = Type.Object({ customerID: Id() });
export { PagingQuery };
