import { describe, expect, it } from 'vitest';
import { RAILS, lateWindowEnd, oldestActionDateWithLateReturns } from './batches.ts';

describe('late windows', () => {
  it('looks back as far as the longest rail window, ACH 60 days, and no further', () => {
    const today = '2026-03-01';
    const oldest = oldestActionDateWithLateReturns(today);
    // 2026-03-01 − 60 days = 2025-12-31.
    expect(oldest).toBe('2025-12-31');
    expect(lateWindowEnd('ach', oldest)).toBe(today);
    for (const rail of RAILS) expect(lateWindowEnd(rail, oldest) <= today).toBe(true);
  });
});
