import type { PlainDate } from '../../core/calendar.ts';
import type { Db } from '../../storage/database.ts';
import { STATUS_DATE_COLUMNS, statusDatesFromRow } from './subscription.mapper.ts';
import type { SubscriptionStatusDates } from './subscription.ts';

/**
 * Subscriptions with a date in [from, to] at which comp_Status moves by time (StartDate, TrialEndDate, EndDate,
 * CancelDate, PauseDate, ResumeDate), or whose trial ends or pause ends within the three days after: the candidates
 * of the time-driven events, a page of them at a time in id order. NOTE: the ids are found as a union of one range
 * per date column, each on its index: written as one OR ordered by id, SQLite walks the account's subscriptions in
 * id order instead and filters every one of them, on every page of every day (docs/benchmarks.md, "A test-clock
 * advance"). Only the fields that decide the events are read: most candidates have none to emit, and on the first
 * of a month they may be every subscription of the account.
 */
export async function listWithStatusDatesBetween(
  db: Db,
  accountId: number,
  { from, to, trialWarningTo }: { from: PlainDate; to: PlainDate; trialWarningTo: PlainDate },
  page: { afterId: number; limit: number },
): Promise<SubscriptionStatusDates[]> {
  const dated = (column: StatusDateColumn, until: PlainDate) =>
    db
      .selectFrom('subscriptions')
      .select('id')
      .where('account_id', '=', accountId)
      .where(column, '>=', from)
      .where(column, '<=', until);
  const rows = await db
    .selectFrom('subscriptions')
    .select(STATUS_DATE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '>', page.afterId)
    .where('id', 'in', () =>
      dated('start_date', to)
        .unionAll(dated('trial_end_date', trialWarningTo))
        .unionAll(dated('end_date', to))
        .unionAll(dated('cancel_date', to))
        .unionAll(dated('pause_date', to))
        .unionAll(dated('resume_date', trialWarningTo)),
    )
    .orderBy('id')
    .limit(page.limit)
    .execute();
  return rows.map(statusDatesFromRow);
}

type StatusDateColumn =
  'start_date' | 'trial_end_date' | 'end_date' | 'cancel_date' | 'pause_date' | 'resume_date';
