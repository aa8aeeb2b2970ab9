import type { Insertable, Selectable, Updateable } from 'kysely';
import type { PaymentState } from './allocation.ts';
import type { PaymentsTable } from './tables.ts';
import type { NewPayment, PaymentChanges, PaymentRecord } from './payment.ts';

/** The columns the ledger reads of a payment. */
export type PaymentColumns = Omit<Selectable<PaymentsTable>, 'account_id' | 'created_at' | 'updated_at'>;

/** The one mapping between a payment's row and its record, used by payment.repository.ts. */
export function paymentFromRow(row: PaymentColumns): PaymentRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.payment_date,
    method: row.method,
    state: row.state as PaymentState,
    memo: row.memo,
    ref: row.ref,
    failureReason: row.failure_reason,
    paymentMethodId: row.payment_method_id,
  };
}

/** A new payment's row; its allocated total only when given (the column's default otherwise). */
export function newPaymentToRow(payment: NewPayment): Insertable<PaymentsTable> {
  const row: Insertable<PaymentsTable> = {
    account_id: payment.accountId,
    customer_id: payment.customerId,
    currency_code: payment.currencyCode,
    amount_minor: payment.amountMinor,
    payment_date: payment.date,
    method: payment.method,
    state: payment.state,
    memo: payment.memo,
    ref: payment.ref,
    payment_method_id: payment.paymentMethodId,
    failure_reason: payment.failureReason,
    failure_code: payment.failureCode,
    created_at: payment.createdAt,
    updated_at: payment.updatedAt,
  };
  if (payment.allocatedMinor !== undefined) row.allocated_minor = payment.allocatedMinor;
  return row;
}

/** The columns an edit sets: only the fields given, in one order whatever the edit. */
export function paymentChangesToRow(changes: PaymentChanges): Updateable<PaymentsTable> {
  const row: Updateable<PaymentsTable> = {};
  if (changes.state !== undefined) row.state = changes.state;
  if (changes.currencyCode !== undefined) row.currency_code = changes.currencyCode;
  if (changes.amountMinor !== undefined) row.amount_minor = changes.amountMinor;
  if (changes.date !== undefined) row.payment_date = changes.date;
  if (changes.method !== undefined) row.method = changes.method;
  if (changes.memo !== undefined) row.memo = changes.memo;
  if (changes.ref !== undefined) row.ref = changes.ref;
  if (changes.paymentMethodId !== undefined) row.payment_method_id = changes.paymentMethodId;
  if (changes.failureReason !== undefined) row.failure_reason = changes.failureReason;
  if (changes.failureCode !== undefined) row.failure_code = changes.failureCode;
  row.updated_at = changes.updatedAt;
  return row;
}
