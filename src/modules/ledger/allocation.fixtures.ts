import { ByTarget, planAllocations } from './allocation.ts';
import type {
  AllocationPlan,
  AllocationTarget,
  ExistingAllocation,
  PlanAllocationsInput,
  RequestedAllocation,
  TargetRef,
} from './allocation.ts';

/* Builders shared by the allocation.*.test.ts files: targets, requested and held allocations, a payment's input. */

export const inv = (id: number): TargetRef => ({ type: 'invoice', id });
export const adj = (id: number): TargetRef => ({ type: 'adjustment', id });

/** A target open for `openMinor` (in USD unless told), labelled as the ledger labels it. */
export function target(
  ref: TargetRef,
  openMinor: number,
  extra: Partial<AllocationTarget> = {},
): AllocationTarget {
  return {
    target: ref,
    label: `${ref.type === 'invoice' ? 'invoice' : 'positive adjustment'} ${ref.id}`,
    currencyCode: 'USD',
    openMinor,
    ...extra,
  };
}

export const byTarget = (targets: readonly AllocationTarget[]) => {
  const map = new ByTarget<AllocationTarget>();
  for (const t of targets) map.set(t.target, t);
  return map;
};

/** A requested allocation that edits allocation `allocationId` of the source (or adds one, when null). */
export const keep = (
  allocationId: number | null,
  ref: TargetRef,
  amountMinor: number,
  i = 0,
): RequestedAllocation => ({ allocationId, target: ref, amountMinor, field: `allocations[${i}]` });

/** A requested allocation without id: a new one. */
export const add = (ref: TargetRef, amountMinor: number, i = 0) => keep(null, ref, amountMinor, i);

/** An allocation the source holds already. */
export const held = (id: number, ref: TargetRef, amountMinor: number): ExistingAllocation => ({
  id,
  target: ref,
  amountMinor,
});

/** A payment of 10.00 USD (1000 minor) with the given allocations and targets. */
export function input(
  requested: RequestedAllocation[],
  targets: AllocationTarget[],
  existing: ExistingAllocation[] = [],
  sourceAmountMinor = 1000,
): PlanAllocationsInput {
  return {
    sourceLabel: 'payment 1',
    sourceAmountMinor,
    currencyCode: 'USD',
    existing,
    requested,
    targets: byTarget(targets),
  };
}

export function planOf(planInput: PlanAllocationsInput): AllocationPlan {
  const result = planAllocations(planInput);
  if ('problems' in result) throw new Error(`expected a plan, got ${JSON.stringify(result.problems)}`);
  return result.plan;
}

export function problemsOf(planInput: PlanAllocationsInput) {
  const result = planAllocations(planInput);
  if ('plan' in result) throw new Error(`expected problems, got a plan ${JSON.stringify(result.plan)}`);
  return result.problems;
}
