import { startOfDate } from '../../core/calendar.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { Adjustment, AdjustmentDetail, AdjustmentInput } from './adjustment.service.ts';
import { objectAllocationInputs } from './allocationInput.ts';
import { amountFromWire, dateFromWire } from './moneyInput.ts';
import type {
  AddAdjustmentBody,
  AdjustmentListEntryOut,
  EditAdjustmentBody,
  NegativeAdjustmentOut,
  PositiveAdjustmentOut,
} from './adjustments.schemas.ts';

/** Dates are calendar dates in the account's time zone, shown as the instant that day begins there. */
export function toAdjustmentListEntryDto(adjustment: Adjustment, timeZone: string): AdjustmentListEntryOut {
  return {
    adjustmentID: adjustment.id,
    customerID: adjustment.customerId,
    Date: startOfDate(adjustment.date, timeZone),
    DueDate: adjustment.dueDate === null ? null : startOfDate(adjustment.dueDate, timeZone),
    CurrencyCode: adjustment.currencyCode,
    Amount: minorToWireNumber(adjustment.amountMinor, adjustment.currencyCode),
    Ref: adjustment.ref,
    Memo: adjustment.memo,
    AdjustmentType: adjustment.adjustmentType,
    Type: adjustment.direction,
  };
}

/** Spec: the positive or the negative detail, each with its own identifier and type keys. */
export function toAdjustmentDetailDto(
  adjustment: AdjustmentDetail,
  timeZone: string,
): PositiveAdjustmentOut | NegativeAdjustmentOut {
  const amount = (minor: number) => minorToWireNumber(minor, adjustment.currencyCode);
  const allocations = adjustment.allocations.map((a) => ({
    allocationID: a.id,
    objectID: a.objectId,
    amountApplied: amount(a.amountMinor),
    isAdjustment: a.isAdjustment,
  }));
  // An adjustment is active while it exists: deleting one removes it.
  const isActive = true;
  if (adjustment.direction === 'positive') {
    return {
      customerID: adjustment.customerId,
      positiveAdjustmentID: adjustment.id,
      positiveAdjustmentType: adjustment.adjustmentType,
      Date: startOfDate(adjustment.date, timeZone),
      DueDate: adjustment.dueDate === null ? null : startOfDate(adjustment.dueDate, timeZone),
      Amount: amount(adjustment.amountMinor),
      CurrencyCode: adjustment.currencyCode,
      Status: adjustment.status,
      isActive,
      isSuccess: true,
      Ref: adjustment.ref,
      Memo: adjustment.memo,
      allocations,
    };
  }
  return {
    customerID: adjustment.customerId,
    NegativeAdjustmentID: adjustment.id,
    NegativeAdjustmentType: adjustment.adjustmentType,
    Date: startOfDate(adjustment.date, timeZone),
    Amount: amount(adjustment.amountMinor),
    CurrencyCode: adjustment.currencyCode,
    Status: adjustment.status,
    isActive,
    isSuccess: true,
    Ref: adjustment.ref,
    Memo: adjustment.memo,
    allocations,
  };
}

/**
 * Spec: AutoApply or isAutoApply (AutoApply first when both are sent); the allocation list under
 * LinkedAllocations (the examples' key, first), Allocations or allocations. LinkedAllocations goes first so that
 * a client sending back a detail it read (whose `allocations` it did not mean to resend) is understood. Dates are
 * read in the account's time zone.
 */
export function adjustmentInputFromWire(
  body: AddAdjustmentBody | EditAdjustmentBody,
  timeZone: string,
): AdjustmentInput {
  const listField =
    body.LinkedAllocations !== undefined
      ? 'LinkedAllocations'
      : body.Allocations !== undefined
        ? 'Allocations'
        : body.allocations !== undefined
          ? 'allocations'
          : 'Allocations';
  const list = body.LinkedAllocations ?? body.Allocations ?? body.allocations;
  return {
    direction: body.Type,
    adjustmentType: body.AdjustmentType,
    customerId: body.customerID,
    amount: amountFromWire(body.Amount),
    date: dateFromWire(body.Date, timeZone),
    dueDate:
      body.DueDate === undefined || body.DueDate === null ? null : dateFromWire(body.DueDate, timeZone),
    ref: body.Ref,
    memo: body.Memo,
    currencyCode: body.CurrencyCode,
    autoApply: body.AutoApply ?? body.isAutoApply ?? false,
    autoApplyField:
      body.AutoApply !== undefined || body.isAutoApply === undefined ? 'AutoApply' : 'isAutoApply',
    allocations: list && objectAllocationInputs(list, listField),
    allocationsField: listField,
  };
}
