import type { App } from '../../http/types.ts';

/** Webhook endpoints, their deliveries, resend and recover (design note §2.7). */
export function registerWebhookEndpointRoutes(_app: App): void {}
