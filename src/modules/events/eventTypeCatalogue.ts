import { WEBHOOK_EVENT_TYPES } from './webhookEventTypes.ts';

let declared: readonly string[] | undefined;

/**
 * Plugs in every event type the modules declare (docs/event-catalogue.md), which webhook endpoints subscribe to.
 * NOTE: a port, filled by the composition root (connectModules.ts), because the types are declared by the modules
 * that emit them, all above this one. Registering again replaces the list.
 */
export function registerEventTypes(types: readonly string[]): void {
  declared = [...new Set([...types, ...WEBHOOK_EVENT_TYPES])];
}

/** Every event type the service emits; throws when the port was never connected rather than accept anything. */
export function knownEventTypes(): readonly string[] {
  if (!declared) throw new Error('the event types are not registered: call connectModules() first');
  return declared;
}
