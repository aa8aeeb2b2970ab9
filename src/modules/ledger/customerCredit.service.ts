import type { ServiceContext } from '../../context.ts';
import { spreadSources } from './allocation.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { lockInvoicesForAllocation, lockOpenInvoices } from '../invoicing/index.ts';
import type { AllocatableInvoice } from '../invoicing/index.ts';
import { allocationsOfSources, applyAllocations } from './allocation.service.ts';
import type { AllocationEntry, MoneySource } from './allocation.service.ts';
import type { LedgerSourceType } from './allocation.repository.ts';
import { withLockedCustomer } from './moneyMovement.ts';
import * as repo from './customerCredit.repository.ts';
import type { UnappliedSource } from './customerCredit.repository.ts';

/**
 * Credit first (docs/gateways.md, "Credit first"): before an invoice is charged or bundled, the customer's money not
 * yet applied in its currency pays it, and only the remainder is collected. The money is allocated through the one
 * allocation engine (allocation.service.ts), each source keeping the allocations it holds and gaining new ones, so
 * a credit used here reads and reverses as if it had been allocated by hand.
 */

export interface CustomerCreditRequest {
  customerId: number;
  currencyCode: string;
  /** The invoices to pay from the credit, filled in this order. */
  invoiceIds: readonly number[];
  /**
   * Only these sources (the credits a subscription change issued); absent, all the customer's unapplied money:
   * settled payments, credit notes and negative adjustments.
   */
  sources?: readonly { type: LedgerSourceType; id: number }[];
  /** After `invoiceIds`, the customer's other open invoices, earliest first (as AutoApply fills them). */
  thenOpenInvoices?: boolean;
}

/**
 * Applies the customer's unapplied money to the invoices, the oldest money first (its date, then payments before
 * credit notes before adjustments, then id), under the customer's lock (taken, or joined when the caller holds it),
 * with the events any allocation emits. Returns what each of `invoiceIds` still owes afterwards.
 */
export function applyCustomerCredit(
  ctx: ServiceContext,
  request: CustomerCreditRequest,
): Promise<Map<number, number>> {
  return withLockedCustomer(ctx, request.customerId, async (ctx) => {
    const invoices = await lockTargetInvoices(ctx, request);
    const open = new Map(invoices.map((invoice) => [invoice.id, invoice.openMinor]));
    const sources = (await repo.listUnappliedSources(ctx.db, ctx.account.id, request)).filter(
      (row) => request.sources === undefined || request.sources.some((s) => isSource(row, s)),
    );
    const spreads = spreadSources(
      sources.map((row) => row.amountMinor - row.allocatedMinor),
      invoices.map((invoice) => ({
        target: { type: 'invoice' as const, id: invoice.id },
        openMinor: invoice.openMinor,
      })),
    );
    const events: EventToEmit[] = [];
    for (const [i, row] of sources.entries()) {
      const spread = spreads[i]!;
      if (spread.length === 0) continue;
      events.push(...(await allocateMore(ctx, row, spread)));
      for (const { target, amountMinor } of spread)
        open.set(target.id, (open.get(target.id) ?? 0) - amountMinor);
    }
    await emitEvents(ctx, events);
    // Then the customer's credit grants, never before its own money (docs/credits.md, "Consumption order"); not
    // when only a change's own credits were asked for.
    if (request.sources === undefined) {
      const stillOpen = invoices
        .filter((invoice) => (open.get(invoice.id) ?? 0) > 0)
        .map((invoice) => invoice.id);
      if (stillOpen.length > 0) {
        const applied = await ctx.ports.ledger.grantCredit(ctx, { ...request, invoiceIds: stillOpen });
        for (const [id, amountMinor] of applied) open.set(id, (open.get(id) ?? 0) - amountMinor);
      }
    }
    return new Map(request.invoiceIds.map((id) => [id, open.get(id) ?? 0]));
  });
}

const isSource = (row: UnappliedSource, source: { type: LedgerSourceType; id: number }) =>
  row.sourceType === source.type && row.id === source.id;

/** The invoices named, in their order, then (when asked) the customer's other open ones; only those that can take money. */
async function lockTargetInvoices(
  ctx: ServiceContext,
  request: CustomerCreditRequest,
): Promise<AllocatableInvoice[]> {
  const named = await lockInvoicesForAllocation(ctx, request.customerId, request.invoiceIds, []);
  const byId = new Map(named.map((invoice) => [invoice.id, invoice]));
  const ordered = request.invoiceIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  if (request.thenOpenInvoices) {
    const others = await lockOpenInvoices(ctx, request.customerId, request.currencyCode);
    ordered.push(...others.filter((invoice) => !byId.has(invoice.id)));
  }
  return ordered.filter(
    (invoice) => !invoice.refusal && invoice.currencyCode === request.currencyCode && invoice.openMinor > 0,
  );
}

/** How each kind of source is told to have changed: an adjustment has no `.allocated` (ledger index.ts). */
const ALLOCATED_EVENT: Record<LedgerSourceType, string> = {
  payment: 'payment.allocated',
  credit_note: 'credit_note.allocated',
  adjustment: 'adjustment.updated',
};

const LABEL: Record<LedgerSourceType, string> = {
  payment: 'payment',
  credit_note: 'credit note',
  adjustment: 'negative adjustment',
};

/** The source's allocations as they are, and the new ones: the engine's list request, which keeps the held ones. */
async function allocateMore(
  ctx: ServiceContext,
  row: UnappliedSource,
  spread: readonly { target: { type: 'invoice' | 'adjustment'; id: number }; amountMinor: number }[],
): Promise<EventToEmit[]> {
  const type = row.sourceType;
  const source: MoneySource = {
    type,
    id: row.id,
    customerId: row.customerId,
    currencyCode: row.currencyCode,
    amountMinor: row.amountMinor,
    // Only settled payments are credit (a pending one is not yet received), and their money is paid money.
    invoiceColumn: type === 'payment' ? 'paid_actual_minor' : 'negative_adjs_minor',
    label: `${LABEL[type]} ${row.id}`,
  };
  const held = (await allocationsOfSources(ctx, type, [row.id])).get(row.id) ?? [];
  const entries: AllocationEntry[] = [
    ...held.map((allocation) => ({
      allocationId: allocation.id,
      amountMinor: allocation.amountMinor,
      target: { type: allocation.targetType, id: allocation.targetId },
    })),
    ...spread.map((allocation) => ({ allocationId: null, ...allocation })),
  ].map((entry, i) => ({ ...entry, field: `allocations[${i}]`, targetField: `allocations[${i}].invoiceID` }));
  const ref = { type, id: row.id };
  const before = await snapshotResource(ctx, ref);
  const outcome = await applyAllocations(ctx, source, { autoApply: false, entries });
  return [{ type: ALLOCATED_EVENT[type], ref, before }, ...outcome.targetEvents];
}

/**
 * What the customer's own money not yet applied in a currency comes to: what credit first would pay before any
 * grant. An invoice being issued keeps that much for it (docs/credits.md, "Consumption order").
 */
export async function unappliedMoneyMinor(
  ctx: ServiceContext,
  of: { customerId: number; currencyCode: string },
): Promise<number> {
  const sources = await repo.listUnappliedSources(ctx.db, ctx.account.id, of);
  return sources.reduce((sum, source) => sum + source.amountMinor - source.allocatedMinor, 0);
}

/**
 * The customers and currencies in which the account's customers hold money not yet applied (settled payments, credit
 * notes, negative adjustments with an unallocated part), by customer id: where the daily pass of open invoices
 * looks (docs/credits.md, "Consumption order"). Read outside any lock, so only a hint: the pass reads each again
 * under the customer's lock.
 */
export function customersWithUnappliedMoney(
  ctx: ServiceContext,
): Promise<{ customerId: number; currencyCode: string }[]> {
  return repo.listCustomersWithUnappliedMoney(ctx.db, ctx.account.id);
}
