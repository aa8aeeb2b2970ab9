import { describe, expect, it } from 'vitest';
import { chargeResultOf, metadataOf, reasonOf } from './paystackOutcomes.ts';

// Paystack's words into ours (docs/gateways/paystack.md, "What Paystack answers").

describe("a transaction's status", () => {
  it.each([
    [{ status: 'success' }, { outcome: 'succeeded', chargeId: 'ref1' }],
    [
      { status: 'reversed', gateway_response: 'Reversed' },
      { outcome: 'declined', reason: 'card_declined', rawCode: 'Reversed' },
    ],
    [
      { status: 'send_otp', url: 'https://checkout.paystack.com/x' },
      {
        outcome: 'requires_action',
        chargeId: 'ref1',
        action: { kind: 'redirect', url: 'https://checkout.paystack.com/x' },
        rawCode: 'send_otp',
      },
    ],
    [{ status: 'paused' }, { outcome: 'declined', reason: 'authentication_required', rawCode: 'paused' }],
    [{ status: 'queued' }, { outcome: 'pending', chargeId: 'ref1' }],
    [{ status: 'a_status_added_later' }, { outcome: 'pending', chargeId: 'ref1' }],
    [{}, { outcome: 'error', reason: 'processing_error', rawCode: 'no_status' }],
  ])('%j is %j', (transaction, result) => {
    expect(chargeResultOf(transaction, 'ref1')).toEqual(result);
  });
});

describe("the issuer's answer", () => {
  it.each([
    ['Insufficient Funds', 'insufficient_funds'],
    ['Not sufficient funds', 'insufficient_funds'],
    ['Expired Card', 'expired_card'],
    ['Stolen Card', 'stolen_card'],
    ['Pick-up card', 'lost_card'],
    ['Transaction requires authentication', 'authentication_required'],
    ['Issuer or switch inoperative', 'processing_error'],
    ['Do Not Honor', 'card_declined'],
    [undefined, 'card_declined'],
  ] as const)('"%s" is %s', (text, reason) => {
    expect(reasonOf(text)).toBe(reason);
  });
});

describe('metadata', () => {
  it('is read as an object or as JSON text, and is empty otherwise', () => {
    expect(metadataOf({ metadata: { keep_card: false } })).toEqual({ keep_card: false });
    expect(metadataOf({ metadata: '{"keep_card":true}' })).toEqual({ keep_card: true });
    expect(metadataOf({ metadata: '' })).toEqual({});
    expect(metadataOf({ metadata: '{broken' })).toEqual({});
  });
});
