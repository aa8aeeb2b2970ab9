export type { EventObjectRenderer, ResourceRef } from './eventObjects.ts';
export { registerEventObjects } from './eventObjects.ts';
export type { EventBody, EventToEmit, Snapshot } from './event.service.ts';
export { emitEvent, emitEvents, snapshotResource } from './event.service.ts';
