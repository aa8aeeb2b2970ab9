import { describe, expect, it } from 'vitest';
import { lastSubmitDate } from '../../core/bankingDays.ts';
import { fileReminderDue } from './fileReminders.ts';

// Thursday 12 March 2026: two business days before it, the last safe day is Tuesday 10 March.
const ACTION_DATE = '2026-03-12';

describe('when the staff are told a file waits to reach Netcash', () => {
  it('is each business day up to the last safe day, once a day, the last one said so', () => {
    expect(lastSubmitDate('debit_order', ACTION_DATE)).toBe('2026-03-10');
    expect(fileReminderDue(ACTION_DATE, '2026-03-05', null)).toBe('waiting');
    expect(fileReminderDue(ACTION_DATE, '2026-03-05', '2026-03-05')).toBeUndefined();
    expect(fileReminderDue(ACTION_DATE, '2026-03-06', '2026-03-05')).toBe('waiting');
    expect(fileReminderDue(ACTION_DATE, '2026-03-10', '2026-03-09')).toBe('last_day');
    expect(fileReminderDue(ACTION_DATE, '2026-03-10', '2026-03-10')).toBeUndefined();
  });

  it('is once more after the last safe day, to say the cut-off was missed, and then never', () => {
    expect(fileReminderDue(ACTION_DATE, '2026-03-11', '2026-03-10')).toBe('missed');
    expect(fileReminderDue(ACTION_DATE, '2026-03-11', null)).toBe('missed');
    expect(fileReminderDue(ACTION_DATE, '2026-03-12', '2026-03-11')).toBeUndefined();
    expect(fileReminderDue(ACTION_DATE, '2026-03-20', '2026-03-11')).toBeUndefined();
  });
});
