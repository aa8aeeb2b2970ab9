import type { Insertable } from 'kysely';
import type { PlainDate } from '../../core/calendar.ts';
import type { PeriodCut } from '../../core/subscriptionChanges.ts';
import type { Db } from '../../storage/database.ts';
import type { SubscriptionCreditsTable } from '../../storage/schema.ts';

export { findSubscriptionRow, updateSubscription } from './subscription.repository.ts';

/** Billed periods that reach past a date, in order. */
export function listPeriodsEndingAfter(db: Db, accountId: number, subscriptionId: number, date: PlainDate) {
  return db
    .selectFrom('subscription_periods')
    .select(['period_no', 'period_start', 'period_end', 'amount_minor', 'invoice_id', 'is_tax_inclusive'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_end', '>', date)
    .orderBy('period_no')
    .execute();
}

export async function cutPeriod(
  db: Db,
  accountId: number,
  subscriptionId: number,
  cut: PeriodCut,
): Promise<void> {
  await db
    .updateTable('subscription_periods')
    .set({ period_start: cut.start, period_end: cut.end })
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_no', '=', cut.periodNo)
    .execute();
}

export async function insertCredit(db: Db, row: Insertable<SubscriptionCreditsTable>): Promise<number> {
  return (await db.insertInto('subscription_credits').values(row).returning('id').executeTakeFirstOrThrow())
    .id;
}

export async function linkCreditAdjustment(
  db: Db,
  accountId: number,
  creditId: number,
  adjustmentId: number,
): Promise<void> {
  await db
    .updateTable('subscription_credits')
    .set({ adjustment_id: adjustmentId })
    .where('account_id', '=', accountId)
    .where('id', '=', creditId)
    .execute();
}

export async function countUnbilledUsage(db: Db, accountId: number, subscriptionId: number): Promise<number> {
  const row = await db
    .selectFrom('subscription_usage')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('invoice_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function listCredits(db: Db, accountId: number, subscriptionId: number) {
  return db
    .selectFrom('subscription_credits')
    .select([
      'id',
      'currency_code',
      'amount_minor',
      'descrip',
      'period_start',
      'period_end',
      'adjustment_id',
      'created_at',
    ])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id')
    .execute();
}

/** The subscription's billed periods in order (for the timeline invariants and tests). */
export function listPeriods(db: Db, accountId: number, subscriptionId: number) {
  return db
    .selectFrom('subscription_periods')
    .select(['period_no', 'period_start', 'period_end', 'kind', 'amount_minor', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('period_no')
    .execute();
}
