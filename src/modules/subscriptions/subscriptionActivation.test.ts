import { describe, expect, it } from 'vitest';
import type { FieldProblem } from '../../errors.ts';
import {
  activationStatusOf,
  checkActivateOnPayment,
  incompleteUntilOf,
  isAwaitingPayment,
  usageFrom,
} from './subscriptionActivation.ts';

const gated = { incompleteUntil: '2026-12-02', activatedOn: null, incompleteExpiredOn: null };

describe('the state of a subscription that starts when paid (docs/subscriptions.md)', () => {
  it('is read from its record: Incomplete, then paid (its dates decide) or IncompleteExpired', () => {
    expect(activationStatusOf(gated)).toBe('Incomplete');
    expect(isAwaitingPayment(gated)).toBe(true);
    expect(activationStatusOf({ ...gated, activatedOn: '2026-12-01' })).toBeUndefined();
    expect(activationStatusOf({ ...gated, incompleteExpiredOn: '2026-12-02' })).toBe('IncompleteExpired');
    expect(isAwaitingPayment({ ...gated, incompleteExpiredOn: '2026-12-02' })).toBe(false);
    // Not created with ActivateOnPayment.
    expect(activationStatusOf({ ...gated, incompleteUntil: null })).toBeUndefined();
  });
});

describe('the day it expires unpaid', () => {
  it('is the next day for a card, a pay link or money the customer sends', () => {
    for (const method of ['credit_card', 'hpp', 'eft', 'cash', null]) {
      expect(incompleteUntilOf(method, '2026-11-30'), String(method)).toBe('2026-12-01');
    }
  });

  it("is the day after a debit's return window, from the earliest action date of the creation day", () => {
    // Monday 30 Nov 2026: SA debit orders two business days on (Wed 2 Dec), unpaids within four more (Thu 3, Fri 4,
    // Mon 7, Tue 8 Dec): expires Wednesday 9 Dec.
    expect(incompleteUntilOf('debit_order', '2026-11-30')).toBe('2026-12-09');
    // Friday 4 Dec: action date Tue 8 Dec; window Wed 9, Thu 10, Fri 11, Mon 14 Dec: expires Tuesday 15 Dec.
    expect(incompleteUntilOf('debit_order', '2026-12-04')).toBe('2026-12-15');
    // SEPA: one business day on (Tue 1 Dec), five more (2, 3, 4, 7, 8 Dec): expires Wednesday 9 Dec.
    expect(incompleteUntilOf('sepa', '2026-11-30')).toBe('2026-12-09');
  });
});

describe('usage of a subscription paid late', () => {
  it('is counted from the day it was paid, and from the period start otherwise', () => {
    expect(usageFrom({ activatedOn: '2026-12-09' }, '2026-12-01')).toBe('2026-12-09');
    expect(usageFrom({ activatedOn: '2026-12-01' }, '2026-12-01')).toBe('2026-12-01');
    expect(usageFrom({ activatedOn: '2026-12-09' }, '2027-01-01')).toBe('2027-01-01');
    expect(usageFrom({ activatedOn: null }, '2026-12-01')).toBe('2026-12-01');
  });
});

describe('what ActivateOnPayment asks of a new subscription', () => {
  const check = (given: Partial<Parameters<typeof checkActivateOnPayment>[1]>) => {
    const problems: FieldProblem[] = [];
    checkActivateOnPayment(problems, {
      on: '2026-12-01',
      startDate: '2026-12-01',
      numDaysBeforeToInv: 0,
      trialPeriod: 0,
      ...given,
    });
    return problems.map((p) => p.field);
  };

  it('takes a start from today to numDaysBeforeToInv days ahead, without a trial', () => {
    expect(check({})).toEqual([]);
    expect(check({ startDate: '2026-12-04', numDaysBeforeToInv: 3 })).toEqual([]);
  });

  it('refuses a backdated start, one beyond the first invoice, and a trial', () => {
    expect(check({ startDate: '2026-11-30' })).toEqual(['StartDate']);
    expect(check({ startDate: '2026-12-05', numDaysBeforeToInv: 3 })).toEqual(['StartDate']);
    expect(check({ trialPeriod: 14 })).toEqual(['ActivateOnPayment']);
  });
});
