import type { Db } from '../../storage/database.ts';
import type { TakenFromInvoice } from '../ledger/index.ts';
import {
  newRefundAttemptToRow,
  refundAnswerToRow,
  refundAttemptFromRow,
} from './collectionAttempt.mapper.ts';
import type { NewRefundAttempt, RefundAnswer, RefundAttempt } from './collectionAttempt.ts';

/** The attempt, with what its refund took from each invoice its payment paid. */
export async function insertAttempt(
  db: Db,
  newAttempt: NewRefundAttempt,
  fromInvoices: readonly TakenFromInvoice[],
): Promise<RefundAttempt> {
  const attempt = refundAttemptFromRow(
    await db
      .insertInto('refund_attempts')
      .values(newRefundAttemptToRow(newAttempt))
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  if (fromInvoices.length > 0) {
    await db
      .insertInto('refund_attempt_invoices')
      .values(
        fromInvoices.map((taken) => ({
          refund_attempt_id: attempt.id,
          account_id: attempt.accountId,
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
  answer: RefundAnswer,
  from: 'started' | 'pending' = 'started',
): Promise<boolean> {
  const result = await db
    .updateTable('refund_attempts')
    .set(refundAnswerToRow(answer))
    .where('account_id', '=', accountId)
    .where('id', '=', attemptId)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The pending refund the provider knows by `refundId`, at that gateway. */
export async function findPendingAttempt(
  db: Db,
  accountId: number,
  gatewayId: number,
  refundId: string,
): Promise<RefundAttempt | undefined> {
  const row = await db
    .selectFrom('refund_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('refund_id', '=', refundId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return row && refundAttemptFromRow(row);
}

export async function listStaleAttempts(
  db: Db,
  accountId: number,
  staleBefore: string,
): Promise<RefundAttempt[]> {
  const rows = await db
    .selectFrom('refund_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('state', '=', 'started')
    .where('leased_at', '<', staleBefore)
    .orderBy('id')
    .limit(100)
    .execute();
  return rows.map(refundAttemptFromRow);
}
