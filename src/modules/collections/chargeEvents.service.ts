import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { chargeEventsReadOn, isGatewayUsable, listGateways, readChargeEvents } from '../gateways/index.ts';
import type { ChargeEvent, Gateway } from '../gateways/index.ts';
import type { Payment } from '../ledger/index.ts';
import {
  findPaymentIdByChargeRef,
  getPayment,
  listPaymentIdsByChargeRef,
  recordCollectedPayment,
  reversePayment,
  settlePayment,
  withLockedCustomer,
} from '../ledger/index.ts';
import { emitEvents } from '../events/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import { noticeCollectionFailed, noticePaymentCollected } from './customerNotices.ts';
import { applyRefundEvent, chargeOfPayment } from './gatewayRefund.service.ts';

/**
 * What gateways report about their charges after the fact (docs/gateways.md, "Late events"): read once a business
 * day per gateway from a provider that keeps them (the test gateway), or pushed by a provider's webhook
 * (`applyChargeEvent` per event). Each is applied once, whichever way and however often it arrives.
 */
export async function applyChargeEvents(ctx: ServiceContext): Promise<number> {
  const on = today(ctx);
  let applied = 0;
  for (const gateway of await listGateways(ctx, { limit: 100, offset: 0 })) {
    if (!isGatewayUsable(gateway)) continue;
    if (await chargeEventsReadOn(ctx, gateway.id, on)) continue;
    for (const event of await readChargeEvents(ctx, gateway, on)) {
      if (await applyChargeEvent(ctx, gateway, event)) applied += 1;
    }
  }
  return applied;
}

/**
 * One late event, applied once (whether it changed anything):
 * - `dispute`: the payment is reversed (Failed with `disputed`, its invoices owe the money again), and nothing
 *   retries it: someone should look at a dispute;
 * - `dispute_won`: the money came back: a settled payment of the disputed amount, Ref `<charge>:dispute_won`,
 *   left unallocated on the customer's account (the invoices it paid may have been paid since);
 * - `dispute_lost`: the reversal stands (a dispute not told before is reversed now);
 * - `charge_settled` / `charge_failed`: a pending payment settles, or fails with the provider's reason;
 * - `refund_settled` / `refund_failed`: a pending refund is confirmed, or undone (collections/gatewayRefund.service.ts);
 * - `charge_settled` / `setup_succeeded` of no payment yet: a capture session's charge or card setup its browser
 *   never finished, recorded through the provider-sessions port (providerSessions.ts).
 */
export async function applyChargeEvent(
  ctx: ServiceContext,
  gateway: Gateway,
  event: ChargeEvent,
): Promise<boolean> {
  const { kind, refundId, code } = event;
  if (kind === 'refund_settled' || kind === 'refund_failed') {
    return refundId !== undefined && applyRefundEvent(ctx, gateway.id, { kind, refundId, code });
  }
  const paymentId = await findPaymentOfGatewayCharge(ctx, gateway.id, event.chargeId);
  if (paymentId === undefined) {
    // A charge or card setup of a capture session whose browser never came back (providerSessions.ts).
    const done = kind === 'charge_settled' || kind === 'setup_succeeded';
    return done && ctx.ports.collections.providerSessions(ctx, gateway.id, event.chargeId);
  }
  const payment = await getPayment(ctx, paymentId);
  try {
    switch (event.kind) {
      case 'charge_settled':
        if (payment.state !== 'pending') return false;
        // The receipt of a pending charge is sent when the money is taken (docs/gateways.md, "The collection loop").
        await withLockedCustomer(ctx, payment.customerId, async (tctx) => {
          await settlePayment(tctx, paymentId);
          await noticePaymentCollected(tctx, paymentId);
        });
        return true;
      case 'charge_failed':
        if (payment.state !== 'pending') return false;
        await reversePayment(
          ctx,
          paymentId,
          { reason: event.reason ?? 'card_declined', code: event.code },
          async (tctx) => {
            await noticePendingChargeFailed(tctx, payment, event.reason ?? 'card_declined');
            return [];
          },
        );
        return true;
      case 'dispute':
      case 'dispute_lost':
        if (payment.state === 'failed') return false;
        await reversePayment(ctx, paymentId, { reason: 'disputed', code: event.code });
        return true;
      case 'dispute_won':
        // Told before the dispute itself (providers do not promise an order): the money went and came back;
        // the reversal is made now, so that the dispute told later changes nothing.
        if (payment.state !== 'failed') {
          await reversePayment(ctx, paymentId, { reason: 'disputed', code: event.code });
        }
        return await recordDisputeWon(ctx, paymentId, event);
      default:
        return false;
    }
  } catch (error) {
    // Applied meanwhile by another run, a webhook sent twice, or by hand: applied once either way.
    if (!(error instanceof ConflictError)) throw error;
    return false;
  }
}

/**
 * The payment of a charge this gateway made: its collection attempt's, else a payment whose Ref is the charge id and
 * whose charge was made by this gateway (a capture session's, a portal payment's card's; chargeOfPayment). A charge
 * id is the provider's, and two gateways of an account may know the same one: a webhook is about its own gateway's
 * charges only (docs/gateways.md, "Late events").
 */
async function findPaymentOfGatewayCharge(
  ctx: ServiceContext,
  gatewayId: number,
  chargeId: string,
): Promise<number | undefined> {
  const attempted = await repo.findPaymentOfCharge(ctx.db, ctx.account.id, gatewayId, chargeId);
  if (attempted !== undefined) return attempted;
  for (const paymentId of await listPaymentIdsByChargeRef(ctx, chargeId)) {
    const charge = await chargeOfPayment(ctx, await getPayment(ctx, paymentId));
    if (charge?.gatewayId === gatewayId && charge.chargeId === chargeId) return paymentId;
  }
  return undefined;
}

/**
 * The money of a dispute won (the amount disputed, the payment's when the provider does not say), back on the
 * customer's account once: looked for and recorded under the customer's lock, so that the same webhook delivered
 * twice at once records it once (its Ref says which charge it was).
 */
async function recordDisputeWon(
  ctx: ServiceContext,
  paymentId: number,
  event: ChargeEvent,
): Promise<boolean> {
  const payment = await getPayment(ctx, paymentId);
  const ref = `${event.chargeId}:dispute_won`;
  return withLockedCustomer(ctx, payment.customerId, async (tctx) => {
    if ((await findPaymentIdByChargeRef(tctx, ref)) !== undefined) return false;
    const { events } = await recordCollectedPayment(tctx, {
      customerId: payment.customerId,
      invoiceId: null,
      currencyCode: payment.currencyCode,
      amountMinor: Math.min(event.amountMinor ?? payment.amountMinor, payment.amountMinor),
      allocateMinor: 0,
      date: event.reportedOn,
      method: payment.method,
      paymentMethodId: payment.paymentMethodId,
      state: 'settled',
      ref,
      memo: `Dispute won: the money of payment ${paymentId} came back`,
    });
    await emitEvents(tctx, events);
    return true;
  });
}

/**
 * A pending charge the provider failed afterwards: each invoice it was paying told as a failure at once. Nothing
 * retries it on its own (the invoice owes the money again and waits on the customer), so the notice says so.
 */
async function noticePendingChargeFailed(
  ctx: ServiceContext,
  payment: Payment,
  reason: string,
): Promise<void> {
  for (const allocation of payment.allocations) {
    if (allocation.targetType !== 'invoice' || allocation.amountMinor <= 0) continue;
    await noticeCollectionFailed(ctx, {
      customerId: payment.customerId,
      invoiceId: allocation.targetId,
      currencyCode: payment.currencyCode,
      amountMinor: allocation.amountMinor,
      reason,
      paymentMethodId: payment.paymentMethodId,
      nextTryDate: null,
      from: 'card',
    });
  }
}
