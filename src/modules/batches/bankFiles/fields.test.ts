import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { isPlainDate } from './fields.ts';

/** Whether Temporal takes the text as an existing date, the reference isPlainDate must agree with. */
function temporalTakes(text: string): boolean {
  try {
    Temporal.PlainDate.from(text, { overflow: 'reject' });
    return true;
  } catch {
    return false;
  }
}

describe('isPlainDate', () => {
  it('agrees with Temporal on every day number 00 to 32 of every month of leap and common years', () => {
    const pad = (n: number) => String(n).padStart(2, '0');
    for (const year of ['0000', '1900', '1999', '2000', '2024', '2026', '2100', '2400', '9999']) {
      for (let month = 0; month <= 13; month += 1) {
        for (let day = 0; day <= 32; day += 1) {
          const text = `${year}-${pad(month)}-${pad(day)}`;
          expect(isPlainDate(text), text).toBe(temporalTakes(text));
        }
      }
    }
  });

  it('takes only the YYYY-MM-DD form', () => {
    for (const text of [
      '2026-3-01',
      '2026-03-1',
      '20260301',
      '2026-03-01T00:00',
      ' 2026-03-01',
      '+2026-03-01',
      '',
    ]) {
      expect(isPlainDate(text), text).toBe(false);
    }
    expect(isPlainDate('2024-02-29')).toBe(true);
    expect(isPlainDate('2026-02-29')).toBe(false);
  });
});
