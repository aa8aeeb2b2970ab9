import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import {
  DateOut,
  Id,
  Nullable,
  NullableWireDate,
  PagingQuery,
  StringEnum,
  Text,
  WireDate,
} from '../../http/schemas.ts';
import { AllocationList, WireAmount } from './ledger.schemas.ts';

const DIRECTIONS = ['positive', 'negative'] as const;

export const ListAdjustmentsQuery = Type.Object({
  type: StringEnum(['negative', 'positive', 'all'] as const, { description: 'Which adjustments to list' }),
  customerID: Type.Optional(Id({ description: 'One customer’s adjustments; when left out, the account’s' })),
  ...PagingQuery.properties,
});
export type ListAdjustmentsQuery = Static<typeof ListAdjustmentsQuery>;

export const GetAdjustmentQuery = Type.Object({
  type: StringEnum(DIRECTIONS),
  adjustmentID: Id(),
  customerID: Id({ description: 'The adjustment’s customer' }),
});
export type GetAdjustmentQuery = Static<typeof GetAdjustmentQuery>;

/** Spec: whether DELETE's parameters travel in the query or the body is not shown; both are read, the query first. */
const deleteParameters = {
  type: Type.Optional(StringEnum(DIRECTIONS)),
  adjustmentID: Type.Optional(Id()),
  customerID: Type.Optional(Id({ description: 'The adjustment’s customer' })),
};
export const DeleteAdjustmentQuery = Type.Object(deleteParameters);
export type DeleteAdjustmentQuery = Static<typeof DeleteAdjustmentQuery>;
export const DeleteAdjustmentBody = Type.Object(deleteParameters);
export type DeleteAdjustmentBody = Static<typeof DeleteAdjustmentBody>;

const adjustmentFields = {
  AdjustmentType: Text(40, {
    description: 'positive: opening_balance, refund or interest; negative: credit_note or bad_debt',
  }),
  customerID: Id(),
  Type: StringEnum(DIRECTIONS, { description: 'positive (raises what is owed) or negative (lowers it)' }),
  Amount: WireAmount(),
  Date: WireDate(),
  DueDate: Type.Optional(NullableWireDate()),
  Ref: Type.Optional(Nullable(Text(255, { description: 'Required when adding' }))),
  Memo: Type.Optional(Nullable(Text(1000))),
  CurrencyCode: Type.Optional(
    Text(3, { minLength: 3, description: 'The customer’s currency; an adjustment is always in it' }),
  ),
  AutoApply: Type.Optional(
    Type.Boolean({
      description: 'Negative adjustments: apply to the earliest open invoices and positive adjustments',
    }),
  ),
  isAutoApply: Type.Optional(Type.Boolean({ description: 'Same as AutoApply' })),
  LinkedAllocations: Type.Optional(AllocationList),
  Allocations: Type.Optional(AllocationList),
  allocations: Type.Optional(AllocationList),
};

export const AddAdjustmentBody = Type.Object(adjustmentFields);
export type AddAdjustmentBody = Static<typeof AddAdjustmentBody>;

export const EditAdjustmentBody = Type.Object({ AdjustmentID: Id(), ...adjustmentFields });
export type EditAdjustmentBody = Static<typeof EditAdjustmentBody>;

export const AdjustmentListEntryOut = Type.Object(
  {
    adjustmentID: Type.Integer(),
    customerID: Type.Integer(),
    Date: Type.String({ format: 'date-time' }),
    DueDate: DateOut(),
    CurrencyCode: Type.String(),
    Amount: Type.Number(),
    Ref: Nullable(Type.String()),
    Memo: Nullable(Type.String()),
    AdjustmentType: Type.String(),
    Type: StringEnum(DIRECTIONS),
  },
  { $id: 'AdjustmentListEntry' },
);
export type AdjustmentListEntryOut = Static<typeof AdjustmentListEntryOut>;

export const AdjustmentListOut = Type.Object({
  isSuccess: Type.Boolean(),
  adjustments: Type.Array(AdjustmentListEntryOut),
});
export type AdjustmentListOut = Static<typeof AdjustmentListOut>;

const AdjustmentAllocationOut = (objectDescription: string) =>
  Type.Object({
    allocationID: Type.Integer(),
    objectID: Type.Integer({ description: objectDescription }),
    amountApplied: Type.Number(),
    isAdjustment: Type.Boolean(),
  });

export const PositiveAdjustmentOut = Type.Object(
  {
    customerID: Type.Integer(),
    positiveAdjustmentID: Type.Integer(),
    positiveAdjustmentType: Type.String(),
    Date: Type.String({ format: 'date-time' }),
    DueDate: DateOut(),
    Amount: Type.Number(),
    CurrencyCode: Type.String(),
    Status: StringEnum(['Paid', 'Partially Paid', 'Unpaid', 'Past Due'] as const),
    isActive: Type.Boolean(),
    isSuccess: Type.Boolean(),
    Ref: Nullable(Type.String()),
    Memo: Nullable(Type.String()),
    allocations: Type.Array(
      AdjustmentAllocationOut('The paymentID, or the negative adjustment when isAdjustment is true'),
    ),
  },
  { $id: 'PositiveAdjustment' },
);
export type PositiveAdjustmentOut = Static<typeof PositiveAdjustmentOut>;

export const NegativeAdjustmentOut = Type.Object(
  {
    customerID: Type.Integer(),
    NegativeAdjustmentID: Type.Integer(),
    NegativeAdjustmentType: Type.String(),
    Date: Type.String({ format: 'date-time' }),
    Amount: Type.Number(),
    CurrencyCode: Type.String(),
    Status: StringEnum(['Allocated', 'Partially Allocated', 'Unallocated'] as const),
    isActive: Type.Boolean(),
    isSuccess: Type.Boolean(),
    Ref: Nullable(Type.String()),
    Memo: Nullable(Type.String()),
    allocations: Type.Array(
      AdjustmentAllocationOut('The invoiceID, or the positive adjustment when isAdjustment is true'),
    ),
  },
  { $id: 'NegativeAdjustment' },
);
export type NegativeAdjustmentOut = Static<typeof NegativeAdjustmentOut>;

export const AdjustmentGetOut = Type.Object({
  isSuccess: Type.Boolean(),
  adjustment: Type.Union([PositiveAdjustmentOut, NegativeAdjustmentOut]),
  type: StringEnum(DIRECTIONS),
});
export type AdjustmentGetOut = Static<typeof AdjustmentGetOut>;

export const AdjustmentAddedOut = Type.Object({
  isSuccess: Type.Boolean(),
  AdjustmentID: Type.Integer(),
  Type: StringEnum(DIRECTIONS),
});
export type AdjustmentAddedOut = Static<typeof AdjustmentAddedOut>;
