import type { Ports } from '../../context.ts';
import { WEBHOOK_EVENT_TYPES } from './webhookEventTypes.ts';

/** Every event type the service emits (docs/event-catalogue.md): the modules' and the webhook endpoints' own. */
export function knownEventTypes(ports: Ports): readonly string[] {
  return [...new Set([...ports.events.types, ...WEBHOOK_EVENT_TYPES])];
}
