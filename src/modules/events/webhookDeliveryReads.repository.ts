import { likePrefix } from './eventReads.repository.ts';
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../../storage/schema.events.ts';

export type DeliveryRow = Omit<Selectable<WebhookDeliveriesTable>, 'account_id' | 'lease_until'> & {
  event_type: string;
};
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export interface DeliveryFilter {
  status?: WebhookDeliveriesTable['status'];
  /** An event type, or the prefix of a wildcard without its `*` (`invoice.`); undefined for every type. */
  eventType?: { exact: string } | { prefix: string };
  /** Instants: created_at >= from, and created_at < toExclusive or <= toInclusive. */
  from?: string;
  toExclusive?: string;
  toInclusive?: string;
}

/** The endpoint's deliveries, newest first, with their event's type. */
export function listDeliveries(
  db: Db,
  accountId: number,
  endpointId: number,
  page: Page,
  filter: DeliveryFilter,
): Promise<DeliveryRow[]> {
  const type = filter.eventType;
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.endpoint_id',
      'webhook_deliveries.event_id',
      'webhook_deliveries.status',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.last_status_code',
      'webhook_deliveries.last_error',
      'webhook_deliveries.created_at',
      'webhook_deliveries.delivered_at',
      'events.type as event_type',
    ])
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_deliveries.endpoint_id', '=', endpointId)
    .$if(filter.status !== undefined, (qb) => qb.where('webhook_deliveries.status', '=', filter.status!))
    .$if(type !== undefined && 'exact' in type, (qb) =>
      qb.where('events.type', '=', (type as { exact: string }).exact),
    )
    .$if(type !== undefined && 'prefix' in type, (qb) =>
      qb.where(
        sql<boolean>`${sql.ref('events.type')} like ${likePrefix((type as { prefix: string }).prefix)} escape '\\'`,
      ),
    )
    .$if(filter.from !== undefined, (qb) => qb.where('webhook_deliveries.created_at', '>=', filter.from!))
    .$if(filter.toExclusive !== undefined, (qb) =>
      qb.where('webhook_deliveries.created_at', '<', filter.toExclusive!),
    )
    .$if(filter.toInclusive !== undefined, (qb) =>
      qb.where('webhook_deliveries.created_at', '<=', filter.toInclusive!),
    )
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** The attempts of these deliveries of the account, in the order they were made. */
export function attemptsOf(db: Db, accountId: number, deliveryIds: readonly number[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select([
      'webhook_attempts.id',
      'webhook_attempts.delivery_id',
      'webhook_attempts.attempted_at',
      'webhook_attempts.status_code',
      'webhook_attempts.duration_ms',
      'webhook_attempts.response_excerpt',
      'webhook_attempts.error',
    ])
    .where('webhook_deliveries.account_id', '=', accountId)
    .where('webhook_attempts.delivery_id', 'in', deliveryIds)
    .orderBy('webhook_attempts.delivery_id')
    .orderBy('webhook_attempts.id')
    .execute();
}
