import type { FieldProblem } from '../errors.ts';
import { minorToDecimalText } from './money.ts';

/**
 * Allocation of money (a payment, a credit note, a negative adjustment: the *source*) to what is owed (an
 * invoice, a positive adjustment: the *target*). Pure: the ledger feeds it the source's current allocations, the
 * requested ones and the targets' figures, and persists the plan it returns.
 *
 * The invariants it keeps: no target receives more than is open on it; a source never allocates more than its
 * amount; an allocation moves money between one source and one target of the same currency.
 */

/** `invoice:12` or `adjustment:7`. */
export type TargetKey = string;

export interface AllocationTarget {
  key: TargetKey;
  /** How the target is named in messages: "invoice 12". */
  label: string;
  currencyCode: string;
  /** What is still open on the target, every allocation to it (this source's included) taken off. */
  openMinor: number;
  /** Why nothing may be allocated to it (a draft, a cancelled invoice); undefined when allocatable. */
  refusal?: string;
}

export interface ExistingAllocation {
  id: number;
  targetKey: TargetKey;
  amountMinor: number;
}

export interface RequestedAllocation {
  /** Spec, Payments rule 4: with an id, an existing allocation of this source is edited; without, one is added. */
  allocationId: number | null;
  targetKey: TargetKey;
  amountMinor: number;
  /** The wire path of the allocation, for messages: `allocations[1]`. */
  field: string;
}

export interface AllocationPlan {
  inserts: { targetKey: TargetKey; amountMinor: number }[];
  updates: { id: number; targetKey: TargetKey; amountMinor: number }[];
  deletes: number[];
  /** How much more (or, negative, less) is allocated to each target whose figure changes. */
  targetDeltas: Map<TargetKey, number>;
  /** The source's allocated total afterwards. */
  allocatedMinor: number;
}

export interface AllocationInput {
  sourceLabel: string;
  sourceAmountMinor: number;
  currencyCode: string;
  existing: readonly ExistingAllocation[];
  requested: readonly RequestedAllocation[];
  targets: ReadonlyMap<TargetKey, AllocationTarget>;
}

function sumByTarget(
  allocations: readonly { targetKey: TargetKey; amountMinor: number }[],
): Map<TargetKey, number> {
  const sums = new Map<TargetKey, number>();
  for (const a of allocations) sums.set(a.targetKey, (sums.get(a.targetKey) ?? 0) + a.amountMinor);
  return sums;
}

/**
 * The changes that turn the source's allocations into the requested list (Spec, Payments rule 4: listed with an
 * id → edited, listed without → added, left out → deleted), or the problems that forbid it, each naming the
 * allocation at fault.
 */
export function planAllocations(
  input: AllocationInput,
): { plan: AllocationPlan } | { problems: FieldProblem[] } {
  const money = (minor: number) => minorToDecimalText(minor, input.currencyCode);
  const existingById = new Map(input.existing.map((a) => [a.id, a]));
  const problems: FieldProblem[] = [];
  const seenIds = new Set<number>();
  const before = sumByTarget(input.existing);
  const after = new Map<TargetKey, number>();
  let total = 0;

  for (const request of input.requested) {
    const { field } = request;
    if (request.allocationId !== null) {
      if (!existingById.has(request.allocationId)) {
        problems.push({
          field: `${field}.allocationID`,
          message: `${request.allocationId} is not an allocation of ${input.sourceLabel}`,
        });
        continue;
      }
      if (seenIds.has(request.allocationId)) {
        problems.push({ field: `${field}.allocationID`, message: `${request.allocationId} is listed twice` });
        continue;
      }
      seenIds.add(request.allocationId);
    }
    if (!Number.isSafeInteger(request.amountMinor) || request.amountMinor <= 0) {
      problems.push({ field, message: 'the amount applied must be greater than 0' });
      continue;
    }
    const target = input.targets.get(request.targetKey);
    if (!target) {
      problems.push({ field, message: `no such target: ${request.targetKey}` });
      continue;
    }
    if (target.refusal) {
      problems.push({ field, message: `${target.label} ${target.refusal}` });
      continue;
    }
    if (target.currencyCode !== input.currencyCode) {
      problems.push({
        field,
        message: `${target.label} is in ${target.currencyCode}, ${input.sourceLabel} in ${input.currencyCode}`,
      });
      continue;
    }
    const onTarget = (after.get(request.targetKey) ?? 0) + request.amountMinor;
    // What this source already holds on the target comes back to it first.
    const available = target.openMinor + (before.get(request.targetKey) ?? 0);
    if (onTarget > available) {
      problems.push({
        field,
        message: `exceeds what is open on ${target.label}: ${money(available)} can be applied, ${money(onTarget)} was asked`,
      });
      continue;
    }
    after.set(request.targetKey, onTarget);
    total += request.amountMinor;
    if (total > input.sourceAmountMinor) {
      problems.push({
        field,
        message: `the allocations (${money(total)} so far) exceed the amount of ${input.sourceLabel} (${money(input.sourceAmountMinor)})`,
      });
    }
  }
  if (problems.length > 0) return { problems };

  const targetDeltas = new Map<TargetKey, number>();
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const delta = (after.get(key) ?? 0) - (before.get(key) ?? 0);
    if (delta !== 0) targetDeltas.set(key, delta);
  }
  const plan: AllocationPlan = { inserts: [], updates: [], deletes: [], targetDeltas, allocatedMinor: total };
  for (const request of input.requested) {
    if (request.allocationId === null) {
      plan.inserts.push({ targetKey: request.targetKey, amountMinor: request.amountMinor });
      continue;
    }
    const current = existingById.get(request.allocationId)!;
    if (current.targetKey !== request.targetKey || current.amountMinor !== request.amountMinor) {
      plan.updates.push({ id: current.id, targetKey: request.targetKey, amountMinor: request.amountMinor });
    }
  }
  for (const allocation of input.existing) if (!seenIds.has(allocation.id)) plan.deletes.push(allocation.id);
  return { plan };
}

/**
 * AutoApply: the amount goes to the first target in the given order (the earliest) up to what is open on it, and
 * what is left on to the next ones, until the amount or the targets run out. Targets come with what this source
 * already holds on them counted as open, so an edit re-spreads the whole amount.
 */
export function autoApply(
  amountMinor: number,
  targetsInOrder: readonly { key: TargetKey; openMinor: number }[],
): { targetKey: TargetKey; amountMinor: number }[] {
  const allocations: { targetKey: TargetKey; amountMinor: number }[] = [];
  let left = amountMinor;
  for (const target of targetsInOrder) {
    if (left <= 0) break;
    const applied = Math.min(left, target.openMinor);
    if (applied <= 0) continue;
    allocations.push({ targetKey: target.key, amountMinor: applied });
    left -= applied;
  }
  return allocations;
}

export type PaymentState = 'settled' | 'pending' | 'failed';
export type PaymentStatus = 'Pending' | 'Allocated' | 'Partial' | 'Unallocated' | 'Failed';

/**
 * Status of a payment or credit note: Failed and Pending tell the collection's state; a settled one is
 * Allocated when its allocations cover its amount, Partial when they cover part, Unallocated when none.
 */
export function paymentStatus(
  state: PaymentState,
  amountMinor: number,
  allocatedMinor: number,
): PaymentStatus {
  if (state === 'failed') return 'Failed';
  if (state === 'pending') return 'Pending';
  if (allocatedMinor >= amountMinor) return 'Allocated';
  return allocatedMinor > 0 ? 'Partial' : 'Unallocated';
}

export type PositiveAdjustmentStatus = 'Paid' | 'Partially Paid' | 'Unpaid' | 'Past Due';

/** Paid when covered; else Past Due once its DueDate has passed, else Partially Paid or Unpaid. */
export function positiveAdjustmentStatus(
  amountMinor: number,
  allocatedMinor: number,
  dueDate: string | null,
  today: string,
): PositiveAdjustmentStatus {
  if (allocatedMinor >= amountMinor) return 'Paid';
  if (dueDate !== null && dueDate < today) return 'Past Due';
  return allocatedMinor > 0 ? 'Partially Paid' : 'Unpaid';
}

export type NegativeAdjustmentStatus = 'Allocated' | 'Partially Allocated' | 'Unallocated';

export function negativeAdjustmentStatus(
  amountMinor: number,
  allocatedMinor: number,
): NegativeAdjustmentStatus {
  if (allocatedMinor >= amountMinor) return 'Allocated';
  return allocatedMinor > 0 ? 'Partially Allocated' : 'Unallocated';
}
