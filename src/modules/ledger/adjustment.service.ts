import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { negativeAdjustmentStatus, positiveAdjustmentStatus } from './allocation.ts';
import type { NegativeAdjustmentStatus, PositiveAdjustmentStatus } from './allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists, lockCustomerForMoney } from '../customers/index.ts';
import {
  allocationsOfSources,
  allocationsToTargets,
  applyAllocations,
  releaseAllocations,
} from './allocation.service.ts';
import type { AllocationRequest, MoneySource } from './allocation.service.ts';
import * as repo from './adjustment.repository.ts';
import * as taxCreditNoteRepo from './taxCreditNote.repository.ts';
import { nextCreditNumber } from './creditNumbers.ts';
import { recordReductions, redocumentSource } from './reduction.service.ts';
import type { StatedReduction } from './reduction.ts';
import { announceDocumentsOf } from './taxCreditNoteNotice.ts';
import type { Adjustment, AdjustmentDirection, AdjustmentRecord } from './adjustment.ts';
import type { DecimalAmount, Read } from './moneyInput.ts';
import { readValue } from './moneyInput.ts';
import {
  allocationRequestOf,
  checkMoneyFields,
  reallocateWithAmount,
  withLockedCustomer,
  withLockedRecord,
} from './moneyMovement.ts';
import type { AllocationFieldsInput } from './moneyMovement.ts';

/**
 * Adjustments (Spec, Adjustment): a positive one raises what the customer owes and is paid like an invoice (an
 * allocation target of payments and negative adjustments); a negative one lowers it and is allocated like a
 * payment (a money source) to invoices and positive adjustments. Both are in the customer's currency (public
 * service notes).
 */

export type { Adjustment, AdjustmentDirection } from './adjustment.ts';

/** Spec, Adjustment: positiveAdjustmentType and NegativeAdjustmentType. A refund is a positive adjustment. */
export const ADJUSTMENT_TYPES = {
  positive: ['opening_balance', 'refund', 'interest'],
  negative: ['credit_note', 'bad_debt'],
} as const satisfies Record<AdjustmentDirection, readonly string[]>;

/** One allocation seen from the adjustment: the object on its other side. */
export interface AdjustmentAllocation {
  id: number;
  /**
   * Positive adjustment: the payment, or the negative adjustment when isAdjustment. Negative adjustment: the
   * invoice, or the positive adjustment when isAdjustment.
   */
  objectId: number;
  isAdjustment: boolean;
  amountMinor: number;
}

export type AdjustmentDetail = Adjustment &
  (
    | { direction: 'positive'; status: PositiveAdjustmentStatus }
    | { direction: 'negative'; status: NegativeAdjustmentStatus }
  ) & { allocations: AdjustmentAllocation[] };

/** How a request addresses an adjustment (GET get and DELETE delete): all three must match. */
export interface AdjustmentAddress {
  direction: AdjustmentDirection;
  adjustmentId: number;
  customerId: number;
}

/** A request's adjustment, read from the wire; its amounts are checked here against the customer's currency. */
export interface AdjustmentInput extends AllocationFieldsInput {
  direction: AdjustmentDirection;
  adjustmentType: string;
  customerId: number;
  amount: DecimalAmount;
  date: Read<PlainDate>;
  /** Required for positive adjustments (null when not sent); accepted and ignored for negative ones. */
  dueDate: Read<PlainDate> | null;
  /** Absent on an edit: kept. */
  ref?: string | null;
  /** Absent on an edit: kept. */
  memo?: string | null;
  /** Optional: an adjustment is in the customer's currency, and a CurrencyCode sent must be that one. */
  currencyCode?: string;
  /** The key AutoApply came under (`AutoApply` or `isAutoApply`), for messages. */
  autoApplyField: string;
}

/** An adjustment as the API shows it: its record without the subscription it was issued for. */
function adjustmentOf(record: AdjustmentRecord): Adjustment {
  const { subscriptionId: _subscriptionId, ...adjustment } = record;
  return adjustment;
}

/**
 * A negative adjustment of type credit_note reduces a supply and is a tax credit note (docs/tax.md, "Tax credit
 * notes"); a bad debt or another kind is not, and carries no VAT.
 */
function isTaxCreditNote(row: Pick<AdjustmentRecord, 'direction' | 'adjustmentType'>): boolean {
  return row.direction === 'negative' && row.adjustmentType === 'credit_note';
}

/**
 * A negative adjustment as a money source: its allocations count in the invoices' TotalNegativeAdjs. One made
 * through the API as a credit note reduces the invoices it is allocated to; a subscription's credit states the
 * invoice it reduces when it is issued (issueCreditNoteAdjustment), wherever its money goes.
 */
function sourceOf(
  row: Pick<
    AdjustmentRecord,
    | 'id'
    | 'customerId'
    | 'currencyCode'
    | 'amountMinor'
    | 'direction'
    | 'adjustmentType'
    | 'date'
    | 'subscriptionId'
  >,
): MoneySource {
  return {
    type: 'adjustment',
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    amountMinor: row.amountMinor,
    invoiceColumn: 'negative_adjs_minor',
    label: `negative adjustment ${row.id}`,
    ...(isTaxCreditNote(row) && row.subscriptionId === null ? { reduces: { date: row.date } } : {}),
  };
}

/** An adjustment's tax credit note takes its words from it: the Memo, or else the Ref. */
function reasonOf(row: Pick<AdjustmentRecord, 'memo' | 'ref'>): string {
  return row.memo ?? row.ref ?? '';
}

async function detailOf(ctx: ServiceContext, row: AdjustmentRecord): Promise<AdjustmentDetail> {
  const adjustment = adjustmentOf(row);
  if (adjustment.direction === 'positive') {
    // Money allocated to it: from payments, or from negative adjustments (isAdjustment).
    const allocations = (await allocationsToTargets(ctx, 'adjustment', [row.id])).get(row.id) ?? [];
    return {
      ...adjustment,
      direction: 'positive',
      // Spec: Past Due (a sample's status) once the DueDate is before today in the account's time zone.
      status: positiveAdjustmentStatus(row.amountMinor, row.allocatedMinor, row.dueDate, today(ctx)),
      allocations: allocations.map((a) => ({
        id: a.id,
        objectId: a.sourceId,
        isAdjustment: a.sourceType === 'adjustment',
        amountMinor: a.amountMinor,
      })),
    };
  }
  const allocations = (await allocationsOfSources(ctx, 'adjustment', [row.id])).get(row.id) ?? [];
  return {
    ...adjustment,
    direction: 'negative',
    status: negativeAdjustmentStatus(row.amountMinor, row.allocatedMinor),
    allocations: allocations.map((a) => ({
      id: a.id,
      objectId: a.targetId,
      isAdjustment: a.targetType === 'adjustment',
      amountMinor: a.amountMinor,
    })),
  };
}

/** The adjustment the request addresses; another type, another customer or another account's is not found. */
async function findAddressed(ctx: ServiceContext, address: AdjustmentAddress): Promise<AdjustmentRecord> {
  const row = await repo.findAdjustment(ctx.db, ctx.account.id, address.adjustmentId);
  if (!row || row.direction !== address.direction || row.customerId !== address.customerId) {
    throw new NotFoundError('Adjustment', address.adjustmentId);
  }
  return row;
}

export async function getAdjustment(
  ctx: ServiceContext,
  address: AdjustmentAddress,
): Promise<AdjustmentDetail> {
  return detailOf(ctx, await findAddressed(ctx, address));
}

/** The account's adjustments with these ids, as getAdjustment reads them (unknown ids left out). */
export async function adjustmentsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, AdjustmentDetail>> {
  const details = new Map<number, AdjustmentDetail>();
  for (const row of await repo.findAdjustments(ctx.db, ctx.account.id, ids))
    details.set(row.id, await detailOf(ctx, row));
  return details;
}

/** Spec: `type` negative, positive or all; without a customer the list covers the account. */
export async function listAdjustments(
  ctx: ServiceContext,
  page: Page,
  filter: { customerId?: number; direction?: AdjustmentDirection },
): Promise<Adjustment[]> {
  if (filter.customerId !== undefined) await assertCustomerExists(ctx, filter.customerId);
  return (await repo.listAdjustments(ctx.db, ctx.account.id, page, filter)).map(adjustmentOf);
}

interface CheckedAdjustment {
  adjustmentType: string;
  amountMinor: number;
  date: PlainDate;
  dueDate: PlainDate | null;
  ref: string | null;
  memo: string | null;
  /** Negative adjustments only. */
  request: AllocationRequest | undefined;
  /** Credits issued for a subscription (issueCreditNoteAdjustment). */
  subscriptionId?: number;
  /** What a subscription's credit reduces: the invoice of the time it credits (issueCreditNoteAdjustment). */
  reduces?: readonly StatedReduction[];
}

/**
 * The request's fields, checked against the adjustment's currency (the customer's) and, on an edit, the stored
 * adjustment: every problem is listed at once, named by its wire field.
 */
async function checkAdjustment(
  ctx: ServiceContext,
  input: AdjustmentInput,
  currencyCode: string,
  current?: AdjustmentRecord,
): Promise<CheckedAdjustment> {
  const problems: FieldProblem[] = [];
  const adjustmentType = input.adjustmentType.trim().toLowerCase();
  const allowed: readonly string[] = ADJUSTMENT_TYPES[input.direction];
  if (!allowed.includes(adjustmentType)) {
    problems.push({
      field: 'AdjustmentType',
      message: `must be one of ${allowed.join(', ')} for a ${input.direction} adjustment`,
    });
  }
  if (input.currencyCode !== undefined && input.currencyCode.trim().toUpperCase() !== currencyCode) {
    problems.push({
      field: 'CurrencyCode',
      message: current
        ? `must be the adjustment's currency (${currencyCode})`
        : `must be the customer's currency (${currencyCode}): an adjustment is in the customer's currency`,
    });
  }
  const money = await checkMoneyFields(ctx, { ...input, currencyCode }, problems);
  if (current && input.direction === 'positive' && money.amountMinor > 0) {
    // Payments and negative adjustments allocated to it stay: the amount cannot drop below them.
    if (money.amountMinor < current.allocatedMinor) {
      problems.push({
        field: 'Amount',
        message: `must be at least ${minorToDecimalText(current.allocatedMinor, currencyCode)}, what is already allocated to positive adjustment ${current.id}`,
      });
    }
  }

  let dueDate: PlainDate | null = null;
  if (input.direction === 'positive') {
    // Spec, Adjustments: the due date is required for a positive adjustment (public notes: an opening balance
    // needs a date, a due date, an amount and a reference).
    if (input.dueDate === null) {
      problems.push({ field: 'DueDate', message: 'is required for a positive adjustment' });
    } else {
      dueDate = readValue(input.dueDate, 'DueDate', problems) ?? null;
      if (dueDate !== null && money.date !== undefined && dueDate < money.date) {
        problems.push({ field: 'DueDate', message: `must not be before Date (${dueDate} < ${money.date})` });
      }
    }
  }

  // Spec: Ref is required on add. On an edit a Ref left out keeps the stored one; it cannot be blanked.
  const ref = optionalText(input.ref);
  if (ref === null || (ref === undefined && !current)) {
    problems.push({ field: 'Ref', message: ref === null ? 'must not be blank' : 'is required' });
  }
  const memo = optionalText(input.memo);

  let request: AllocationRequest | undefined;
  if (input.direction === 'positive') {
    // A positive adjustment is what is allocated to, never allocated itself.
    if (input.autoApply) {
      problems.push({
        field: input.autoApplyField,
        message:
          'must be false for a positive adjustment: payments and negative adjustments are allocated to it',
      });
    }
    if (input.allocations !== undefined && input.allocations.length > 0) {
      problems.push({
        field: input.allocationsField,
        message:
          'must be empty for a positive adjustment: payments and negative adjustments are allocated to it',
      });
    }
  } else {
    // Spec, Adjustments: with AutoApply the amount goes to the earliest invoice or positive adjustment and the
    // allocations are not used.
    request = allocationRequestOf(input, currencyCode, true, problems);
  }

  if (problems.length > 0) throw new ValidationError(problems);
  return {
    adjustmentType,
    amountMinor: money.amountMinor,
    date: money.date!,
    dueDate,
    ref: ref === undefined ? (current?.ref ?? null) : ref,
    memo: memo === undefined ? (current?.memo ?? null) : memo,
    request,
  };
}

/** Inserts a checked adjustment of the locked customer and, for a negative one, allocates it. */
async function insertChecked(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
  direction: AdjustmentDirection,
  checked: CheckedAdjustment,
): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const record = {
    accountId: ctx.account.id,
    customerId,
    direction,
    adjustmentType: checked.adjustmentType,
    subscriptionId: checked.subscriptionId ?? null,
    currencyCode,
    amountMinor: checked.amountMinor,
    date: checked.date,
    dueDate: checked.dueDate,
    ref: checked.ref,
    memo: checked.memo,
    createdAt: now,
    updatedAt: now,
  };
  const id = await repo.insertAdjustment(ctx.db, record);
  if (isTaxCreditNote(record)) await documentAdjustment(ctx, { ...record, id }, checked.reduces ?? []);
  const ref = adjustmentRef(id);
  const outcome = checked.request
    ? await applyAllocations(ctx, sourceOf({ ...record, id }), checked.request)
    : { targetEvents: [] };
  await emitEvents(ctx, [{ type: 'adjustment.created', ref }, ...outcome.targetEvents]);
  if (isTaxCreditNote(record)) await announceDocumentsOf(ctx, 'adjustment', [id]);
  return id;
}

const adjustmentRef = (id: number) => ({ type: 'adjustment', id });

/**
 * A negative credit_note adjustment just inserted gets its tax credit note, numbered from the account's sequence,
 * and a subscription's credit the reductions it states (docs/tax.md, "Tax credit notes").
 */
async function documentAdjustment(
  ctx: ServiceContext,
  row: Pick<AdjustmentRecord, 'id' | 'customerId' | 'currencyCode' | 'date' | 'memo' | 'ref'>,
  reduces: readonly StatedReduction[],
): Promise<void> {
  await taxCreditNoteRepo.insertTaxCreditNote(
    ctx.db,
    ctx.account.id,
    {
      customerId: row.customerId,
      currencyCode: row.currencyCode,
      source: { type: 'adjustment', id: row.id },
      creditNumber: await nextCreditNumber(ctx),
      date: row.date,
      reason: reasonOf(row),
    },
    nowInstant(ctx),
  );
  await recordReductions(
    ctx,
    reduces.map((reduction) => ({
      ...reduction,
      customerId: row.customerId,
      source: { type: 'adjustment', id: row.id },
      date: row.date,
      taxCreditNoteId: null,
    })),
  );
}

/**
 * POST /v1/adjustment/add: records an adjustment (and allocates a negative one), with every figure it moves, in
 * the caller's transaction (the route's, which records the reply in it) or its own. Returns its id.
 */
export function createAdjustment(ctx: ServiceContext, input: AdjustmentInput): Promise<number> {
  return withLockedCustomer(ctx, input.customerId, async (ctx, customer) => {
    const checked = await checkAdjustment(ctx, input, customer.currencyCode);
    return insertChecked(ctx, customer.id, customer.currencyCode, input.direction, checked);
  });
}

export interface CreditNoteAdjustmentInput {
  customerId: number;
  /** The subscription credited: the adjustment is then its record, fixed in amount and not deletable. */
  subscriptionId: number;
  /** The subscription's currency, which may differ from the customer's. */
  currencyCode: string;
  /** In the currency's minor unit; above 0. */
  amountMinor: number;
  /** YYYY-MM-DD. */
  date: PlainDate;
  ref: string;
  memo?: string | null;
  /** False: issued unallocated, for the caller to allocate (a plan change pays its own invoice first). */
  autoApply: boolean;
  /** The invoices of the time it credits, and how much of each it takes back (docs/tax.md, "Tax credit notes"). */
  reduces: readonly StatedReduction[];
}

/**
 * For other use cases (a subscription's credit): issues a negative credit_note adjustment to the customer within
 * the caller's transaction and (with autoApply) applies it to the earliest open invoices and positive adjustments.
 * Returns its id.
 */
export function issueCreditNoteAdjustment(
  ctx: ServiceContext,
  input: CreditNoteAdjustmentInput,
): Promise<number> {
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0) {
    throw new RangeError(`a credit note adjustment needs an amount above 0, not ${input.amountMinor}`);
  }
  return withTransaction(ctx, async (ctx) => {
    const customer = await lockCustomerForMoney(ctx, input.customerId);
    const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
    return insertChecked(ctx, customer.id, currencyCode, 'negative', {
      subscriptionId: input.subscriptionId,
      adjustmentType: 'credit_note',
      amountMinor: input.amountMinor,
      date: input.date,
      dueDate: null,
      ref: optionalText(input.ref) ?? null,
      memo: optionalText(input.memo) ?? null,
      reduces: input.reduces,
      request: input.autoApply
        ? { autoApply: true, includeAdjustments: true }
        : { autoApply: false, entries: [] },
    });
  });
}

/**
 * In the caller's transaction (which holds the customer's lock): a positive `refund` adjustment for money paid back
 * to the customer, due at once, for the refunded payment to be allocated to. Returns its id.
 */
export function insertRefundAdjustment(
  ctx: ServiceContext,
  input: {
    customerId: number;
    currencyCode: string;
    amountMinor: number;
    date: PlainDate;
    memo: string;
  },
): Promise<number> {
  return insertChecked(ctx, input.customerId, input.currencyCode, 'positive', {
    adjustmentType: 'refund',
    amountMinor: input.amountMinor,
    date: input.date,
    dueDate: input.date,
    // The gateway's refund id, once it has answered (confirmRefund).
    ref: null,
    memo: input.memo,
    request: undefined,
  });
}

async function getAdjustmentRecord(
  ctx: ServiceContext,
  adjustmentId: number,
  check: (row: AdjustmentRecord) => void,
): Promise<AdjustmentRecord> {
  const row = await repo.findAdjustment(ctx.db, ctx.account.id, adjustmentId);
  if (!row) throw new NotFoundError('Adjustment', adjustmentId);
  check(row);
  return row;
}

/** Runs `work` on the adjustment (that passes `check`) under its customer's lock (see withLockedRecord). */
function withLockedAdjustment(
  ctx: ServiceContext,
  adjustmentId: number,
  work: (ctx: ServiceContext, row: AdjustmentRecord) => Promise<void>,
  check: (row: AdjustmentRecord) => void = () => {},
): Promise<void> {
  return withLockedRecord(ctx, (ctx) => getAdjustmentRecord(ctx, adjustmentId, check), work);
}

/**
 * Replaces an adjustment's fields and, for a negative one, makes its allocations the list sent (Spec, Payments
 * rule 4) or re-spreads it with AutoApply. Its customer and its Type do not change: an adjustment recorded
 * wrongly is deleted and added again.
 */
export function updateAdjustment(
  ctx: ServiceContext,
  adjustmentId: number,
  input: AdjustmentInput,
): Promise<void> {
  return withLockedAdjustment(ctx, adjustmentId, async (ctx, row) => {
    if (input.customerId !== row.customerId) {
      throw ValidationError.field('customerID', `must be the adjustment's customer (${row.customerId})`);
    }
    if (input.direction !== row.direction) {
      throw ValidationError.field(
        'Type',
        `cannot change: adjustment ${row.id} is ${row.direction} (delete it and add a ${input.direction} one)`,
        'adjustment_type_fixed',
      );
    }
    const checked = await checkAdjustment(ctx, input, row.currencyCode, row);
    if (isTaxCreditNote(row) !== isTaxCreditNote({ ...row, adjustmentType: checked.adjustmentType })) {
      throw ValidationError.field(
        'AdjustmentType',
        `cannot change: adjustment ${row.id} is ${isTaxCreditNote(row) ? 'a tax credit note' : 'not a tax credit note'} ` +
          '(delete it and add one of the other type)',
        'adjustment_type_fixed',
      );
    }
    if (row.subscriptionId !== null && checked.amountMinor !== row.amountMinor) {
      throw ValidationError.field(
        'Amount',
        `is fixed: adjustment ${row.id} is the credit of subscription ${row.subscriptionId}`,
        'adjustment_issued_for_subscription',
      );
    }
    const changes = {
      adjustmentType: checked.adjustmentType,
      amountMinor: checked.amountMinor,
      date: checked.date,
      dueDate: checked.dueDate,
      ref: checked.ref,
      memo: checked.memo,
      updatedAt: ctx.clock.now().toISOString(),
    };
    const ref = adjustmentRef(adjustmentId);
    const before = await snapshotResource(ctx, ref);
    if (isTaxCreditNote(row)) {
      const reason = reasonOf(checked);
      await redocumentSource(ctx, { type: 'adjustment', id: row.id }, { date: checked.date, reason });
    }
    if (!checked.request) {
      await repo.updateAdjustment(ctx.db, ctx.account.id, adjustmentId, changes);
      await emitEvent(ctx, 'adjustment.updated', ref, { before });
      return;
    }
    const outcome = await reallocateWithAmount(
      ctx,
      sourceOf({ ...row, amountMinor: checked.amountMinor, date: checked.date }),
      row.amountMinor,
      checked.request,
      () => repo.updateAdjustment(ctx.db, ctx.account.id, adjustmentId, changes),
    );
    // Adjustments have no `.allocated` event: a change of their allocations is an update.
    await emitEvents(ctx, [{ type: 'adjustment.updated', ref, before }, ...outcome.targetEvents]);
  });
}

/**
 * Deletes an adjustment. A negative one takes its allocations with it (what it settled is owed again); a positive
 * one that money is allocated to cannot be deleted (like cancelling an invoice that has payments): the
 * allocations are removed first.
 */
export function deleteAdjustment(ctx: ServiceContext, address: AdjustmentAddress): Promise<void> {
  const addressed = (row: AdjustmentRecord) => {
    if (row.direction !== address.direction || row.customerId !== address.customerId) {
      throw new NotFoundError('Adjustment', address.adjustmentId);
    }
  };
  return withLockedAdjustment(
    ctx,
    address.adjustmentId,
    async (ctx, row) => {
      if (row.subscriptionId !== null) {
        throw new ConflictError(
          'adjustment_issued_for_subscription',
          `Adjustment ${row.id} is the credit of subscription ${row.subscriptionId}, a record of its change; ` +
            'add a positive adjustment to take it back',
        );
      }
      const ref = adjustmentRef(row.id);
      const before = await snapshotResource(ctx, ref);
      let targetEvents: EventToEmit[] = [];
      if (row.direction === 'positive') {
        if (row.allocatedMinor > 0) {
          throw new ConflictError(
            'adjustment_has_allocations',
            `Positive adjustment ${row.id} has ${minorToDecimalText(row.allocatedMinor, row.currencyCode)} ` +
              `${row.currencyCode} allocated to it; remove those allocations (edit the payments or negative ` +
              'adjustments) before deleting it',
          );
        }
      } else {
        ({ targetEvents } = await releaseAllocations(ctx, sourceOf(row)));
      }
      await repo.deleteAdjustment(ctx.db, ctx.account.id, row.id);
      await taxCreditNoteRepo.deleteOfSource(ctx.db, ctx.account.id, { type: 'adjustment', id: row.id });
      await emitEvents(ctx, [{ type: 'adjustment.deleted', ref, before }, ...targetEvents]);
    },
    addressed,
  );
}
