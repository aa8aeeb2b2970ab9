import { describe, expect, it } from 'vitest';
import { addQuantities, fitsLimit, governingGrant, grantOf, remainingOf } from './entitlements.ts';

const on = (limit: string | null = null, value: string | null = null) => ({ enabled: true, limit, value });
const off = { enabled: false, limit: null, value: null };

describe('grantOf', () => {
  it('takes the override whole over the package value, and the package value when there is no override', () => {
    expect(grantOf(7, on('100'), on('5'))).toEqual({ subscriptionId: 7, source: 'override', grant: on('5') });
    expect(grantOf(7, on('100'), undefined)).toEqual({
      subscriptionId: 7,
      source: 'package',
      grant: on('100'),
    });
    expect(grantOf(7, undefined, off)).toEqual({ subscriptionId: 7, source: 'override', grant: off });
    expect(grantOf(7, undefined, undefined)).toBeUndefined();
  });
});

describe('governingGrant', () => {
  it('is the enabled grant of the subscription created first, whatever the order given', () => {
    const grants = [
      { subscriptionId: 9, source: 'package' as const, grant: on('10') },
      { subscriptionId: 3, source: 'override' as const, grant: off },
      { subscriptionId: 5, source: 'package' as const, grant: on('50') },
    ];
    expect(governingGrant(grants)?.subscriptionId).toBe(5);
  });

  it('is undefined when every grant is off, or there is none', () => {
    expect(governingGrant([{ subscriptionId: 1, source: 'override', grant: off }])).toBeUndefined();
    expect(governingGrant([])).toBeUndefined();
  });
});

describe('limits', () => {
  it('allows reaching the limit exactly and refuses passing it by the smallest step', () => {
    expect(fitsLimit('100', '97', '3')).toBe(true);
    expect(fitsLimit('100', '97', '3.0001')).toBe(false);
    expect(fitsLimit('0.5', '0.2', '0.3')).toBe(true);
  });

  it('allows anything when unlimited', () => {
    expect(fitsLimit(null, '1000000000', '1000000000')).toBe(true);
    expect(remainingOf(null, '12')).toBeNull();
  });

  it('says what remains exactly, never below zero (usage recorded past a lowered limit)', () => {
    expect(remainingOf('100', '97.25')).toBe('2.75');
    expect(remainingOf('100', '130')).toBe('0');
    expect(remainingOf('0.3', '0.1')).toBe('0.2');
    expect(addQuantities('0.1', '0.2')).toBe('0.3');
  });
});
