import type { ServiceContext } from '../../context.ts';
import { today } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { insertRefundAdjustment } from './adjustment.service.ts';
import * as adjustments from './adjustment.repository.ts';
import { allocationsOfSources, applyAllocations } from './allocation.service.ts';
import type { AllocationEntry } from './allocation.service.ts';
import { withLockedRecord } from './moneySource.ts';
import { getPaymentRow, sourceOf } from './payment.service.ts';
import type { PaymentRow } from './payment.repository.ts';

/**
 * Money paid back to a customer through the gateway that collected it (spec: "a refund is treated as a positive
 * adjustment"): a positive `refund` adjustment of the amount, to which the payment's unallocated money is
 * allocated. It is made in two steps around the gateway's call: reserved (the adjustment and the allocation, so two
 * refunds at once cannot both take the same money), then confirmed with the gateway's refund id, or released when
 * the gateway refused. The customer's credit falls by the refund; the invoices the payment paid stay paid.
 */

/** Whether the amount of a settled, gateway-collected payment can be refunded now; 409 or 422 (naming Amount). */
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

/** The payment's allocations as a request keeps them (by id), with `adjustmentId`'s share `amountMinor` or none. */
async function allocationsWith(
  ctx: ServiceContext,
  payment: PaymentRow,
  adjustmentId: number,
  amountMinor: number,
): Promise<AllocationEntry[]> {
  const kept = ((await allocationsOfSources(ctx, 'payment', [payment.id])).get(payment.id) ?? []).filter(
    (allocation) => !(allocation.targetType === 'adjustment' && allocation.targetId === adjustmentId),
  );
  const entries: AllocationEntry[] = kept.map((allocation, i) => ({
    allocationId: allocation.id,
    amountMinor: allocation.amountMinor,
    target:
      allocation.targetType === 'invoice'
        ? { invoiceId: allocation.targetId }
        : { adjustmentId: allocation.targetId },
    field: `allocations[${i}]`,
    targetField: `allocations[${i}].invoiceID`,
  }));
  if (amountMinor > 0) {
    entries.push({
      allocationId: null,
      amountMinor,
      target: { adjustmentId },
      field: `allocations[${kept.length}]`,
      targetField: `allocations[${kept.length}].positiveAdjustmentID`,
    });
  }
  return entries;
}

/**
 * Step 1, under the customer's lock: the refund adjustment (its Ref empty until the gateway names the refund) and
 * the payment's allocation to it. `claim` runs last in the same transaction (the caller records its attempt there).
 */
export function reserveRefund<T>(
  ctx: ServiceContext,
  refund: { paymentId: number; amountMinor: number; memo: string },
  claim: (ctx: ServiceContext, adjustmentId: number, payment: PaymentRow) => Promise<T>,
): Promise<T> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, refund.paymentId),
    async (ctx, row) => {
      assertRefundable(row, refund.amountMinor);
      const adjustmentId = await insertRefundAdjustment(ctx, {
        customerId: row.customer_id,
        currencyCode: row.currency_code,
        amountMinor: refund.amountMinor,
        date: today(ctx),
        memo: refund.memo,
      });
      const ref = { type: 'payment', id: row.id };
      const before = await snapshotResource(ctx, ref);
      const entries = await allocationsWith(ctx, row, adjustmentId, refund.amountMinor);
      const outcome = await applyAllocations(ctx, sourceOf(row), { autoApply: false, entries });
      await emitEvents(ctx, [{ type: 'payment.allocated', ref, before }, ...outcome.targetEvents]);
      return claim(ctx, adjustmentId, row);
    },
  );
}

/**
 * Step 2, the gateway refunded: the adjustment names its refund id; `payment.refunded`. `finish` runs first in the
 * transaction and says whether this answer is the first recorded (another process may have recorded it).
 */
export function confirmRefund(
  ctx: ServiceContext,
  refund: { paymentId: number; adjustmentId: number; refundId: string },
  finish: (ctx: ServiceContext) => Promise<boolean>,
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, refund.paymentId),
    async (ctx, row) => {
      if (!(await finish(ctx))) return;
      const adjustmentRef = { type: 'adjustment', id: refund.adjustmentId };
      const before = await snapshotResource(ctx, adjustmentRef);
      await adjustments.updateAdjustment(ctx.db, ctx.account.id, refund.adjustmentId, {
        ref: refund.refundId,
        updated_at: ctx.clock.now().toISOString(),
      });
      await emitEvents(ctx, [
        { type: 'payment.refunded', ref: { type: 'payment', id: row.id } },
        { type: 'adjustment.updated', ref: adjustmentRef, before },
      ]);
    },
  );
}

/** Step 2, the gateway refused: the reservation goes (the payment's money is unallocated again); `finish` as above. */
export function releaseRefund(
  ctx: ServiceContext,
  refund: { paymentId: number; adjustmentId: number },
  finish: (ctx: ServiceContext) => Promise<boolean>,
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, refund.paymentId),
    async (ctx, row) => {
      if (!(await finish(ctx))) return;
      const ref = { type: 'payment', id: row.id };
      const adjustmentRef = { type: 'adjustment', id: refund.adjustmentId };
      const before = await snapshotResource(ctx, ref);
      const adjustmentBefore = await snapshotResource(ctx, adjustmentRef);
      const entries = await allocationsWith(ctx, row, refund.adjustmentId, 0);
      const outcome = await applyAllocations(ctx, sourceOf(row), { autoApply: false, entries });
      await adjustments.deleteAdjustment(ctx.db, ctx.account.id, refund.adjustmentId);
      const events: EventToEmit[] = [
        { type: 'payment.allocated', ref, before },
        ...outcome.targetEvents.filter((event) => event.ref.id !== refund.adjustmentId),
        { type: 'adjustment.deleted', ref: adjustmentRef, before: adjustmentBefore },
      ];
      await emitEvents(ctx, events);
    },
  );
}
