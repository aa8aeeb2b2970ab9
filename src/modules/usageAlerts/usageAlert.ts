import Big from 'big.js';
import { canonicalDecimal, decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * Usage alerts (docs/usage.md, "Alerts"): a threshold on a subscription's usage so far in its period, on a metric's
 * quantity or on what the usage costs so far. Pure: the service reads the usage, these rules decide.
 */

export const USAGE_ALERT_KINDS = ['quantity', 'amount'] as const;
export type UsageAlertKind = (typeof USAGE_ALERT_KINDS)[number];

/** A threshold or a value seen: a quantity (an exact decimal) or an amount in minor units of a currency. */
export type Measure = { kind: 'quantity'; quantity: string } | { kind: 'amount'; amountMinor: number };

export interface UsageAlert {
  id: number;
  subscriptionId: number;
  customerId: number;
  name: string;
  /** Null: an amount alert over every metered component of the subscription. */
  metricId: number | null;
  /** A grouped metric's group; null: the metric's groups together. */
  group: string | null;
  threshold: Measure;
  /** True until an evaluation has read the alert as it now is. */
  needsCheck: boolean;
  /** Incremented by each edit: what an evaluation marks checked is the version it read. */
  checkVersion: number;
  createdAt: string;
  updatedAt: string;
}

/** An alert fired in one period, with what was compared. */
export interface UsageAlertFiring {
  alertId: number;
  periodStart: PlainDate;
  /** The first day after the period. */
  periodEnd: PlainDate;
  threshold: Measure;
  value: Measure;
  firedAt: string;
}

/** Quantities have a usage value's places (docs/usage.md, "Billable metrics"). */
export const QUANTITY_DECIMALS = 4;
/** The largest quantity threshold: a period's quantity far beyond any one event's bound (10^9). */
export const MAX_QUANTITY_THRESHOLD = '1000000000000000';

/** A quantity threshold from the wire, exact, or why it cannot be one. */
export function readQuantityThreshold(value: number | string): { quantity: string } | { message: string } {
  const read = readWireDecimal(value);
  if ('problem' in read) return { message: 'must be a decimal number' };
  if (read.value.lte(0)) return { message: 'must be greater than 0' };
  if (decimalPlaces(read.value) > QUANTITY_DECIMALS)
    return { message: `must have at most ${QUANTITY_DECIMALS} decimal places` };
  if (read.value.gt(MAX_QUANTITY_THRESHOLD)) return { message: 'must be at most 10^15' };
  return { quantity: canonicalDecimal(read.value) };
}

/** Whether the value seen has reached the threshold: reaching it exactly fires, as crossing it does. */
export function hasReached(threshold: Measure, value: Measure): boolean {
  if (threshold.kind === 'quantity' && value.kind === 'quantity')
    return new Big(value.quantity).gte(threshold.quantity);
  if (threshold.kind === 'amount' && value.kind === 'amount')
    return value.amountMinor >= threshold.amountMinor;
  throw new Error(`a ${threshold.kind} threshold cannot be compared with a ${value.kind}`);
}

/**
 * Whether a metric's quantities per group combine into one quantity of all its groups, and how: what the metric
 * would count without its GroupBy. A count, a sum and a time-weighted sum add up; the largest of the groups' maxima
 * is the maximum. Distinct values may repeat across groups and the latest event is not any one group's, so those
 * two need the alert to name a group.
 */
export function combinationOf(aggregation: string): 'sum' | 'max' | undefined {
  if (aggregation === 'count' || aggregation === 'sum' || aggregation === 'weighted_sum') return 'sum';
  if (aggregation === 'max') return 'max';
  return undefined;
}

/** One line of a subscription's usage so far: a metered component's quantity and price in one group. */
export interface UsageLine {
  componentId: number;
  metricCode: string;
  group: string;
  quantity: string;
  amountMinor: number;
}

/** What an alert reads of the usage so far. */
export interface AlertReading {
  kind: UsageAlertKind;
  /** The alert's metric; null: every line (an amount alert only). */
  metric: { code: string; aggregation: string } | null;
  group: string | null;
}

/**
 * The value an alert compares with its threshold, from the subscription's usage so far (the lines of
 * GET /v1/subscriptions/{id}/usage). A quantity is the metric's, read once even when several components link it
 * (each reads the same events); in one group, or the groups combined (combinationOf). An amount adds up what the
 * lines cost: those of the metric (and group) or, without a metric, all of them.
 */
export function alertValue(reading: AlertReading, lines: readonly UsageLine[]): Measure {
  const matching = lines.filter(
    (line) =>
      (reading.metric === null || line.metricCode === reading.metric.code) &&
      (reading.group === null || line.group === reading.group),
  );
  if (reading.kind === 'amount') {
    return { kind: 'amount', amountMinor: matching.reduce((total, line) => total + line.amountMinor, 0) };
  }
  if (reading.metric === null) throw new Error('a quantity alert reads a metric');
  const first = matching[0]?.componentId;
  const quantities = matching
    .filter((line) => line.componentId === first)
    .map((line) => new Big(line.quantity));
  const combination = combinationOf(reading.metric.aggregation);
  if (quantities.length > 1 && combination === undefined) {
    throw new Error(`${reading.metric.code} cannot combine its groups: an alert on it names one`);
  }
  const combined =
    combination === 'max'
      ? quantities.reduce((a, b) => (b.gt(a) ? b : a), new Big(0))
      : quantities.reduce((a, b) => a.plus(b), new Big(0));
  return { kind: 'quantity', quantity: canonicalDecimal(combined) };
}
