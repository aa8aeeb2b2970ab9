import type { ServiceContext } from '../../context.ts';
import type { FieldProblem } from '../../errors.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { applyAllocations } from './allocation.service.ts';
import type { AllocationRequest, MoneySource } from './allocation.service.ts';
import { invoiceAllocationEntries } from './allocationInput.ts';
import type { AllocationTargets, WireAllocation } from './allocationInput.ts';

/**
 * What the money sources recorded over the API (payments, credit notes) share: the checks of their common request
 * fields, and the order in which an edit writes a new amount and new allocations.
 */

/**
 * The request fields every money source shares (payments, credit notes): its amount, currency and date, and how
 * it is to be allocated. Each use case checks its own fields between the two steps, so problems are listed in the
 * order of the wire fields.
 */
export interface MoneyFieldsInput {
  amount: number | string;
  currencyCode: string;
  date: string;
  autoApply: boolean;
  /** Undefined when the request has no allocation list. */
  allocations?: readonly WireAllocation[];
  /** The key the list came under (`allocations` or `Allocations`), for messages. */
  allocationsField: string;
}

export interface CheckedMoneyFields {
  currencyCode: string;
  /** 0 when the Amount is refused (a problem is then noted). */
  amountMinor: number;
  /** Undefined when the Date is refused (a problem is then noted). */
  date: PlainDate | undefined;
}

/**
 * CurrencyCode (enabled for the account, else a 422 at once: nothing else can be checked without it), Amount (at
 * most the currency's decimals, above 0) and Date (in the account's time zone); problems are noted, not thrown.
 */
export async function checkMoneyFields(
  ctx: ServiceContext,
  input: MoneyFieldsInput,
  problems: FieldProblem[],
): Promise<CheckedMoneyFields> {
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const amount = wireAmountToMinor(input.amount, currencyCode);
  if ('message' in amount) problems.push({ field: 'Amount', message: amount.message });
  const date = parseWireCalendarDate(input.date, ctx.account.timeZone);
  if (date === undefined) problems.push({ field: 'Date', message: 'must be a date' });
  return { currencyCode, amountMinor: 'minor' in amount ? amount.minor : 0, date };
}

/**
 * How a payment or credit note is to be allocated. Spec, Payments rule 1 (and Credit notes): with AutoApply the
 * allocation list is neither required nor used and the money goes to the earliest open invoices; without it the
 * list is required. Problems are noted, not thrown.
 */
export function allocationRequestOf(
  input: MoneyFieldsInput,
  currencyCode: string,
  targets: AllocationTargets,
  problems: FieldProblem[],
): AllocationRequest {
  if (input.autoApply) return { autoApply: true, includeAdjustments: false };
  if (input.allocations === undefined) {
    problems.push({ field: input.allocationsField, message: 'is required when AutoApply is false' });
    return { autoApply: false, entries: [] };
  }
  const entries = invoiceAllocationEntries(
    input.allocations,
    input.allocationsField,
    currencyCode,
    targets,
    problems,
  );
  return { autoApply: false, entries };
}

/**
 * Writes a source's new amount (`writeRow`) and makes its allocations what `request` says, in the order the
 * CHECK `allocated_minor between 0 and amount_minor` allows: the stored allocated total never exceeds the stored
 * amount, so a larger amount is written before the allocations grow, a smaller one after they shrink.
 * `source` carries the new amount.
 */
export async function reallocateWithAmount(
  ctx: ServiceContext,
  source: MoneySource,
  storedAmountMinor: number,
  request: AllocationRequest,
  writeRow: () => Promise<void>,
): Promise<void> {
  if (source.amountMinor >= storedAmountMinor) {
    await writeRow();
    await applyAllocations(ctx, source, request);
  } else {
    await applyAllocations(ctx, source, request);
    await writeRow();
  }
}
