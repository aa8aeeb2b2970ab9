import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dateAt,
  daysBetween,
  maxDate,
  minDate,
  parseWireCalendarDate,
  startOfDate,
} from './calendar.ts';

const ZONES = ['UTC', 'Africa/Johannesburg', 'America/New_York', 'Pacific/Auckland'] as const;

describe('dateAt', () => {
  it.each([
    // UTC: the date of the instant itself
    ['2026-01-31T23:59:59.999Z', 'UTC', '2026-01-31'],
    ['2026-02-01T00:00:00.000Z', 'UTC', '2026-02-01'],
    ['2024-02-29T12:00:00Z', 'UTC', '2024-02-29'],
    // Johannesburg, UTC+2 all year: a day starts at 22:00Z the day before
    ['2026-01-31T21:59:59Z', 'Africa/Johannesburg', '2026-01-31'], // 23:59:59 SAST
    ['2026-01-31T22:00:00Z', 'Africa/Johannesburg', '2026-02-01'], // 00:00 SAST
    ['2026-07-15T22:00:00Z', 'Africa/Johannesburg', '2026-07-16'], // no DST in winter either
    // New York before the change of 2026-03-08 (EST, UTC−5) and after (EDT, UTC−4)
    ['2026-03-08T04:59:59Z', 'America/New_York', '2026-03-07'], // 23:59:59 EST
    ['2026-03-08T05:00:00Z', 'America/New_York', '2026-03-08'], // 00:00 EST
    ['2026-03-08T07:30:00Z', 'America/New_York', '2026-03-08'], // 03:30 EDT, after the skipped hour
    ['2026-03-09T03:59:59Z', 'America/New_York', '2026-03-08'], // 23:59:59 EDT
    ['2026-03-09T04:00:00Z', 'America/New_York', '2026-03-09'], // 00:00 EDT
    // New York at the change back of 2026-11-01 (EDT → EST at 02:00 local)
    ['2026-11-01T03:59:59Z', 'America/New_York', '2026-10-31'], // 23:59:59 EDT
    ['2026-11-01T04:00:00Z', 'America/New_York', '2026-11-01'], // 00:00 EDT
    ['2026-11-02T04:59:59Z', 'America/New_York', '2026-11-01'], // 23:59:59 EST
    ['2026-11-02T05:00:00Z', 'America/New_York', '2026-11-02'], // 00:00 EST
    // Auckland, UTC+13 in (southern) summer, UTC+12 in winter: a day starts the previous UTC day
    ['2025-12-31T10:59:59Z', 'Pacific/Auckland', '2025-12-31'], // 23:59:59 NZDT
    ['2025-12-31T11:00:00Z', 'Pacific/Auckland', '2026-01-01'], // 00:00 NZDT, still 2025 in UTC
    ['2026-07-14T11:59:59Z', 'Pacific/Auckland', '2026-07-14'], // 23:59:59 NZST
    ['2026-07-14T12:00:00Z', 'Pacific/Auckland', '2026-07-15'], // 00:00 NZST
  ])('puts %s on %s in %s', (instant, zone, expected) => {
    expect(dateAt(instant, zone)).toBe(expected);
    expect(dateAt(new Date(instant), zone)).toBe(expected);
  });

  it('reads an instant written with an offset', () => {
    expect(dateAt('2026-03-08T23:30:00-05:00', 'UTC')).toBe('2026-03-09'); // 04:30Z
    expect(dateAt('2026-03-08T23:30:00-05:00', 'America/New_York')).toBe('2026-03-09'); // 00:30 EDT
  });

  it('refuses an unreadable instant or an unknown zone', () => {
    expect(() => dateAt('yesterday', 'UTC')).toThrow(RangeError);
    expect(() => dateAt('2026-01-01T00:00:00Z', 'Mars/Olympus_Mons')).toThrow(RangeError);
  });

  // dateAt reads each zone's offset once an hour (see calendar.ts): it must agree with Temporal at every instant,
  // through changes of offset, in zones whose offsets are not whole hours, and outside the years it shortcuts.
  const temporalDateAt = (epochMilliseconds: number, zone: string) =>
    Temporal.Instant.fromEpochMilliseconds(epochMilliseconds)
      .toZonedDateTimeISO(zone)
      .toPlainDate()
      .toString();
  const ODD_ZONES = [
    ...ZONES,
    'Europe/London',
    'Australia/Lord_Howe', // a change of 30 minutes
    'Asia/Kathmandu', // +05:45
    'Pacific/Chatham', // +12:45 and +13:45
    'America/St_Johns', // -03:30 and -02:30
    'Pacific/Apia', // skipped 2011-12-30 whole
    'Africa/Casablanca', // leaves its summer offset for Ramadan
  ];

  it('agrees with Temporal at any instant from 1900 to 2200, in every zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        fc.constantFrom(...ODD_ZONES),
        (epochMilliseconds, zone) => {
          expect(dateAt(new Date(epochMilliseconds), zone)).toBe(temporalDateAt(epochMilliseconds, zone));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('agrees with Temporal on each side of every change of offset from 2000 to 2040', () => {
    for (const zone of ODD_ZONES) {
      let instant = Temporal.Instant.from('2000-01-01T00:00:00Z');
      for (;;) {
        const change = instant.toZonedDateTimeISO(zone).getTimeZoneTransition('next');
        if (!change || change.year > 2040) break;
        instant = change.toInstant();
        for (const deltaMs of [-3_600_001, -3_600_000, -60_000, -1, 0, 1, 60_000, 3_599_999, 3_600_000]) {
          const at = instant.epochMilliseconds + deltaMs;
          expect(dateAt(new Date(at), zone), `${zone} ${at}`).toBe(temporalDateAt(at, zone));
        }
      }
    }
  });

  it('agrees with Temporal near and beyond the ends of the years it shortcuts', () => {
    for (const iso of [
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00Z',
      '9999-12-31T09:59:59Z',
      '9999-12-31T23:59:59Z',
    ]) {
      for (const zone of ODD_ZONES) expect(dateAt(iso, zone)).toBe(temporalDateAt(Date.parse(iso), zone));
    }
  });
});

describe('startOfDate', () => {
  it.each([
    ['2026-02-01', 'UTC', '2026-02-01T00:00:00.000Z'],
    ['2026-02-01', 'Africa/Johannesburg', '2026-01-31T22:00:00.000Z'], // 00:00 at UTC+2
    ['2026-03-07', 'America/New_York', '2026-03-07T05:00:00.000Z'], // EST, UTC−5
    ['2026-03-08', 'America/New_York', '2026-03-08T05:00:00.000Z'], // the change is at 02:00, midnight is EST
    ['2026-03-09', 'America/New_York', '2026-03-09T04:00:00.000Z'], // EDT, UTC−4
    ['2026-11-01', 'America/New_York', '2026-11-01T04:00:00.000Z'], // midnight still EDT
    ['2026-11-02', 'America/New_York', '2026-11-02T05:00:00.000Z'], // EST again
    ['2026-01-15', 'Pacific/Auckland', '2026-01-14T11:00:00.000Z'], // NZDT, UTC+13
    ['2026-07-15', 'Pacific/Auckland', '2026-07-14T12:00:00.000Z'], // NZST, UTC+12
    ['2026-04-05', 'Pacific/Auckland', '2026-04-04T11:00:00.000Z'], // change day: midnight is still NZDT
    ['2026-04-06', 'Pacific/Auckland', '2026-04-05T12:00:00.000Z'], // NZST from 03:00 on the 5th
  ])('starts %s in %s at %s', (date, zone, expected) => {
    expect(startOfDate(date, zone)).toBe(expected);
  });

  it('is the first instant of the date: its date is the date, a millisecond before is the day before', () => {
    const dates = fc.integer({ min: 0, max: 365 * 40 }).map((offset) => addDays('2000-01-01', offset));
    fc.assert(
      fc.property(dates, fc.constantFrom(...ZONES), (date, zone) => {
        const start = startOfDate(date, zone);
        expect(dateAt(start, zone)).toBe(date);
        expect(dateAt(new Date(Date.parse(start) - 1), zone)).toBe(addDays(date, -1));
      }),
    );
  });
});

describe('parseWireCalendarDate', () => {
  it.each([
    ['05 Mar 2026', 'Pacific/Auckland', '2026-03-05'], // a bare date is its own day in any zone
    ['2026-03-05', 'America/New_York', '2026-03-05'],
    ['2026-03-05T23:30:00Z', 'UTC', '2026-03-05'],
    ['2026-03-05T23:30:00Z', 'Africa/Johannesburg', '2026-03-06'], // 01:30 SAST the next day
    ['2026-03-05T02:00:00Z', 'America/New_York', '2026-03-04'], // 21:00 EST the day before
    ['2026-03-05T10:00', 'Pacific/Auckland', '2026-03-05'], // wall time in the zone
  ])('reads %s in %s as %s', (text, zone, expected) => {
    expect(parseWireCalendarDate(text, zone)).toBe(expected);
  });

  it.each(['2026-02-30', '31/12/2026', 'soon', ''])('gives undefined for %j', (text) => {
    expect(parseWireCalendarDate(text, 'UTC')).toBeUndefined();
  });
});

describe('daysBetween', () => {
  it.each([
    ['2026-01-22', '2026-02-01', 10], // 9 days left in January + 1
    ['2026-01-01', '2026-02-01', 31], // January
    ['2025-02-01', '2025-03-01', 28], // February, common year
    ['2024-02-01', '2024-03-01', 29], // February, leap year
    ['2026-03-15', '2026-04-15', 31], // March 15 to April 15
    ['2025-12-31', '2026-01-01', 1], // across a year end
    ['2024-01-01', '2025-01-01', 366], // a leap year
    ['2025-01-01', '2026-01-01', 365], // a common year
    ['2026-03-07', '2026-03-09', 2], // calendar days: New York's 23-hour day is still a day
    ['2026-02-01', '2026-01-22', -10], // backwards
    ['2026-02-01', '2026-02-01', 0],
  ])('counts %s to %s as %i days', (from, to, expected) => {
    expect(daysBetween(from, to)).toBe(expected);
  });

  it('agrees with addDays and is antisymmetric', () => {
    const date = fc.integer({ min: 0, max: 365 * 40 }).map((offset) => addDays('2000-01-01', offset));
    fc.assert(
      fc.property(date, fc.integer({ min: -1000, max: 1000 }), (from, days) => {
        const to = addDays(from, days);
        expect(daysBetween(from, to)).toBe(days);
        expect(daysBetween(to, from)).toBe(0 - days);
      }),
    );
  });
});

describe('addDays, minDate and maxDate', () => {
  it.each([
    ['2024-02-28', 1, '2024-02-29'], // leap day
    ['2025-02-28', 1, '2025-03-01'], // no leap day
    ['2026-03-01', -1, '2026-02-28'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2026-01-15', 0, '2026-01-15'],
    ['2026-01-15', -15, '2025-12-31'],
  ])('moves %s by %i days to %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it('picks the earlier and the later date', () => {
    expect(minDate('2026-01-31', '2026-02-01')).toBe('2026-01-31');
    expect(maxDate('2026-01-31', '2026-02-01')).toBe('2026-02-01');
    expect(minDate('2025-12-31', '2026-01-01')).toBe('2025-12-31');
    expect(maxDate('2026-03-05', '2026-03-05')).toBe('2026-03-05');
  });
});
