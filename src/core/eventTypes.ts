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

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`; above `limit`, any number above. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, previous2[j - 2]! + 1);
      row.push(best);
    }
    previous2 = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The known type or wildcard nearest to a pattern that names none, for a "did you mean": a typo or a wrong tense
 * away (`invoice.payed` → `invoice.paid`, `Invoice.Paid` → `invoice.paid`, `invoce.*` → `invoice.*`), compared in
 * lower case; undefined when nothing is that close. A wildcard is answered with a wildcard, a type with a type.
 */
export function nearestEventPattern(written: string, types: readonly string[]): string | undefined {
  const text = written.trim().toLowerCase();
  const candidates = text.endsWith('.*') ? wildcardsOf(types) : types;
  const limit = Math.max(1, Math.min(3, Math.floor(text.length / 4)));
  let nearest: string | undefined;
  let nearestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(text, candidate, limit);
    if (distance < nearestDistance) {
      nearest = candidate;
      nearestDistance = distance;
    }
  }
  return nearest;
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
