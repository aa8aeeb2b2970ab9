import { describe, expect, it } from 'vitest';
import { reasonOf, savedCardOf, stripeAmount, tokenOf } from './stripeMapping.ts';

describe("amounts in Stripe's unit", () => {
  it('are our minor units for two-, zero- and three-decimal currencies', () => {
    expect(stripeAmount(1999, 'ZAR')).toBe(1999);
    expect(stripeAmount(1500, 'JPY')).toBe(1500);
    expect(stripeAmount(12345, 'BHD')).toBe(12345);
  });

  it("are hundredths for ISK and UGX, which ISO counts in whole units (Stripe's special cases)", () => {
    expect(stripeAmount(500, 'ISK')).toBe(50000);
    expect(stripeAmount(7000, 'UGX')).toBe(700000);
  });
});

describe("Stripe's decline codes", () => {
  it("become our reasons, the issuer's code first", () => {
    expect(reasonOf('insufficient_funds', 'card_declined')).toBe('insufficient_funds');
    expect(reasonOf('generic_decline', 'card_declined')).toBe('card_declined');
    expect(reasonOf(undefined, 'expired_card')).toBe('expired_card');
    expect(reasonOf('stolen_card', 'card_declined')).toBe('stolen_card');
    expect(reasonOf('lost_card', 'card_declined')).toBe('lost_card');
    expect(reasonOf('do_not_honor', 'card_declined')).toBe('card_declined');
    expect(reasonOf('authentication_required', 'authentication_required')).toBe('authentication_required');
    expect(reasonOf('something_new', undefined)).toBe('card_declined');
  });

  it('know no code named after what every object inherits', () => {
    for (const code of ['constructor', 'toString', '__proto__', 'valueOf'])
      expect(reasonOf(code, code), code).toBe('card_declined');
  });
});

describe('the token', () => {
  it('names the Stripe customer and payment method, and nothing else reads as one', () => {
    expect(savedCardOf(tokenOf('cus_Abc1', 'pm_Xyz2'))).toEqual({
      customerId: 'cus_Abc1',
      paymentMethodId: 'pm_Xyz2',
    });
    expect(savedCardOf('tok_test_abc')).toBeUndefined();
    expect(savedCardOf('stripe:cus_1:card_2')).toBeUndefined();
  });
});
