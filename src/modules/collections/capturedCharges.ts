import type { ServiceContext } from '../../context.ts';

/**
 * The provider's charge behind a payment a capture session recorded (the pay page, the portal's new card and
 * top-ups, the capture widget's sales): widgets, a higher module, answers through this port, connected once at start
 * in src/connectModules.ts. Such a payment has no collection attempt and often no kept card, yet it was charged
 * through the session's gateway under the reference the payment keeps as its Ref, which is what a refund names
 * (docs/gateways.md, "Refunds").
 */
export type CapturedCharges = (
  ctx: ServiceContext,
  paymentId: number,
) => Promise<{ gatewayId: number; chargeId: string } | undefined>;

let connected: CapturedCharges | undefined;

export function registerCapturedCharges(port: CapturedCharges): void {
  connected = port;
}

export function capturedChargeOfPayment(
  ctx: ServiceContext,
  paymentId: number,
): Promise<{ gatewayId: number; chargeId: string } | undefined> {
  if (!connected)
    throw new Error('the captured-charges port is not registered: call connectModules() at start');
  return connected(ctx, paymentId);
}
