import { describe, expect, it } from 'vitest';
import { DEFAULT_DUNNING_POLICY, nextTryAfterFailure } from './dunning.ts';

const failure = (
  retryClass: 'soft' | 'hard' | 'customer_action' | 'technical',
  tries: number,
  at: string,
) => ({
  retryClass,
  tries,
  firstFailureAt: '2026-03-01T15:00:00.000Z',
  technicalErrorsInRow: retryClass === 'technical' ? tries : 0,
  at,
  timeZone: 'Pacific/Auckland',
});

describe('nextTryAfterFailure', () => {
  it('retries soft declines at +1, +3, +7 and +14 days after the first failure, at the start of the account’s day', () => {
    // 2026-03-01T15:00Z is 04:00 on 2 March in Auckland (UTC+13): day 0 is 2 March there.
    const next = [1, 2, 3, 4].map(
      (tries) =>
        nextTryAfterFailure(failure('soft', tries, '2026-03-01T15:00:00.000Z'), DEFAULT_DUNNING_POLICY)
          .nextTryAt,
    );
    // Start of 3, 5, 9 and 16 March in Auckland (UTC+13 until April).
    expect(next).toEqual([
      '2026-03-02T11:00:00.000Z',
      '2026-03-04T11:00:00.000Z',
      '2026-03-08T11:00:00.000Z',
      '2026-03-15T11:00:00.000Z',
    ]);
  });

  it('is exhausted after the fifth try', () => {
    expect(
      nextTryAfterFailure(failure('soft', 5, '2026-03-15T11:00:00.000Z'), DEFAULT_DUNNING_POLICY),
    ).toEqual({
      nextTryAt: null,
      exhausted: true,
    });
  });

  it('never retries a hard decline or one that needs the customer, and does not call it exhausted', () => {
    for (const retryClass of ['hard', 'customer_action'] as const) {
      expect(
        nextTryAfterFailure(failure(retryClass, 1, '2026-03-01T15:00:00.000Z'), DEFAULT_DUNNING_POLICY),
      ).toEqual({
        nextTryAt: null,
        exhausted: false,
      });
    }
  });

  it('backs technical errors off by 5, 10, 20 ... minutes, then falls back to the soft schedule', () => {
    const at = '2026-03-01T15:00:00.000Z';
    expect(nextTryAfterFailure(failure('technical', 1, at), DEFAULT_DUNNING_POLICY).nextTryAt).toBe(
      '2026-03-01T15:05:00.000Z',
    );
    expect(nextTryAfterFailure(failure('technical', 3, at), DEFAULT_DUNNING_POLICY).nextTryAt).toBe(
      '2026-03-01T15:20:00.000Z',
    );
    // Past the eighth: no try counted yet, so the first day of the soft schedule (the start of 3 March there).
    const past = { ...failure('technical', 9, at), tries: 0 };
    expect(nextTryAfterFailure(past, DEFAULT_DUNNING_POLICY).nextTryAt).toBe('2026-03-02T11:00:00.000Z');
  });

  it('never schedules a retry in the past', () => {
    const late = { ...failure('soft', 1, '2026-03-10T00:00:00.000Z') };
    // +1 day from the first failure is long gone: tomorrow, in the account’s zone (11 March there is 10 March 11:00Z).
    expect(nextTryAfterFailure(late, DEFAULT_DUNNING_POLICY).nextTryAt).toBe('2026-03-10T11:00:00.000Z');
  });
});
