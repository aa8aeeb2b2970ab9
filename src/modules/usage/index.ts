export { AGGREGATIONS, aggregate, hourOf, mergeRollups, rollUp } from './aggregation.ts';
export type { Aggregation, HourRollup, Interval, MeteredEvent } from './aggregation.ts';
export { MAX_VALUE, VALUE_DECIMALS, readEvent, readValue } from './eventReading.ts';
export type { EventReading, MetricReading } from './eventReading.ts';
export { claimedIntervals } from './claims.ts';
export type { MeteringSubscription } from './claims.ts';
/** Recording events and reading a metric's quantity (docs/design/usage.md, "Storage: summed fast, exact"). */
export type { UsageAccount, UsageEvent, UsageEventInput, UsageEventOutcome } from './usageEvent.ts';
export type { SubscriptionOwners } from './usageEvent.service.ts';
export { FUTURE_HOURS, recordUsageEvents } from './usageEvent.service.ts';
export { BATCH_MAX } from './usageEvents.schemas.ts';
export type { UsageQuery } from './usageQuantities.service.ts';
export { quantityText, usageQuantities } from './usageQuantities.service.ts';
export type { ReconcileReport, RollupDifference } from './usageReconcile.service.ts';
export { reconcileUsage } from './usageReconcile.service.ts';
export { MONTHS_FOUND, prepareMonthPartitions } from './usagePartitions.ts';
/** An account's usage calls recorded in its turn, the waiting ones together (group commit). */
export type { SentUsageEvent } from './usageEventSending.service.ts';
export { sendUsageEventCalls } from './usageEventSending.service.ts';
export { foldedEvents, usageLanes } from './usageFolds.ts';
export type { UsageArrivals } from './usageArrivals.ts';
export { lastUsageEventId, usageArrivalsAfter } from './usageArrivals.ts';
/** What each account stores of usage events, and its cap (docs/usage.md, "Limits"). */
export type { UsageStorage, UsageStorageReport } from './usageStorage.ts';
export { EVENT_ROW_BYTES } from './usageStorage.ts';
export {
  DEFAULT_USAGE_STORAGE_CAP,
  storageCapOf,
  usageStorageCap,
  usageStorageReport,
} from './usageStorage.service.ts';
