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

/**
 * What the events module, below every module that emits, asks of them (`ctx.ports.events`, filled by
 * src/modulePorts.ts): the API's shape of each resource type an event carries, which for some combines several
 * modules (src/readModels/), and every event type the modules declare, which webhook endpoints subscribe to.
 */
export interface EventPorts {
  objects: Readonly<Record<string, EventObjectRenderer>>;
  /** The modules' declared types (docs/event-catalogue.md); the webhook endpoints' own are this module's. */
  types: readonly string[];
}

declare module '../../context.ts' {
  interface Ports {
    events: EventPorts;
  }
}
