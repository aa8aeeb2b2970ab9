import { describe, expect, it } from 'vitest';
import {
  add,
  adj,
  byTarget,
  held,
  input,
  inv,
  keep,
  planOf,
  problemsOf,
  target,
} from './allocation.fixtures.ts';
import type { AllocationPlan, PlanAllocationsInput } from './allocation.ts';

describe('planAllocations: the changes', () => {
  const cases: { name: string; input: PlanAllocationsInput; plan: Partial<AllocationPlan> }[] = [
    {
      name: 'adds an allocation without id and moves the target by its amount',
      input: input([add(inv(1), 500)], [target(inv(1), 1000)]),
      plan: {
        inserts: [{ target: inv(1), amountMinor: 500 }],
        targetDeltas: [{ target: inv(1), deltaMinor: 500 }],
        allocatedMinor: 500,
      },
    },
    {
      // 300 fills invoice 1 exactly; 700 of the 900 open on invoice 2; 300 + 700 = 1000, the source's amount.
      name: 'adds allocations to several targets that together spend the whole source',
      input: input([add(inv(1), 300, 0), add(inv(2), 700, 1)], [target(inv(1), 300), target(inv(2), 900)]),
      plan: {
        inserts: [
          { target: inv(1), amountMinor: 300 },
          { target: inv(2), amountMinor: 700 },
        ],
        targetDeltas: [
          { target: inv(1), deltaMinor: 300 },
          { target: inv(2), deltaMinor: 700 },
        ],
        allocatedMinor: 1000,
      },
    },
    {
      name: 'allocates to a positive adjustment like to an invoice',
      input: input([add(adj(4), 250)], [target(adj(4), 250)]),
      plan: {
        inserts: [{ target: adj(4), amountMinor: 250 }],
        targetDeltas: [{ target: adj(4), deltaMinor: 250 }],
        allocatedMinor: 250,
      },
    },
    {
      // Held 500 on invoice 1, 500 still open there: 800 asked, delta 800 − 500 = +300.
      name: 'edits an allocation listed with its id, moving the target by the difference only',
      input: input([keep(7, inv(1), 800)], [target(inv(1), 500)], [held(7, inv(1), 500)]),
      plan: {
        updates: [{ id: 7, target: inv(1), amountMinor: 800 }],
        targetDeltas: [{ target: inv(1), deltaMinor: 300 }],
        allocatedMinor: 800,
      },
    },
    {
      name: 'lowers an allocation: the target gets the difference back',
      input: input([keep(7, inv(1), 200)], [target(inv(1), 0)], [held(7, inv(1), 500)]),
      plan: {
        updates: [{ id: 7, target: inv(1), amountMinor: 200 }],
        targetDeltas: [{ target: inv(1), deltaMinor: -300 }],
        allocatedMinor: 200,
      },
    },
    {
      name: 'changes nothing for an allocation listed as it is',
      input: input([keep(7, inv(1), 500)], [target(inv(1), 0)], [held(7, inv(1), 500)]),
      plan: { allocatedMinor: 500 },
    },
    {
      name: 'deletes the allocations left out of the list and gives their targets the money back',
      input: input(
        [keep(7, inv(1), 500)],
        [target(inv(1), 0), target(inv(2), 0)],
        [held(7, inv(1), 500), held(8, inv(2), 200)],
      ),
      plan: { deletes: [8], targetDeltas: [{ target: inv(2), deltaMinor: -200 }], allocatedMinor: 500 },
    },
    {
      name: 'deletes every allocation for an empty list (how a source is released)',
      input: input([], [], [held(7, inv(1), 500), held(8, inv(2), 200), held(9, inv(1), 100)]),
      plan: {
        deletes: [7, 8, 9],
        targetDeltas: [
          { target: inv(1), deltaMinor: -600 },
          { target: inv(2), deltaMinor: -200 },
        ],
        allocatedMinor: 0,
      },
    },
    {
      name: 'moves an allocation to another target: the first gets its money back, the second is charged',
      input: input([keep(7, inv(2), 500)], [target(inv(1), 0), target(inv(2), 600)], [held(7, inv(1), 500)]),
      plan: {
        updates: [{ id: 7, target: inv(2), amountMinor: 500 }],
        targetDeltas: [
          { target: inv(1), deltaMinor: -500 },
          { target: inv(2), deltaMinor: 500 },
        ],
        allocatedMinor: 500,
      },
    },
    {
      // Before: 7 → invoice 1 (400), 8 → invoice 2 (300). After: 7 → invoice 1 (100), new → invoice 3 (600).
      name: 'adds, edits and deletes in one request',
      input: input(
        [keep(7, inv(1), 100, 0), add(inv(3), 600, 1)],
        [target(inv(1), 0), target(inv(2), 0), target(inv(3), 600)],
        [held(7, inv(1), 400), held(8, inv(2), 300)],
      ),
      plan: {
        inserts: [{ target: inv(3), amountMinor: 600 }],
        updates: [{ id: 7, target: inv(1), amountMinor: 100 }],
        deletes: [8],
        targetDeltas: [
          { target: inv(1), deltaMinor: -300 },
          { target: inv(2), deltaMinor: -300 },
          { target: inv(3), deltaMinor: 600 },
        ],
        allocatedMinor: 700,
      },
    },
    {
      name: 'accepts several allocations to one target that together fit what is open',
      input: input([add(inv(1), 300, 0), add(inv(1), 200, 1)], [target(inv(1), 500)]),
      plan: {
        inserts: [
          { target: inv(1), amountMinor: 300 },
          { target: inv(1), amountMinor: 200 },
        ],
        targetDeltas: [{ target: inv(1), deltaMinor: 500 }],
        allocatedMinor: 500,
      },
    },
  ];
  for (const { name, input: planInput, plan } of cases) {
    it(name, () => {
      expect(planOf(planInput)).toEqual({ inserts: [], updates: [], deletes: [], targetDeltas: [], ...plan });
    });
  }
});

describe('planAllocations: the refusals, each naming the allocation', () => {
  const exceeds = (field: string, label: string, open: string, asked: string) => ({
    field,
    message: `exceeds what is open on ${label}: ${open} can be applied, ${asked} was asked`,
  });

  const cases: { name: string; input: PlanAllocationsInput; problem: { field: string; message: string } }[] =
    [
      {
        name: 'refuses more than is open on a target',
        input: input([add(inv(1), 501)], [target(inv(1), 500)]),
        problem: exceeds('allocations[0]', 'invoice 1', '5.00', '5.01'),
      },
      {
        name: 'does not count what the source holds on one target as open on another',
        input: input(
          [keep(7, inv(1), 500, 0), add(inv(2), 101, 1)],
          [target(inv(1), 0), target(inv(2), 100)],
          [held(7, inv(1), 500)],
        ),
        problem: exceeds('allocations[1]', 'invoice 2', '1.00', '1.01'),
      },
      {
        name: 'refuses the allocation that makes several to one target exceed what is open there',
        input: input([add(inv(1), 300, 0), add(inv(1), 300, 1)], [target(inv(1), 500)]),
        problem: exceeds('allocations[1]', 'invoice 1', '5.00', '6.00'),
      },
      {
        // 600 + 600 = 1200 > 1000; each target alone has room.
        name: 'refuses allocations beyond the amount of the source, from the one that crosses it',
        input: input([add(inv(1), 600, 0), add(inv(2), 600, 1)], [target(inv(1), 800), target(inv(2), 800)]),
        problem: {
          field: 'allocations[1]',
          message: 'the allocations (12.00 so far) exceed the amount of payment 1 (10.00)',
        },
      },
      {
        name: 'refuses a target in another currency',
        input: input([add(inv(2), 100)], [target(inv(2), 1000, { currencyCode: 'EUR' })]),
        problem: { field: 'allocations[0]', message: 'invoice 2 is in EUR, payment 1 in USD' },
      },
      ...['is a draft', 'is cancelled', 'belongs to another customer', 'is not a positive adjustment'].map(
        (refusal) => ({
          name: `refuses a target that ${refusal}, saying so`,
          input: input([add(inv(3), 100)], [target(inv(3), 1000, { refusal })]),
          problem: { field: 'allocations[0]', message: `invoice 3 ${refusal}` },
        }),
      ),
      {
        name: 'refuses a target it was not given',
        input: input([add(inv(9), 100)], [target(inv(1), 1000)]),
        problem: { field: 'allocations[0]', message: 'no such invoice: 9' },
      },
      {
        name: 'refuses an allocationID that is not one of the source',
        input: input([keep(99, inv(1), 100)], [target(inv(1), 1000)], [held(7, inv(1), 100)]),
        problem: { field: 'allocations[0].allocationID', message: '99 is not an allocation of payment 1' },
      },
      {
        name: 'refuses an allocationID listed twice, naming the second listing',
        input: input(
          [keep(7, inv(1), 100, 0), keep(7, inv(1), 200, 1)],
          [target(inv(1), 1000)],
          [held(7, inv(1), 100)],
        ),
        problem: { field: 'allocations[1].allocationID', message: '7 is listed twice' },
      },
      ...[0, -100, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN].map((amountMinor) => ({
        name: `refuses an amount of ${amountMinor} minor units`,
        input: input([add(inv(1), amountMinor)], [target(inv(1), 1000)]),
        problem: { field: 'allocations[0]', message: 'the amount applied must be greater than 0' },
      })),
      {
        name: 'shows amounts in the decimals of the currency (JPY: none)',
        input: {
          sourceLabel: 'payment 5',
          sourceAmountMinor: 1000,
          currencyCode: 'JPY',
          existing: [],
          requested: [add(inv(1), 600)],
          targets: byTarget([target(inv(1), 500, { currencyCode: 'JPY' })]),
        },
        problem: exceeds('allocations[0]', 'invoice 1', '500', '600'),
      },
    ];
  for (const { name, input: planInput, problem } of cases) {
    it(name, () => {
      expect(problemsOf(planInput)).toEqual([problem]);
    });
  }

  it('counts what the source already holds on a target as open to it again, and no more', () => {
    // Held 500 + open 200 = 700 available: 7.00 passes, 7.01 does not.
    const existing = [held(7, inv(1), 500)];
    expect(planOf(input([keep(7, inv(1), 700)], [target(inv(1), 200)], existing)).allocatedMinor).toBe(700);
    expect(problemsOf(input([keep(7, inv(1), 701)], [target(inv(1), 200)], existing))).toEqual([
      exceeds('allocations[0]', 'invoice 1', '7.00', '7.01'),
    ]);
  });

  it('accepts allocations that add up to exactly the amount of the source', () => {
    const plan = planOf(
      input([add(inv(1), 600, 0), add(inv(2), 400, 1)], [target(inv(1), 800), target(inv(2), 800)]),
    );
    expect(plan.allocatedMinor).toBe(1000);
  });

  it('reports every bad allocation of a request at once', () => {
    const problems = problemsOf(
      input(
        [add(inv(1), 0, 0), add(inv(2), 100, 1), add(inv(3), 2000, 2)],
        [target(inv(1), 1000), target(inv(2), 1000, { refusal: 'is a draft' }), target(inv(3), 5000)],
      ),
    );
    expect(problems.map((p) => p.field)).toEqual(['allocations[0]', 'allocations[1]', 'allocations[2]']);
  });
});
