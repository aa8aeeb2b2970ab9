import type { ServiceContext } from '../context.ts';
import type { EventObjectRenderer } from '../modules/events/index.ts';

/**
 * A renderer for resources with numeric ids, from a batch reader (ids it does not find are left out) and the
 * API's wire mapping of what it found, in the same order.
 */
export function numericRenderer<T>(
  read: (ctx: ServiceContext, ids: number[]) => Promise<Map<number, T>>,
  toWire: (ctx: ServiceContext, found: T[]) => Promise<object[]> | object[],
): EventObjectRenderer {
  return async (ctx, ids) => {
    const found = await read(ctx, ids.map(Number));
    const keys = [...found.keys()];
    const wire = await toWire(ctx, [...found.values()]);
    return new Map(keys.map((id, i) => [id, wire[i] as Record<string, unknown>]));
  };
}
