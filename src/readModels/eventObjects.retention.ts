import type { EventObjectRenderer } from '../modules/events/index.ts';
import { retentionEventsByIds, toRetentionEventDto } from '../modules/retention/index.ts';
import { numericRenderer } from './eventObjectRenderer.ts';

/** What a retention event (an offer shown, taken or declined in the portal's cancel) carries: the reason and offer. */
export const retentionEventObjects: Record<string, EventObjectRenderer> = {
  retention_event: numericRenderer(retentionEventsByIds, (_ctx, found) => found.map(toRetentionEventDto)),
};
