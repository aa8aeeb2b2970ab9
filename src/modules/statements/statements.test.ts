import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ageingBucket,
  ageingOf,
  nextStatementDate,
  statementOf,
  statementPeriodBefore,
  STATEMENT_ENTRY_KINDS,
} from './statements.ts';
import type { StatementEntry } from './statements.ts';

const entry = (
  kind: StatementEntry['kind'],
  id: number,
  date: string,
  amountMinor: number,
): StatementEntry => ({ kind, id, date, amountMinor });

describe('statementOf', () => {
  it('opens with what was dated before the start, lists the range in date order and closes with the sum', () => {
    const entries = [
      entry('payment', 1, '2026-03-10', -4_000),
      entry('invoice', 1, '2026-02-01', 10_000),
      entry('invoice', 2, '2026-03-01', 12_500),
      entry('credit_note', 1, '2026-03-10', -500),
      entry('adjustment', 3, '2026-03-10', 250),
      entry('invoice', 3, '2026-04-01', 9_999),
    ];
    const statement = statementOf(entries, '2026-03-01', '2026-03-31');
    // Opening: invoice 1 (100.00). March: +125.00 → 225.00; on the 10th the adjustment first (+2.50 → 227.50),
    // then the payment (−40.00 → 187.50), then the credit note (−5.00 → 182.50). Invoice 3 is after the end.
    expect(statement.openingMinor).toBe(10_000);
    expect(statement.lines.map((line) => [line.entry.kind, line.entry.id, line.balanceMinor])).toEqual([
      ['invoice', 2, 22_500],
      ['adjustment', 3, 22_750],
      ['payment', 1, 18_750],
      ['credit_note', 1, 18_250],
    ]);
    expect(statement.closingMinor).toBe(18_250);
  });

  it('includes both ends of the range and orders one day’s records of a kind by id', () => {
    const entries = [
      entry('payment', 9, '2026-03-31', -100),
      entry('payment', 2, '2026-03-31', -200),
      entry('invoice', 5, '2026-03-01', 1_000),
    ];
    const statement = statementOf(entries, '2026-03-01', '2026-03-31');
    // 0 + 10.00 → 10.00; payment 2 (−2.00) → 8.00; payment 9 (−1.00) → 7.00.
    expect(statement.lines.map((line) => [line.entry.id, line.balanceMinor])).toEqual([
      [5, 1_000],
      [2, 800],
      [9, 700],
    ]);
  });

  it('is empty with the opening as closing when nothing falls in the range', () => {
    const statement = statementOf([entry('invoice', 1, '2026-01-05', 3_000)], '2026-02-01', '2026-02-28');
    expect(statement).toEqual({ openingMinor: 3_000, lines: [], closingMinor: 3_000 });
  });

  it('never jumps: each line is the balance before it plus its amount, and the closing the last balance', () => {
    const arbitraryEntry = fc.record({
      kind: fc.constantFrom(...STATEMENT_ENTRY_KINDS),
      id: fc.integer({ min: 1, max: 50 }),
      date: fc
        .integer({ min: 0, max: 90 })
        .map((day) => new Date(Date.UTC(2026, 0, 1 + day)).toISOString().slice(0, 10)),
      amountMinor: fc.integer({ min: -1_000_000, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryEntry, { maxLength: 40 }), (entries) => {
        const statement = statementOf(entries, '2026-02-01', '2026-02-28');
        let balance = statement.openingMinor;
        for (const line of statement.lines) {
          expect(line.balanceMinor).toBe(balance + line.entry.amountMinor);
          balance = line.balanceMinor;
        }
        expect(statement.closingMinor).toBe(balance);
        const upToEnd = entries
          .filter((e) => e.date <= '2026-02-28')
          .reduce((sum, e) => sum + e.amountMinor, 0);
        expect(statement.closingMinor).toBe(upToEnd);
      }),
    );
  });
});

describe('ageingOf', () => {
  it('puts each amount whole into the bucket of its days past due', () => {
    const ageing = ageingOf(
      [
        { dueDate: '2026-03-31', openMinor: 1_000 }, // due today: 0 days, current
        { dueDate: '2026-04-15', openMinor: 2_000 }, // not yet due: current
        { dueDate: '2026-03-30', openMinor: 300 }, // 1 day
        { dueDate: '2026-03-01', openMinor: 400 }, // 30 days (1 Mar → 31 Mar)
        { dueDate: '2026-02-28', openMinor: 500 }, // 31 days
        { dueDate: '2026-01-30', openMinor: 600 }, // 60 days (30 Jan → 31 Mar: 1 + 28 + 31)
        { dueDate: '2026-01-29', openMinor: 700 }, // 61 days
        { dueDate: '2025-12-31', openMinor: 800 }, // 90 days (31 Dec → 31 Mar: 31 + 28 + 31)
        { dueDate: '2025-12-30', openMinor: 900 }, // 91 days
        { dueDate: '2025-01-01', openMinor: 0 }, // nothing open: left out
      ],
      '2026-03-31',
    );
    expect(ageing).toEqual({
      currentMinor: 3_000, // 1 000 + 2 000
      overdue1To30Minor: 700, // 300 + 400
      overdue31To60Minor: 1_100, // 500 + 600
      overdue61To90Minor: 1_500, // 700 + 800
      overdueOver90Minor: 900,
      totalMinor: 7_200, // 3 000 + 700 + 1 100 + 1 500 + 900
    });
  });

  it('bucket edges: 0, 1, 30, 31, 60, 61, 90, 91 days', () => {
    expect([-5, 0, 1, 30, 31, 60, 61, 90, 91, 400].map(ageingBucket)).toEqual([
      'currentMinor',
      'currentMinor',
      'overdue1To30Minor',
      'overdue1To30Minor',
      'overdue31To60Minor',
      'overdue31To60Minor',
      'overdue61To90Minor',
      'overdue61To90Minor',
      'overdueOver90Minor',
      'overdueOver90Minor',
    ]);
  });

  it('buckets add up to the total owed', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dueDate: fc
              .integer({ min: 0, max: 400 })
              .map((day) => new Date(Date.UTC(2025, 6, 1 + day)).toISOString().slice(0, 10)),
            openMinor: fc.integer({ min: -10_000, max: 1_000_000 }),
          }),
          { maxLength: 30 },
        ),
        (items) => {
          const ageing = ageingOf(items, '2026-03-31');
          const owed = items.filter((i) => i.openMinor > 0).reduce((sum, i) => sum + i.openMinor, 0);
          expect(ageing.totalMinor).toBe(owed);
          expect(
            ageing.currentMinor +
              ageing.overdue1To30Minor +
              ageing.overdue31To60Minor +
              ageing.overdue61To90Minor +
              ageing.overdueOver90Minor,
          ).toBe(owed);
        },
      ),
    );
  });
});

describe('nextStatementDate', () => {
  it('moves a month on, clamping to shorter months and returning to the day after', () => {
    expect(nextStatementDate('2026-01-31', 'monthly', '2026-01-31')).toBe('2026-02-28');
    expect(nextStatementDate('2026-03-01', 'monthly', '2026-03-01')).toBe('2026-04-01');
    expect(nextStatementDate('2026-01-15', 'quarterly', '2026-01-15')).toBe('2026-04-15');
    expect(nextStatementDate('2026-02-28', 'yearly', '2026-02-28')).toBe('2027-02-28');
  });

  it('skips the periods a date far behind missed: one statement, then the first date after today', () => {
    // 1 Jan + 1, 2, 3 months = 1 Feb, 1 Mar, 1 Apr; today is 10 Mar, so 1 Apr.
    expect(nextStatementDate('2026-01-01', 'monthly', '2026-03-10')).toBe('2026-04-01');
  });
});

describe('statementPeriodBefore', () => {
  it('is the period that ends the day before the statement date', () => {
    expect(statementPeriodBefore('2026-03-01', 'monthly')).toEqual({
      startDate: '2026-02-01',
      endDate: '2026-02-28',
    });
    expect(statementPeriodBefore('2026-04-01', 'quarterly')).toEqual({
      startDate: '2026-01-01',
      endDate: '2026-03-31',
    });
  });
});
