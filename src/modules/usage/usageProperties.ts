/**
 * What an event's `properties` may hold (docs/usage.md, "Limits"): an event is a meter reading, not a document, and
 * every byte of it is stored for as long as its events are kept. A refusal names the property at fault.
 */
export const PROPERTIES_MAX_KEYS = 50;
export const PROPERTIES_MAX_DEPTH = 3;
export const PROPERTIES_MAX_BYTES = 4096;

/** Why `properties` will not do, naming the property (`properties.region`), or undefined when they will. */
export function propertiesProblem(
  properties: Record<string, unknown>,
): { field: string; problem: string } | undefined {
  const keys = Object.keys(properties);
  if (keys.length > PROPERTIES_MAX_KEYS) {
    return { field: 'properties', problem: `has ${keys.length} properties; at most ${PROPERTIES_MAX_KEYS}` };
  }
  for (const key of keys) {
    if (nestsDeeperThan(properties[key], PROPERTIES_MAX_DEPTH - 1)) {
      return {
        field: `properties.${key}`,
        problem: `nests deeper than ${PROPERTIES_MAX_DEPTH} levels of objects and lists`,
      };
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(properties));
  if (bytes <= PROPERTIES_MAX_BYTES) return undefined;
  const largest = keys.reduce((a, b) => (sizeOf(properties[b]) > sizeOf(properties[a]) ? b : a));
  return {
    field: `properties.${largest}`,
    problem:
      `makes the properties ${bytes} bytes as JSON (this one ${sizeOf(properties[largest])}); at most ` +
      `${PROPERTIES_MAX_BYTES} together`,
  };
}

/**
 * Whether a value holds more than `levels` levels of objects and lists (a plain value none). It looks no deeper
 * than one level past `levels`, so a body nested thousands deep costs no more than a shallow one.
 */
function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  return Object.values(value as Record<string, unknown>).some((inner) => nestsDeeperThan(inner, levels - 1));
}

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');
