import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CollectionAttemptsTable, RefundAttemptsTable } from './tables.ts';
import type {
  CollectionAttempt,
  FinishedAttempt,
  NewCollectionAttempt,
  NewRefundAttempt,
  RefundAnswer,
  RefundAttempt,
} from './collectionAttempt.ts';

/** The one mapping between a collection attempt's row and the attempt, used by collectionAttempt.repository.ts. */
export function attemptFromRow(row: Selectable<CollectionAttemptsTable>): CollectionAttempt {
  return {
    id: row.id,
    accountId: row.account_id,
    invoiceId: row.invoice_id,
    customerId: row.customer_id,
    attemptNo: row.attempt_no,
    idempotencyKey: row.idempotency_key,
    gatewayId: row.gateway_id,
    paymentMethodId: row.payment_method_id,
    sealedToken: row.token_sealed,
    amountMinor: row.amount_minor,
    currencyCode: row.currency_code,
    state: row.state,
    reason: row.reason,
    rawCode: row.raw_code,
    retryClass: row.retry_class,
    paymentId: row.payment_id,
    chargeId: row.charge_id,
    startedAt: row.started_at,
    leasedAt: row.leased_at,
    finishedAt: row.finished_at,
  };
}

export function newAttemptToRow(attempt: NewCollectionAttempt): Insertable<CollectionAttemptsTable> {
  return {
    account_id: attempt.accountId,
    invoice_id: attempt.invoiceId,
    customer_id: attempt.customerId,
    attempt_no: attempt.attemptNo,
    idempotency_key: attempt.idempotencyKey,
    gateway_id: attempt.gatewayId,
    payment_method_id: attempt.paymentMethodId,
    token_sealed: attempt.sealedToken,
    amount_minor: attempt.amountMinor,
    currency_code: attempt.currencyCode,
    state: attempt.state,
    started_at: attempt.startedAt,
    leased_at: attempt.leasedAt,
  };
}

export function finishedAttemptToRow(changes: FinishedAttempt): Updateable<CollectionAttemptsTable> {
  return {
    state: changes.state,
    reason: changes.reason,
    raw_code: changes.rawCode,
    retry_class: changes.retryClass,
    finished_at: changes.finishedAt,
  };
}

/** The one mapping between a refund attempt's row and the attempt, used by refundAttempt.repository.ts. */
export function refundAttemptFromRow(row: Selectable<RefundAttemptsTable>): RefundAttempt {
  return {
    id: row.id,
    accountId: row.account_id,
    paymentId: row.payment_id,
    adjustmentId: row.adjustment_id,
    gatewayId: row.gateway_id,
    chargeId: row.charge_id,
    amountMinor: row.amount_minor,
    currencyCode: row.currency_code,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    refundId: row.refund_id,
    rawCode: row.raw_code,
    startedAt: row.started_at,
    leasedAt: row.leased_at,
    paidInvoices: row.paid_invoices,
    creditNoteId: row.credit_note_id,
  };
}

export function newRefundAttemptToRow(attempt: NewRefundAttempt): Insertable<RefundAttemptsTable> {
  return {
    account_id: attempt.accountId,
    payment_id: attempt.paymentId,
    adjustment_id: attempt.adjustmentId,
    gateway_id: attempt.gatewayId,
    charge_id: attempt.chargeId,
    amount_minor: attempt.amountMinor,
    currency_code: attempt.currencyCode,
    idempotency_key: attempt.idempotencyKey,
    state: attempt.state,
    started_at: attempt.startedAt,
    leased_at: attempt.leasedAt,
    paid_invoices: attempt.paidInvoices,
    credit_note_id: attempt.creditNoteId,
  };
}

/** Only the fields the answer has: an answer without a refund id leaves the column as it is. */
export function refundAnswerToRow(answer: RefundAnswer): Updateable<RefundAttemptsTable> {
  const row: Updateable<RefundAttemptsTable> = { state: answer.state };
  if (answer.refundId !== undefined) row.refund_id = answer.refundId;
  if (answer.rawCode !== undefined) row.raw_code = answer.rawCode;
  return row;
}
