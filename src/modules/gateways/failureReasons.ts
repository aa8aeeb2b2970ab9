/**
 * Why a gateway refused a charge, in our words: each provider's codes are normalised into these reasons
 * (docs/gateways.md), and each reason has the retry class the dunning schedule follows
 * (docs/design/collections.md, "Retries").
 */

/** How a failed attempt is retried. */
export type RetryClass = 'soft' | 'hard' | 'customer_action' | 'technical';

/** The normalised reasons a gateway answers with (docs/gateways.md), each with its retry class. */
export const FAILURE_REASONS = {
  insufficient_funds: 'soft',
  card_declined: 'soft',
  expired_card: 'hard',
  lost_card: 'hard',
  stolen_card: 'hard',
  invalid_account: 'hard',
  account_closed: 'hard',
  debits_not_allowed: 'hard',
  account_holder_mismatch: 'hard',
  authentication_required: 'customer_action',
  processing_error: 'technical',
  gateway_timeout: 'technical',
} as const satisfies Record<string, RetryClass>;

export type FailureReason = keyof typeof FAILURE_REASONS;

export function retryClassOf(reason: FailureReason): RetryClass {
  return FAILURE_REASONS[reason];
}
