import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ByTarget,
  autoApply,
  negativeAdjustmentStatus,
  paymentStatus,
  planAllocations,
  positiveAdjustmentStatus,
} from './allocation.ts';
import type {
  AllocationPlan,
  AllocationTarget,
  ExistingAllocation,
  PlanAllocationsInput,
  RequestedAllocation,
  TargetRef,
} from './allocation.ts';

const inv = (id: number): TargetRef => ({ type: 'invoice', id });
const adj = (id: number): TargetRef => ({ type: 'adjustment', id });

/** A target open for `openMinor` (in USD unless told), labelled as the ledger labels it. */
function target(ref: TargetRef, openMinor: number, extra: Partial<AllocationTarget> = {}): AllocationTarget {
  return {
    target: ref,
    label: `${ref.type === 'invoice' ? 'invoice' : 'positive adjustment'} ${ref.id}`,
    currencyCode: 'USD',
    openMinor,
    ...extra,
  };
}

const byTarget = (targets: readonly AllocationTarget[]) => {
  const map = new ByTarget<AllocationTarget>();
  for (const t of targets) map.set(t.target, t);
  return map;
};

const add = (ref: TargetRef, amountMinor: number, i = 0): RequestedAllocation => ({
  allocationId: null,
  target: ref,
  amountMinor,
  field: `allocations[${i}]`,
});

const keep = (allocationId: number, ref: TargetRef, amountMinor: number, i = 0): RequestedAllocation => ({
  allocationId,
  target: ref,
  amountMinor,
  field: `allocations[${i}]`,
});

/** A payment of 10.00 USD (1000 minor) with the given allocations and targets. */
function input(
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

function planOf(planInput: PlanAllocationsInput): AllocationPlan {
  const result = planAllocations(planInput);
  if ('problems' in result) throw new Error(`expected a plan, got ${JSON.stringify(result.problems)}`);
  return result.plan;
}

function problemsOf(planInput: PlanAllocationsInput) {
  const result = planAllocations(planInput);
  if ('plan' in result) throw new Error(`expected problems, got a plan ${JSON.stringify(result.plan)}`);
  return result.problems;
}

describe('planAllocations: the changes', () => {
  it('adds an allocation without id and moves the target by its amount', () => {
    const plan = planOf(input([add(inv(1), 500)], [target(inv(1), 1000)]));
    expect(plan).toEqual({
      inserts: [{ target: inv(1), amountMinor: 500 }],
      updates: [],
      deletes: [],
      targetDeltas: [{ target: inv(1), deltaMinor: 500 }],
      allocatedMinor: 500,
    });
  });

  it('adds allocations to several targets that together spend the whole source', () => {
    // 300 fills invoice 1 exactly; 700 of the 900 open on invoice 2; 300 + 700 = 1000, the source's amount.
    const plan = planOf(
      input([add(inv(1), 300, 0), add(inv(2), 700, 1)], [target(inv(1), 300), target(inv(2), 900)]),
    );
    expect(plan).toEqual({
      inserts: [
        { target: inv(1), amountMinor: 300 },
        { target: inv(2), amountMinor: 700 },
      ],
      updates: [],
      deletes: [],
      targetDeltas: [
        { target: inv(1), deltaMinor: 300 },
        { target: inv(2), deltaMinor: 700 },
      ],
      allocatedMinor: 1000,
    });
  });

  it('allocates to a positive adjustment like to an invoice', () => {
    const plan = planOf(input([add(adj(4), 250)], [target(adj(4), 250)]));
    expect(plan.inserts).toEqual([{ target: adj(4), amountMinor: 250 }]);
    expect(plan.targetDeltas).toEqual([{ target: adj(4), deltaMinor: 250 }]);
  });

  it('edits an allocation listed with its id, moving the target by the difference only', () => {
    // Held 500 on invoice 1, 500 still open there: 800 asked, delta 800 − 500 = +300.
    const plan = planOf(
      input([keep(7, inv(1), 800)], [target(inv(1), 500)], [{ id: 7, target: inv(1), amountMinor: 500 }]),
    );
    expect(plan).toEqual({
      inserts: [],
      updates: [{ id: 7, target: inv(1), amountMinor: 800 }],
      deletes: [],
      targetDeltas: [{ target: inv(1), deltaMinor: 300 }],
      allocatedMinor: 800,
    });
  });

  it('lowers an allocation: the target gets the difference back', () => {
    const plan = planOf(
      input([keep(7, inv(1), 200)], [target(inv(1), 0)], [{ id: 7, target: inv(1), amountMinor: 500 }]),
    );
    expect(plan.updates).toEqual([{ id: 7, target: inv(1), amountMinor: 200 }]);
    expect(plan.targetDeltas).toEqual([{ target: inv(1), deltaMinor: -300 }]);
    expect(plan.allocatedMinor).toBe(200);
  });

  it('changes nothing for an allocation listed as it is', () => {
    const plan = planOf(
      input([keep(7, inv(1), 500)], [target(inv(1), 0)], [{ id: 7, target: inv(1), amountMinor: 500 }]),
    );
    expect(plan).toEqual({
      inserts: [],
      updates: [],
      deletes: [],
      targetDeltas: [],
      allocatedMinor: 500,
    });
  });

  it('deletes the allocations left out of the list and gives their targets the money back', () => {
    const plan = planOf(
      input(
        [keep(7, inv(1), 500)],
        [target(inv(1), 0), target(inv(2), 0)],
        [
          { id: 7, target: inv(1), amountMinor: 500 },
          { id: 8, target: inv(2), amountMinor: 200 },
        ],
      ),
    );
    expect(plan).toEqual({
      inserts: [],
      updates: [],
      deletes: [8],
      targetDeltas: [{ target: inv(2), deltaMinor: -200 }],
      allocatedMinor: 500,
    });
  });

  it('deletes every allocation for an empty list (how a source is released)', () => {
    const plan = planOf(
      input(
        [],
        [],
        [
          { id: 7, target: inv(1), amountMinor: 500 },
          { id: 8, target: inv(2), amountMinor: 200 },
          { id: 9, target: inv(1), amountMinor: 100 },
        ],
      ),
    );
    expect(plan).toEqual({
      inserts: [],
      updates: [],
      deletes: [7, 8, 9],
      targetDeltas: [
        { target: inv(1), deltaMinor: -600 },
        { target: inv(2), deltaMinor: -200 },
      ],
      allocatedMinor: 0,
    });
  });

  it('moves an allocation to another target: the first gets its money back, the second is charged', () => {
    const plan = planOf(
      input(
        [keep(7, inv(2), 500)],
        [target(inv(1), 0), target(inv(2), 600)],
        [{ id: 7, target: inv(1), amountMinor: 500 }],
      ),
    );
    expect(plan).toEqual({
      inserts: [],
      updates: [{ id: 7, target: inv(2), amountMinor: 500 }],
      deletes: [],
      targetDeltas: [
        { target: inv(1), deltaMinor: -500 },
        { target: inv(2), deltaMinor: 500 },
      ],
      allocatedMinor: 500,
    });
  });

  it('adds, edits and deletes in one request', () => {
    // Before: 7 → invoice 1 (400), 8 → invoice 2 (300). After: 7 → invoice 1 (100), new → invoice 3 (600).
    const plan = planOf(
      input(
        [keep(7, inv(1), 100, 0), add(inv(3), 600, 1)],
        [target(inv(1), 0), target(inv(2), 0), target(inv(3), 600)],
        [
          { id: 7, target: inv(1), amountMinor: 400 },
          { id: 8, target: inv(2), amountMinor: 300 },
        ],
      ),
    );
    expect(plan).toEqual({
      inserts: [{ target: inv(3), amountMinor: 600 }],
      updates: [{ id: 7, target: inv(1), amountMinor: 100 }],
      deletes: [8],
      targetDeltas: [
        { target: inv(1), deltaMinor: -300 },
        { target: inv(2), deltaMinor: -300 },
        { target: inv(3), deltaMinor: 600 },
      ],
      allocatedMinor: 700,
    });
  });

  it('accepts several allocations to one target that together fit what is open', () => {
    const plan = planOf(input([add(inv(1), 300, 0), add(inv(1), 200, 1)], [target(inv(1), 500)]));
    expect(plan.inserts).toHaveLength(2);
    expect(plan.targetDeltas).toEqual([{ target: inv(1), deltaMinor: 500 }]);
  });
});

describe('planAllocations: the refusals, each naming the allocation', () => {
  it('refuses more than is open on a target', () => {
    expect(problemsOf(input([add(inv(1), 501)], [target(inv(1), 500)]))).toEqual([
      {
        field: 'allocations[0]',
        message: 'exceeds what is open on invoice 1: 5.00 can be applied, 5.01 was asked',
      },
    ]);
  });

  it('counts what the source already holds on a target as open to it again, and no more', () => {
    // Held 500 + open 200 = 700 available: 7.00 passes, 7.01 does not.
    const existing = [{ id: 7, target: inv(1), amountMinor: 500 }];
    expect(planOf(input([keep(7, inv(1), 700)], [target(inv(1), 200)], existing)).allocatedMinor).toBe(700);
    expect(problemsOf(input([keep(7, inv(1), 701)], [target(inv(1), 200)], existing))).toEqual([
      {
        field: 'allocations[0]',
        message: 'exceeds what is open on invoice 1: 7.00 can be applied, 7.01 was asked',
      },
    ]);
  });

  it('does not count what the source holds on one target as open on another', () => {
    const existing = [{ id: 7, target: inv(1), amountMinor: 500 }];
    expect(
      problemsOf(
        input(
          [keep(7, inv(1), 500, 0), add(inv(2), 101, 1)],
          [target(inv(1), 0), target(inv(2), 100)],
          existing,
        ),
      ),
    ).toEqual([
      {
        field: 'allocations[1]',
        message: 'exceeds what is open on invoice 2: 1.00 can be applied, 1.01 was asked',
      },
    ]);
  });

  it('refuses the allocation that makes several to one target exceed what is open there', () => {
    expect(problemsOf(input([add(inv(1), 300, 0), add(inv(1), 300, 1)], [target(inv(1), 500)]))).toEqual([
      {
        field: 'allocations[1]',
        message: 'exceeds what is open on invoice 1: 5.00 can be applied, 6.00 was asked',
      },
    ]);
  });

  it('refuses allocations beyond the amount of the source, from the one that crosses it', () => {
    // 600 + 600 = 1200 > 1000; each target alone has room.
    expect(
      problemsOf(
        input([add(inv(1), 600, 0), add(inv(2), 600, 1)], [target(inv(1), 800), target(inv(2), 800)]),
      ),
    ).toEqual([
      {
        field: 'allocations[1]',
        message: 'the allocations (12.00 so far) exceed the amount of payment 1 (10.00)',
      },
    ]);
  });

  it('accepts allocations that add up to exactly the amount of the source', () => {
    const plan = planOf(
      input([add(inv(1), 600, 0), add(inv(2), 400, 1)], [target(inv(1), 800), target(inv(2), 800)]),
    );
    expect(plan.allocatedMinor).toBe(1000);
  });

  it('refuses a target in another currency', () => {
    expect(problemsOf(input([add(inv(2), 100)], [target(inv(2), 1000, { currencyCode: 'EUR' })]))).toEqual([
      { field: 'allocations[0]', message: 'invoice 2 is in EUR, payment 1 in USD' },
    ]);
  });

  it.each([
    ['is a draft'],
    ['is cancelled'],
    ['belongs to another customer'],
    ['is not a positive adjustment'],
  ])('refuses a target that %s, saying so', (refusal) => {
    expect(problemsOf(input([add(inv(3), 100)], [target(inv(3), 1000, { refusal })]))).toEqual([
      { field: 'allocations[0]', message: `invoice 3 ${refusal}` },
    ]);
  });

  it('refuses a target it was not given', () => {
    expect(problemsOf(input([add(inv(9), 100)], [target(inv(1), 1000)]))).toEqual([
      { field: 'allocations[0]', message: 'no such invoice: 9' },
    ]);
  });

  it('refuses an allocationID that is not one of the source', () => {
    expect(
      problemsOf(
        input([keep(99, inv(1), 100)], [target(inv(1), 1000)], [{ id: 7, target: inv(1), amountMinor: 100 }]),
      ),
    ).toEqual([{ field: 'allocations[0].allocationID', message: '99 is not an allocation of payment 1' }]);
  });

  it('refuses an allocationID listed twice, naming the second listing', () => {
    expect(
      problemsOf(
        input(
          [keep(7, inv(1), 100, 0), keep(7, inv(1), 200, 1)],
          [target(inv(1), 1000)],
          [{ id: 7, target: inv(1), amountMinor: 100 }],
        ),
      ),
    ).toEqual([{ field: 'allocations[1].allocationID', message: '7 is listed twice' }]);
  });

  it.each([[0], [-100], [1.5], [Number.MAX_SAFE_INTEGER + 1], [Number.NaN]])(
    'refuses an amount of %s minor units',
    (amountMinor) => {
      expect(problemsOf(input([add(inv(1), amountMinor)], [target(inv(1), 1000)]))).toEqual([
        { field: 'allocations[0]', message: 'the amount applied must be greater than 0' },
      ]);
    },
  );

  it('reports every bad allocation of a request at once', () => {
    const problems = problemsOf(
      input(
        [add(inv(1), 0, 0), add(inv(2), 100, 1), add(inv(3), 2000, 2)],
        [target(inv(1), 1000), target(inv(2), 1000, { refusal: 'is a draft' }), target(inv(3), 5000)],
      ),
    );
    expect(problems.map((p) => p.field)).toEqual(['allocations[0]', 'allocations[1]', 'allocations[2]']);
  });

  it('shows amounts in the decimals of the currency (JPY: none)', () => {
    const problems = problemsOf({
      sourceLabel: 'payment 5',
      sourceAmountMinor: 1000,
      currencyCode: 'JPY',
      existing: [],
      requested: [add(inv(1), 600)],
      targets: byTarget([target(inv(1), 500, { currencyCode: 'JPY' })]),
    });
    expect(problems).toEqual([
      {
        field: 'allocations[0]',
        message: 'exceeds what is open on invoice 1: 500 can be applied, 600 was asked',
      },
    ]);
  });
});

describe('autoApply', () => {
  it.each([
    // amount, open amounts of invoices 1, 2, ... in order, what each invoice gets (by invoice id)
    [1000, [400, 400, 400], { 1: 400, 2: 400, 3: 200 }], // 1000 − 400 − 400 = 200
    [1000, [2000, 400], { 1: 1000 }], // the first takes it all
    [1000, [400], { 1: 400 }], // more money than is owed: 600 stays unallocated
    [1000, [0, 300, 0, 900], { 2: 300, 4: 700 }], // closed targets are skipped, not given 0
    [1000, [], {}],
    [0, [400], {}],
    [400, [400, 400], { 1: 400 }], // exactly the first: nothing for the second
  ])('spreads %i over open amounts %j as %j', (amount, open, applied) => {
    const targets = open.map((openMinor, i) => ({ target: inv(i + 1), openMinor }));
    expect(autoApply(amount, targets)).toEqual(
      Object.entries(applied).map(([id, amountMinor]) => ({ target: inv(Number(id)), amountMinor })),
    );
  });

  it('fills targets in the order given, not by id or size', () => {
    expect(
      autoApply(500, [
        { target: inv(9), openMinor: 300 },
        { target: inv(1), openMinor: 1000 },
      ]),
    ).toEqual([
      { target: inv(9), amountMinor: 300 },
      { target: inv(1), amountMinor: 200 },
    ]);
  });
});

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

describe('paymentStatus', () => {
  it.each([
    ['settled', 1000, 1000, 'Allocated'],
    ['settled', 1000, 400, 'Partial'],
    ['settled', 1000, 0, 'Unallocated'],
    ['pending', 1000, 1000, 'Pending'],
    ['pending', 1000, 0, 'Pending'],
    ['failed', 1000, 1000, 'Failed'],
  ] as const)('a %s payment of %i with %i allocated is %s', (state, amount, allocated, status) => {
    expect(paymentStatus(state, amount, allocated)).toBe(status);
  });
});

describe('positiveAdjustmentStatus', () => {
  it.each([
    [1000, 1000, '2026-03-01', 'Paid'], // paid, even past its due date
    [1000, 400, '2026-03-09', 'Past Due'],
    [1000, 0, '2026-03-09', 'Past Due'],
    [1000, 400, '2026-03-10', 'Partially Paid'], // due today is not past due
    [1000, 0, '2026-03-11', 'Unpaid'],
    [1000, 0, null, 'Unpaid'],
  ] as const)('%i with %i allocated, due %s, on 2026-03-10 is %s', (amount, allocated, due, status) => {
    expect(positiveAdjustmentStatus(amount, allocated, due, '2026-03-10')).toBe(status);
  });
});

describe('negativeAdjustmentStatus', () => {
  it.each([
    [1000, 1000, 'Allocated'],
    [1000, 1, 'Partially Allocated'],
    [1000, 0, 'Unallocated'],
  ] as const)('%i with %i allocated is %s', (amount, allocated, status) => {
    expect(negativeAdjustmentStatus(amount, allocated)).toBe(status);
  });
});
