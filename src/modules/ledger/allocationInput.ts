import type { FieldProblem } from '../../errors.ts';
import type { AllocationEntry, NamedTarget } from './allocation.service.ts';
import { amountFromWire, amountInMinor, readValue } from './moneyInput.ts';
import type { DecimalAmount, Read } from './moneyInput.ts';

/**
 * An allocation as the wire sends it, with every key the spec shows for it: payments and credit notes name an
 * invoice (invoiceID or invoiceNumber) or, for payments, a positive adjustment; negative adjustments name an
 * objectID and say with isAdjustment what it is. Amounts come as amountApplied or AmtAllocated.
 */
export interface WireAllocation {
  allocationID?: number | null;
  amountApplied?: number | string | null;
  AmtAllocated?: number | string | null;
  invoiceID?: number | null;
  invoiceNumber?: number | string | null;
  positiveAdjustmentID?: number | null;
  objectID?: number | null;
  isAdjustment?: boolean | null;
}

/**
 * One allocation of a request, read by the serializer: its target is known, its amount waits for the currency.
 * What could not be read is kept with the wire field that names it, for the use case to report.
 */
export interface AllocationInput {
  allocationId: number | null;
  /** The wire path of the entry: `allocations[0]`. */
  field: string;
  amount: DecimalAmount;
  /** The key the amount came under: `allocations[0].amountApplied`. */
  amountField: string;
  target: Read<NamedTarget>;
  /** The key that named the target (or that is missing), where a problem with it is reported. */
  targetField: string;
}

/** The spec's "empty": absent, null, 0 (its "0 for the kind not used") or an empty string. */
function present<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null && value !== 0 && value !== '';
}

export interface AllocationTargets {
  /** Payments may allocate to positive adjustments (positiveAdjustmentID); credit notes may not. */
  adjustments: boolean;
}

/** The amount of an entry, from amountApplied or (negative adjustments' spelling) AmtAllocated. */
function entryAmount(wire: WireAllocation, field: string): Pick<AllocationInput, 'amount' | 'amountField'> {
  // The key that holds an amount; else the one that was sent, so that 0 is refused as 0, not as missing.
  const keys = ['amountApplied', 'AmtAllocated'] as const;
  const name =
    keys.find((k) => present(wire[k])) ?? keys.find((k) => wire[k] !== undefined && wire[k] !== null);
  if (name === undefined)
    return { amount: { refused: 'is required' }, amountField: `${field}.amountApplied` };
  return { amount: amountFromWire(wire[name]!), amountField: `${field}.${name}` };
}

function invoiceNumberOf(value: number | string): number | undefined {
  const text = String(value).trim();
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

type TargetRead = Pick<AllocationInput, 'target' | 'targetField'>;

const named = (targetField: string, target: NamedTarget): TargetRead => ({
  target: { value: target },
  targetField,
});

const refused = (targetField: string, message: string): TargetRead => ({
  target: { refused: message },
  targetField,
});

function inputsOf(
  list: readonly WireAllocation[],
  listField: string,
  targetOf: (wire: WireAllocation, field: string) => TargetRead,
): AllocationInput[] {
  return list.map((wire, i) => {
    const field = `${listField}[${i}]`;
    return {
      allocationId: wire.allocationID ?? null,
      field,
      ...entryAmount(wire, field),
      ...targetOf(wire, field),
    };
  });
}

/**
 * Payment and credit-note allocations. Spec, Payments rules 2 and 3: invoiceID takes priority; invoiceNumber is
 * required when invoiceID is empty; positiveAdjustmentID when both are empty; one allocation applies to an
 * invoice or to a positive adjustment, not both.
 */
export function invoiceAllocationInputs(
  list: readonly WireAllocation[],
  listField: string,
  targets: AllocationTargets,
): AllocationInput[] {
  return inputsOf(list, listField, (wire, field) => {
    const namesInvoice = present(wire.invoiceID) || present(wire.invoiceNumber);
    if (namesInvoice && present(wire.positiveAdjustmentID)) {
      return refused(
        `${field}.positiveAdjustmentID`,
        'an allocation applies to an invoice or to a positive adjustment, not both',
      );
    }
    if (present(wire.invoiceID)) return named(`${field}.invoiceID`, { type: 'invoice', id: wire.invoiceID });
    if (present(wire.invoiceNumber)) {
      const invoiceNum = invoiceNumberOf(wire.invoiceNumber);
      return invoiceNum === undefined
        ? refused(`${field}.invoiceNumber`, 'must be an invoice number')
        : named(`${field}.invoiceNumber`, { type: 'invoice', number: invoiceNum });
    }
    // The engine names an unknown positive adjustment by the entry itself.
    if (targets.adjustments && present(wire.positiveAdjustmentID)) {
      return named(field, { type: 'adjustment', id: wire.positiveAdjustmentID });
    }
    return refused(
      `${field}.invoiceID`,
      targets.adjustments
        ? 'invoiceID, invoiceNumber or positiveAdjustmentID is required'
        : 'invoiceID or invoiceNumber is required',
    );
  });
}

/** Negative-adjustment allocations: objectID names a positive adjustment when isAdjustment is true, else an invoice. */
export function objectAllocationInputs(
  list: readonly WireAllocation[],
  listField: string,
): AllocationInput[] {
  return inputsOf(list, listField, (wire, field) => {
    // Also read as for payments (invoiceID), which some clients send for an invoice.
    const key = present(wire.objectID) ? 'objectID' : 'invoiceID';
    const objectId = wire[key];
    if (!present(objectId)) return refused(`${field}.objectID`, 'is required');
    return wire.isAdjustment === true
      ? named(field, { type: 'adjustment', id: objectId })
      : named(`${field}.${key}`, { type: 'invoice', id: objectId });
  });
}

/** The entries the allocation engine takes, in the currency now known; problems noted in the order of the list. */
export function allocationEntries(
  inputs: readonly AllocationInput[],
  currencyCode: string,
  problems: FieldProblem[],
): AllocationEntry[] {
  const entries: AllocationEntry[] = [];
  for (const input of inputs) {
    const amountMinor = amountInMinor(input.amount, currencyCode, input.amountField, problems);
    const target = readValue(input.target, input.targetField, problems);
    if (amountMinor === undefined || target === undefined) continue;
    entries.push({
      allocationId: input.allocationId,
      amountMinor,
      target,
      field: input.field,
      targetField: input.targetField,
    });
  }
  return entries;
}
