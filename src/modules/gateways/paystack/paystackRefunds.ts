import type { RefundRequest, RefundResult } from '../gatewayContract.ts';
import { GatewayTimeoutError } from '../gatewayContract.ts';
import { isServerError, isUnauthorized } from './paystackApi.ts';
import type { PaystackClient } from './paystackApi.ts';
import { takesCurrency } from './paystackOutcomes.ts';

/**
 * Refunds (docs/gateways/paystack.md, "Refunds"). Paystack takes no idempotency key on POST /refund, so our key
 * goes in the refund's `merchant_note`, and before refunding the driver lists the transaction's refunds: one whose
 * note names our key is the refund asked for (after a lost answer, or a crash), answered again and not made twice.
 * Its amount must be the one asked; a key reused for another amount is an error, never a second refund.
 */

interface PaystackRefund {
  id?: number | string;
  status?: string;
  amount?: number;
  merchant_note?: string | null;
}

export const refundNote = (idempotencyKey: string) => `openbill refund ${idempotencyKey}`;

/**
 * A refund's state as ours: `processed` is done; `failed` is refused (the money stays with the business); anything
 * else (`pending`, `processing`, `needs-attention`) is pending, ended later by refund.processed or refund.failed.
 */
export function refundResultOf(refund: PaystackRefund): RefundResult {
  const refundId = String(refund.id ?? '');
  if (refund.status === 'processed') return { outcome: 'succeeded', refundId };
  if (refund.status === 'failed')
    return { outcome: 'declined', reason: 'processing_error', rawCode: 'refund_failed' };
  return { outcome: 'pending', refundId };
}

async function ourRefund(
  client: PaystackClient,
  request: RefundRequest,
): Promise<PaystackRefund | undefined> {
  const query = new URLSearchParams({ transaction: request.chargeId, perPage: '100' });
  const answer = await client.call('refund', 'GET', `/refund?${query.toString()}`);
  if (!answer.status || !Array.isArray(answer.data)) throw new GatewayTimeoutError('refund');
  const note = refundNote(request.idempotencyKey);
  return (answer.data as PaystackRefund[]).find((refund) => refund.merchant_note === note);
}

export async function paystackRefund(client: PaystackClient, request: RefundRequest): Promise<RefundResult> {
  const existing = await ourRefund(client, request);
  if (existing) {
    if (existing.amount !== request.amountMinor) {
      return {
        outcome: 'error',
        reason: 'processing_error',
        rawCode: 'refund_key_reused_for_another_amount',
      };
    }
    return refundResultOf(existing);
  }
  const answer = await client.call('refund', 'POST', '/refund', {
    transaction: request.chargeId,
    amount: request.amountMinor,
    ...(takesCurrency(request.currencyCode) ? { currency: request.currencyCode } : {}),
    merchant_note: refundNote(request.idempotencyKey),
  });
  if (isUnauthorized(answer)) {
    return { outcome: 'error', reason: 'processing_error', rawCode: `unauthorized: ${answer.message}` };
  }
  if (isServerError(answer)) throw new GatewayTimeoutError('refund');
  if (!answer.status || !answer.data) {
    return { outcome: 'declined', reason: 'processing_error', rawCode: answer.message };
  }
  return refundResultOf(answer.data as PaystackRefund);
}
