/**
 * A pure function's results kept by their arguments' key, for the calendar arithmetic that a bill run repeats
 * for thousands of subscriptions with the same few dates and terms (Temporal objects are slow to make). Bounded:
 * past `capacity` keys the cache starts again, so memory stays flat however long the process runs. A call that
 * throws caches nothing.
 */
export function memoize<A extends unknown[], R>(
  fn: (...args: A) => R,
  keyOf: (...args: A) => string,
  capacity = 10_000,
): (...args: A) => R {
  const cache = new Map<string, R>();
  return (...args: A): R => {
    const key = keyOf(...args);
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = fn(...args);
    if (cache.size >= capacity) cache.clear();
    cache.set(key, value);
    return value;
  };
}
