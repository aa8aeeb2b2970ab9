import type { ServiceContext } from '../../context.ts';
import { parseWireDate } from '../../core/wireDates.ts';
import type { Page } from '../../core/paging.ts';
import { ValidationError } from '../../errors.ts';
import { metricsByCodes, metricsByIds } from '../catalogue/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import * as repo from './usageEvent.repository.ts';
import type { EventFilter } from './usageEvent.repository.ts';
import type { UsageEvent } from './usageEvent.ts';

/** Which of a customer's events to read, as the API asks (dates on the wire, a metric by code). */
export interface UsageEventsQuery {
  from?: string;
  to?: string;
  code?: string;
}

/** An event with its metric's code, as lists show it. */
export interface ListedUsageEvent {
  event: UsageEvent;
  code: string;
}

/** Events of `transactionIds`, with their codes: what POST answers with. */
export async function usageEventsOfTransactions(
  ctx: ServiceContext,
  transactionIds: readonly string[],
): Promise<Map<string, ListedUsageEvent>> {
  const events = await repo.eventsOfTransactions(ctx.db, ctx.account.id, transactionIds);
  const listed = await withCodes(ctx, events);
  return new Map(listed.map((l) => [l.event.transactionId, l]));
}

/** A page of a customer's events in time order (another account's customer is not found). */
export async function listUsageEvents(
  ctx: ServiceContext,
  customerId: number,
  query: UsageEventsQuery,
  page: Page,
): Promise<ListedUsageEvent[]> {
  const filter = await eventFilter(ctx, customerId, query);
  return withCodes(ctx, await repo.listCustomerEvents(ctx.db, ctx.account.id, filter, page));
}

/** Rows read per statement by the export: what it holds in memory at once. */
const EXPORT_CHUNK = 1_000;

/**
 * Every event of the range in time order, a chunk at a time (bounded memory, whatever the range), for the CSV
 * export. The checks run before the first chunk is asked for, so that a bad query is refused before any answer.
 */
export async function exportUsageEvents(
  ctx: ServiceContext,
  customerId: number,
  query: UsageEventsQuery,
): Promise<AsyncGenerator<ListedUsageEvent[]>> {
  const filter = await eventFilter(ctx, customerId, query);
  return (async function* chunks() {
    let after: { occurredAt: string; id: number } | null = null;
    for (;;) {
      const events = await repo.customerEventsAfter(ctx.db, ctx.account.id, filter, after, EXPORT_CHUNK);
      if (events.length === 0) return;
      yield await withCodes(ctx, events);
      const last = events.at(-1)!;
      after = { occurredAt: last.occurredAt, id: last.id };
      if (events.length < EXPORT_CHUNK) return;
    }
  })();
}

async function eventFilter(
  ctx: ServiceContext,
  customerId: number,
  query: UsageEventsQuery,
): Promise<EventFilter> {
  await assertCustomerExists(ctx, customerId);
  const instant = (field: 'from' | 'to') => {
    const text = query[field];
    if (text === undefined) return null;
    const parsed = parseWireDate(text, ctx.account.timeZone);
    if (parsed === undefined) throw ValidationError.field(field, 'must be an ISO 8601 date-time or date');
    return parsed;
  };
  let metricId: number | null = null;
  if (query.code !== undefined) {
    // A code that names no metric has no events: an empty list, as for a metric without any.
    metricId = (await metricsByCodes(ctx.db, ctx.account.id, [query.code])).get(query.code)?.id ?? 0;
  }
  return { customerId, from: instant('from'), to: instant('to'), metricId };
}

async function withCodes(ctx: ServiceContext, events: readonly UsageEvent[]): Promise<ListedUsageEvent[]> {
  const metrics = await metricsByIds(
    ctx.db,
    ctx.account.id,
    events.map((e) => e.metricId),
  );
  return events.map((event) => ({ event, code: metrics.get(event.metricId)?.code ?? '' }));
}
