import type { EventObjectRenderer } from '../modules/events/index.ts';

/** Event renderers of the billing resources (see eventObjects.ts). */
export const billingEventObjects: Record<string, EventObjectRenderer> = {};
