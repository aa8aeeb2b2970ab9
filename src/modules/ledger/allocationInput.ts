import type { FieldProblem } from '../../errors.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import type { AllocationEntry } from './allocation.service.ts';

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

/** The spec's "empty": absent, null, 0 (its "0 for the kind not used") or an empty string. */
function present<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null && value !== 0 && value !== '';
}

export interface AllocationTargets {
  /** Payments may allocate to positive adjustments (positiveAdjustmentID); credit notes may not. */
  adjustments: boolean;
}

/** The amount of an entry, from amountApplied or (negative adjustments' spelling) AmtAllocated. */
function entryAmount(
  wire: WireAllocation,
  currencyCode: string,
  field: string,
  problems: FieldProblem[],
): number | undefined {
  // The key that holds an amount; else the one that was sent, so that 0 is refused as 0, not as missing.
  const keys = ['amountApplied', 'AmtAllocated'] as const;
  const name =
    keys.find((k) => present(wire[k])) ?? keys.find((k) => wire[k] !== undefined && wire[k] !== null);
  if (name === undefined) {
    problems.push({ field: `${field}.amountApplied`, message: 'is required' });
    return undefined;
  }
  const amount = wireAmountToMinor(wire[name]!, currencyCode);
  if ('message' in amount) {
    problems.push({ field: `${field}.${name}`, message: amount.message });
    return undefined;
  }
  return amount.minor;
}

function invoiceNumberOf(value: number | string): number | undefined {
  const text = String(value).trim();
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

/**
 * Payment and credit-note allocations. Spec, Payments rules 2 and 3: invoiceID takes priority; invoiceNumber is
 * required when invoiceID is empty; positiveAdjustmentID when both are empty; one allocation applies to an
 * invoice or to a positive adjustment, not both.
 */
export function invoiceAllocationEntries(
  list: readonly WireAllocation[],
  listField: string,
  currencyCode: string,
  targets: AllocationTargets,
  problems: FieldProblem[],
): AllocationEntry[] {
  const entries: AllocationEntry[] = [];
  list.forEach((wire, i) => {
    const field = `${listField}[${i}]`;
    const amountMinor = entryAmount(wire, currencyCode, field, problems);
    const namesInvoice = present(wire.invoiceID) || present(wire.invoiceNumber);
    let target: AllocationEntry['target'] | undefined;
    if (namesInvoice && present(wire.positiveAdjustmentID)) {
      problems.push({
        field: `${field}.positiveAdjustmentID`,
        message: 'an allocation applies to an invoice or to a positive adjustment, not both',
      });
    } else if (present(wire.invoiceID)) {
      target = { invoiceId: wire.invoiceID };
    } else if (present(wire.invoiceNumber)) {
      const invoiceNum = invoiceNumberOf(wire.invoiceNumber);
      if (invoiceNum === undefined)
        problems.push({ field: `${field}.invoiceNumber`, message: 'must be an invoice number' });
      else target = { invoiceNum };
    } else if (targets.adjustments && present(wire.positiveAdjustmentID)) {
      target = { adjustmentId: wire.positiveAdjustmentID };
    } else {
      problems.push({
        field: `${field}.invoiceID`,
        message: targets.adjustments
          ? 'invoiceID, invoiceNumber or positiveAdjustmentID is required'
          : 'invoiceID or invoiceNumber is required',
      });
    }
    if (amountMinor !== undefined && target) {
      entries.push({ allocationId: wire.allocationID ?? null, amountMinor, target, field });
    }
  });
  return entries;
}

/** Negative-adjustment allocations: objectID names a positive adjustment when isAdjustment is true, else an invoice. */
export function objectAllocationEntries(
  list: readonly WireAllocation[],
  listField: string,
  currencyCode: string,
  problems: FieldProblem[],
): AllocationEntry[] {
  const entries: AllocationEntry[] = [];
  list.forEach((wire, i) => {
    const field = `${listField}[${i}]`;
    const amountMinor = entryAmount(wire, currencyCode, field, problems);
    // Also read as for payments (invoiceID), which some clients send for an invoice.
    const objectId = present(wire.objectID)
      ? wire.objectID
      : present(wire.invoiceID)
        ? wire.invoiceID
        : undefined;
    if (objectId === undefined) {
      problems.push({ field: `${field}.objectID`, message: 'is required' });
      return;
    }
    if (amountMinor === undefined) return;
    entries.push({
      allocationId: wire.allocationID ?? null,
      amountMinor,
      target: wire.isAdjustment === true ? { adjustmentId: objectId } : { invoiceId: objectId },
      field,
    });
  });
  return entries;
}
