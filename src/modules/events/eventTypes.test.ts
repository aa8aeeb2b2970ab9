import { describe, expect, it } from 'vitest';
import { changedFields } from './eventTypes.ts';

describe('changedFields', () => {
  it('names each field whose JSON differs, with its value before (null for a field that appeared)', () => {
    const customer = { Balance: 10 };
    const before = {
      NumTries: 0,
      NextTryDate: '2026-12-01T00:00:00.000Z',
      Customer: customer,
      Taxes: [{ Perc: 15 }],
    };
    const after = { NumTries: 1, NextTryDate: null, Customer: customer, Taxes: [{ Perc: 15 }], Notes: 'new' };
    expect(changedFields(before, after)).toEqual({
      NumTries: 0,
      NextTryDate: '2026-12-01T00:00:00.000Z',
      Notes: null,
    });
  });

  it('compares objects by their JSON, whether or not they are the same object', () => {
    const shared = { Balance: 10 };
    expect(changedFields({ Customer: shared }, { Customer: shared })).toEqual({});
    expect(changedFields({ Customer: { Balance: 10 } }, { Customer: { Balance: 10 } })).toEqual({});
    expect(changedFields({ Customer: { Balance: 10 } }, { Customer: { Balance: 11 } })).toEqual({
      Customer: { Balance: 10 },
    });
  });
});
