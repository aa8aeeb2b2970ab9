import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { subscriptionsByIds } from '../subscriptions/index.ts';
import * as repo from './retention.repository.ts';
import { keptState, retentionMonths } from './retention.ts';
import type { RetentionMonth } from './retention.ts';

export interface RetentionReport {
  from: PlainDate;
  to: PlainDate;
  months: RetentionMonth[];
}

/** The longest range one report reads: five years of months. */
const MAX_MONTHS = 60;

/** GET /v1/reports/retention: the range checked as the VAT report checks its period. */
export function retentionReportFromWire(
  ctx: ServiceContext,
  request: { from: string; to: string },
): Promise<RetentionReport> {
  const problems: FieldProblem[] = [];
  const from = parseWireCalendarDate(request.from, ctx.account.timeZone);
  const to = parseWireCalendarDate(request.to, ctx.account.timeZone);
  if (from === undefined) problems.push({ field: 'from', message: 'must be a date' });
  if (to === undefined) problems.push({ field: 'to', message: 'must be a date' });
  if (from && to && from > to)
    problems.push({ field: 'from', message: `must not be after to (${from} > ${to})` });
  if (from && to && monthIndex(to) - monthIndex(from) >= MAX_MONTHS) {
    problems.push({ field: 'to', message: `must be within ${MAX_MONTHS} months of from` });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return retentionReport(ctx, from!, to!);
}

const monthIndex = (date: PlainDate) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7));

/**
 * Cancels by reason, offers shown, taken and declined by kind, and subscriptions kept, by month (docs/portal.md,
 * "The retention report"). Whether a taken offer kept its subscription is read from the subscription's last
 * cancellation (its CancelledAt, whoever made it: the portal or the API).
 */
export async function retentionReport(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<RetentionReport> {
  const records = await repo.listRecords(ctx.db, ctx.account.id, from, to);
  const takenIds = [...new Set(records.filter((r) => r.kind === 'taken').map((r) => r.subscriptionId))];
  const subscriptions = await subscriptionsByIds(ctx, takenIds);
  const zone = ctx.account.timeZone;
  const day = today(ctx);
  const months = retentionMonths(from, to, records, (record) => {
    const cancelledAt = subscriptions.get(record.subscriptionId)?.cancelledAt ?? null;
    return keptState(record.madeOn, cancelledAt === null ? null : dateAt(cancelledAt, zone), day);
  });
  return { from, to, months };
}
