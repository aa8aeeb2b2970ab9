import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { paymentStatus } from '../../core/allocation.ts';
import type { PaymentState, PaymentStatus } from '../../core/allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCustomerExists, lockCustomerForMoney } from '../customers/index.ts';
import type { InvoiceMoneyColumn } from '../invoicing/index.ts';
import { allocationsOfSources, applyAllocations, releaseAllocations } from './allocation.service.ts';
import type { Allocation, AllocationRequest, MoneySource } from './allocation.service.ts';
import { allocationRequestOf, checkMoneyFields, reallocateWithAmount } from './moneySource.ts';
import type { MoneyFieldsInput } from './moneySource.ts';
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
  allocations: Allocation[];
}

/** A request's payment: amounts and dates as the wire sent them, checked here against the currency and zone. */
export interface PaymentInput extends MoneyFieldsInput {
  customerId: number;
  method: string;
  memo?: string | null;
  ref?: string | null;
}

/** Where a payment's allocations count on an invoice: a pending payment is paid but not yet received. */
function invoiceColumnOf(state: PaymentState): InvoiceMoneyColumn {
  return state === 'pending' ? 'paid_pending_minor' : 'paid_actual_minor';
}

function sourceOf(
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
    allocations: allocations.get(row.id) ?? [],
  }));
}

async function findPaymentRow(ctx: ServiceContext, paymentId: number): Promise<PaymentRow> {
  const row = await repo.findPayment(ctx.db, ctx.account.id, paymentId);
  if (!row) throw new NotFoundError('Payment', paymentId);
  return row;
}

export async function getPayment(ctx: ServiceContext, paymentId: number): Promise<Payment> {
  return (await assemble(ctx, [await findPaymentRow(ctx, paymentId)]))[0]!;
}

export async function listPayments(ctx: ServiceContext, page: Page, customerId?: number): Promise<Payment[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listPayments(ctx.db, ctx.account.id, page, customerId));
}

interface CheckedPayment {
  amountMinor: number;
  currencyCode: string;
  date: PlainDate;
  method: string;
  memo: string | null;
  ref: string | null;
  request: AllocationRequest;
}

async function checkPayment(ctx: ServiceContext, input: PaymentInput): Promise<CheckedPayment> {
  const problems: FieldProblem[] = [];
  const { currencyCode, amountMinor, date } = await checkMoneyFields(ctx, input, problems);
  if (!(PAYMENT_METHODS as readonly string[]).includes(input.method)) {
    problems.push({ field: 'Method', message: `must be one of ${PAYMENT_METHODS.join(', ')}` });
  }
  const request = allocationRequestOf(input, currencyCode, { adjustments: true }, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    amountMinor,
    currencyCode,
    date: date!,
    method: input.method,
    memo: optionalText(input.memo) ?? null,
    ref: optionalText(input.ref) ?? null,
    request,
  };
}

/** Records a payment and allocates it, in one transaction with the invoices' and the customer's figures. */
export function createPayment(ctx: ServiceContext, input: PaymentInput): Promise<Payment> {
  return withTransaction(ctx, async (ctx) => {
    await lockCustomerForMoney(ctx, input.customerId);
    const payment = await checkPayment(ctx, input);
    const now = ctx.clock.now().toISOString();
    const state: PaymentState = 'settled';
    const id = await repo.insertPayment(ctx.db, {
      account_id: ctx.account.id,
      customer_id: input.customerId,
      currency_code: payment.currencyCode,
      amount_minor: payment.amountMinor,
      payment_date: payment.date,
      method: payment.method,
      state,
      memo: payment.memo,
      ref: payment.ref,
      payment_method_id: null,
      created_at: now,
      updated_at: now,
    });
    await applyAllocations(
      ctx,
      sourceOf({
        id,
        customer_id: input.customerId,
        currency_code: payment.currencyCode,
        amount_minor: payment.amountMinor,
        state,
      }),
      payment.request,
    );
    return getPayment(ctx, id);
  });
}

/**
 * The customer's lock first, then the payment as it is under that lock (it may have changed or gone meanwhile).
 * NOTE: the caller reads the payment's customer before the transaction begins, so that the lock is the
 * transaction's first statement: on SQLite a transaction that has already read cannot wait for the write lock
 * held by another process (SQLITE_BUSY at once, busy_timeout unused; SQLITE_BUSY_SNAPSHOT if it wrote meanwhile).
 */
async function lockPayment(ctx: ServiceContext, paymentId: number, customerId: number): Promise<PaymentRow> {
  await lockCustomerForMoney(ctx, customerId);
  return findPaymentRow(ctx, paymentId);
}

/**
 * Replaces a payment's fields and makes its allocations the list sent (Spec, Payments rule 4). The customer of a
 * payment does not change: money recorded for the wrong customer is deleted and recorded again.
 */
export async function updatePayment(
  ctx: ServiceContext,
  paymentId: number,
  input: PaymentInput,
): Promise<void> {
  const { customer_id: customerId } = await findPaymentRow(ctx, paymentId);
  return withTransaction(ctx, async (ctx) => {
    const row = await lockPayment(ctx, paymentId, customerId);
    if (input.customerId !== row.customer_id) {
      throw ValidationError.field('customerID', `must be the payment's customer (${row.customer_id})`);
    }
    const payment = await checkPayment(ctx, input);
    const changes = {
      currency_code: payment.currencyCode,
      amount_minor: payment.amountMinor,
      payment_date: payment.date,
      method: payment.method,
      memo: payment.memo,
      ref: payment.ref,
      updated_at: ctx.clock.now().toISOString(),
    };
    const source = sourceOf({
      ...row,
      currency_code: payment.currencyCode,
      amount_minor: payment.amountMinor,
    });
    await reallocateWithAmount(ctx, source, row.amount_minor, payment.request, () =>
      repo.updatePayment(ctx.db, ctx.account.id, paymentId, changes),
    );
  });
}

/** Deletes a payment with its allocations; every invoice it paid owes that money again. */
export async function deletePayment(ctx: ServiceContext, paymentId: number): Promise<void> {
  const { customer_id: customerId } = await findPaymentRow(ctx, paymentId);
  return withTransaction(ctx, async (ctx) => {
    const row = await lockPayment(ctx, paymentId, customerId);
    await releaseAllocations(ctx, sourceOf(row));
    await repo.deletePayment(ctx.db, ctx.account.id, paymentId);
  });
}
