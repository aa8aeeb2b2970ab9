import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { paymentStatus } from '../../core/allocation.ts';
import type { PaymentState, PaymentStatus } from '../../core/allocation.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists, lockCustomerForMoney } from '../customers/index.ts';
import type { InvoiceMoneyColumn } from '../invoicing/index.ts';
import { allocationsOfSources, applyAllocations, releaseAllocations } from './allocation.service.ts';
import type { Allocation, AllocationRequest, MoneySource } from './allocation.service.ts';
import { invoiceAllocationEntries } from './allocationInput.ts';
import type { WireAllocation } from './allocationInput.ts';
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
export interface PaymentInput {
  customerId: number;
  amount: number | string;
  currencyCode: string;
  date: string;
  method: string;
  memo?: string | null;
  ref?: string | null;
  autoApply: boolean;
  /** Undefined when the request has no allocation list. */
  allocations?: readonly WireAllocation[];
  /** The key the list came under (`allocations` or `Allocations`), for messages. */
  allocationsField: string;
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
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const amount = wireAmountToMinor(input.amount, currencyCode);
  if ('message' in amount) problems.push({ field: 'Amount', message: amount.message });
  const date = parseWireCalendarDate(input.date, ctx.account.timeZone);
  if (date === undefined) problems.push({ field: 'Date', message: 'must be a date' });
  if (!(PAYMENT_METHODS as readonly string[]).includes(input.method)) {
    problems.push({ field: 'Method', message: `must be one of ${PAYMENT_METHODS.join(', ')}` });
  }
  let request: AllocationRequest;
  if (input.autoApply) {
    // Spec, Payments rule 1: with AutoApply, allocations are neither required nor used.
    request = { autoApply: true, includeAdjustments: false };
  } else if (input.allocations === undefined) {
    problems.push({ field: input.allocationsField, message: 'is required when AutoApply is false' });
    request = { autoApply: false, entries: [] };
  } else {
    const entries = invoiceAllocationEntries(
      input.allocations,
      input.allocationsField,
      currencyCode,
      { adjustments: true },
      problems,
    );
    request = { autoApply: false, entries };
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    amountMinor: 'minor' in amount ? amount.minor : 0,
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

/** The customer's lock first, then the payment as it is under that lock (it may have changed or gone meanwhile). */
async function lockPayment(ctx: ServiceContext, paymentId: number): Promise<PaymentRow> {
  const before = await findPaymentRow(ctx, paymentId);
  await lockCustomerForMoney(ctx, before.customer_id);
  return findPaymentRow(ctx, paymentId);
}

/**
 * Replaces a payment's fields and makes its allocations the list sent (Spec, Payments rule 4). The customer of a
 * payment does not change: money recorded for the wrong customer is deleted and recorded again.
 */
export function updatePayment(ctx: ServiceContext, paymentId: number, input: PaymentInput): Promise<void> {
  return withTransaction(ctx, async (ctx) => {
    const row = await lockPayment(ctx, paymentId);
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
    // The stored allocated total never exceeds the stored amount (a CHECK): a larger amount is written before the
    // allocations grow, a smaller one after they shrink.
    if (payment.amountMinor >= row.amount_minor) {
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, changes);
      await applyAllocations(ctx, source, payment.request);
    } else {
      await applyAllocations(ctx, source, payment.request);
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, changes);
    }
  });
}

/** Deletes a payment with its allocations; every invoice it paid owes that money again. */
export function deletePayment(ctx: ServiceContext, paymentId: number): Promise<void> {
  return withTransaction(ctx, async (ctx) => {
    const row = await lockPayment(ctx, paymentId);
    await releaseAllocations(ctx, sourceOf(row));
    await repo.deletePayment(ctx.db, ctx.account.id, paymentId);
  });
}
