import type { ServiceContext } from '../../context.ts';
import type { FieldProblem } from '../../errors.ts';
import { optionalText } from '../../core/text.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import { allocateNewSource } from './allocation.service.ts';
import type { AllocationRequest } from './allocation.service.ts';
import {
  allocationRequestOf,
  checkMoneyFields,
  editEvents,
  reallocateWithAmount,
  throwProblems,
} from './moneyMovement.ts';
import type { MoneySourceInput } from './moneyMovement.ts';
import type { Payment } from './payment.ts';
import {
  insertPayment,
  paymentRef,
  paymentSource,
  removePayment,
  renderNewPayment,
  updatePaymentFields,
} from './payment.service.ts';
import type { PaymentFields } from './payment.service.ts';

/**
 * The payments that are lines of a payment batch (spec part 2, Batches): Pending from the moment they are added
 * (their allocations count in the invoices' TotalPendingPaid, so Balance falls and the invoice is not collected
 * twice; it is Paid only once the bank has had its say), taken from a stored bank account. The batches module owns
 * the batch and the order of a line's steps: it locks the customer (withLockedCustomer), checks the line here,
 * locks its batch, then calls these in that transaction.
 */

export interface BatchLinePaymentInput extends MoneySourceInput {
  /** The rail the line's bank account debits by: debit_order, ach or sepa (the payment's Method). */
  method: string;
  paymentMethodId: number;
  memo?: string | null;
  ref?: string | null;
}

/** A batch line's request, checked. */
export interface CheckedBatchLine extends PaymentFields {
  customerId: number;
  paymentMethodId: number;
  request: AllocationRequest;
}

/**
 * The line's fields, every problem listed at once in the order of the wire: CurrencyCode (a 422 at once when it is
 * not enabled), Amount, Date, then the allocations (PaymentApplied, to invoices only).
 */
export async function checkBatchLinePayment(
  ctx: ServiceContext,
  input: BatchLinePaymentInput,
): Promise<CheckedBatchLine> {
  const problems: FieldProblem[] = [];
  const money = await checkMoneyFields(ctx, input, problems);
  const request = allocationRequestOf(input, money.currencyCode, false, problems);
  throwProblems(problems);
  return {
    customerId: input.customerId,
    currencyCode: money.currencyCode,
    amountMinor: money.amountMinor,
    date: money.date!,
    method: input.method,
    paymentMethodId: input.paymentMethodId,
    memo: optionalText(input.memo) ?? null,
    ref: optionalText(input.ref) ?? null,
    request,
  };
}

/**
 * In the caller's transaction, under the customer's lock and then the batch's: records the line as a Pending
 * payment from its bank account and allocates it as PaymentApplied (or isAutoApply) says. Returns the payment.
 */
export async function createBatchLinePayment(ctx: ServiceContext, line: CheckedBatchLine): Promise<Payment> {
  const inserted = await insertPayment(ctx, line.customerId, line, {
    state: 'pending',
    paymentMethodId: line.paymentMethodId,
  });
  const allocated = await allocateNewSource(ctx, paymentSource(inserted), line.request);
  const payment = renderNewPayment(ctx, inserted, allocated);
  await emitEvents(ctx, [
    { type: 'payment.created', ref: paymentRef(inserted.id), after: payment.rendered },
    ...allocated.targetEvents,
  ]);
  return payment.record;
}

/**
 * In the caller's transaction, under the customer's lock and then the batch's: a pending line's amount, bank
 * account and allocations become what the request says (PaymentApplied by allocation diff, as payments' rule 4).
 * `current` is the payment read under the customer's lock.
 */
export async function updateBatchLinePayment(
  ctx: ServiceContext,
  current: Payment,
  line: CheckedBatchLine,
): Promise<void> {
  const before = await snapshotResource(ctx, paymentRef(current.id));
  const edited = paymentSource({
    ...current,
    currencyCode: line.currencyCode,
    amountMinor: line.amountMinor,
  });
  const allocated = await reallocateWithAmount(ctx, edited, current.amountMinor, line.request, () =>
    updatePaymentFields(ctx, current.id, line),
  );
  await emitEvents(ctx, await editEvents(ctx, before, allocated));
}

/**
 * In the caller's transaction, under the customer's lock and then the batch's: the line's payment and its pending
 * allocations go (the invoices owe that money again).
 */
export function deleteBatchLinePayment(ctx: ServiceContext, current: Payment): Promise<void> {
  return removePayment(ctx, paymentSource(current));
}
