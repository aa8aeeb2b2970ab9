import type { PlainDate } from '../../core/calendar.ts';
import type { PeriodCut } from './subscriptionChanges.ts';
import type { Db } from '../../storage/database.ts';

export { findSubscriptionRecord, updateSubscription } from './subscription.repository.ts';

/** A period billed (or, free, recorded) for a subscription. */
export interface BilledPeriod {
  periodNo: number;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  /** trial, stub (pro-rated) or term. */
  kind: string;
  amountMinor: number;
  invoiceId: number | null;
  /** amountMinor includes the taxes: billed at a tax-inclusive price. */
  isTaxInclusive: boolean;
}

/** What a cancellation or a change made now owes the customer for time billed and not used. */
export interface SubscriptionCredit {
  id: number;
  currencyCode: string;
  amountMinor: number;
  descrip: string;
  periodStart: PlainDate;
  periodEnd: PlainDate;
  /** The credit_note adjustment that issued it, once issued. */
  adjustmentId: number | null;
  createdAt: string;
}

/** Billed periods that reach past a date, in order. */
export async function listPeriodsEndingAfter(
  db: Db,
  accountId: number,
  subscriptionId: number,
  date: PlainDate,
): Promise<Omit<BilledPeriod, 'kind'>[]> {
  const rows = await db
    .selectFrom('subscription_periods')
    .select(['period_no', 'period_start', 'period_end', 'amount_minor', 'invoice_id', 'is_tax_inclusive'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('period_end', '>', date)
    .orderBy('period_no')
    .execute();
  return rows.map((row) => ({
    periodNo: row.period_no,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    amountMinor: row.amount_minor,
    invoiceId: row.invoice_id,
    isTaxInclusive: Boolean(row.is_tax_inclusive),
  }));
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

export async function insertCredit(
  db: Db,
  accountId: number,
  subscriptionId: number,
  customerId: number,
  credit: Omit<SubscriptionCredit, 'id' | 'adjustmentId'>,
): Promise<number> {
  const inserted = await db
    .insertInto('subscription_credits')
    .values({
      account_id: accountId,
      customer_id: customerId,
      subscription_id: subscriptionId,
      currency_code: credit.currencyCode,
      amount_minor: credit.amountMinor,
      descrip: credit.descrip,
      period_start: credit.periodStart,
      period_end: credit.periodEnd,
      created_at: credit.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
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

export async function listCredits(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionCredit[]> {
  const rows = await db
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
  return rows.map((row) => ({
    id: row.id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    descrip: row.descrip,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    adjustmentId: row.adjustment_id,
    createdAt: row.created_at,
  }));
}

/** The subscription's billed periods in order (for the timeline invariants and tests). */
export async function listPeriods(
  db: Db,
  accountId: number,
  subscriptionId: number,
): Promise<Omit<BilledPeriod, 'isTaxInclusive'>[]> {
  const rows = await db
    .selectFrom('subscription_periods')
    .select(['period_no', 'period_start', 'period_end', 'kind', 'amount_minor', 'invoice_id'])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('period_no')
    .execute();
  return rows.map((row) => ({
    periodNo: row.period_no,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    kind: row.kind,
    amountMinor: row.amount_minor,
    invoiceId: row.invoice_id,
  }));
}
