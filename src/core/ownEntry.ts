/**
 * A table's entry for a key that comes from outside (a client's field or query, a provider's answer, a bank's file):
 * only the table's own entries count. `table[key]` on a plain object finds what every object inherits, so
 * `constructor` or `toString` would be a function where a value was expected (docs/spec-decisions.md, "Request
 * bodies").
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
