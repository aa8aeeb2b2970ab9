import { describe, expect, it } from 'vitest';
import type { FieldProblem } from '../../errors.ts';
import { checkedIdentity, shownIdentity } from './bankAccountIdentity.ts';

const check = (
  given: { idNumber?: string | null; idType?: string | null },
  method = 'debit_order' as const,
) => {
  const problems: FieldProblem[] = [];
  return { identity: checkedIdentity(given, method, problems), problems };
};

describe("a bank account's identity number", () => {
  it('is an SA ID number unless IdType says passport, written without spaces', () => {
    expect(check({ idNumber: '800101 5009 087' })).toEqual({
      identity: { kind: 'sa_id', number: '8001015009087' },
      problems: [],
    });
    expect(check({ idNumber: 'a1234567', idType: 'Passport' }).identity).toEqual({
      kind: 'passport',
      number: 'A1234567',
    });
    expect(shownIdentity({ kind: 'sa_id', number: '8001015009087' })).toEqual({
      kind: 'sa_id',
      ending: '087',
    });
  });

  it('is left alone when not given, cleared when blank', () => {
    expect(check({}).identity).toBeUndefined();
    expect(check({ idNumber: null }).identity).toBeNull();
    expect(check({ idNumber: '  ' }).identity).toBeNull();
  });

  it('names the field of every problem, never the number', () => {
    const wrongDigit = check({ idNumber: '8001015009088' });
    expect(wrongDigit.identity).toBeNull();
    expect(wrongDigit.problems).toEqual([
      { field: 'BankAccount.IdNumber', message: 'has a wrong check digit' },
    ]);
    expect(check({ idNumber: '8001015009087', idType: 'licence' }).problems[0]?.field).toBe(
      'BankAccount.IdType',
    );
    expect(check({ idType: 'passport' }).problems[0]?.field).toBe('BankAccount.IdType');
    const ach = check({ idNumber: '8001015009087' }, 'ach' as never);
    expect(ach.problems).toEqual([
      { field: 'BankAccount.IdNumber', message: 'is only for debit_order, not ach' },
    ]);
    expect(JSON.stringify([wrongDigit, ach])).not.toContain('800101500908');
  });
});
