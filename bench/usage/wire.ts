/**
 * The wire of the usage-event batch endpoint as the usage benchmark sends it (docs/usage.md, "Sending events"):
 * shared by its ingestion (bench/usage.ts) and its flood (bench/usage/flood.ts).
 */
import { METRIC } from './population.ts';

export const BATCH_PATH = '/v1/usage-events/batch';
export const REGIONS = ['eu-west', 'us-east', 'ap-south'];

export const batchBody = (events: object[]) => JSON.stringify({ events });

export const wireEvent = (
  transactionId: string,
  customerId: number,
  at: string,
  tokens: number,
  region: string,
) => ({
  transaction_id: transactionId,
  customerID: customerId,
  code: METRIC,
  timestamp: at,
  properties: { tokens, region },
});

/** How many events of a batch's answer were accepted: each outcome's status is written `"accepted"`. */
export const acceptedIn = (body: string) => body.match(/"accepted"/g)?.length ?? 0;

/**
 * `size` new events (transaction ids `<prefix>-<n>` from `first`), over `customerIds` in turn, times within the
 * last hour.
 */
export function newEvents(prefix: string, first: number, size: number, customerIds: readonly number[]) {
  const now = Date.now();
  return Array.from({ length: size }, (_, i) => {
    const n = first + i;
    const at = new Date(now - (n % 3_600) * 1000).toISOString();
    return wireEvent(
      `${prefix}-${n}`,
      customerIds[n % customerIds.length]!,
      at,
      (n % 9) + 1,
      REGIONS[n % 3]!,
    );
  });
}
