import { describe, expect, it } from 'vitest';
import { isWireDate, parseWireDate } from './wireDates.ts';

describe('parseWireDate', () => {
  it.each([
    ['2016-03-15T14:23:37.3084056Z', 'UTC', '2016-03-15T14:23:37.308Z'],
    ['2026-03-05T10:00:00+02:00', 'UTC', '2026-03-05T08:00:00.000Z'],
    ['2026-03-05T10:00:00-0500', 'UTC', '2026-03-05T15:00:00.000Z'],
    ['2026-03-05 10:00', 'UTC', '2026-03-05T10:00:00.000Z'],
    ['2026-03-05T10:00', 'Africa/Johannesburg', '2026-03-05T08:00:00.000Z'],
    ['2026-03-05', 'Africa/Johannesburg', '2026-03-04T22:00:00.000Z'],
    ['05 Mar 2026', 'UTC', '2026-03-05T00:00:00.000Z'],
    ['5 mar 2026', 'America/New_York', '2026-03-05T05:00:00.000Z'],
    ['29 Feb 2028', 'UTC', '2028-02-29T00:00:00.000Z'],
  ])('reads %s in %s as %s', (text, zone, expected) => {
    expect(parseWireDate(text, zone)).toBe(expected);
  });

  it.each([
    '',
    'tomorrow',
    '2026-02-30',
    '29 Feb 2027',
    '05 Foo 2026',
    '2026-13-01',
    '2026/03/05',
    '05-Mar-2026',
    '1773000000',
  ])('refuses %j', (text) => {
    expect(parseWireDate(text, 'UTC')).toBeUndefined();
    expect(isWireDate(text)).toBe(false);
  });

  it.each([
    ['9999-12-31T23:59:59-14:00'],
    ['0000-01-01'],
    ['0001-01-01T00:30:00+01:00'],
    ['+010000-01-01T00:00:00Z'],
  ])('refuses %s, outside years 0001 to 9999 in UTC', (text) => {
    expect(parseWireDate(text, 'UTC')).toBeUndefined();
  });

  it('accepts the first and last instants of that range', () => {
    expect(parseWireDate('0001-01-01T00:00:00Z', 'UTC')).toBe('0001-01-01T00:00:00.000Z');
    expect(parseWireDate('9999-12-31T23:59:59.999Z', 'UTC')).toBe('9999-12-31T23:59:59.999Z');
  });

  it('resolves a wall time in a daylight-saving gap forward, not to an error', () => {
    // 2026-03-08 02:30 does not exist in New York (clocks jump 02:00 -> 03:00); Temporal's default moves it later.
    expect(parseWireDate('2026-03-08T02:30', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
  });
});
