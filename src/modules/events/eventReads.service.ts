import { Temporal } from 'temporal-polyfill';
import type { ServiceContext } from '../../context.ts';
import { isEventTypePattern } from './eventTypes.ts';
import type { Page } from '../../core/paging.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import * as repo from './eventReads.repository.ts';
import type { AuditRecord } from './eventReads.repository.ts';

/** Events are kept 30 days after they were written (as Stripe's event list), then purged with their deliveries. */
export const EVENT_RETENTION_DAYS = 30;

/** Purges events written more than EVENT_RETENTION_DAYS before `now`, with their deliveries and attempts. */
export function purgeExpiredEvents(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  return repo.purgeEventsRecordedBefore(db, cutoff);
}

export interface EventListFilter {
  /** Comma-separated types or patterns (`invoice.*`, `*`). */
  type?: string;
  resourceType?: string;
  resourceID?: string;
  startDate?: string;
  endDate?: string;
  deliverySuccess?: boolean;
}

export interface AuditListFilter {
  eventType?: string;
  resourceType?: string;
  resourceID?: string;
  actorType?: 'api_key' | 'cli' | 'widget';
  apiKeyID?: number;
  requestID?: string;
  startDate?: string;
  endDate?: string;
}

function checkedTypes(
  text: string | undefined,
  field: string,
  problems: FieldProblem[],
): string[] | undefined {
  if (text === undefined) return undefined;
  const types = text.split(',').map((part) => part.trim());
  const bad = types.filter((type) => !isEventTypePattern(type));
  if (bad.length > 0) {
    problems.push({
      field,
      message: `not an event type or pattern (resource.action, prefix.* or *): ${bad.join(', ')}`,
    });
  }
  return types;
}

/** The last instant a wire date can name: a bound there is no bound (one past it is not an instant we store). */
const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';

const BARE_DATE = /^(\d{4}-\d{2}-\d{2}|\d{1,2} [A-Za-z]{3} \d{4})$/;

/**
 * Both bounds are inclusive; a bare date as endDate covers its whole day in the account's time zone, so the
 * query's upper bound is the next day's start, exclusive.
 */
function checkedWindow(
  ctx: ServiceContext,
  startDate: string | undefined,
  endDate: string | undefined,
  problems: FieldProblem[],
): { from?: string; before?: string } {
  const window: { from?: string; before?: string } = {};
  if (startDate !== undefined) {
    const from = parseWireDate(startDate, ctx.account.timeZone);
    if (from) window.from = from;
    else problems.push({ field: 'startDate', message: 'not a date' });
  }
  if (endDate !== undefined) {
    const to = parseWireDate(endDate, ctx.account.timeZone);
    if (!to) problems.push({ field: 'endDate', message: 'not a date' });
    else if (BARE_DATE.test(endDate.trim())) {
      window.before = parseWireDate(nextDay(endDate.trim()), ctx.account.timeZone);
    } else if (to < LATEST_INSTANT) {
      window.before = new Date(Date.parse(to) + 1).toISOString();
    }
  }
  if (window.from && window.before && window.from >= window.before) {
    problems.push({ field: 'startDate', message: 'must not be after endDate' });
  }
  return window;
}

/** The calendar day after a bare wire date, as an ISO date. */
function nextDay(bareDate: string): string {
  const isoDate = parseWireDate(bareDate, 'UTC')!.slice(0, 10);
  return Temporal.PlainDate.from(isoDate).add({ days: 1 }).toString();
}

/** The account's events, newest first, as their stored JSON texts (sent as they are). */
export async function listEvents(
  ctx: ServiceContext,
  page: Page,
  filter: EventListFilter,
): Promise<string[]> {
  const problems: FieldProblem[] = [];
  const types = checkedTypes(filter.type, 'type', problems);
  const window = checkedWindow(ctx, filter.startDate, filter.endDate, problems);
  if (filter.resourceID !== undefined && filter.resourceType === undefined) {
    problems.push({ field: 'resourceType', message: 'is required with resourceID' });
  }
  if (problems.length) throw new ValidationError(problems);
  return repo.listEventPayloads(
    ctx.db,
    ctx.account.id,
    {
      ...(types ? { types } : {}),
      ...(filter.resourceType !== undefined ? { resourceType: filter.resourceType } : {}),
      ...(filter.resourceID !== undefined ? { resourceId: filter.resourceID } : {}),
      ...window,
      ...(filter.deliverySuccess !== undefined ? { deliverySuccess: filter.deliverySuccess } : {}),
    },
    page,
  );
}

export async function getEvent(ctx: ServiceContext, eventId: string): Promise<string> {
  const payload = await repo.findEventPayload(ctx.db, ctx.account.id, eventId);
  if (payload === undefined) throw new NotFoundError('Event', eventId);
  return payload;
}

export async function listAuditLog(
  ctx: ServiceContext,
  page: Page,
  filter: AuditListFilter,
): Promise<AuditRecord[]> {
  const problems: FieldProblem[] = [];
  const eventType = checkedTypes(filter.eventType, 'eventType', problems);
  const window = checkedWindow(ctx, filter.startDate, filter.endDate, problems);
  if (problems.length) throw new ValidationError(problems);
  return repo.listAuditEntries(
    ctx.db,
    ctx.account.id,
    {
      ...(eventType ? { eventType } : {}),
      ...(filter.resourceType !== undefined ? { resourceType: filter.resourceType } : {}),
      ...(filter.resourceID !== undefined ? { resourceId: filter.resourceID } : {}),
      ...(filter.actorType !== undefined ? { actorType: filter.actorType } : {}),
      ...(filter.apiKeyID !== undefined ? { apiKeyId: filter.apiKeyID } : {}),
      ...(filter.requestID !== undefined ? { requestId: filter.requestID } : {}),
      ...window,
    },
    page,
  );
}
