import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromCardToken, fromReference, toCardToken, toReference } from './paystackReference.ts';

describe('Paystack references from our idempotency keys', () => {
  it('uses only the characters Paystack allows, and gives the key back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (key) => {
        const reference = toReference(key);
        expect(reference).toMatch(/^[A-Za-z0-9.=-]*$/);
        expect(fromReference(reference)).toBe(key);
      }),
    );
  });

  it('never gives two keys the same reference', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(toReference(a)).not.toBe(toReference(b));
      }),
    );
  });

  it('keeps a plain key readable and refuses a reference we did not make', () => {
    expect(toReference('charge_12_3')).toBe('charge.5f12.5f3');
    expect(fromReference('T685312322670591')).toBe('T685312322670591');
    expect(fromReference('a.zz')).toBeUndefined();
    expect(fromReference('a=b')).toBeUndefined();
  });
});

describe('card tokens', () => {
  it('hold the authorization code and the e-mail address, and nothing else parses as one', () => {
    const token = toCardToken({ authorizationCode: 'AUTH_uh8bcl3zbn', email: 'payer@example.com' });
    expect(fromCardToken(token)).toEqual({
      authorizationCode: 'AUTH_uh8bcl3zbn',
      email: 'payer@example.com',
    });
    expect(fromCardToken('tok_4242')).toBeUndefined();
    expect(fromCardToken('paystack1.bm90IGpzb24')).toBeUndefined();
  });
});
