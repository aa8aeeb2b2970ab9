/**
 * Stripe's documented test cards (docs.stripe.com/testing), as the simulator plays them: what confirming an intent
 * with the card does, on session (the cardholder in the Payment Element) and off session (a renewal). The
 * simulator keeps only the brand, last four digits and the behaviour, never the number.
 */

export interface CardBehaviour {
  /** Declined whenever it is confirmed, saved or charged (`code`, `decline_code`). */
  declines?: { code: string; declineCode?: string };
  /** Saved fine, declined when charged (4000 0000 0000 0341). */
  declinesCharges?: { code: string; declineCode: string };
  /**
   * 3-D Secure: `always` asks on every payment, off session too (4000 0027 6000 3184); `unless_set_up` asks on
   * session, and off session only for a card not set up for later charges (4000 0025 0000 3155).
   */
  authentication?: 'always' | 'unless_set_up';
  /** The charge succeeds, then the cardholder disputes it (4000 0000 0000 0259). */
  disputed?: boolean;
}

const declined = (code: string, declineCode?: string): CardBehaviour => ({
  declines: declineCode ? { code, declineCode } : { code },
});

/** By number; any other number that passes Luhn is approved. */
export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4000000000000002': declined('card_declined', 'generic_decline'),
  '4000000000009995': declined('card_declined', 'insufficient_funds'),
  '4000000000009987': declined('card_declined', 'lost_card'),
  '4000000000009979': declined('card_declined', 'stolen_card'),
  '4000000000000069': declined('expired_card'),
  '4000000000000127': declined('incorrect_cvc'),
  '4000000000000119': declined('processing_error'),
  '4000000000000341': { declinesCharges: { code: 'card_declined', declineCode: 'generic_decline' } },
  '4000002760003184': { authentication: 'always' },
  '4000002500003155': { authentication: 'unless_set_up' },
  '4000000000000259': { disputed: true },
};

/** Stripe's test PaymentMethods (docs.stripe.com/testing, "Test code"), by the card each stands for. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, string>> = {
  pm_card_visa: '4242424242424242',
  pm_card_mastercard: '5555555555554444',
  pm_card_amex: '378282246310005',
  pm_card_visa_chargeDeclined: '4000000000000002',
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_chargeDeclinedLostCard: '4000000000009987',
  pm_card_chargeDeclinedStolenCard: '4000000000009979',
  pm_card_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeCustomerFail: '4000000000000341',
  pm_card_authenticationRequired: '4000002760003184',
  pm_card_authenticationRequiredOnSetup: '4000002500003155',
  pm_card_createDispute: '4000000000000259',
};

/** The card's brand as Stripe names it (PaymentMethod `card.brand`), by its leading digits. */
export function brandOf(number: string): string {
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^4/.test(number)) return 'visa';
  if (/^3(0[0-5]|[68])/.test(number)) return 'diners';
  if (/^6(011|5)/.test(number)) return 'discover';
  if (/^35/.test(number)) return 'jcb';
  return 'unknown';
}

export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(number) && sum % 10 === 0;
}

/** Stripe's messages for the codes the simulator answers (their wording, shortened). */
export const MESSAGES: Readonly<Record<string, string>> = {
  generic_decline: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  lost_card: 'Your card was declined.',
  stolen_card: 'Your card was declined.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  processing_error: 'An error occurred while processing your card. Try again in a little bit.',
  authentication_required: 'Your card was declined. This transaction requires authentication.',
};
