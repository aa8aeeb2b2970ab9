/**
 * Event type names and the patterns webhook endpoints subscribe with. A type is `resource.action`, lower snake
 * case segments (Standard Webhooks allows `[a-zA-Z0-9_]` segments); a pattern is a type, `*` (everything) or a
 * prefix followed by `.*` (`invoice.*`: every invoice event).
 */

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

/**
 * The fields of `after` whose values differ from `before`, with their values before (a field that appeared is
 * null before). Objects are compared by their JSON, as a consumer would see them.
 */
export function changedFields(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key] ?? null;
  }
  return previous;
}
