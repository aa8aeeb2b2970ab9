/**
 * Going live (docs/going-live.md): the live account made from a test account, each module copying what it owns,
 * called in order from here, above them all. Routes: goLive.routes.ts (POST /v1/account/golive).
 */
export type { GoLiveInput, WentLive } from './goLive.service.ts';
export { goLive } from './goLive.service.ts';
export { toWentLiveDto } from './goLive.serializer.ts';
