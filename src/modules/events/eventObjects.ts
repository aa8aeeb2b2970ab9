import type { ServiceContext } from '../../context.ts';

/** A resource of the account as events name it: `{type: 'invoice', id: 9181}`. */
export interface ResourceRef {
  type: string;
  id: number | string;
}

/**
 * Renders resources of one type exactly as the API returns them (with the API's masking), read inside the
 * caller's transaction; ids it cannot find (deleted) are left out of the map. Many ids at once, so that a bill
 * run's thousand invoices cost one read.
 */
export type EventObjectRenderer = (
  ctx: ServiceContext,
  ids: readonly (number | string)[],
) => Promise<Map<number | string, Record<string, unknown>>>;

const renderers = new Map<string, EventObjectRenderer>();

/**
 * Plugs in the renderers of every resource type. NOTE: a port, filled by the composition root
 * (connectModules.ts), because the API's shapes of some resources combine several modules (src/readModels/).
 */
export function registerEventObjects(byType: Readonly<Record<string, EventObjectRenderer>>): void {
  for (const [type, renderer] of Object.entries(byType)) renderers.set(type, renderer);
}

export async function renderResources(
  ctx: ServiceContext,
  type: string,
  ids: readonly (number | string)[],
): Promise<Map<number | string, Record<string, unknown>>> {
  const renderer = renderers.get(type);
  if (!renderer) throw new Error(`no event object renderer for resource type ${type}`);
  return renderer(ctx, ids);
}
