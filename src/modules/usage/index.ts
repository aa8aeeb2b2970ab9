export { AGGREGATIONS, aggregate, hourOf, mergeRollups, rollUp } from './aggregation.ts';
export type { Aggregation, HourRollup, Interval, MeteredEvent } from './aggregation.ts';
export { MAX_VALUE, VALUE_DECIMALS, readEvent, readValue } from './eventReading.ts';
export type { EventReading, MetricReading } from './eventReading.ts';
export { claimedIntervals } from './claims.ts';
export type { MeteringSubscription } from './claims.ts';
