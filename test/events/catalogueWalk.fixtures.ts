import { afterAll, beforeAll } from 'vitest';
import { killAll } from '../helpers/cli.ts';
import type { TestService } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { startWebhookReceiver } from '../helpers/webhookReceiver.ts';
import type { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { plusDays } from '../helpers/clock.ts';

// What the event catalogue's walk (catalogue.walk.test.ts) and its steps (catalogueWalk.records.ts,
// catalogueWalk.collection.ts) share: the service, the webhook receiver, and small helpers.

/** The service (a live binding, set in beforeAll). */
export let t: TestService;
/** The receiver of the endpoints' deliveries (a live binding, set in beforeAll). */
export let receiver: WebhookReceiver;

/** Starts the service and the webhook receiver for the file, and stops them after. */
export function useCatalogueWalk(): void {
  t = useTestService({
    env: {
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
      WORKER_INTERVAL_MS: '50',
    },
  });
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  // Run before the service closes (vitest runs afterAll hooks last registered first).
  afterAll(async () => {
    await killAll();
    await receiver?.close();
  });
}

export { plusDays };

export const charges = (amount: number) => [{ Descrip: 'Work', Qty: 1, UnitCostEx: amount }];
