export { AGGREGATIONS, aggregate, hourOf, mergeRollups, rollUp } from './aggregation.ts';
export type { Aggregation, HourRollup, Interval, MeteredEvent } from './aggregation.ts';
