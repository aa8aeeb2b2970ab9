import { describe, expect, it } from 'vitest';
import { subscriptionStatus } from './subscriptionStatus.ts';

describe('subscriptionStatus', () => {
  const base = { startDate: '2026-03-01', endDate: null, trialEndDate: null, cancelDate: null };
  it.each([
    ['Future', 'before the start', base, '2026-02-28'],
    [
      'Future',
      'before the start, cancellation scheduled later',
      { ...base, cancelDate: '2026-06-01' },
      '2026-02-28',
    ],
    ['Active', 'on the start', base, '2026-03-01'],
    ['Active', 'after the start', base, '2026-09-01'],
    ['Trial', 'on the start of a trial', { ...base, trialEndDate: '2026-03-08' }, '2026-03-01'],
    ['Trial', 'the last day of a trial', { ...base, trialEndDate: '2026-03-08' }, '2026-03-07'],
    ['Active', 'the day a trial ends', { ...base, trialEndDate: '2026-03-08' }, '2026-03-08'],
    ['Future', 'before a trial starts', { ...base, trialEndDate: '2026-03-08' }, '2026-02-28'],
    ['Active', 'before a scheduled cancellation', { ...base, cancelDate: '2026-06-01' }, '2026-05-31'],
    ['Cancelled', 'on the cancel date', { ...base, cancelDate: '2026-06-01' }, '2026-06-01'],
    ['Cancelled', 'after the cancel date', { ...base, cancelDate: '2026-06-01' }, '2026-07-01'],
    ['Cancelled', 'cancelled before it started', { ...base, cancelDate: '2026-02-01' }, '2026-02-15'],
    [
      'Cancelled',
      'cancelled during its trial',
      { ...base, trialEndDate: '2026-03-08', cancelDate: '2026-03-05' },
      '2026-03-06',
    ],
    ['Active', 'the day before the EndDate', { ...base, endDate: '2026-06-01' }, '2026-05-31'],
    ['Expired', 'on the EndDate', { ...base, endDate: '2026-06-01' }, '2026-06-01'],
    ['Expired', 'after the EndDate', { ...base, endDate: '2026-06-01' }, '2027-01-01'],
    [
      'Cancelled',
      'cancelled and past its EndDate',
      { ...base, endDate: '2026-06-01', cancelDate: '2026-05-01' },
      '2026-07-01',
    ],
  ])('is %s %s', (expected, _name, timeline, today) => {
    expect(subscriptionStatus(timeline, today)).toBe(expected);
  });
});
