import type { App } from '../../http/types.ts';

/** Reading events and the audit log. */
export function registerEventRoutes(_app: App): void {}
