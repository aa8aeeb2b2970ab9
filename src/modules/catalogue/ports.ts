import type { ServiceContext } from '../../context.ts';

/**
 * What higher modules keep that refers to the catalogue, asked before a currency, a package version or a component
 * is deleted or re-priced, and for the live-subscription figure of package versions. The catalogue sits below
 * customers and subscriptions, so they answer through this port (`ctx.ports.catalogue`, filled by src/modulePorts.ts).
 * The foreign keys stay as the backstop.
 */
export interface CatalogueUses {
  customersWithCurrency(ctx: ServiceContext, currencyCode: string): Promise<number>;
  /** Per package version: every subscription on it, ended ones included (they still refer to its rate terms). */
  subscriptionsByPackageVersion(ctx: ServiceContext, versionIds: number[]): Promise<Map<number, number>>;
  /** Per package version: the subscriptions neither cancelled nor expired today. */
  liveSubscriptionsByPackageVersion(ctx: ServiceContext, versionIds: number[]): Promise<Map<number, number>>;
  subscriptionsWithComponent(
    ctx: ServiceContext,
    of: { componentId: number } | { componentVersionId: number },
  ): Promise<number>;
}

declare module '../../context.ts' {
  interface Ports {
    catalogue: CatalogueUses;
  }
}
