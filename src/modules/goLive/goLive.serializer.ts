import type { WentLive } from './goLive.service.ts';
import type { WentLiveOut } from './goLive.schemas.ts';

export function toWentLiveDto(made: WentLive): WentLiveOut {
  const { copied } = made;
  return {
    testAccountID: made.testAccountId,
    liveAccountID: made.liveAccount.id,
    ApiKey: made.apiKey,
    Copied: {
      Currencies: copied.currencies,
      TaxSettings: copied.taxSettings,
      BillableMetrics: copied.billableMetrics,
      PackageGroups: copied.packageGroups,
      Packages: copied.packages,
      Components: copied.components,
      Features: copied.features,
      Coupons: copied.coupons,
    },
    WebhookEndpoints: made.webhookEndpoints.map(({ endpoint, secret }) => ({
      webhookEndpointID: endpoint.id,
      Url: endpoint.url,
      Secret: secret,
    })),
    ToDo: made.stepsLeft,
  };
}
