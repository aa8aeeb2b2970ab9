import { decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import type { Aggregation } from './aggregation.ts';
import { ownEntry } from '../../core/ownEntry.ts';

/**
 * What a billable metric reads from an event's properties (docs/design/usage.md, "What a business does"): whether
 * the event counts for it (its filters), the value it aggregates, the value `unique_count` counts, and the group
 * it falls in. Pure.
 */

export interface MetricReading {
  aggregation: Aggregation;
  /** The property holding the value; null for `count`. */
  property: string | null;
  /** Every filter must hold: the property's value (as text) is one of `values`. */
  filters: readonly { property: string; values: readonly string[] }[];
  /** One invoice line per value of this property; null for one line. */
  groupBy: string | null;
}

/** At most 4 decimals (NumUnits' precision) and ±10^9 (an hour's sum stays inside 64 bits). */
export const VALUE_DECIMALS = 4;
export const MAX_VALUE = 1_000_000_000n;
/**
 * weighted_sum's values are bounded lower: an hour's Σ value × seconds is kept in 64 bits (docs/design/usage.md,
 * "Storage: summed fast, exact"), which ±10^6 keeps for 256,000 events of one customer, metric and group an hour.
 */
export const WEIGHTED_MAX_VALUE = 1_000_000n;
const SCALE = 10n ** BigInt(VALUE_DECIMALS);

/**
 * A group's or a counted value's text is part of a stored key (docs/design/usage.md, "Storage"): PostgreSQL refuses
 * an index entry of more than about 2,700 bytes, so it is bounded well below, in characters of up to 4 bytes.
 */
export const MAX_KEY_TEXT = 255;

export type EventReading =
  | { counts: true; value: bigint; unique: string; group: string }
  | { counts: false }
  | { problem: string; field: string };

/** A property's value as text, as filters, groups and unique counts compare it; undefined when it has none. */
function propertyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

export function readEvent(
  metric: MetricReading,
  properties: Readonly<Record<string, unknown>>,
): EventReading {
  const matches = metric.filters.every(({ property, values }) => {
    const text = propertyText(ownEntry(properties, property));
    return text !== undefined && values.includes(text);
  });
  if (!matches) return { counts: false };
  const group = metric.groupBy === null ? '' : (propertyText(ownEntry(properties, metric.groupBy)) ?? '');
  if (group.length > MAX_KEY_TEXT) {
    return {
      problem: `may have at most ${MAX_KEY_TEXT} characters: it names a group`,
      field: `properties.${metric.groupBy}`,
    };
  }
  if (metric.property === null) return { counts: true, value: 0n, unique: '', group };

  const field = `properties.${metric.property}`;
  const raw = ownEntry(properties, metric.property);
  if (metric.aggregation === 'unique_count') {
    const unique = propertyText(raw);
    if (unique === undefined)
      return {
        problem: 'must be a string, a number or a boolean: the metric counts its distinct values',
        field,
      };
    if (unique.length > MAX_KEY_TEXT)
      return {
        problem: `may have at most ${MAX_KEY_TEXT} characters: the metric counts its distinct values`,
        field,
      };
    return { counts: true, value: 0n, unique, group };
  }
  const value = readValue(raw);
  if (typeof value === 'string') return { problem: value, field };
  const bound = WEIGHTED_MAX_VALUE * SCALE;
  if (metric.aggregation === 'weighted_sum' && (value > bound || value < -bound)) {
    return {
      problem: `must be between -${WEIGHTED_MAX_VALUE} and ${WEIGHTED_MAX_VALUE} for a weighted_sum metric`,
      field,
    };
  }
  return { counts: true, value, unique: '', group };
}

/** A value in ten-thousandths, or why it cannot be one. */
export function readValue(raw: unknown): bigint | string {
  if (typeof raw !== 'number' && typeof raw !== 'string') return 'must be a number (or a decimal string)';
  const read = readWireDecimal(raw);
  if ('problem' in read) return 'must be a number (or a decimal string)';
  if (decimalPlaces(read.value) > VALUE_DECIMALS) return `may have at most ${VALUE_DECIMALS} decimals`;
  const scaled = BigInt(read.value.times(SCALE.toString()).toFixed(0));
  const bound = MAX_VALUE * SCALE;
  if (scaled > bound || scaled < -bound) return `must be between -${MAX_VALUE} and ${MAX_VALUE}`;
  return scaled;
}
