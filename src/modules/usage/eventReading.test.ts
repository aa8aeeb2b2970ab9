import { describe, expect, it } from 'vitest';
import { MAX_KEY_TEXT, readEvent, readValue } from './eventReading.ts';
import type { MetricReading } from './eventReading.ts';

const tokens: MetricReading = {
  aggregation: 'sum',
  property: 'tokens',
  filters: [{ property: 'model', values: ['large', 'small'] }],
  groupBy: 'region',
};

describe('what a metric reads from an event', () => {
  it('reads the value in ten-thousandths and the group, from numbers and decimal strings', () => {
    expect(readEvent(tokens, { tokens: 12.5, model: 'large', region: 'eu' })).toEqual({
      counts: true,
      value: 125_000n,
      unique: '',
      group: 'eu',
    });
    expect(readEvent(tokens, { tokens: '0.0001', model: 'small' })).toEqual({
      counts: true,
      value: 1n,
      unique: '',
      group: '',
    });
  });

  it('leaves out an event its filters do not hold for, a missing property included', () => {
    expect(readEvent(tokens, { tokens: 1, model: 'medium' })).toEqual({ counts: false });
    expect(readEvent(tokens, { tokens: 1 })).toEqual({ counts: false });
  });

  it('names the property when the value cannot be aggregated', () => {
    expect(readEvent(tokens, { model: 'large' })).toEqual({
      problem: 'must be a number (or a decimal string)',
      field: 'properties.tokens',
    });
    expect(readEvent(tokens, { tokens: '1e3x', model: 'large' })).toMatchObject({
      field: 'properties.tokens',
    });
  });

  it('counts without a property, and counts distinct values as text', () => {
    const calls: MetricReading = { aggregation: 'count', property: null, filters: [], groupBy: null };
    expect(readEvent(calls, {})).toEqual({ counts: true, value: 0n, unique: '', group: '' });
    const users: MetricReading = {
      aggregation: 'unique_count',
      property: 'user',
      filters: [],
      groupBy: null,
    };
    expect(readEvent(users, { user: 42 })).toEqual({ counts: true, value: 0n, unique: '42', group: '' });
    expect(readEvent(users, { user: { id: 1 } })).toMatchObject({ field: 'properties.user' });
  });

  it('bounds the text of a group and of a counted value, which stored keys hold', () => {
    const users: MetricReading = {
      aggregation: 'unique_count',
      property: 'user',
      filters: [],
      groupBy: 'region',
    };
    const longest = 'é'.repeat(MAX_KEY_TEXT);
    expect(readEvent(users, { user: longest, region: longest })).toMatchObject({ counts: true });
    expect(readEvent(users, { user: 'u1', region: `${longest}x` })).toEqual({
      problem: 'may have at most 255 characters: it names a group',
      field: 'properties.region',
    });
    expect(readEvent(users, { user: `${longest}x`, region: 'eu' })).toEqual({
      problem: 'may have at most 255 characters: the metric counts its distinct values',
      field: 'properties.user',
    });
  });
});

describe('readValue', () => {
  it('keeps 4 decimals exactly and refuses a fifth', () => {
    expect(readValue('0.1234')).toBe(1234n);
    expect(readValue(0.1)).toBe(1000n);
    expect(readValue('-3')).toBe(-30_000n);
    expect(readValue('0.12345')).toBe('may have at most 4 decimals');
  });

  it('refuses what an hour’s sum could not hold, and what is not a decimal', () => {
    expect(readValue('1000000000')).toBe(10_000_000_000_000n);
    expect(readValue('1000000000.0001')).toBe('must be between -1000000000 and 1000000000');
    expect(readValue(Number.POSITIVE_INFINITY)).toBe('must be a number (or a decimal string)');
    expect(readValue(true)).toBe('must be a number (or a decimal string)');
  });
});

describe('weighted_sum values', () => {
  it('are bounded to ±10^6, so that an hour of them stays inside 64 bits', () => {
    const held: MetricReading = {
      aggregation: 'weighted_sum',
      property: 'seats',
      filters: [],
      groupBy: null,
    };
    expect(readEvent(held, { seats: 1_000_000 })).toMatchObject({ counts: true, value: 10_000_000_000n });
    expect(readEvent(held, { seats: '-1000000.0001' })).toEqual({
      problem: 'must be between -1000000 and 1000000 for a weighted_sum metric',
      field: 'properties.seats',
    });
  });
});
