import type { ServiceContext } from '../../context.ts';

export async function renderResources(
  ctx: ServiceContext,
  type: string,
  ids: readonly (number | string)[],
): Promise<Map<number | string, Record<string, unknown>>> {
  const renderer = ctx.ports.events.objects[type];
  if (!renderer) throw new Error(`no event object renderer for resource type ${type}`);
  return renderer(ctx, ids);
}
