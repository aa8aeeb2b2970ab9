/**
 * Usage alerts (docs/usage.md, "Alerts"): thresholds on a subscription's usage so far, their evaluation and the
 * firing's event and e-mail, once a period. Routes: usageAlerts.routes.ts.
 */
export type { UsageAlert, UsageAlertFiring } from './usageAlert.ts';
export type { UsageAlertView } from './usageAlert.service.ts';
/** What events show of alerts (src/readModels/). */
export { usageAlertsByIds } from './usageAlert.service.ts';
export { toUsageAlertDto } from './usageAlerts.serializer.ts';
export type { AlertCheckSummary } from './usageAlertCheck.service.ts';
export { accountsWithUsageAlerts, checkUsageAlerts, emptyCheckSummary } from './usageAlertCheck.service.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const USAGE_ALERT_EVENT_TYPES = [
  'usage_alert.created',
  'usage_alert.updated',
  'usage_alert.deleted',
  'usage.threshold_crossed',
] as const;
