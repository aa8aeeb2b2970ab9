import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.ts';

/**
 * Building blocks shared by payments, credit notes and adjustments. Amounts in requests: a JSON number or a
 * string holding a decimal (for clients that keep amounts exact); the service checks them against the
 * currency's decimals and names the field.
 */
export const WireAmount = (description = 'Amount in major units, at most the currency’s decimals') =>
  Type.Unsafe<number | string>({ type: ['number', 'string'], maxLength: 40, description });

const NullableWireAmount = (description: string) =>
  Type.Unsafe<number | string | null>({ type: ['number', 'string', 'null'], maxLength: 40, description });

const OptionalId = (description: string) =>
  Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description })));

/** An allocation in a request, with every key the spec shows for one (see allocationInput.ts). */
export const AllocationIn = Type.Object({
  allocationID: OptionalId('Edits this allocation of the record; leave out (or 0) to add one'),
  amountApplied: Type.Optional(NullableWireAmount('Amount applied')),
  AmtAllocated: Type.Optional(NullableWireAmount('Amount applied (the adjustments’ spelling)')),
  invoiceID: OptionalId('The invoice; takes priority over invoiceNumber'),
  invoiceNumber: Type.Optional(
    Type.Unsafe<number | string | null>({
      type: ['integer', 'string', 'null'],
      maxLength: 20,
      description: 'invoiceNum',
    }),
  ),
  positiveAdjustmentID: OptionalId('A positive adjustment, when no invoice is named (payments only)'),
  objectID: OptionalId('Adjustments: an invoice, or a positive adjustment when isAdjustment is true'),
  isAdjustment: Type.Optional(Nullable(Type.Boolean())),
});

export const AllocationList = Type.Array(AllocationIn, { maxItems: 1000 });
