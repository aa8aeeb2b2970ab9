import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { paymentStatus } from '../../core/allocation.ts';
import type { PaymentState, PaymentStatus } from '../../core/allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCustomerExists } from '../customers/index.ts';
import type { InvoiceMoneyColumn } from '../invoicing/index.ts';
import { allocationsOfSources, applyAllocations, releaseAllocations } from './allocation.service.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import type { Allocation, MoneySource } from './allocation.service.ts';
import { createMoneySource, deleteMoneySource, updateMoneySource, withLockedRecord } from './moneySource.ts';
import type { BeforeCommit, MoneySourceInput, MoneySourceKind } from './moneySource.ts';
import * as repo from './payment.repository.ts';
import type { PaymentRow } from './payment.repository.ts';

/** Spec, Payment.Method, with the values its samples and the public service add (debit_order; ach, sepa, other). */
export const PAYMENT_METHODS = [
  'cash',
  'cheque',
  'credit_card',
  'bank_account',
  'eft',
  'debit_order',
  'ach',
  'sepa',
  'other',
] as const;

export interface Payment {
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  allocatedMinor: number;
  date: PlainDate;
  method: string;
  state: PaymentState;
  status: PaymentStatus;
  memo: string | null;
  ref: string | null;
  /** Why a payment collected through a gateway failed (a reason of src/core/dunning.ts); null otherwise. */
  failureReason: string | null;
  /** The stored method a gateway collected it from; null for money recorded by hand. */
  paymentMethodId: number | null;
  allocations: Allocation[];
}

/** A request's payment, read from the wire; its amounts are checked here against the currency. */
export interface PaymentInput extends MoneySourceInput {
  method: string;
  memo?: string | null;
  ref?: string | null;
}

/** Where a payment's allocations count on an invoice: a pending payment is paid but not yet received. */
function invoiceColumnOf(state: PaymentState): InvoiceMoneyColumn {
  return state === 'pending' ? 'paid_pending_minor' : 'paid_actual_minor';
}

/** A payment a batch collected from a bank account (a card's is charged directly, not in a batch). */
const isBankDebit = (row: PaymentRow): boolean =>
  row.payment_method_id !== null && row.method !== 'credit_card';

const bankDebitKept = (row: PaymentRow) =>
  new ConflictError(
    'payment_collected',
    `Payment ${row.id} was collected by bank debit in a batch: only its allocations change here, and it is not deleted`,
  );

export function sourceOf(
  row: Pick<PaymentRow, 'id' | 'customer_id' | 'currency_code' | 'amount_minor' | 'state'>,
): MoneySource {
  return {
    type: 'payment',
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    invoiceColumn: invoiceColumnOf(row.state as PaymentState),
    label: `payment ${row.id}`,
  };
}

async function assemble(ctx: ServiceContext, rows: PaymentRow[]): Promise<Payment[]> {
  const allocations = await allocationsOfSources(
    ctx,
    'payment',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    customerId: row.customer_id,
    currencyCode: row.currency_code,
    amountMinor: row.amount_minor,
    allocatedMinor: row.allocated_minor,
    date: row.payment_date,
    method: row.method,
    state: row.state as PaymentState,
    status: paymentStatus(row.state as PaymentState, row.amount_minor, row.allocated_minor),
    memo: row.memo,
    ref: row.ref,
    failureReason: row.failure_reason,
    paymentMethodId: row.payment_method_id,
    allocations: allocations.get(row.id) ?? [],
  }));
}

export async function getPaymentRow(ctx: ServiceContext, paymentId: number): Promise<PaymentRow> {
  const row = await repo.findPayment(ctx.db, ctx.account.id, paymentId);
  if (!row) throw new NotFoundError('Payment', paymentId);
  return row;
}

export async function getPayment(ctx: ServiceContext, paymentId: number): Promise<Payment> {
  return (await assemble(ctx, [await getPaymentRow(ctx, paymentId)]))[0]!;
}

/** The account's payments with these ids, as getPayment reads them (unknown ids left out). */
export async function paymentsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, Payment>> {
  const found = await assemble(ctx, await repo.findPayments(ctx.db, ctx.account.id, ids));
  return new Map(found.map((payment) => [payment.id, payment]));
}

export async function listPayments(ctx: ServiceContext, page: Page, customerId?: number): Promise<Payment[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listPayments(ctx.db, ctx.account.id, page, customerId));
}

/** The fields a payment adds to those every money source has. */
interface PaymentFields {
  method: string;
  memo: string | null;
  ref: string | null;
}

const payments: MoneySourceKind<PaymentRow, PaymentInput, PaymentFields, Payment> = {
  noun: 'payment',
  resourceType: 'payment',
  getRow: getPaymentRow,
  sourceOf,
  // A debit or charge the bank has not answered yet is changed through its batch, or answered by the gateway.
  async assertChangeable(_ctx, row) {
    if (row.state === 'pending' && row.payment_method_id !== null) {
      throw new ConflictError(
        'payment_in_collection',
        `Payment ${row.id} is being collected through a gateway; change it through its batch (/v1/batches/payments)`,
      );
    }
  },
  checkFields(input, problems) {
    if (!(PAYMENT_METHODS as readonly string[]).includes(input.method)) {
      problems.push({ field: 'Method', message: `must be one of ${PAYMENT_METHODS.join(', ')}` });
    }
    return {
      method: input.method,
      memo: optionalText(input.memo) ?? null,
      ref: optionalText(input.ref) ?? null,
    };
  },
  // A failed payment moved no money: giving it allocations by hand would pay invoices with money never received.
  async assertWritable(_ctx, payment, current) {
    if (current?.state === 'failed') {
      throw new ConflictError(
        'payment_failed',
        `Payment ${current.id} failed (${current.failure_reason ?? 'no reason'}); record the money again as a new payment`,
      );
    }
    const moved =
      current &&
      (payment.amountMinor !== current.amount_minor ||
        payment.currencyCode !== current.currency_code ||
        payment.method !== current.method ||
        payment.date !== current.payment_date);
    if (current && moved && isBankDebit(current)) throw bankDebitKept(current);
  },
  // The line of its batch: the bank may still return it, and the batch's figures are its lines.
  async assertDeletable(_ctx, row) {
    if (isBankDebit(row)) throw bankDebitKept(row);
  },
  async insert(ctx, columns, payment) {
    const row = {
      ...columns,
      payment_date: payment.date,
      method: payment.method,
      state: 'settled' satisfies PaymentState,
      memo: payment.memo,
      ref: payment.ref,
      payment_method_id: null,
    };
    return sourceOf({ ...row, id: await repo.insertPayment(ctx.db, row) });
  },
  update: (ctx, row, changes, payment) =>
    repo.updatePayment(ctx.db, ctx.account.id, row.id, {
      ...changes,
      payment_date: payment.date,
      method: payment.method,
      memo: payment.memo,
      ref: payment.ref,
    }),
  delete: (ctx, row) => repo.deletePayment(ctx.db, ctx.account.id, row.id),
  read: getPayment,
};

/**
 * Records a payment and allocates it, in one transaction with the invoices' and the customer's figures;
 * `beforeCommit` runs last in it.
 */
export function createPayment(
  ctx: ServiceContext,
  input: PaymentInput,
  beforeCommit?: BeforeCommit<Payment>,
): Promise<Payment> {
  return createMoneySource(payments, ctx, input, beforeCommit);
}

/**
 * Replaces a payment's fields and makes its allocations the list sent (Spec, Payments rule 4). The customer of a
 * payment does not change: money recorded for the wrong customer is deleted and recorded again.
 */
export function updatePayment(ctx: ServiceContext, paymentId: number, input: PaymentInput): Promise<void> {
  return updateMoneySource(payments, ctx, paymentId, input);
}

/** Deletes a payment with its allocations; every invoice it paid owes that money again. */
export function deletePayment(ctx: ServiceContext, paymentId: number): Promise<void> {
  return deleteMoneySource(payments, ctx, paymentId);
}

/** A charge a gateway answered, to be recorded as a payment of one invoice. */
export interface CollectedPaymentInput {
  customerId: number;
  invoiceId: number;
  currencyCode: string;
  amountMinor: number;
  /** What of the amount the invoice still owes (the rest, paid meanwhile by other means, stays unallocated). */
  allocateMinor: number;
  date: PlainDate;
  method: string;
  paymentMethodId: number;
  state: PaymentState;
  /** The gateway's charge id. */
  ref: string | null;
  memo: string;
  failureReason?: string;
  failureCode?: string;
}

/**
 * Records a payment collected through a gateway, in the caller's transaction (which holds the customer's lock, see
 * withLockedCustomer): allocated to its invoice unless it failed (a failed payment moves no money and keeps its
 * reason), pending or settled as the gateway said. Returns its id and the events the change makes.
 */
export async function recordCollectedPayment(
  ctx: ServiceContext,
  input: CollectedPaymentInput,
): Promise<{ paymentId: number; events: EventToEmit[] }> {
  const now = ctx.clock.now().toISOString();
  const row = {
    account_id: ctx.account.id,
    customer_id: input.customerId,
    currency_code: input.currencyCode,
    amount_minor: input.amountMinor,
    payment_date: input.date,
    method: input.method,
    state: input.state,
    memo: input.memo,
    ref: input.ref,
    payment_method_id: input.paymentMethodId,
    failure_reason: input.failureReason ?? null,
    failure_code: input.failureCode ?? null,
    created_at: now,
    updated_at: now,
  };
  const paymentId = await repo.insertPayment(ctx.db, row);
  const events: EventToEmit[] = [{ type: 'payment.created', ref: { type: 'payment', id: paymentId } }];
  if (input.state !== 'failed' && input.allocateMinor > 0) {
    const outcome = await applyAllocations(ctx, sourceOf({ ...row, id: paymentId }), {
      autoApply: false,
      entries: [
        {
          allocationId: null,
          amountMinor: input.allocateMinor,
          target: { type: 'invoice', id: input.invoiceId },
          field: 'allocations[0]',
          targetField: 'allocations[0].invoiceID',
        },
      ],
    });
    events.push(...outcome.targetEvents);
  }
  return { paymentId, events };
}

/**
 * A late answer about a payment collected through a gateway (a dispute, a refund by the bank, an unpaid debit):
 * the payment becomes Failed with the reason, its allocations are released (the invoices owe that money again),
 * under the customer's lock. 409 for a payment that did not come through a gateway or has failed already.
 */
export function reversePayment(
  ctx: ServiceContext,
  paymentId: number,
  failure: { reason: string; code: string },
  alsoInTransaction: (ctx: ServiceContext, payment: PaymentRow) => Promise<EventToEmit[]> = async () => [],
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, paymentId),
    async (ctx, row) => {
      if (row.payment_method_id === null) {
        throw new ConflictError(
          'payment_not_collected',
          `Payment ${paymentId} was not collected through a gateway`,
        );
      }
      if (row.state === 'failed') {
        throw new ConflictError('payment_failed', `Payment ${paymentId} has failed already`);
      }
      const ref = { type: 'payment', id: paymentId };
      const before = await snapshotResource(ctx, ref);
      const outcome = await releaseAllocations(ctx, sourceOf(row));
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, {
        state: 'failed',
        failure_reason: failure.reason,
        failure_code: failure.code,
        updated_at: ctx.clock.now().toISOString(),
      });
      const also = await alsoInTransaction(ctx, row);
      await emitEvents(ctx, [{ type: 'payment.reversed', ref, before }, ...outcome.targetEvents, ...also]);
    },
  );
}

/**
 * A pending payment the gateway settled: its allocations move from the invoices' pending figures to their paid
 * ones (released as pending and made again as settled: the allocations get new ids). `date`: the day the money
 * moved, when it is not the day the payment was recorded (a debit's action date).
 */
export function settlePayment(ctx: ServiceContext, paymentId: number, date?: PlainDate): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRow(ctx, paymentId),
    async (ctx, row) => {
      if (row.state !== 'pending') {
        throw new ConflictError('payment_not_pending', `Payment ${paymentId} is not pending`);
      }
      const ref = { type: 'payment', id: paymentId };
      const before = await snapshotResource(ctx, ref);
      const allocations = (await allocationsOfSources(ctx, 'payment', [paymentId])).get(paymentId) ?? [];
      await releaseAllocations(ctx, sourceOf(row));
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, {
        state: 'settled',
        ...(date ? { payment_date: date } : {}),
        updated_at: ctx.clock.now().toISOString(),
      });
      const outcome = await applyAllocations(ctx, sourceOf({ ...row, state: 'settled' }), {
        autoApply: false,
        entries: allocations.map((allocation, i) => ({
          allocationId: null,
          amountMinor: allocation.amountMinor,
          target: { type: allocation.targetType, id: allocation.targetId },
          field: `allocations[${i}]`,
          targetField: `allocations[${i}].invoiceID`,
        })),
      });
      await emitEvents(ctx, [{ type: 'payment.updated', ref, before }, ...outcome.targetEvents]);
    },
  );
}
