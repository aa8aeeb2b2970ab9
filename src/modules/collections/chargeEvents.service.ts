import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { isGatewayUsable, listGateways, readChargeEvents } from '../gateways/index.ts';
import { getPayment, reversePayment } from '../ledger/index.ts';
import * as repo from './collectionAttempt.repository.ts';

/**
 * What gateways report about their charges after the fact (a cardholder's dispute): read once a business day per
 * gateway, each applied once. A disputed payment is reversed: Failed with `disputed`, its invoices owe the money
 * again (`payment.reversed`), and nothing retries it: someone should look at a dispute.
 */
export async function applyChargeEvents(ctx: ServiceContext): Promise<number> {
  const on = today(ctx);
  let reversed = 0;
  for (const gateway of await listGateways(ctx, { limit: 100, offset: 0 })) {
    if (!isGatewayUsable(gateway)) continue;
    if (await repo.chargeEventsReadOn(ctx.db, ctx.account.id, gateway.id, on)) continue;
    for (const event of await readChargeEvents(ctx, gateway, on)) {
      const paymentId = await repo.findPaymentOfCharge(ctx.db, ctx.account.id, gateway.id, event.chargeId);
      if (paymentId === undefined || (await getPayment(ctx, paymentId)).state === 'failed') continue;
      try {
        await reversePayment(ctx, paymentId, { reason: 'disputed', code: event.code });
        reversed += 1;
      } catch (error) {
        // Reversed meanwhile by another run, or by hand: applied once either way.
        if (!(error instanceof ConflictError)) throw error;
      }
    }
  }
  return reversed;
}
