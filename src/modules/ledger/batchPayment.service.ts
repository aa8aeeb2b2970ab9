import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import type { PaymentState } from '../../core/allocation.ts';
import { optionalText } from '../../core/text.ts';
import { createMoneySource, deleteMoneySource, updateMoneySource } from './moneySource.ts';
import type { MoneySourceInput, MoneySourceKind } from './moneySource.ts';
import { getPayment, getPaymentRow, sourceOf } from './payment.service.ts';
import type { Payment } from './payment.service.ts';
import * as repo from './payment.repository.ts';
import type { PaymentRow } from './payment.repository.ts';

/**
 * The payments that are lines of a payment batch (spec part 2, Batches): Pending from the moment they are added
 * (their allocations count in the invoices' TotalPendingPaid, so Balance falls and the invoice is not collected
 * twice; it is Paid only once the bank has had its say), taken from a stored bank account. The batches module
 * owns the batch and says, under the customer's lock, whether its lines may change (`BatchGuard`).
 */

export interface BatchLinePaymentInput extends MoneySourceInput {
  /** The rail the line's bank account debits by: debit_order, ach or sepa (the payment's Method). */
  method: string;
  paymentMethodId: number;
  memo?: string | null;
  ref?: string | null;
}

/**
 * Run in the change's transaction, under the customer's lock and before any allocation moves: takes the batch's
 * lock (so the order is always customer, batch, invoices) and throws when the batch is closed to changes.
 */
export type BatchGuard = (ctx: ServiceContext) => Promise<void>;

interface LineFields {
  method: string;
  paymentMethodId: number;
  memo: string | null;
  ref: string | null;
}

function lineKind(
  guard: BatchGuard,
): MoneySourceKind<PaymentRow, BatchLinePaymentInput, LineFields, Payment> {
  return {
    noun: 'payment',
    resourceType: 'payment',
    getRow: getPaymentRow,
    sourceOf,
    async assertChangeable(ctx, row) {
      if (row.state !== 'pending') {
        throw new ConflictError('batch_line_final', `Payment ${row.id} is ${row.state} already`);
      }
      await guard(ctx);
    },
    // A new line: its batch is locked and checked before its allocations lock the invoices.
    async assertWritable(ctx, _checked, current) {
      if (current === undefined) await guard(ctx);
    },
    checkFields: (input) => ({
      method: input.method,
      paymentMethodId: input.paymentMethodId,
      memo: optionalText(input.memo) ?? null,
      ref: optionalText(input.ref) ?? null,
    }),
    async insert(ctx, columns, line) {
      const row = {
        ...columns,
        payment_date: line.date,
        method: line.method,
        state: 'pending' satisfies PaymentState,
        memo: line.memo,
        ref: line.ref,
        payment_method_id: line.paymentMethodId,
      };
      return sourceOf({ ...row, id: await repo.insertPayment(ctx.db, row) });
    },
    update: (ctx, row, changes, line) =>
      repo.updatePayment(ctx.db, ctx.account.id, row.id, {
        ...changes,
        payment_date: line.date,
        method: line.method,
        payment_method_id: line.paymentMethodId,
        memo: line.memo,
        ref: line.ref,
      }),
    delete: (ctx, row) => repo.deletePayment(ctx.db, ctx.account.id, row.id),
    read: getPayment,
  };
}

/**
 * Records a batch line as a Pending payment allocated as the request says (PaymentApplied, or isAutoApply);
 * `afterInsert` runs last in its transaction (the batch records the line there).
 */
export function createBatchLinePayment(
  ctx: ServiceContext,
  input: BatchLinePaymentInput,
  guard: BatchGuard,
  afterInsert: (ctx: ServiceContext, payment: Payment) => Promise<void>,
): Promise<Payment> {
  return createMoneySource(lineKind(guard), ctx, input, afterInsert);
}

/** Edits a line: its amount, method and allocations (PaymentApplied by allocation diff, as payments' rule 4). */
export function updateBatchLinePayment(
  ctx: ServiceContext,
  paymentId: number,
  input: BatchLinePaymentInput,
  guard: BatchGuard,
): Promise<void> {
  return updateMoneySource(lineKind(guard), ctx, paymentId, input);
}

/** Removes a line: the payment and its pending allocations go (the invoices owe that money again). */
export function deleteBatchLinePayment(
  ctx: ServiceContext,
  paymentId: number,
  guard: BatchGuard,
): Promise<void> {
  return deleteMoneySource(lineKind(guard), ctx, paymentId);
}
