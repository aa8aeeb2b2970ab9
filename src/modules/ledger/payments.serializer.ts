import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import { invoiceAllocationInputs } from './allocationInput.ts';
import { amountFromWire, dateFromWire } from './moneyInput.ts';
import type { Payment, PaymentInput } from './payment.ts';
import type { CreatePaymentBody, EditPaymentBody, PaymentOut } from './payments.schemas.ts';

/** The wire payment: Date is the calendar date in the account's time zone, as the instant that day begins. */
export function toPaymentDto(payment: Payment, timeZone: string): PaymentOut {
  const amount = (minor: number) => minorToWireNumber(minor, payment.currencyCode);
  return {
    paymentID: payment.id,
    customerID: payment.customerId,
    Amount: amount(payment.amountMinor),
    CurrencyCode: payment.currencyCode,
    Date: startOfDate(payment.date, timeZone),
    Memo: payment.memo,
    Ref: payment.ref,
    Method: payment.method,
    Status: payment.status,
    FailureReason: payment.failureReason,
    // The original service's published payment list answers `Allocations`, as credit notes do (spec-decisions.md).
    Allocations: payment.allocations.map((a) => ({
      allocationID: a.id,
      amountApplied: amount(a.amountMinor),
      invoiceID: a.targetType === 'invoice' ? a.targetId : 0,
      positiveAdjustmentID: a.targetType === 'adjustment' ? a.targetId : 0,
      paymentID: payment.id,
    })),
  };
}

/**
 * Spec: the list may come as `allocations` or `Allocations`. AutoApply belongs to the create only (the spec's PUT
 * lists none and requires the list), so an edit reads no AutoApply. Dates are read in the account's time zone.
 */
export function paymentInputFromWire(
  body: CreatePaymentBody | EditPaymentBody,
  isCreate: boolean,
  timeZone: string,
): PaymentInput {
  const create = body as CreatePaymentBody;
  const list = body.allocations ?? body.Allocations;
  const listField =
    body.allocations === undefined && body.Allocations !== undefined ? 'Allocations' : 'allocations';
  return {
    customerId: body.customerID,
    amount: amountFromWire(body.Amount),
    currencyCode: body.CurrencyCode,
    date: dateFromWire(body.Date, timeZone),
    method: body.Method,
    memo: body.Memo,
    ref: body.Ref,
    autoApply: isCreate && Boolean(create.AutoApply ?? create.isAutoApply),
    // Spec, Payments rules 2 and 3: an allocation names an invoice or a positive adjustment.
    allocations: list && invoiceAllocationInputs(list, listField, { adjustments: true }),
    allocationsField: listField,
  };
}
