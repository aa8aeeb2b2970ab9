/**
 * Event type names and the patterns webhook endpoints subscribe with. A type is `resource.action`, lower snake
 * case segments (Standard Webhooks allows `[a-zA-Z0-9_]` segments); a pattern is a type, `*` (everything) or a
 * prefix followed by `.*` (`invoice.*`: every invoice event).
 */

import { nearestName } from '../../core/nearestName.ts';

const SEGMENT = '[a-z0-9_]+';
const EVENT_TYPE = new RegExp(`^${SEGMENT}(\\.${SEGMENT})+$`);
const PREFIX_WILDCARD = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*\\.\\*$`);

export function isEventType(value: string): boolean {
  return EVENT_TYPE.test(value);
}

export function isEventTypePattern(value: string): boolean {
  return value === '*' || EVENT_TYPE.test(value) || PREFIX_WILDCARD.test(value);
}

export function eventTypeMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function matchesAny(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => eventTypeMatches(pattern, type));
}

/** Whether a pattern subscribes to at least one of these types (`*` to any; `invoice.*` to an `invoice.` one). */
export function matchesSomeType(pattern: string, types: readonly string[]): boolean {
  return types.some((type) => eventTypeMatches(pattern, type));
}

/** Every prefix wildcard that matches one of the types: `invoice.*` for `invoice.paid`. */
function wildcardsOf(types: readonly string[]): string[] {
  const wildcards = new Set<string>();
  for (const type of types) {
    const segments = type.split('.');
    for (let n = 1; n < segments.length; n++) wildcards.add(`${segments.slice(0, n).join('.')}.*`);
  }
  return [...wildcards];
}

/**
 * The known type or wildcard nearest to a pattern that names none, for a "did you mean": a typo or a wrong tense
 * away (`invoice.payed` → `invoice.paid`, `Invoice.Paid` → `invoice.paid`, `invoce.*` → `invoice.*`), compared in
 * lower case; undefined when nothing is that close. A wildcard is answered with a wildcard, a type with a type.
 */
export function nearestEventPattern(written: string, types: readonly string[]): string | undefined {
  return nearestName(written, written.trim().endsWith('.*') ? wildcardsOf(types) : types);
}

/**
 * The fields of `after` whose values differ from `before`, with their values before (a field that appeared is
 * null before). Objects are compared by their JSON, as a consumer would see them; the same value (an object
 * `after` took over from `before`) is equal without being serialized.
 */
export function changedFields(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key];
    const is = after[key];
    if (was !== is && JSON.stringify(was) !== JSON.stringify(is)) previous[key] = was ?? null;
  }
  return previous;
}
