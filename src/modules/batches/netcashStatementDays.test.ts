import { describe, expect, it } from 'vitest';
import { lateWindowEnd } from '../../core/bankingDays.ts';
import { addDays } from '../../core/calendar.ts';
import { statementDaysOf } from './netcashStatementDays.ts';

describe('the days whose Netcash statement a batch needs', () => {
  it('runs from the action date to yesterday, weekends included, each day once for batches that overlap', () => {
    // Monday 9 and Wednesday 11 March 2026, read on Monday 16 March.
    expect(statementDaysOf(['2026-03-11', '2026-03-09'], '2026-03-16')).toEqual([
      '2026-03-09',
      '2026-03-10',
      '2026-03-11',
      '2026-03-12',
      '2026-03-13',
      '2026-03-14',
      '2026-03-15',
    ]);
  });

  it('is none before the day after the action date, and none after the late window', () => {
    expect(statementDaysOf(['2026-03-09'], '2026-03-09')).toEqual([]);
    expect(statementDaysOf(['2026-03-09'], '2026-03-10')).toEqual(['2026-03-09']);
    const end = lateWindowEnd('debit_order', '2026-03-09');
    const days = statementDaysOf(['2026-03-09'], addDays(end, 30));
    expect(days.at(-1)).toBe(end);
    expect(days[0]).toBe('2026-03-09');
  });
});
