import type { ServiceContext } from '../../context.ts';
import { today } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { lockInvoicesForAllocation } from '../invoicing/index.ts';
import { insertRefundAdjustment } from './adjustment.service.ts';
import * as adjustments from './adjustment.repository.ts';
import { allocationsOfSources, applyAllocations } from './allocation.service.ts';
import type { Allocation, AllocationEntry } from './allocation.service.ts';
import type { TargetRef } from './allocation.ts';
import { issueCreditNoteInTransaction, withdrawCreditNoteInTransaction } from './creditNote.service.ts';
import { withLockedRecord } from './moneyMovement.ts';
import { getPaymentRecord, paymentSource } from './payment.service.ts';
import type { Payment, PaymentRecord } from './payment.ts';

/**
 * Money paid back to a customer through the gateway that collected it (spec: "a refund is treated as a positive
 * adjustment"): a positive `refund` adjustment of the amount, to which the payment is allocated. The money comes
 * first from what the payment has not allocated, then from what it paid invoices, the latest invoice first; those
 * invoices are either credited (a credit note of what was taken, so they stay settled: the default) or reopened
 * (they owe it again), as the caller says (docs/gateways.md "Refunds"). It is made in two steps around the
 * gateway's call: reserved (every ledger change at once, under the customer's lock, so two refunds at once cannot
 * both take the same money and an invoice is never left owing money that is merely on its way back), then
 * confirmed with the gateway's refund id, or undone when the gateway refused.
 */

/** What happens to the invoices the refunded money paid (the wire's `PaidInvoices`). */
export const PAID_INVOICES_CHOICES = ['credit', 'reopen'] as const;
export type PaidInvoices = (typeof PAID_INVOICES_CHOICES)[number];

/** What a refund took from one invoice the payment paid. */
export interface TakenFromInvoice {
  invoiceId: number;
  amountMinor: number;
}

/** The ledger's side of a refund in flight: what undoing it needs. */
export interface RefundReservation {
  adjustmentId: number;
  amountMinor: number;
  paidInvoices: PaidInvoices;
  /** Latest invoice first; empty when the payment's unallocated money sufficed. */
  fromInvoices: TakenFromInvoice[];
  /** The credit note covering `fromInvoices` (`credit`); null otherwise. */
  creditNoteId: number | null;
}

/**
 * Whether the payment is settled, so that it can be refunded; 409 otherwise. Whether a gateway collected it is the
 * caller's to know (collections' chargeOfPayment): a sale of the capture widget names no kept card, yet its
 * gateway charged it.
 */
export function assertRefundable(payment: Pick<Payment, 'id' | 'state'>): void {
  if (payment.state !== 'settled') {
    throw new ConflictError(
      'payment_not_refundable',
      `Payment ${payment.id} was not collected and settled through a gateway: record money paid back with an adjustment`,
    );
  }
}

/** The payment's allocations to invoices, the latest invoice first (InvoiceDate, then invoiceNum), locked. */
async function invoiceAllocationsLatestFirst(
  ctx: ServiceContext,
  payment: PaymentRecord,
  allocations: readonly Allocation[],
): Promise<Allocation[]> {
  const toInvoices = allocations.filter((allocation) => allocation.targetType === 'invoice');
  const invoices = await lockInvoicesForAllocation(
    ctx,
    payment.customerId,
    toInvoices.map((allocation) => allocation.targetId),
    [],
  );
  const rank = new Map(
    invoices
      .sort(
        (a, b) =>
          b.invoiceDate.localeCompare(a.invoiceDate) ||
          (b.invoiceNum ?? b.id) - (a.invoiceNum ?? a.id) ||
          b.id - a.id,
      )
      .map((invoice, i) => [invoice.id, i]),
  );
  // Within one invoice, its latest allocation first.
  return toInvoices.sort((a, b) => rank.get(a.targetId)! - rank.get(b.targetId)! || b.id - a.id);
}

/**
 * How much of `amountMinor` (all that can be refunded when undefined) comes from the unallocated money and how
 * much from each allocation to an invoice; 422 naming Amount beyond what can be refunded.
 */
async function planRefund(
  ctx: ServiceContext,
  payment: PaymentRecord,
  allocations: readonly Allocation[],
  requestedMinor: number | undefined,
  onlyInvoiceId: number | undefined,
): Promise<{
  amountMinor: number;
  takenByAllocation: Map<number, number>;
  fromInvoices: TakenFromInvoice[];
}> {
  const unallocated = onlyInvoiceId === undefined ? payment.amountMinor - payment.allocatedMinor : 0;
  const toInvoices = (await invoiceAllocationsLatestFirst(ctx, payment, allocations)).filter(
    (allocation) => onlyInvoiceId === undefined || allocation.targetId === onlyInvoiceId,
  );
  const refundable = unallocated + toInvoices.reduce((sum, allocation) => sum + allocation.amountMinor, 0);
  if (requestedMinor === undefined && refundable === 0) {
    throw new ConflictError('payment_refunded', `Payment ${payment.id} has nothing left to refund`);
  }
  const amountMinor = requestedMinor ?? refundable;
  if (amountMinor > refundable) {
    throw ValidationError.field('Amount', await beyondRefundable(ctx, payment, allocations, refundable));
  }
  const takenByAllocation = new Map<number, number>();
  const fromInvoices: TakenFromInvoice[] = [];
  let left = amountMinor - Math.min(amountMinor, unallocated);
  for (const allocation of toInvoices) {
    if (left === 0) break;
    const taken = Math.min(left, allocation.amountMinor);
    left -= taken;
    takenByAllocation.set(allocation.id, taken);
    const entry = fromInvoices.find((invoice) => invoice.invoiceId === allocation.targetId);
    if (entry) entry.amountMinor += taken;
    else fromInvoices.push({ invoiceId: allocation.targetId, amountMinor: taken });
  }
  return { amountMinor, takenByAllocation, fromInvoices };
}

/** Amount's message beyond what can be refunded, naming what money paid that a refund does not take. */
async function beyondRefundable(
  ctx: ServiceContext,
  payment: PaymentRecord,
  allocations: readonly Allocation[],
  refundableMinor: number,
): Promise<string> {
  const money = (minor: number) => minorToDecimalText(minor, payment.currencyCode);
  const toAdjustments = allocations.filter((allocation) => allocation.targetType === 'adjustment');
  const types = new Map(
    (
      await adjustments.findAdjustments(
        ctx.db,
        ctx.account.id,
        toAdjustments.map((allocation) => allocation.targetId),
      )
    ).map((row) => [row.id, row.adjustmentType]),
  );
  const refunded = toAdjustments
    .filter((allocation) => types.get(allocation.targetId) === 'refund')
    .reduce((sum, allocation) => sum + allocation.amountMinor, 0);
  const charges = toAdjustments.reduce((sum, allocation) => sum + allocation.amountMinor, 0) - refunded;
  return (
    `must be at most ${money(refundableMinor)}, what is left to refund of payment ${payment.id}` +
    (refunded > 0 ? ` (${money(refunded)} refunded already)` : '') +
    (charges > 0
      ? `; the ${money(charges)} it paid positive adjustments is not refunded: release those allocations first ` +
        `(PUT /v1/payments/${payment.id})`
      : '')
  );
}

/** The payment's allocations as a request keeps them (by id), each reduced by `takenByAllocation`, none left at 0. */
function keptEntries(
  allocations: readonly Allocation[],
  takenByAllocation: ReadonlyMap<number, number> = new Map(),
): AllocationEntry[] {
  return allocations
    .map((allocation) => ({
      allocation,
      amountMinor: allocation.amountMinor - (takenByAllocation.get(allocation.id) ?? 0),
    }))
    .filter(({ amountMinor }) => amountMinor > 0)
    .map(({ allocation, amountMinor }, i) => ({
      allocationId: allocation.id,
      amountMinor,
      target: { type: allocation.targetType, id: allocation.targetId },
      field: `allocations[${i}]`,
      targetField: `allocations[${i}].invoiceID`,
    }));
}

/** A new entry of a request, after `entries`. */
function addedEntry(
  entries: readonly AllocationEntry[],
  target: TargetRef,
  amountMinor: number,
): AllocationEntry {
  const field = `allocations[${entries.length}]`;
  return {
    allocationId: null,
    amountMinor,
    target,
    field,
    targetField: target.type === 'adjustment' ? `${field}.positiveAdjustmentID` : `${field}.invoiceID`,
  };
}

/**
 * `first`, then the events of `then` on resources `first` has not told: an invoice that money left and came back
 * to within one change (credited instead of paid, or paid again instead of credited) is one `invoice.updated`
 * from the state before, not a second `invoice.paid`.
 */
function mergedEvents(first: readonly EventToEmit[], then: readonly EventToEmit[]): EventToEmit[] {
  const told = new Set(first.map((event) => `${event.ref.type}:${event.ref.id}`));
  return [...first, ...then.filter((event) => !told.has(`${event.ref.type}:${event.ref.id}`))];
}

/**
 * Step 1, under the customer's lock, every ledger change of the refund: the refund adjustment (its Ref empty until
 * the gateway names the refund), the payment's money moved to it (from what it had not allocated, then from the
 * invoices it paid, the latest first), and for `credit` the credit note that keeps those invoices settled. `claim`
 * runs last in the same transaction (the caller records its attempt there).
 */
export function reserveRefund<T>(
  ctx: ServiceContext,
  refund: {
    paymentId: number;
    /**
     * Undefined: all that is left to refund. A function: worked out under the lock, where it cannot race (a
     * grant's unused credit, whose money depends on what its top-up invoice was credited before).
     */
    amountMinor: number | undefined | ((ctx: ServiceContext) => Promise<number>);
    paidInvoices: PaidInvoices;
    /**
     * Only the money the payment paid this invoice, none of its unallocated money nor other invoices': a refund of
     * a paid top-up's credit (docs/credits.md, "Refunding unused credit"). Undefined: as the module's comment says.
     */
    onlyInvoiceId?: number;
    /** The refund adjustment's. */
    memo: string;
    /** The credit note `credit` issues: its number (undefined: the next of the account's sequence) and memo. */
    creditNote: { creditNumber: string | undefined; memo: string };
  },
  claim: (ctx: ServiceContext, reservation: RefundReservation) => Promise<T>,
): Promise<T> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, refund.paymentId),
    async (ctx, row) => {
      assertRefundable(row);
      const allocations = (await allocationsOfSources(ctx, 'payment', [row.id])).get(row.id) ?? [];
      const asked =
        typeof refund.amountMinor === 'function' ? await refund.amountMinor(ctx) : refund.amountMinor;
      const plan = await planRefund(ctx, row, allocations, asked, refund.onlyInvoiceId);
      const adjustmentId = await insertRefundAdjustment(ctx, {
        customerId: row.customerId,
        currencyCode: row.currencyCode,
        amountMinor: plan.amountMinor,
        date: today(ctx),
        memo: refund.memo,
      });
      const ref = { type: 'payment', id: row.id };
      const before = await snapshotResource(ctx, ref);
      const kept = keptEntries(allocations, plan.takenByAllocation);
      const entries = [...kept, addedEntry(kept, { type: 'adjustment', id: adjustmentId }, plan.amountMinor)];
      const outcome = await applyAllocations(ctx, paymentSource(row), { autoApply: false, entries });
      let creditNote: { id: number; events: EventToEmit[] } | undefined;
      if (refund.paidInvoices === 'credit' && plan.fromInvoices.length > 0) {
        creditNote = await issueCreditNoteInTransaction(ctx, {
          customerId: row.customerId,
          currencyCode: row.currencyCode,
          date: today(ctx),
          creditNumber: refund.creditNote.creditNumber,
          memo: refund.creditNote.memo,
          allocations: plan.fromInvoices,
        });
      }
      await emitEvents(ctx, [
        { type: 'payment.allocated', ref, before },
        ...mergedEvents(outcome.targetEvents, creditNote?.events ?? []),
      ]);
      const reservation: RefundReservation = {
        adjustmentId,
        amountMinor: plan.amountMinor,
        paidInvoices: refund.paidInvoices,
        fromInvoices: plan.fromInvoices,
        creditNoteId: creditNote?.id ?? null,
      };
      return claim(ctx, reservation);
    },
  );
}

/**
 * Step 2, the gateway refunded: the adjustment names its refund id; `payment.refunded`. `finish` runs first in the
 * transaction and says whether this answer is the first recorded (another process may have recorded it); what it
 * said is returned, so that a caller tells whether this answer changed anything.
 */
export function confirmRefund(
  ctx: ServiceContext,
  refund: { paymentId: number; adjustmentId: number; refundId: string },
  finish: (ctx: ServiceContext) => Promise<boolean>,
): Promise<boolean> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, refund.paymentId),
    async (ctx, row) => {
      if (!(await finish(ctx))) return false;
      const adjustmentRef = { type: 'adjustment', id: refund.adjustmentId };
      const before = await snapshotResource(ctx, adjustmentRef);
      await adjustments.updateAdjustment(ctx.db, ctx.account.id, refund.adjustmentId, {
        ref: refund.refundId,
        updatedAt: ctx.clock.now().toISOString(),
      });
      await emitEvents(ctx, [
        { type: 'payment.refunded', ref: { type: 'payment', id: row.id } },
        { type: 'adjustment.updated', ref: adjustmentRef, before },
      ]);
      return true;
    },
  );
}

/**
 * Step 2, the gateway refused: the reservation is undone. The credit note goes (if nobody deleted it meanwhile),
 * the invoices get back what was taken from them (at most what each owes now: one paid otherwise meanwhile leaves
 * the rest unallocated on the payment, the customer's), and the refund adjustment goes; `finish` as above.
 */
export function releaseRefund(
  ctx: ServiceContext,
  refund: {
    paymentId: number;
    adjustmentId: number;
    fromInvoices: readonly TakenFromInvoice[];
    creditNoteId: number | null;
  },
  finish: (ctx: ServiceContext) => Promise<boolean>,
): Promise<boolean> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, refund.paymentId),
    async (ctx, row) => {
      if (!(await finish(ctx))) return false;
      const ref = { type: 'payment', id: row.id };
      const adjustmentRef = { type: 'adjustment', id: refund.adjustmentId };
      const before = await snapshotResource(ctx, ref);
      const adjustmentBefore = await snapshotResource(ctx, adjustmentRef);
      const withdrawn =
        refund.creditNoteId === null ? [] : await withdrawCreditNoteInTransaction(ctx, refund.creditNoteId);
      const allocations = ((await allocationsOfSources(ctx, 'payment', [row.id])).get(row.id) ?? []).filter(
        (allocation) =>
          !(allocation.targetType === 'adjustment' && allocation.targetId === refund.adjustmentId),
      );
      const entries = keptEntries(allocations);
      const open = new Map(
        (
          await lockInvoicesForAllocation(
            ctx,
            row.customerId,
            refund.fromInvoices.map((taken) => taken.invoiceId),
            [],
          )
        )
          .filter((invoice) => !invoice.refusal)
          .map((invoice) => [invoice.id, invoice.openMinor]),
      );
      for (const taken of refund.fromInvoices) {
        const back = Math.min(taken.amountMinor, open.get(taken.invoiceId) ?? 0);
        if (back === 0) continue;
        const onInvoice = entries.find(
          (entry) =>
            entry.target.type === 'invoice' && 'id' in entry.target && entry.target.id === taken.invoiceId,
        );
        if (onInvoice) onInvoice.amountMinor += back;
        else entries.push(addedEntry(entries, { type: 'invoice', id: taken.invoiceId }, back));
      }
      const outcome = await applyAllocations(ctx, paymentSource(row), { autoApply: false, entries });
      await adjustments.deleteAdjustment(ctx.db, ctx.account.id, refund.adjustmentId);
      const isRefundAdjustment = (event: EventToEmit) =>
        event.ref.type === 'adjustment' && event.ref.id === refund.adjustmentId;
      await emitEvents(ctx, [
        { type: 'payment.allocated', ref, before },
        ...mergedEvents(
          withdrawn,
          outcome.targetEvents.filter((event) => !isRefundAdjustment(event)),
        ),
        { type: 'adjustment.deleted', ref: adjustmentRef, before: adjustmentBefore },
      ]);
      return true;
    },
  );
}
