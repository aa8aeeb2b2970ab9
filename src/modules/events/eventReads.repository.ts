import { sql } from 'kysely';
import type { ExpressionBuilder, Selectable, SelectQueryBuilder } from 'kysely';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import type { Database } from '../../storage/schema.ts';
import type { AuditLogTable } from './tables.ts';

export interface EventQuery {
  /** Types or patterns (`invoice.*`); `*` matches every type. */
  types?: readonly string[];
  resourceType?: string;
  resourceId?: string;
  /** Instants (ISO, UTC) on the events' business timestamps: from inclusive, before exclusive. */
  from?: string;
  before?: string;
  /** true: every delivery succeeded (and there was one); false: some delivery failed or is being retried. */
  deliverySuccess?: boolean;
}

/** `_` is a LIKE wildcard and event types are full of it. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A condition on a column of event types: any of the types or patterns (`invoice.*`). */
function typeIn(column: 'type' | 'event_type', patterns: readonly string[]) {
  return (eb: ExpressionBuilder<Database, 'events' | 'audit_log'>) =>
    eb.or(
      patterns.map((pattern) =>
        pattern.endsWith('.*')
          ? sql<boolean>`${sql.ref(column)} like ${likePrefix(pattern.slice(0, -1))} escape '\\'`
          : eb(sql.ref(column), '=', pattern),
      ),
    );
}

function withTypes<O>(
  query: SelectQueryBuilder<Database, 'events', O>,
  types: readonly string[] | undefined,
): SelectQueryBuilder<Database, 'events', O> {
  if (!types || types.includes('*')) return query;
  return query.where(typeIn('type', types));
}

/** The account's events matching the query, newest first; their stored JSON. */
export async function listEventPayloads(
  db: Db,
  accountId: number,
  query: EventQuery,
  page: Page,
): Promise<string[]> {
  const failing = (eb: ExpressionBuilder<Database, 'events'>) =>
    eb.exists(
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.id')
        .whereRef('d.event_id', '=', 'events.id')
        .where((inner) =>
          inner.or([
            inner('d.status', '=', 'failed'),
            inner.and([inner('d.status', '=', 'pending'), inner('d.attempts', '>', 0)]),
          ]),
        ),
    );
  let q = withTypes(
    db.selectFrom('events').select('payload').where('account_id', '=', accountId),
    query.types,
  );
  if (query.resourceType !== undefined) q = q.where('resource_type', '=', query.resourceType);
  if (query.resourceId !== undefined) q = q.where('resource_id', '=', query.resourceId);
  if (query.from !== undefined) q = q.where('occurred_at', '>=', query.from);
  if (query.before !== undefined) q = q.where('occurred_at', '<', query.before);
  if (query.deliverySuccess === false) q = q.where((eb) => failing(eb));
  if (query.deliverySuccess === true) {
    q = q
      .where((eb) =>
        eb.exists(
          eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id'),
        ),
      )
      .where((eb) => eb.not(failing(eb)));
  }
  const rows = await q.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return rows.map((row) => row.payload);
}

export async function findEventPayload(
  db: Db,
  accountId: number,
  eventId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('events')
    .select('payload')
    .where('account_id', '=', accountId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  return row?.payload;
}

export interface AuditQuery {
  resourceType?: string;
  resourceId?: string;
  actorType?: 'api_key' | 'cli' | 'widget';
  apiKeyId?: number;
  requestId?: string;
  eventType?: readonly string[];
  from?: string;
  before?: string;
}

const AUDIT_COLUMNS = [
  'id',
  'recorded_at',
  'actor_type',
  'api_key_id',
  'client_address',
  'request_id',
  'operation',
  'event_id',
  'event_type',
  'resource_type',
  'resource_id',
  'before',
  'after',
] as const;

/** One entry of the account's audit log: who changed which resource, and its fields before and after. */
export interface AuditRecord {
  id: number;
  recordedAt: string;
  actorType: 'api_key' | 'cli' | 'widget';
  apiKeyId: number | null;
  clientAddress: string | null;
  requestId: string | null;
  operation: string;
  eventId: string;
  eventType: string;
  resourceType: string;
  resourceId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** The account's audit entries matching the query, newest first. */
export async function listAuditEntries(
  db: Db,
  accountId: number,
  query: AuditQuery,
  page: Page,
): Promise<AuditRecord[]> {
  let q = db.selectFrom('audit_log').select(AUDIT_COLUMNS).where('account_id', '=', accountId);
  if (query.resourceType !== undefined) q = q.where('resource_type', '=', query.resourceType);
  if (query.resourceId !== undefined) q = q.where('resource_id', '=', query.resourceId);
  if (query.actorType !== undefined) q = q.where('actor_type', '=', query.actorType);
  if (query.apiKeyId !== undefined) q = q.where('api_key_id', '=', query.apiKeyId);
  if (query.requestId !== undefined) q = q.where('request_id', '=', query.requestId);
  if (query.from !== undefined) q = q.where('recorded_at', '>=', query.from);
  if (query.before !== undefined) q = q.where('recorded_at', '<', query.before);
  if (query.eventType && !query.eventType.includes('*')) q = q.where(typeIn('event_type', query.eventType));
  const rows = await q.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return rows.map(auditRecordFromRow);
}

type AuditRow = Pick<Selectable<AuditLogTable>, (typeof AUDIT_COLUMNS)[number]>;

function auditRecordFromRow(row: AuditRow): AuditRecord {
  return {
    id: Number(row.id),
    recordedAt: row.recorded_at,
    actorType: row.actor_type,
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    clientAddress: row.client_address,
    requestId: row.request_id,
    operation: row.operation,
    eventId: row.event_id,
    eventType: row.event_type,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
    before: row.before === null ? null : (JSON.parse(row.before) as Record<string, unknown>),
    after: row.after === null ? null : (JSON.parse(row.after) as Record<string, unknown>),
  };
}

/** Events older than `before` (wall-clock time of their writing) go, with their deliveries and attempts. */
export async function purgeEventsRecordedBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('events').where('recorded_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
