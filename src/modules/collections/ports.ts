import type { ServiceContext } from '../../context.ts';

/**
 * Invoices a capture widget's sale is paying now (widgets, a higher module, answers through this port): a card submitted in the frame whose charge is under way, or charged and
 * not yet completed. The portal's Pay button and the collection run charge none of them meanwhile, as a capture's
 * sale charges no invoice their charges are in flight for (docs/portal.md, "Paying and payment methods").
 */
export type SalesInFlight = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<ReadonlySet<number>>;

/**
 * The provider's charge behind a payment a capture session recorded (the pay page, the portal's new card and
 * top-ups, the capture widget's sales): widgets, a higher module, answers through this port. Such a payment has no collection attempt and often no kept card, yet it was charged
 * through the session's gateway under the reference the payment keeps as its Ref, which is what a refund names
 * (docs/gateways.md, "Refunds").
 */
export type CapturedCharges = (
  ctx: ServiceContext,
  paymentId: number,
) => Promise<{ gatewayId: number; chargeId: string } | undefined>;

/**
 * A provider's webhook telling of a charge or setup no payment of the ledger holds yet: it may be a capture session's,
 * started in the provider's hosted fields or popup and never finished by its browser. Widgets, a higher module,
 * answers through this port: it finds the session by the
 * reference, asks the provider and records it (docs/hosted-pages.md, "When the browser never comes back"). Whether
 * it was a session's and something was recorded.
 */
export type ProviderSessions = (
  ctx: ServiceContext,
  gatewayId: number,
  providerRef: string,
) => Promise<boolean>;

/**
 * What collections asks of capture sessions (widgets, above it) at its own moments (`ctx.ports.collections`, filled by
 * src/modulePorts.ts): a charge about to be made, a refund, a provider's webhook on a charge no payment holds.
 */
export interface CollectionPorts {
  salesInFlight: SalesInFlight;
  capturedCharges: CapturedCharges;
  providerSessions: ProviderSessions;
}

declare module '../../context.ts' {
  interface Ports {
    collections: CollectionPorts;
  }
}
