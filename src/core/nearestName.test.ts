import { describe, expect, it } from 'vitest';
import { editDistance, nearestName } from './nearestName.ts';

describe('editDistance', () => {
  it('counts an insertion, a deletion, a substitution and a swap of neighbours as one edit each', () => {
    expect(editDistance('Email', 'Email')).toBe(0);
    expect(editDistance('Emal', 'Email')).toBe(1);
    expect(editDistance('Emaill', 'Email')).toBe(1);
    expect(editDistance('Emoil', 'Email')).toBe(1);
    expect(editDistance('Emial', 'Email')).toBe(1);
    expect(editDistance('', 'Qty')).toBe(3);
    expect(editDistance('VersionNo', 'VersionName')).toBe(3);
  });
});

describe('nearestName', () => {
  const customer = ['Name', 'Email', 'EmailCC', 'Address1', 'Address2', 'City'];

  it('prefers the same name in another letter case over a closer spelling', () => {
    expect(nearestName('email', customer)).toBe('Email');
    expect(nearestName('CITY', customer)).toBe('City');
  });

  it('suggests the nearest field within one edit per four letters, the first declared on a tie', () => {
    expect(nearestName('Emial', customer)).toBe('Email');
    expect(nearestName('Qyt', ['Descrip', 'Qty', 'UnitCostEx'])).toBe('Qty');
    expect(nearestName('Address', customer)).toBe('Address1');
    expect(nearestName('EmailBCC', customer)).toBe('EmailCC');
  });

  it('suggests nothing when no field is that close', () => {
    expect(nearestName('Nickname', customer)).toBeUndefined();
    expect(nearestName('VersionNo', ['VersionName', 'isActive'])).toBeUndefined();
    expect(nearestName('x', customer)).toBeUndefined();
  });
});

describe('nearestName for event types', () => {
  it('answers a wildcard or a type written a typo away, in the case it is known', () => {
    expect(nearestName('invoice.payed', ['invoice.paid', 'invoice.created'])).toBe('invoice.paid');
    expect(nearestName('Invoice.Paid', ['invoice.paid'])).toBe('invoice.paid');
  });
});
