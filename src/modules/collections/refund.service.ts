import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { optionalText } from '../../core/text.ts';
import { GatewayTimeoutError, canCharge, getGateway, refundCharge } from '../gateways/index.ts';
import { assertRefundable, getPayment, getPaymentRow, recordGatewayRefund } from '../ledger/index.ts';
import type { Payment } from '../ledger/index.ts';
import * as repo from './collectionAttempt.repository.ts';

/**
 * Refunds a card payment through the gateway that charged it (beyond the spec: `POST /v1/payments/{id}/refund`):
 * the gateway first, outside any transaction, then the refund recorded (ledger: a positive `refund` adjustment the
 * payment is allocated to). The gateway's idempotency key is made of the payment and what it had allocated and is
 * refunding, so a retried request after a lost answer or a crash refunds once and records once.
 */
export async function refundPayment(
  ctx: ServiceContext,
  paymentId: number,
  input: { amount: string; memo?: string | null },
): Promise<Payment> {
  const row = await getPaymentRow(ctx, paymentId);
  const amount = wireAmountToMinor(input.amount, row.currency_code);
  if (!('minor' in amount)) throw ValidationError.field('Amount', amount.message);
  if (amount.minor <= 0) throw ValidationError.field('Amount', 'must be above 0');
  assertRefundable(row, amount.minor);
  const charge = await repo.findChargeOfPayment(ctx.db, ctx.account.id, paymentId);
  const gateway = charge?.charge_id ? await getGateway(ctx, charge.gateway_id) : undefined;
  if (!gateway || !canCharge(gateway)) {
    throw new ConflictError(
      'payment_not_refundable',
      `Payment ${paymentId} was not charged to a card by a gateway: a bank debit is refunded by the debtor's bank`,
    );
  }
  let result;
  try {
    result = await refundCharge(ctx, gateway, {
      chargeId: charge!.charge_id!,
      amountMinor: amount.minor,
      currencyCode: row.currency_code,
      idempotencyKey: `refund_${paymentId}_${row.allocated_minor}_${amount.minor}`,
    });
  } catch (error) {
    if (!(error instanceof GatewayTimeoutError)) throw error;
    throw new ConflictError(
      'refund_unanswered',
      `Gateway ${gateway.id} did not answer; send the same request again: the refund is made at most once`,
    );
  }
  if (result.outcome !== 'succeeded') {
    throw new ConflictError(
      'refund_declined',
      `Gateway ${gateway.id} refused the refund (${result.rawCode})`,
    );
  }
  await recordGatewayRefund(ctx, {
    paymentId,
    amountMinor: amount.minor,
    refundId: result.refundId,
    memo: optionalText(input.memo) ?? `Refunded through gateway ${gateway.id}`,
  });
  return getPayment(ctx, paymentId);
}
