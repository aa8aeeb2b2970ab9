import type { EventObjectRenderer } from '../modules/events/index.ts';

/** Event renderers of the customers resources (see eventObjects.ts). */
export const customersEventObjects: Record<string, EventObjectRenderer> = {};
