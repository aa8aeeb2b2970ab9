import type { FieldProblem } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';

/**
 * Allocation of money (a payment, a credit note, a negative adjustment: the *source*) to what is owed (an
 * invoice, a positive adjustment: the *target*). Pure: the ledger feeds it the source's current allocations, the
 * requested ones and the targets' figures, and persists the plan it returns.
 *
 * The invariants it keeps: no target receives more than is open on it; a source never allocates more than its
 * amount; an allocation moves money between one source and one target of the same currency.
 */

export type TargetType = 'invoice' | 'adjustment';

/** What money is allocated to: `{ type: 'invoice', id: 12 }`. */
export interface TargetRef {
  type: TargetType;
  id: number;
}

export const sameTarget = (a: TargetRef, b: TargetRef): boolean => a.type === b.type && a.id === b.id;

/** Values kept by target, compared by type and id (a Map would compare the objects), in the order first set. */
export class ByTarget<V> {
  readonly #entries: [TargetRef, V][] = [];
  readonly #index = new Map<TargetType, Map<number, number>>();

  get(target: TargetRef): V | undefined {
    const at = this.#index.get(target.type)?.get(target.id);
    return at === undefined ? undefined : this.#entries[at]![1];
  }

  has(target: TargetRef): boolean {
    return this.#index.get(target.type)?.has(target.id) ?? false;
  }

  set(target: TargetRef, value: V): this {
    let ofType = this.#index.get(target.type);
    if (!ofType) this.#index.set(target.type, (ofType = new Map()));
    const at = ofType.get(target.id);
    if (at === undefined) {
      ofType.set(target.id, this.#entries.length);
      this.#entries.push([{ type: target.type, id: target.id }, value]);
    } else this.#entries[at]![1] = value;
    return this;
  }

  entries(): IterableIterator<[TargetRef, V]> {
    return this.#entries.values();
  }

  get size(): number {
    return this.#entries.length;
  }
}

export interface AllocationTarget {
  target: TargetRef;
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
  target: TargetRef;
  amountMinor: number;
}

export interface RequestedAllocation {
  /** Spec, Payments rule 4: with an id, an existing allocation of this source is edited; without, one is added. */
  allocationId: number | null;
  target: TargetRef;
  amountMinor: number;
  /** The wire path of the allocation, for messages: `allocations[1]`. */
  field: string;
}

export interface AllocationPlan {
  inserts: { target: TargetRef; amountMinor: number }[];
  updates: { id: number; target: TargetRef; amountMinor: number }[];
  deletes: number[];
  /**
   * How much more (or, negative, less) is allocated to each target whose figure changes: those the source held
   * first, then those it is given, each once.
   */
  targetDeltas: { target: TargetRef; deltaMinor: number }[];
  /** The source's allocated total afterwards. */
  allocatedMinor: number;
}

/** What planAllocations decides from: the source, its allocations now, the ones requested and their targets. */
export interface PlanAllocationsInput {
  sourceLabel: string;
  sourceAmountMinor: number;
  currencyCode: string;
  existing: readonly ExistingAllocation[];
  requested: readonly RequestedAllocation[];
  targets: ByTarget<AllocationTarget>;
}

function sumByTarget(allocations: readonly { target: TargetRef; amountMinor: number }[]): ByTarget<number> {
  const sums = new ByTarget<number>();
  for (const a of allocations) sums.set(a.target, (sums.get(a.target) ?? 0) + a.amountMinor);
  return sums;
}

/**
 * The changes that turn the source's allocations into the requested list (Spec, Payments rule 4: listed with an
 * id → edited, listed without → added, left out → deleted), or the problems that forbid it, each naming the
 * allocation at fault.
 */
export function planAllocations(
  input: PlanAllocationsInput,
): { plan: AllocationPlan } | { problems: FieldProblem[] } {
  const existingById = new Map(input.existing.map((a) => [a.id, a]));
  const before = sumByTarget(input.existing);
  const tally = checkRequests(input, existingById, before);
  if (tally.problems.length > 0) return { problems: tally.problems };
  return {
    plan: {
      ...rowChanges(input, existingById, tally.seenIds),
      targetDeltas: targetDeltas(before, tally.after),
      allocatedMinor: tally.total,
    },
  };
}

/** What the requests come to, read in order: their problems, the allocations kept, each target's sum and the total. */
interface RequestTally {
  problems: FieldProblem[];
  seenIds: Set<number>;
  after: ByTarget<number>;
  total: number;
}

function checkRequests(
  input: PlanAllocationsInput,
  existingById: ReadonlyMap<number, ExistingAllocation>,
  before: ByTarget<number>,
): RequestTally {
  const tally: RequestTally = { problems: [], seenIds: new Set(), after: new ByTarget(), total: 0 };
  for (const request of input.requested) {
    const problem =
      claimAllocationId(request, input.sourceLabel, existingById, tally.seenIds) ??
      amountProblem(request) ??
      targetProblem(request, input) ??
      addToTally(request, input, before, tally);
    if (problem) tally.problems.push(problem);
  }
  return tally;
}

/** An edit must name an allocation of this source, once; the id is then counted as seen (kept, not deleted). */
function claimAllocationId(
  request: RequestedAllocation,
  sourceLabel: string,
  existingById: ReadonlyMap<number, ExistingAllocation>,
  seenIds: Set<number>,
): FieldProblem | undefined {
  if (request.allocationId === null) return undefined;
  const field = `${request.field}.allocationID`;
  if (!existingById.has(request.allocationId)) {
    return { field, message: `${request.allocationId} is not an allocation of ${sourceLabel}` };
  }
  if (seenIds.has(request.allocationId)) return { field, message: `${request.allocationId} is listed twice` };
  seenIds.add(request.allocationId);
  return undefined;
}

function amountProblem(request: RequestedAllocation): FieldProblem | undefined {
  if (Number.isSafeInteger(request.amountMinor) && request.amountMinor > 0) return undefined;
  return { field: request.field, message: 'the amount applied must be greater than 0' };
}

/** The target must exist, accept allocations and be in the source's currency. */
function targetProblem(request: RequestedAllocation, input: PlanAllocationsInput): FieldProblem | undefined {
  const { field } = request;
  const target = input.targets.get(request.target);
  if (!target) return { field, message: `no such ${request.target.type}: ${request.target.id}` };
  if (target.refusal) return { field, message: `${target.label} ${target.refusal}` };
  if (target.currencyCode !== input.currencyCode) {
    return {
      field,
      message: `${target.label} is in ${target.currencyCode}, ${input.sourceLabel} in ${input.currencyCode}`,
    };
  }
  return undefined;
}

/**
 * Counts the request on its target unless that exceeds what is open there; the source's own total is checked
 * after counting, so later requests are judged against it too.
 */
function addToTally(
  request: RequestedAllocation,
  input: PlanAllocationsInput,
  before: ByTarget<number>,
  tally: RequestTally,
): FieldProblem | undefined {
  const money = (minor: number) => minorToDecimalText(minor, input.currencyCode);
  const target = input.targets.get(request.target)!;
  const onTarget = (tally.after.get(request.target) ?? 0) + request.amountMinor;
  // What this source already holds on the target comes back to it first.
  const available = target.openMinor + (before.get(request.target) ?? 0);
  if (onTarget > available) {
    return {
      field: request.field,
      message: `exceeds what is open on ${target.label}: ${money(available)} can be applied, ${money(onTarget)} was asked`,
    };
  }
  tally.after.set(request.target, onTarget);
  tally.total += request.amountMinor;
  if (tally.total <= input.sourceAmountMinor) return undefined;
  return {
    field: request.field,
    message: `the allocations (${money(tally.total)} so far) exceed the amount of ${input.sourceLabel} (${money(input.sourceAmountMinor)})`,
  };
}

/** Listed without an id → inserted; listed with one and changed → updated; left out → deleted. */
function rowChanges(
  input: PlanAllocationsInput,
  existingById: ReadonlyMap<number, ExistingAllocation>,
  seenIds: ReadonlySet<number>,
): Pick<AllocationPlan, 'inserts' | 'updates' | 'deletes'> {
  const changes: Pick<AllocationPlan, 'inserts' | 'updates' | 'deletes'> = {
    inserts: [],
    updates: [],
    deletes: [],
  };
  for (const request of input.requested) {
    if (request.allocationId === null) {
      changes.inserts.push({ target: request.target, amountMinor: request.amountMinor });
      continue;
    }
    const current = existingById.get(request.allocationId)!;
    if (!sameTarget(current.target, request.target) || current.amountMinor !== request.amountMinor) {
      changes.updates.push({ id: current.id, target: request.target, amountMinor: request.amountMinor });
    }
  }
  for (const allocation of input.existing)
    if (!seenIds.has(allocation.id)) changes.deletes.push(allocation.id);
  return changes;
}

/** The change on each target the source held or is given, in that order, each once; unchanged ones left out. */
function targetDeltas(before: ByTarget<number>, after: ByTarget<number>): AllocationPlan['targetDeltas'] {
  const touched = new ByTarget<true>();
  for (const [target] of [...before.entries(), ...after.entries()]) touched.set(target, true);
  const deltas: AllocationPlan['targetDeltas'] = [];
  for (const [target] of touched.entries()) {
    const deltaMinor = (after.get(target) ?? 0) - (before.get(target) ?? 0);
    if (deltaMinor !== 0) deltas.push({ target, deltaMinor });
  }
  return deltas;
}

/**
 * AutoApply: the amount goes to the first target in the given order (the earliest) up to what is open on it, and
 * what is left on to the next ones, until the amount or the targets run out. Targets come with what this source
 * already holds on them counted as open, so an edit re-spreads the whole amount.
 */
export function autoApply(
  amountMinor: number,
  targetsInOrder: readonly { target: TargetRef; openMinor: number }[],
): { target: TargetRef; amountMinor: number }[] {
  const allocations: { target: TargetRef; amountMinor: number }[] = [];
  let left = amountMinor;
  for (const { target, openMinor } of targetsInOrder) {
    if (left <= 0) break;
    const applied = Math.min(left, openMinor);
    if (applied <= 0) continue;
    allocations.push({ target, amountMinor: applied });
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

/**
 * Credit first (docs/gateways.md, "Credit first"): the sources, oldest first, each spread over the targets in
 * their order as AutoApply spreads one source, what one fills no longer open to the next. Returns, per source
 * (by its index), the allocations it is to add.
 */
export function spreadSources(
  sourcesLeftMinor: readonly number[],
  targetsInOrder: readonly { target: TargetRef; openMinor: number }[],
): { target: TargetRef; amountMinor: number }[][] {
  const open = targetsInOrder.map((t) => ({ target: t.target, openMinor: Math.max(0, t.openMinor) }));
  return sourcesLeftMinor.map((leftMinor) => {
    const spread = autoApply(leftMinor, open);
    for (const allocation of spread) {
      const at = open.find((t) => sameTarget(t.target, allocation.target))!;
      at.openMinor -= allocation.amountMinor;
    }
    return spread;
  });
}
