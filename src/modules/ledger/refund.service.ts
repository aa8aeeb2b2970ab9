import type { ServiceContext } from '../../context.ts';
import { today } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import { findRefundAdjustment, insertRefundAdjustment } from './adjustment.service.ts';
import { allocationsOfSources, applyAllocations } from './allocation.service.ts';
import { withLockedRecord } from './moneySource.ts';
import { getPaymentRow, sourceOf } from './payment.service.ts';
import type { PaymentRow } from './payment.repository.ts';

/**
 * Money paid back to a customer through the gateway that collected it (spec: "a refund is treated as a positive
 * adjustment"): a positive `refund` adjustment of the amount, to which the payment's unallocated money is
 * allocated. The customer's credit falls by the refund; the invoices the payment paid stay paid.
 */

/** What of a settled, gateway-collected payment can be refunded now; 409 or 422 (naming Amount) otherwise. */
export function assertRefundable(payment: PaymentRow, amountMinor: number): void {
  if (payment.payment_method_id === null || payment.state !== 'settled') {
    throw new ConflictError(
      'payment_not_refundable',
      `Payment ${payment.id} was not collected and settled through a gateway: record money paid back with an adjustment`,
    );
  }
  const unallocated = payment.amount_minor - payment.allocated_minor;
  if (amountMinor > unallocated) {
    const left = minorToDecimalText(unallocated, payment.currency_code);
    throw ValidationError.field(
      'Amount',
      `must be at most ${left}, what payment ${payment.id} has not allocated: release its allocations first (PUT /v1/payments/${payment.id})`,
    );
  }
}

/**
 * Records a refund the gateway made (`refundId`), under the customer's lock, once: asked again for a refund
 * already recorded (a retried request, two at once), it changes nothing. Returns the refund adjustment's id.
 */
export function recordGatewayRefund(
  ctx: ServiceContext,
  refund: { paymentId: number; amountMinor: number; refundId: string; memo: string },
): Promise<number> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, refund.paymentId),
    async (ctx, row) => {
      const recorded = await findRefundAdjustment(ctx, row.customer_id, refund.refundId);
      if (recorded !== undefined) return recorded;
      assertRefundable(row, refund.amountMinor);
      const ref = { type: 'payment', id: row.id };
      const before = await snapshotResource(ctx, ref);
      const adjustmentId = await insertRefundAdjustment(ctx, {
        customerId: row.customer_id,
        currencyCode: row.currency_code,
        amountMinor: refund.amountMinor,
        date: today(ctx),
        ref: refund.refundId,
        memo: refund.memo,
      });
      // The payment keeps every allocation it has, and gives the refund its share.
      const kept = (await allocationsOfSources(ctx, 'payment', [row.id])).get(row.id) ?? [];
      const entries = [
        ...kept.map((allocation, i) => ({
          allocationId: allocation.id,
          amountMinor: allocation.amountMinor,
          target:
            allocation.targetType === 'invoice'
              ? { invoiceId: allocation.targetId }
              : { adjustmentId: allocation.targetId },
          field: `allocations[${i}]`,
          targetField: `allocations[${i}].invoiceID`,
        })),
        {
          allocationId: null,
          amountMinor: refund.amountMinor,
          target: { adjustmentId },
          field: `allocations[${kept.length}]`,
          targetField: `allocations[${kept.length}].positiveAdjustmentID`,
        },
      ];
      const outcome = await applyAllocations(ctx, sourceOf(row), { autoApply: false, entries });
      await emitEvents(ctx, [{ type: 'payment.refunded', ref, before }, ...outcome.targetEvents]);
      return adjustmentId;
    },
  );
}
