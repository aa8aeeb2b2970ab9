import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { isRail } from '../../core/bankingDays.ts';
import { MAX_BATCH_LINES } from './batchRules.ts';
import type { Rail } from '../../core/bankingDays.ts';
import type { PlainDate } from '../../core/calendar.ts';
import {
  checkBatchLinePayment,
  createBatchLinePayment,
  deleteBatchLinePayment,
  getPayment,
  updateBatchLinePayment,
  withLockedCustomer,
} from '../ledger/index.ts';
import type {
  AllocationInput,
  BatchLinePaymentInput,
  DecimalAmount,
  Payment,
  Read,
} from '../ledger/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { emandatesOfPaymentMethods } from '../mandates/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRecord } from './batch.ts';
import { assertOpen, getBatchRecord } from './batch.service.ts';

/**
 * The lines of a payment batch (spec: /v1/batches/payments): each is a Pending payment from a customer's bank
 * account, allocated to invoices as PaymentApplied says (or isAutoApply). Lines change only while their batch is
 * open; the batch's row lock, taken after the customer's, keeps its state and its 500 lines true.
 */

export interface BatchLineInput {
  batchToken: string;
  customerId: number;
  amount: DecimalAmount;
  paymentMethodId: number;
  memo?: string | null;
  ref?: string | null;
  autoApply: boolean;
  allocations: readonly AllocationInput[] | undefined;
  /** Edits only: what the spec's PUT lists; when sent they must agree with the batch and the method. */
  currencyCode?: string;
  date?: Read<PlainDate>;
  method?: string;
}

/** A line's edit: its bank account stays when none is named. */
export type BatchLineEdit = Omit<BatchLineInput, 'paymentMethodId'> & { paymentMethodId: number | undefined };

/** The customer's bank account the line debits, and the rail it debits by; a 422 naming paymentMethodID else. */
async function lineMethod(ctx: ServiceContext, customerId: number, paymentMethodId: number): Promise<Rail> {
  const method = (await unopenedPaymentMethodsByIds(ctx, [paymentMethodId])).get(paymentMethodId);
  if (!method || method.customerId !== customerId) {
    throw ValidationError.field(
      'paymentMethodID',
      `customer ${customerId} has no payment method ${paymentMethodId}`,
      'payment_method_not_found',
    );
  }
  const rail = method.bankAccount?.debitMethod;
  if (!rail || !isRail(rail)) {
    throw ValidationError.field(
      'paymentMethodID',
      'must be a bank account (debit_order, ach or sepa): cards are charged directly, not in batches',
    );
  }
  // docs/spec-decisions.md, "Cancelling an eMandate": nothing is collected under a cancelled mandate again.
  const mandate = (await emandatesOfPaymentMethods(ctx, [paymentMethodId])).get(paymentMethodId);
  if (mandate?.status === 'cancelled') {
    throw ValidationError.field(
      'paymentMethodID',
      `bank account ${paymentMethodId} is linked to eMandate ${mandate.debit.contractRef}, which was cancelled`,
    );
  }
  return rail;
}

/** In the line's transaction, under the customer's lock: the batch, locked, open, on the line's rail. */
async function lockOpenBatch(
  ctx: ServiceContext,
  batchId: number,
  rail: Rail | undefined,
  currencyCode?: string,
): Promise<BatchRecord> {
  const batch = await repo.lockBatch(ctx.db, ctx.account.id, batchId);
  if (!batch) throw new NotFoundError('Batch', batchId);
  assertOpen(batch, 'its payments change');
  // Read before the lock, the batch may have been edited since (its currency, while it had no lines).
  if (currencyCode !== undefined && batch.currencyCode !== currencyCode) {
    throw new ConflictError(
      'batch_changed',
      `Batch ${batch.token} changed meanwhile: send the request again`,
    );
  }
  // The rail of its lines: an open batch whose lines were all removed takes any.
  if (
    rail !== undefined &&
    batch.rail !== null &&
    batch.rail !== rail &&
    (await repo.countLines(ctx.db, ctx.account.id, batchId)) > 0
  ) {
    throw ValidationError.field(
      'paymentMethodID',
      `debits by ${rail}, and batch ${batch.token} collects by ${batch.rail}: one batch makes one bank file`,
    );
  }
  return batch;
}

function paymentInput(batch: BatchRecord, input: BatchLineInput, rail: Rail): BatchLinePaymentInput {
  return {
    customerId: input.customerId,
    amount: input.amount,
    currencyCode: batch.currencyCode,
    date: input.date ?? { value: batch.actionDate },
    method: rail,
    paymentMethodId: input.paymentMethodId,
    memo: input.memo,
    ref: input.ref,
    autoApply: input.autoApply,
    allocations: input.allocations,
    allocationsField: 'PaymentApplied',
  };
}

/**
 * Spec: POST /v1/batches/payments. The batch must be open and hold fewer than 500 payments. Runs in the caller's
 * transaction (the route's, which records the reply in it) or its own.
 */
export async function addBatchLine(ctx: ServiceContext, input: BatchLineInput): Promise<Payment> {
  const batch = await getBatchRecord(ctx, input.batchToken);
  assertOpen(batch, 'payments are added');
  await assertCustomerExists(ctx, input.customerId);
  const rail = await lineMethod(ctx, input.customerId, input.paymentMethodId);
  return withLockedCustomer(ctx, input.customerId, async (ctx) => {
    const line = await checkBatchLinePayment(ctx, paymentInput(batch, input, rail));
    // The batch is locked after the customer and before the allocations lock the invoices.
    await lockOpenBatch(ctx, batch.id, rail, batch.currencyCode);
    const payment = await createBatchLinePayment(ctx, line);
    await recordLine(ctx, batch.id, rail, payment.id, null);
    return payment;
  });
}

/**
 * Records a new line of the batch in the caller's transaction (which holds the line's customer lock): the batch
 * locked, open, on the rail, with room.
 */
export async function recordLine(
  ctx: ServiceContext,
  batchId: number,
  rail: Rail,
  paymentId: number,
  invoiceId: number | null,
): Promise<void> {
  const batch = await lockOpenBatch(ctx, batchId, rail);
  const lines = await repo.countLines(ctx.db, ctx.account.id, batchId);
  if (lines >= MAX_BATCH_LINES) {
    throw new ConflictError('batch_full', `Batch ${batch.token} holds ${MAX_BATCH_LINES} payments already`);
  }
  await repo.insertLine(ctx.db, {
    paymentId,
    accountId: ctx.account.id,
    batchId,
    invoiceId,
    createdAt: nowInstant(ctx),
  });
  if (batch.rail !== rail) await repo.updateBatch(ctx.db, ctx.account.id, batchId, { rail });
}

/** The batch line of the payment (404 when it is none); its batch must be the one the request names. */
async function findLine(ctx: ServiceContext, paymentId: number, batchToken?: string) {
  const line = await repo.findLine(ctx.db, ctx.account.id, paymentId);
  if (!line) throw new NotFoundError('Batch payment', paymentId);
  if (batchToken !== undefined && (await getBatchRecord(ctx, batchToken)).id !== line.batchId) {
    throw ValidationError.field('BatchToken', `payment ${paymentId} is not in batch ${batchToken}`);
  }
  return line;
}

/** A line is changed only while the bank has not answered it. */
function assertLinePending(payment: Payment): void {
  if (payment.state !== 'pending') {
    throw new ConflictError('batch_line_final', `Payment ${payment.id} is ${payment.state} already`);
  }
}

/**
 * Spec: PUT /v1/batches/payments. Its amount, bank account and allocations (PaymentApplied by allocation diff);
 * CurrencyCode, Date and Method, which the spec lists and its example leaves out, must agree when sent.
 */
export async function editBatchLine(
  ctx: ServiceContext,
  paymentId: number,
  edit: BatchLineEdit,
): Promise<void> {
  const line = await findLine(ctx, paymentId, edit.batchToken);
  const [batch] = await repo.findBatches(ctx.db, ctx.account.id, [line.batchId]);
  const payment = await getPayment(ctx, paymentId);
  if (edit.customerId !== payment.customerId) {
    throw ValidationError.field('customerID', `must be the payment's customer (${payment.customerId})`);
  }
  const input = { ...edit, paymentMethodId: edit.paymentMethodId ?? payment.paymentMethodId! };
  const rail = await lineMethod(ctx, input.customerId, input.paymentMethodId);
  if (input.currencyCode !== undefined && input.currencyCode.toUpperCase() !== batch!.currencyCode) {
    throw ValidationError.field('CurrencyCode', `must be the batch's currency (${batch!.currencyCode})`);
  }
  if (input.method !== undefined && input.method !== rail) {
    throw ValidationError.field(
      'Method',
      `must be ${rail}, the method of bank account ${input.paymentMethodId}`,
    );
  }
  await withLockedCustomer(ctx, payment.customerId, async (ctx) => {
    // Read again under the lock: it may have changed or gone meanwhile.
    const current = await getPayment(ctx, paymentId);
    assertLinePending(current);
    await lockOpenBatch(ctx, line.batchId, rail, batch!.currencyCode);
    const checked = await checkBatchLinePayment(ctx, paymentInput(batch!, input, rail));
    await updateBatchLinePayment(ctx, current, checked);
  });
}

/** Spec: DELETE /v1/batches/payments/{paymentID}: the line and its payment go; its invoices owe the money again. */
export async function deleteBatchLine(ctx: ServiceContext, paymentId: number): Promise<void> {
  const line = await findLine(ctx, paymentId);
  const { customerId } = await getPayment(ctx, paymentId);
  await withLockedCustomer(ctx, customerId, async (ctx) => {
    // Read again under the lock: it may have changed or gone meanwhile.
    const current = await getPayment(ctx, paymentId);
    assertLinePending(current);
    await lockOpenBatch(ctx, line.batchId, undefined);
    await deleteBatchLinePayment(ctx, current);
  });
}
