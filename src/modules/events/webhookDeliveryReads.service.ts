import type { ServiceContext } from '../../context.ts';
import { addDays, parseWireCalendarDate, startOfDate } from '../../core/calendar.ts';
import { isEventTypePattern } from './eventTypes.ts';
import type { Page } from '../../core/paging.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import * as repo from './webhookDeliveryReads.repository.ts';
import type { DeliveryAttempt, DeliveryFilter, DeliveryRecord } from './webhookDeliveryReads.repository.ts';
import { getWebhookEndpoint } from './webhookEndpoint.service.ts';

export interface WebhookDelivery extends DeliveryRecord {
  attemptsMade: DeliveryAttempt[];
}

/** Wire values of the deliveries list's filters. */
export interface DeliveryListFilter {
  status?: DeliveryRecord['status'];
  eventType?: string;
  startDate?: string;
  endDate?: string;
}

const BARE_DATE = /^\s*(\d{4}-\d{2}-\d{2}|\d{1,2} [A-Za-z]{3} \d{4})\s*$/;

function deliveryFilter(ctx: ServiceContext, filter: DeliveryListFilter): DeliveryFilter {
  const problems: FieldProblem[] = [];
  const zone = ctx.account.timeZone;
  const result: DeliveryFilter = {};
  if (filter.status !== undefined) result.status = filter.status;
  if (filter.eventType !== undefined) {
    const pattern = filter.eventType.trim();
    if (!isEventTypePattern(pattern)) {
      problems.push({
        field: 'eventType',
        message: 'must be an event type, a prefix wildcard (invoice.*) or *',
      });
    } else if (pattern.endsWith('*')) {
      if (pattern !== '*') result.eventType = { prefix: pattern.slice(0, -1) };
    } else result.eventType = { exact: pattern };
  }
  if (filter.startDate !== undefined) {
    const from = parseWireDate(filter.startDate, zone);
    if (from === undefined) problems.push({ field: 'startDate', message: 'must be a date or date-time' });
    else result.from = from;
  }
  if (filter.endDate !== undefined) {
    // A bare date means the whole of that day in the account's time zone.
    const day = BARE_DATE.test(filter.endDate) ? parseWireCalendarDate(filter.endDate, zone) : undefined;
    const to = day === undefined ? parseWireDate(filter.endDate, zone) : undefined;
    if (day !== undefined) result.toExclusive = startOfDate(addDays(day, 1), zone);
    else if (to !== undefined) result.toInclusive = to;
    else problems.push({ field: 'endDate', message: 'must be a date or date-time' });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return result;
}

/** The endpoint's deliveries, newest first, each with every attempt made (404 for another account's endpoint). */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  endpointId: number,
  page: Page,
  filter: DeliveryListFilter = {},
): Promise<WebhookDelivery[]> {
  const where = deliveryFilter(ctx, filter);
  await getWebhookEndpoint(ctx, endpointId);
  const deliveries = await repo.listDeliveries(ctx.db, ctx.account.id, endpointId, page, where);
  const attempts = await repo.attemptsOf(
    ctx.db,
    ctx.account.id,
    deliveries.map((delivery) => delivery.id),
  );
  const byDelivery = new Map<number, DeliveryAttempt[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  // The attempts are read after the deliveries: one recorded in between (with its delivery's status and count, in
  // one transaction) is left out, so that each delivery shows the attempts its status is the outcome of.
  return deliveries.map((delivery) => ({
    ...delivery,
    attemptsMade: (byDelivery.get(delivery.id) ?? []).slice(0, delivery.attempts),
  }));
}
