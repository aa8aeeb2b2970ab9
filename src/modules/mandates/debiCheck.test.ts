import { describe, expect, it } from 'vitest';
import type { FieldProblem } from '../../errors.ts';
import { checkedDebiCheck, collectionDayCode, debiCheckCollectionProblem } from './debiCheck.ts';
import type { DebitTermsForDebiCheck } from './debiCheck.ts';

const MONTHLY: DebitTermsForDebiCheck = {
  frequency: 'Monthly',
  actionDay: 25,
  amountMinor: 30_000,
  maxAmountMinor: 45_000,
  variableAmounts: false,
  variableAmountsGiven: false,
};
const ID = '8001015009087';

function check(input: Parameters<typeof checkedDebiCheck>[0], debit = MONTHLY) {
  const problems: FieldProblem[] = [];
  return { result: checkedDebiCheck(input, debit, problems), fields: problems.map((p) => p.field) };
}

describe('a DebiCheck mandate’s terms', () => {
  it('are none for an ordinary mandate, and the terms with the number apart for a DebiCheck one', () => {
    expect(check({}).result).toBeNull();
    const { result, fields } = check({ contractType: 'Usage-Based', idKind: 'SA ID', idNumber: `${ID} ` });
    expect(fields).toEqual([]);
    expect(result).toEqual({
      terms: {
        contractType: 'usage',
        trackingDays: 0,
        firstAmountMinor: null,
        idKind: 'sa_id',
        idEnding: '087',
      },
      idNumber: ID,
    });
  });

  it('refuse a weekly day, a fixed contract with variable amounts, too many tracking days and a bad number', () => {
    const weekly = { ...MONTHLY, frequency: 'Weekly' as const, actionDay: 3 };
    expect(check({ contractType: 'fixed', idKind: 'sa_id', idNumber: ID }, weekly).fields).toEqual([
      'debit_ActionDay',
    ]);
    const variable = { ...MONTHLY, variableAmounts: true, variableAmountsGiven: true };
    expect(
      check({ contractType: 'fixed', idKind: 'passport', idNumber: 'A1234567' }, variable).fields,
    ).toEqual(['debit_VariableAmts']);
    expect(
      check({ contractType: 'loan', trackingDays: 11, idKind: 'sa_id', idNumber: '8001015009088' }).fields,
    ).toEqual(['DebiCheckContractType', 'DebiCheckTrackingDays', 'DebiCheckIdNumber']);
    expect(check({ contractType: 'fixed', firstAmountMinor: 45_001 }).fields).toEqual([
      'DebiCheckFirstAmt',
      'DebiCheckIdType',
      'DebiCheckIdNumber',
    ]);
  });

  it('name Netcash’s day code, and allow a collection only once authenticated', () => {
    expect(collectionDayCode(3)).toBe('MNTH_03');
    const at = { gatewayId: 1, contractReference: 'NC1', requestedAt: null, answeredAt: null, reason: null };
    expect(debiCheckCollectionProblem({ ...at, status: 'authenticated', expiresAt: null })).toBeUndefined();
    expect(debiCheckCollectionProblem({ ...at, status: null, expiresAt: null })).toMatch(/never asked/);
    expect(
      debiCheckCollectionProblem({ ...at, status: 'pending', expiresAt: '2026-12-02T00:00:00.000Z' }),
    ).toBe('its DebiCheck authentication is pending until 2026-12-02T00:00:00.000Z');
    expect(debiCheckCollectionProblem({ ...at, status: 'declined', expiresAt: null })).toBe(
      'its DebiCheck authentication is declined',
    );
  });
});
