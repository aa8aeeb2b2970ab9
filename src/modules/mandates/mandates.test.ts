import { describe, expect, it } from 'vitest';
import type { FieldProblem } from '../../errors.ts';
import { actionDayProblem, debitFrequencyOf, escalationOf, maxAmountProblem } from './mandates.ts';

describe('debit frequencies', () => {
  it('reads the spec examples in any letter case, and refuses Daily', () => {
    expect(debitFrequencyOf('Monthly')).toBe('Monthly');
    expect(debitFrequencyOf('weekly')).toBe('Weekly');
    expect(debitFrequencyOf('YEARLY')).toBe('Yearly');
    expect(debitFrequencyOf('Annually')).toBe('Yearly');
    expect(debitFrequencyOf('ad hoc')).toBe('AdHoc');
    expect(debitFrequencyOf('Daily')).toBeUndefined();
  });

  it('knows no frequency named after what every object inherits', () => {
    for (const text of ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'])
      expect(debitFrequencyOf(text), text).toBeUndefined();
  });
});

describe('action days', () => {
  it('takes weekdays for weekly and days of the month (or 99) for monthly', () => {
    expect(actionDayProblem('Weekly', 7)).toBeUndefined();
    expect(actionDayProblem('Weekly', 8)).toMatch(/1 \(Monday\) to 7/);
    expect(actionDayProblem('Monthly', 31)).toBeUndefined();
    expect(actionDayProblem('Monthly', 99)).toBeUndefined();
    expect(actionDayProblem('Monthly', 0)).toMatch(/1 to 31/);
    expect(actionDayProblem('Monthly', 32)).toMatch(/1 to 31/);
  });
});

describe('the maximum amount', () => {
  it('lies between the instalment and 1.5 times it, exactly', () => {
    expect(maxAmountProblem(1000, 1500)).toBeUndefined();
    expect(maxAmountProblem(1000, 1501)).toMatch(/1.5/);
    expect(maxAmountProblem(1001, 1501)).toBeUndefined(); // 1.5 × 10.01 = 15.015
    expect(maxAmountProblem(1000, 999)).toMatch(/at least/);
  });
});

describe('escalation', () => {
  it('is a yearly percentage with at most 2 decimals', () => {
    const problems: FieldProblem[] = [];
    expect(escalationOf(10, 'f', problems)).toBe('10');
    expect(escalationOf('7.50%', 'f', problems)).toBe('7.5');
    expect(escalationOf(0, 'f', problems)).toBe('0');
    expect(problems).toEqual([]);
    expect(escalationOf(100.5, 'f', problems)).toBeUndefined();
    expect(escalationOf('1.234', 'f', problems)).toBeUndefined();
    expect(problems.map((p) => p.field)).toEqual(['f', 'f']);
  });
});
