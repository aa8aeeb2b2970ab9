import type { ServiceContext } from '../../context.ts';

/**
 * A provider's webhook telling of a charge or setup no payment of the ledger holds yet: it may be a capture session's,
 * started in the provider's hosted fields or popup and never finished by its browser. Widgets, a higher module,
 * answers through this port (connected once at start in src/connectModules.ts): it finds the session by the
 * reference, asks the provider and records it (docs/hosted-pages.md, "When the browser never comes back"). Whether
 * it was a session's and something was recorded.
 */
export type ProviderSessions = (
  ctx: ServiceContext,
  gatewayId: number,
  providerRef: string,
) => Promise<boolean>;

let connected: ProviderSessions | undefined;

export function registerProviderSessions(port: ProviderSessions): void {
  connected = port;
}

export function recoverProviderSession(
  ctx: ServiceContext,
  gatewayId: number,
  providerRef: string,
): Promise<boolean> {
  if (!connected)
    throw new Error('the provider-sessions port is not registered: call connectModules() at start');
  return connected(ctx, gatewayId, providerRef);
}
