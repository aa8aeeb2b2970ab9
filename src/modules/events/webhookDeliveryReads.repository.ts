import { likePrefix } from './eventReads.repository.ts';
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from './tables.ts';

type DeliveryRow = Omit<Selectable<WebhookDeliveriesTable>, 'account_id' | 'lease_until'> & {
  event_type: string;
};
type AttemptRow = Omit<Selectable<WebhookAttemptsTable>, 'id' | 'account_id'>;

/** A delivery of an event to an endpoint, with its event's type. */
export interface DeliveryRecord {
  id: number;
  endpointId: number;
  eventId: string;
  eventType: string;
  status: WebhookDeliveriesTable['status'];
  /** How many attempts its status is the outcome of. */
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** One attempt at a delivery: when, the receiver's answer and how long it took. */
export interface DeliveryAttempt {
  deliveryId: number;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

function deliveryFromRow(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

function attemptFromRow(row: AttemptRow): DeliveryAttempt {
  return {
    deliveryId: row.delivery_id,
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    responseExcerpt: row.response_excerpt,
    error: row.error,
  };
}

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
export async function listDeliveries(
  db: Db,
  accountId: number,
  endpointId: number,
  page: Page,
  filter: DeliveryFilter,
): Promise<DeliveryRecord[]> {
  const type = filter.eventType;
  const rows = await db
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
  return rows.map(deliveryFromRow);
}

/** The attempts of these deliveries of the account, in the order they were made. */
export async function attemptsOf(
  db: Db,
  accountId: number,
  deliveryIds: readonly number[],
): Promise<DeliveryAttempt[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'attempted_at', 'status_code', 'duration_ms', 'response_excerpt', 'error'])
    .where('account_id', '=', accountId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('id')
    .execute();
  return rows.map(attemptFromRow);
}
