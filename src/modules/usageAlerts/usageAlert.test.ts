import { describe, expect, it } from 'vitest';
import { alertValue, combinationOf, hasReached, readQuantityThreshold } from './usageAlert.ts';
import type { UsageLine } from './usageAlert.ts';

describe('a quantity threshold read from the wire', () => {
  it('is exact, canonical and positive, with at most 4 places', () => {
    expect(readQuantityThreshold(8000)).toEqual({ quantity: '8000' });
    expect(readQuantityThreshold('12.5000')).toEqual({ quantity: '12.5' });
    expect(readQuantityThreshold(0.0001)).toEqual({ quantity: '0.0001' });
    expect(readQuantityThreshold('1000000000000000')).toEqual({ quantity: '1000000000000000' });
  });

  it('refuses zero, negatives, a fifth place, text and what passes 10^15', () => {
    expect(readQuantityThreshold(0)).toEqual({ message: 'must be greater than 0' });
    expect(readQuantityThreshold('-3')).toEqual({ message: 'must be greater than 0' });
    expect(readQuantityThreshold('1.00001')).toEqual({ message: 'must have at most 4 decimal places' });
    expect(readQuantityThreshold('ten')).toEqual({ message: 'must be a decimal number' });
    expect(readQuantityThreshold('1e3')).toEqual({ message: 'must be a decimal number' });
    expect(readQuantityThreshold('1000000000000000.0001')).toEqual({ message: 'must be at most 10^15' });
  });
});

describe('whether an alert has reached its threshold', () => {
  const quantity = (q: string) => ({ kind: 'quantity' as const, quantity: q });
  const amount = (minor: number) => ({ kind: 'amount' as const, amountMinor: minor });

  it('fires on reaching it exactly, not a ten-thousandth or a cent before', () => {
    expect(hasReached(quantity('8000'), quantity('8000'))).toBe(true);
    expect(hasReached(quantity('8000'), quantity('7999.9999'))).toBe(false);
    expect(hasReached(quantity('0.3'), quantity('0.30000'))).toBe(true);
    expect(hasReached(amount(5000), amount(5000))).toBe(true);
    expect(hasReached(amount(5000), amount(4999))).toBe(false);
  });

  it('never compares a quantity with an amount', () => {
    expect(() => hasReached(quantity('1'), amount(1))).toThrow();
  });
});

describe("an alert's value from the usage so far", () => {
  const lines: UsageLine[] = [
    { componentId: 9, metricCode: 'api', group: 'eu', quantity: '1200', amountMinor: 600 },
    { componentId: 9, metricCode: 'api', group: 'us', quantity: '300', amountMinor: 150 },
    // A second component linked to the same metric reads the same events, priced its own way.
    { componentId: 12, metricCode: 'api', group: 'eu', quantity: '1200', amountMinor: 1200 },
    { componentId: 12, metricCode: 'api', group: 'us', quantity: '300', amountMinor: 300 },
    { componentId: 10, metricCode: 'seats', group: '', quantity: '7.5', amountMinor: 3000 },
  ];
  const sum = { code: 'api', aggregation: 'sum' };

  it("reads a metric's quantity once, in one group or its groups combined", () => {
    expect(alertValue({ kind: 'quantity', metric: sum, group: 'eu' }, lines)).toEqual({
      kind: 'quantity',
      quantity: '1200',
    });
    expect(alertValue({ kind: 'quantity', metric: sum, group: null }, lines)).toEqual({
      kind: 'quantity',
      quantity: '1500',
    });
    expect(
      alertValue({ kind: 'quantity', metric: { code: 'api', aggregation: 'max' }, group: null }, lines),
    ).toEqual({ kind: 'quantity', quantity: '1200' });
    expect(alertValue({ kind: 'quantity', metric: sum, group: 'apac' }, lines)).toEqual({
      kind: 'quantity',
      quantity: '0',
    });
  });

  it('adds up amounts: of a metric (every component linking it), of a group, or of everything', () => {
    expect(alertValue({ kind: 'amount', metric: sum, group: null }, lines)).toEqual({
      kind: 'amount',
      amountMinor: 2250,
    });
    expect(alertValue({ kind: 'amount', metric: sum, group: 'us' }, lines)).toEqual({
      kind: 'amount',
      amountMinor: 450,
    });
    expect(alertValue({ kind: 'amount', metric: null, group: null }, lines)).toEqual({
      kind: 'amount',
      amountMinor: 5250,
    });
  });

  it('refuses to combine the groups of a unique_count or a latest', () => {
    expect(combinationOf('unique_count')).toBeUndefined();
    expect(combinationOf('latest')).toBeUndefined();
    expect(combinationOf('weighted_sum')).toBe('sum');
    const unique = { code: 'api', aggregation: 'unique_count' };
    expect(() => alertValue({ kind: 'quantity', metric: unique, group: null }, lines)).toThrow();
    expect(alertValue({ kind: 'quantity', metric: unique, group: 'us' }, lines)).toEqual({
      kind: 'quantity',
      quantity: '300',
    });
  });
});
