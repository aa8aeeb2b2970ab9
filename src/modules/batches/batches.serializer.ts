import { startOfDate } from '../../core/calendar.ts';
import { minorToDecimalText, minorToWireNumber } from '../../core/money.ts';
import { amountFromWire, dateFromWire, invoiceAllocationInputs } from '../ledger/index.ts';
import type { Payment } from '../ledger/index.ts';
import type { Batch, BatchInput } from './batch.service.ts';
import type { BatchLineEdit, BatchLineInput } from './batchLine.service.ts';
import type {
  BatchOut,
  BatchPaymentOut,
  CreateBatchBody,
  CreateBatchPaymentBody,
  EditBatchPaymentBody,
} from './batches.schemas.ts';

export function toBatchDto(batch: Batch, timeZone: string): BatchOut {
  return {
    BatchToken: batch.token,
    CurrencyCode: batch.currencyCode,
    GatewayToken: batch.gatewayToken,
    CreatedDate: batch.createdAt,
    SubmitDate: batch.submittedAt,
    ActionDate: startOfDate(batch.actionDate, timeZone),
    State: batch.state,
    BuildError: batch.buildError,
    NumberOfPayments: batch.lines,
    PaymentsTotal: minorToDecimalText(batch.totalMinor, batch.currencyCode),
    Notes: batch.notes,
    ...(batch.payments && {
      Payments: batch.payments.map((line) => ({
        paymentID: line.paymentId,
        Amount: minorToWireNumber(line.amountMinor, batch.currencyCode),
      })),
    }),
  };
}

export function batchInputFromWire(body: CreateBatchBody, timeZone: string): BatchInput {
  return {
    currencyCode: body.CurrencyCode,
    gatewayToken: body.GatewayToken,
    actionDate: dateFromWire(body.ActionDate, timeZone),
    notes: body.Notes,
  };
}

/** A batch line as the spec answers it: the payment with PaymentApplied (allocationID, invoiceID, paymentID, amount). */
export function toBatchPaymentDto(payment: Payment, timeZone: string): BatchPaymentOut {
  const amount = (minor: number) => minorToWireNumber(minor, payment.currencyCode);
  return {
    paymentID: payment.id,
    customerID: payment.customerId,
    Status: payment.status,
    Date: startOfDate(payment.date, timeZone),
    CurrencyCode: payment.currencyCode,
    Amount: amount(payment.amountMinor),
    Method: payment.method,
    Ref: payment.ref,
    Memo: payment.memo,
    PaymentApplied: payment.allocations
      .filter((a) => a.targetType === 'invoice')
      .map((a) => ({
        allocationID: a.id,
        invoiceID: a.targetId,
        paymentID: payment.id,
        amount: amount(a.amountMinor),
      })),
  };
}

/**
 * PaymentApplied entries as the ledger reads allocations: `amount` is the spec's key for amountApplied, and a
 * refusal names it as the client sent it.
 */
function paymentApplied(list: CreateBatchPaymentBody['PaymentApplied']) {
  if (!list) return undefined;
  const entries = list.map((entry) => ({
    allocationID: entry.allocationID,
    amountApplied: entry.amount,
    invoiceID: entry.invoiceID,
    invoiceNumber: entry.invoiceNumber,
  }));
  return invoiceAllocationInputs(entries, 'PaymentApplied', { adjustments: false }).map((input) => ({
    ...input,
    amountField: input.amountField.replace(/\.amountApplied$/, '.amount'),
  }));
}

export function batchLineInputFromWire(body: CreateBatchPaymentBody): BatchLineInput {
  return {
    batchToken: body.BatchToken,
    customerId: body.customerID,
    amount: amountFromWire(body.Amount),
    paymentMethodId: body.paymentMethodID,
    memo: body.Memo,
    ref: body.Ref,
    autoApply: body.isAutoApply ?? false,
    allocations: paymentApplied(body.PaymentApplied),
  };
}

/** The spec's line edit; paymentMethodID left out keeps the line's bank account. */
export function batchLineEditFromWire(body: EditBatchPaymentBody, timeZone: string): BatchLineEdit {
  return {
    batchToken: body.BatchToken,
    customerId: body.customerID,
    amount: amountFromWire(body.Amount),
    paymentMethodId: body.paymentMethodID,
    memo: body.Memo,
    ref: body.Ref,
    autoApply: false,
    allocations: paymentApplied(body.PaymentApplied),
    currencyCode: body.CurrencyCode,
    date: body.Date === undefined ? undefined : dateFromWire(body.Date, timeZone),
    method: body.Method,
  };
}
