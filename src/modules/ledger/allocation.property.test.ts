import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adj, input, inv, target } from './allocation.fixtures.ts';
import { autoApply, planAllocations } from './allocation.ts';
import type { AllocationPlan, RequestedAllocation, TargetRef } from './allocation.ts';

const openAmounts = fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 12 });

describe('autoApply properties', () => {
  it('never gives a target more than is open on it, nor more than the amount in all', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), openAmounts, (amount, open) => {
        const targets = open.map((openMinor, i) => ({ target: inv(i), openMinor }));
        const applied = autoApply(amount, targets);
        for (const a of applied) {
          expect(a.amountMinor).toBeGreaterThan(0);
          expect(a.amountMinor).toBeLessThanOrEqual(open[a.target.id]!);
        }
        const total = applied.reduce((sum, a) => sum + a.amountMinor, 0);
        // Spent entirely unless every target is full.
        expect(total).toBe(
          Math.min(
            amount,
            open.reduce((sum, o) => sum + o, 0),
          ),
        );
      }),
    );
  });

  it('gives a later target money only when every earlier one is full', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), openAmounts, (amount, open) => {
        const targets = open.map((openMinor, i) => ({ target: inv(i), openMinor }));
        const applied = new Map(autoApply(amount, targets).map((a) => [a.target.id, a.amountMinor]));
        targets.forEach((t, i) => {
          if ((applied.get(i) ?? 0) === 0) return;
          for (const [earlier, e] of targets.slice(0, i).entries())
            expect(applied.get(earlier) ?? 0).toBe(e.openMinor);
        });
        // And in the order given: the result lists targets as they came.
        const order = [...applied.keys()];
        expect(order).toEqual([...order].sort((a, b) => a - b));
      }),
    );
  });
});

describe('planAllocations properties', () => {
  const TARGETS = [inv(1), inv(2), inv(3), adj(1)];
  const ofTarget = (ref: TargetRef) => TARGETS.findIndex((t) => t.type === ref.type && t.id === ref.id);
  const scenario = fc
    .record({
      existing: fc.array(
        fc.record({ target: fc.constantFrom(...TARGETS), amountMinor: fc.integer({ min: 1, max: 5000 }) }),
        { maxLength: 5 },
      ),
      requested: fc.array(
        fc.record({
          // An index into the existing allocations to edit, or -1 to add one.
          edit: fc.integer({ min: -1, max: 4 }),
          target: fc.constantFrom(...TARGETS),
          amountMinor: fc.integer({ min: 1, max: 5000 }),
        }),
        { maxLength: 6 },
      ),
      open: fc.array(fc.integer({ min: 0, max: 20_000 }), {
        minLength: TARGETS.length,
        maxLength: TARGETS.length,
      }),
      sourceAmountMinor: fc.integer({ min: 1, max: 20_000 }),
    })
    .map(({ existing, requested, open, sourceAmountMinor }) => {
      const existingAllocations = existing.map((e, i) => ({ id: 100 + i, ...e }));
      const seen = new Set<number>();
      const requestedAllocations = requested.map((r, i): RequestedAllocation => {
        const edited = existingAllocations[r.edit];
        const id = edited && !seen.has(edited.id) ? edited.id : null;
        if (id !== null) seen.add(id);
        return {
          allocationId: id,
          target: r.target,
          amountMinor: r.amountMinor,
          field: `allocations[${i}]`,
        };
      });
      return input(
        requestedAllocations,
        TARGETS.map((ref, i) => target(ref, open[i]!)),
        existingAllocations,
        sourceAmountMinor,
      );
    });

  /** The amounts of `list` summed by target, each target known by its index in TARGETS. */
  const sums = (list: readonly { target: TargetRef; amountMinor: number }[]) => {
    const totals = new Map<number, number>();
    for (const a of list)
      totals.set(ofTarget(a.target), (totals.get(ofTarget(a.target)) ?? 0) + a.amountMinor);
    return totals;
  };
  const deltas = (plan: AllocationPlan) =>
    new Map(plan.targetDeltas.map(({ target: ref, deltaMinor }) => [ofTarget(ref), deltaMinor]));

  it("moves each target by exactly the change of the source's allocations to it", () => {
    let planned = 0;
    fc.assert(
      fc.property(scenario, (planInput) => {
        const result = planAllocations(planInput);
        if ('problems' in result) return;
        planned++;
        const before = sums(planInput.existing);
        const after = sums(planInput.requested);
        const moved = deltas(result.plan);
        for (const i of TARGETS.keys()) {
          expect((before.get(i) ?? 0) + (moved.get(i) ?? 0)).toBe(after.get(i) ?? 0);
        }
        // No delta of 0 is listed, nor any target twice; no target the source never touched appears.
        for (const { deltaMinor } of result.plan.targetDeltas) expect(deltaMinor).not.toBe(0);
        expect(moved.size).toBe(result.plan.targetDeltas.length);
        expect(result.plan.allocatedMinor).toBe(planInput.requested.reduce((s, r) => s + r.amountMinor, 0));
      }),
      { numRuns: 500 },
    );
    // The generator must produce plans, not only refusals, for the property to say anything.
    expect(planned).toBeGreaterThan(50);
  });

  it('keeps a plan within the targets and the source', () => {
    fc.assert(
      fc.property(scenario, (planInput) => {
        const result = planAllocations(planInput);
        if ('problems' in result) {
          expect(result.problems.length).toBeGreaterThan(0);
          return;
        }
        const { plan } = result;
        expect(plan.allocatedMinor).toBeLessThanOrEqual(planInput.sourceAmountMinor);
        for (const { target: ref, deltaMinor } of plan.targetDeltas)
          expect(deltaMinor).toBeLessThanOrEqual(planInput.targets.get(ref)!.openMinor);
        // Applying the plan to the existing allocations gives exactly the requested list.
        const kept = new Map(planInput.existing.map((a) => [a.id, a]));
        for (const id of plan.deletes) kept.delete(id);
        for (const u of plan.updates)
          kept.set(u.id, { id: u.id, target: u.target, amountMinor: u.amountMinor });
        const resulting = [...kept.values(), ...plan.inserts];
        expect(Object.fromEntries(sums(resulting))).toEqual(Object.fromEntries(sums(planInput.requested)));
        expect(kept.size + plan.inserts.length).toBe(planInput.requested.length);
      }),
      { numRuns: 500 },
    );
  });
});
