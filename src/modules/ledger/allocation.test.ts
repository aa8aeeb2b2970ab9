import { describe, expect, it } from 'vitest';
import { inv } from './allocation.fixtures.ts';
import {
  autoApply,
  negativeAdjustmentStatus,
  paymentStatus,
  positiveAdjustmentStatus,
  spreadSources,
} from './allocation.ts';

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

describe('spreadSources', () => {
  it('fills the targets in order with the oldest source first, the next one going on where it stopped', () => {
    // 180.00 then 50.00 over invoices of 114.80 and 100.00: the first pays 114.80 and 65.20 of the second, the
    // next 34.80 of the second; 15.20 of it is left.
    expect(
      spreadSources(
        [18000, 5000],
        [
          { target: inv(1), openMinor: 11480 },
          { target: inv(2), openMinor: 10000 },
        ],
      ),
    ).toEqual([
      [
        { target: inv(1), amountMinor: 11480 },
        { target: inv(2), amountMinor: 6520 },
      ],
      [{ target: inv(2), amountMinor: 3480 }],
    ]);
  });

  it('gives nothing when nothing is open, and never more than a target owes', () => {
    expect(spreadSources([1000, 1000], [{ target: inv(1), openMinor: 0 }])).toEqual([[], []]);
    expect(spreadSources([300, 300], [{ target: inv(1), openMinor: 500 }])).toEqual([
      [{ target: inv(1), amountMinor: 300 }],
      [{ target: inv(1), amountMinor: 200 }],
    ]);
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
