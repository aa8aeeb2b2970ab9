import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { RefundAttemptsTable } from './tables.ts';
import type { TakenFromInvoice } from '../ledger/index.ts';

export type RefundAttemptRow = Selectable<RefundAttemptsTable>;

/** The attempt, with what its refund took from each invoice its payment paid. */
export async function insertAttempt(
  db: Db,
  row: Insertable<RefundAttemptsTable>,
  fromInvoices: readonly TakenFromInvoice[],
): Promise<RefundAttemptRow> {
  const attempt = await db.insertInto('refund_attempts').values(row).returningAll().executeTakeFirstOrThrow();
  if (fromInvoices.length > 0) {
    await db
      .insertInto('refund_attempt_invoices')
      .values(
        fromInvoices.map((taken) => ({
          refund_attempt_id: attempt.id,
          account_id: row.account_id,
          invoice_id: taken.invoiceId,
          amount_minor: taken.amountMinor,
        })),
      )
      .execute();
  }
  return attempt;
}

/** What the attempt's refund took from each invoice its payment paid. */
export async function takenFromInvoices(
  db: Db,
  accountId: number,
  attemptId: number,
): Promise<TakenFromInvoice[]> {
  const rows = await db
    .selectFrom('refund_attempt_invoices')
    .select(['invoice_id', 'amount_minor'])
    .where('account_id', '=', accountId)
    .where('refund_attempt_id', '=', attemptId)
    .execute();
  return rows.map((row) => ({ invoiceId: row.invoice_id, amountMinor: row.amount_minor }));
}

/**
 * Records the answer, once: only an attempt still `started` (or `pending`, for the provider's late word on a
 * pending refund) changes; whether this one did.
 */
export async function finishAttempt(
  db: Db,
  accountId: number,
  attemptId: number,
  answer: { state: 'succeeded' | 'declined' | 'pending'; refund_id?: string; raw_code?: string },
  from: 'started' | 'pending' = 'started',
): Promise<boolean> {
  const result = await db
    .updateTable('refund_attempts')
    .set(answer)
    .where('account_id', '=', accountId)
    .where('id', '=', attemptId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The pending refund the provider knows by `refundId`, at that gateway. */
export function findPendingAttempt(
  db: Db,
  accountId: number,
  gatewayId: number,
  refundId: string,
): Promise<RefundAttemptRow | undefined> {
  return db
    .selectFrom('refund_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('refund_id', '=', refundId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
}

export function listStaleAttempts(
  db: Db,
  accountId: number,
  staleBefore: string,
): Promise<RefundAttemptRow[]> {
  return db
    .selectFrom('refund_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('state', '=', 'started')
    .where('leased_at', '<', staleBefore)
    .orderBy('id')
    .limit(100)
    .execute();
}
