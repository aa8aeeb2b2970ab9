import type { EventObjectRenderer } from '../modules/events/index.ts';

/** Event renderers of the webhooks resources (see eventObjects.ts). */
export const webhooksEventObjects: Record<string, EventObjectRenderer> = {};
