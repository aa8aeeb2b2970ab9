import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { autoApply, planAllocations } from '../../core/allocation.ts';
import type { AllocationTarget, RequestedAllocation, TargetKey } from '../../core/allocation.ts';
import { invoiceBalances } from '../../core/invoiceMath.ts';
import { snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import {
  addToInvoiceMoney,
  customerInvoiceSums,
  lockInvoicesForAllocation,
  lockOpenInvoices,
} from '../invoicing/index.ts';
import type { AllocatableInvoice, InvoiceMoneyColumn } from '../invoicing/index.ts';
import * as repo from './allocation.repository.ts';
import type { AllocationRow, SourceType, TargetAdjustmentRow, TargetType } from './allocation.repository.ts';

/**
 * The one way money is allocated: payments, credit notes and negative adjustments (sources) to invoices and
 * positive adjustments (targets). Every change runs inside the use case's transaction, after the use case has
 * locked the customer (lockCustomerForMoney): all money movements of one customer are thus made one at a time,
 * and the targets' figures (an invoice's paid columns, an adjustment's allocated amount) change with the
 * allocations, in the same transaction.
 */

export interface MoneySource {
  type: SourceType;
  id: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  /** Which of an invoice's figures its allocations count in: TotalActualPaid, TotalPendingPaid, TotalNegativeAdjs. */
  invoiceColumn: InvoiceMoneyColumn;
  /** How messages name it: "payment 12". */
  label: string;
}

/** One allocation of a request, its target named as the wire allows. */
export interface AllocationEntry {
  allocationId: number | null;
  amountMinor: number;
  target: { invoiceId: number } | { invoiceNum: number } | { adjustmentId: number };
  /** The wire path of the entry: `allocations[0]`. */
  field: string;
  /** The key that named the target (`allocations[0].invoiceID`, `.objectID`, ...): an unknown one is told there. */
  targetField: string;
}

export type AllocationRequest =
  | { autoApply: false; entries: AllocationEntry[] }
  /** Spec: AutoApply applies to the earliest invoice (negative adjustments: or positive adjustment) and on. */
  | { autoApply: true; includeAdjustments: boolean };

const key = (type: TargetType, id: number): TargetKey => `${type}:${id}`;

function parseKey(targetKey: TargetKey): { type: TargetType; id: number } {
  const [type, id] = targetKey.split(':');
  return { type: type as TargetType, id: Number(id) };
}

/**
 * A target with its place in AutoApply's order: an invoice's InvoiceDate then invoiceNum, an adjustment's Date
 * then id. NOTE: an invoice's id is not its number's order: a draft takes its invoiceNum when finalized.
 */
type DatedTarget = AllocationTarget & { date: string; sequence: number };

function invoiceTarget(invoice: AllocatableInvoice): DatedTarget {
  return {
    date: invoice.invoiceDate,
    // Drafts have no number; they are refused anyway.
    sequence: invoice.invoiceNum ?? invoice.id,
    key: key('invoice', invoice.id),
    label: `invoice ${invoice.id}`,
    currencyCode: invoice.currencyCode,
    openMinor: invoice.openMinor,
    ...(invoice.refusal ? { refusal: invoice.refusal } : {}),
  };
}

function adjustmentTarget(row: TargetAdjustmentRow, customerId: number): DatedTarget {
  const refusal =
    row.direction !== 'positive'
      ? 'is not a positive adjustment'
      : row.customer_id !== customerId
        ? 'belongs to another customer'
        : undefined;
  return {
    date: row.adjustment_date,
    sequence: row.id,
    key: key('adjustment', row.id),
    label: `positive adjustment ${row.id}`,
    currencyCode: row.currency_code,
    openMinor: row.amount_minor - row.allocated_minor,
    ...(refusal ? { refusal } : {}),
  };
}

/** The targets a request names (and those the source already holds), locked, by key; unknown ones reported. */
async function lockTargets(
  ctx: ServiceContext,
  source: MoneySource,
  existing: readonly AllocationRow[],
  entries: readonly AllocationEntry[],
): Promise<{
  targets: Map<TargetKey, DatedTarget>;
  keysOf: Map<AllocationEntry, TargetKey>;
  problems: FieldProblem[];
}> {
  const invoiceIds = existing.filter((a) => a.target_type === 'invoice').map((a) => a.target_id);
  const adjustmentIds = existing.filter((a) => a.target_type === 'adjustment').map((a) => a.target_id);
  const invoiceNums: number[] = [];
  for (const entry of entries) {
    if ('invoiceId' in entry.target) invoiceIds.push(entry.target.invoiceId);
    else if ('invoiceNum' in entry.target) invoiceNums.push(entry.target.invoiceNum);
    else adjustmentIds.push(entry.target.adjustmentId);
  }
  const invoices = await lockInvoicesForAllocation(ctx, source.customerId, invoiceIds, invoiceNums);
  const adjustments = await repo.lockAdjustments(ctx.db, ctx.account.id, [...new Set(adjustmentIds)]);
  const targets = new Map<TargetKey, DatedTarget>();
  for (const invoice of invoices) targets.set(key('invoice', invoice.id), invoiceTarget(invoice));
  for (const row of adjustments)
    targets.set(key('adjustment', row.id), adjustmentTarget(row, source.customerId));
  const byNum = new Map(invoices.filter((i) => i.invoiceNum !== null).map((i) => [i.invoiceNum!, i.id]));

  const keysOf = new Map<AllocationEntry, TargetKey>();
  const problems: FieldProblem[] = [];
  for (const entry of entries) {
    if ('invoiceId' in entry.target) {
      const k = key('invoice', entry.target.invoiceId);
      if (targets.has(k)) keysOf.set(entry, k);
      else problems.push({ field: entry.targetField, message: `no such invoice: ${entry.target.invoiceId}` });
    } else if ('invoiceNum' in entry.target) {
      const id = byNum.get(entry.target.invoiceNum);
      if (id !== undefined) keysOf.set(entry, key('invoice', id));
      else
        problems.push({
          field: entry.targetField,
          message: `no invoice has invoiceNum ${entry.target.invoiceNum}`,
        });
    } else {
      const k = key('adjustment', entry.target.adjustmentId);
      if (targets.has(k)) keysOf.set(entry, k);
      else
        problems.push({
          field: entry.targetField,
          message: `no such positive adjustment: ${entry.target.adjustmentId}`,
        });
    }
  }
  return { targets, keysOf, problems };
}

/** AutoApply's order: the earliest open target first (by date; on one day invoices before adjustments). */
async function autoApplyRequest(
  ctx: ServiceContext,
  source: MoneySource,
  existing: readonly AllocationRow[],
  includeAdjustments: boolean,
): Promise<{ requested: RequestedAllocation[]; targets: Map<TargetKey, AllocationTarget> }> {
  // What this source already holds is open to it again: an edit re-spreads the whole amount.
  const { targets } = await lockTargets(ctx, source, existing, []);
  const dated: { key: TargetKey; date: string; rank: number; sequence: number; target: AllocationTarget }[] =
    [];
  for (const invoice of await lockOpenInvoices(ctx, source.customerId, source.currencyCode)) {
    targets.set(key('invoice', invoice.id), invoiceTarget(invoice));
  }
  if (includeAdjustments) {
    const open = await repo.lockOpenPositiveAdjustments(
      ctx.db,
      ctx.account.id,
      source.customerId,
      source.currencyCode,
    );
    for (const row of open) targets.set(key('adjustment', row.id), adjustmentTarget(row, source.customerId));
  }
  const held = new Map<TargetKey, number>();
  for (const a of existing) {
    const k = key(a.target_type as TargetType, a.target_id);
    held.set(k, (held.get(k) ?? 0) + a.amount_minor);
  }
  for (const [k, target] of targets) {
    if (target.refusal || target.currencyCode !== source.currencyCode) continue;
    if (!includeAdjustments && k.startsWith('adjustment:')) continue;
    dated.push({
      key: k,
      date: target.date,
      rank: k.startsWith('invoice:') ? 0 : 1,
      sequence: target.sequence,
      target,
    });
  }
  // Spec, Payments rule 1: the earliest invoice first, by InvoiceDate then invoiceNum.
  dated.sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : a.rank - b.rank || a.sequence - b.sequence,
  );
  const plan = autoApply(
    source.amountMinor,
    dated.map((d) => ({ key: d.key, openMinor: d.target.openMinor + (held.get(d.key) ?? 0) })),
  );
  return {
    targets,
    requested: plan.map((p, i) => ({
      allocationId: null,
      targetKey: p.targetKey,
      amountMinor: p.amountMinor,
      field: `allocations[${i}]`,
    })),
  };
}

/** What an allocation change did: whether the source's allocations changed, and the events of its targets. */
export interface AllocationOutcome {
  changed: boolean;
  /** For the caller to emit with its source's event, in its transaction. */
  targetEvents: EventToEmit[];
}

/**
 * An invoice whose allocations changed: `invoice.paid` when it became Paid, `invoice.partially_paid` when money
 * came in and leaves a Balance, `invoice.updated` otherwise (money taken back, or covered by pending payments).
 */
function invoiceEventType(
  before: Snapshot | undefined,
  after: { status: string; balanceMinor: number },
  deltaMinor: number,
): string {
  // Without `before`, money only came in: an invoice Paid now was not Paid before it.
  if (after.status === 'Paid' && before?.object?.['Status'] !== 'Paid') return 'invoice.paid';
  if (deltaMinor > 0 && after.balanceMinor > 0) return 'invoice.partially_paid';
  return 'invoice.updated';
}

/** The targets rendered as the API shows them, keyed `type:id`: one batch per type. */
async function snapshotsOf(
  ctx: ServiceContext,
  targets: readonly { type: TargetType; id: number }[],
): Promise<Map<string, Snapshot>> {
  const snapshots = new Map<string, Snapshot>();
  for (const type of ['invoice', 'adjustment'] as const) {
    const ids = targets.filter((target) => target.type === type).map((target) => target.id);
    if (ids.length === 0) continue;
    for (const [id, snapshot] of await snapshotResources(ctx, type, ids))
      snapshots.set(`${type}:${id}`, snapshot);
  }
  return snapshots;
}

/**
 * Makes the source's allocations what the request says (Spec, Payments rule 4 for lists; AutoApply otherwise),
 * moves the targets' figures by the difference, and records the source's allocated total. A request that would
 * over-allocate a target or the source, cross currencies or name an unknown or closed target is refused with a
 * 422 naming the allocation, and nothing is changed.
 */
export async function applyAllocations(
  ctx: ServiceContext,
  source: MoneySource,
  request: AllocationRequest,
): Promise<AllocationOutcome> {
  const existing = await repo.listAllocationsOfSources(ctx.db, ctx.account.id, source.type, [source.id]);
  let requested: RequestedAllocation[];
  let targets: Map<TargetKey, AllocationTarget>;
  if (request.autoApply) {
    ({ requested, targets } = await autoApplyRequest(ctx, source, existing, request.includeAdjustments));
  } else {
    const locked = await lockTargets(ctx, source, existing, request.entries);
    if (locked.problems.length > 0) throw new ValidationError(locked.problems, 'invalid_allocations');
    targets = locked.targets;
    requested = request.entries.map((entry) => ({
      allocationId: entry.allocationId,
      targetKey: locked.keysOf.get(entry)!,
      amountMinor: entry.amountMinor,
      field: entry.field,
    }));
  }
  const result = planAllocations({
    sourceLabel: source.label,
    sourceAmountMinor: source.amountMinor,
    currencyCode: source.currencyCode,
    existing: existing.map((a) => ({
      id: a.id,
      targetKey: key(a.target_type as TargetType, a.target_id),
      amountMinor: a.amount_minor,
    })),
    requested,
    targets,
  });
  if ('problems' in result) throw new ValidationError(result.problems, 'invalid_allocations');
  const { plan } = result;
  const now = ctx.clock.now().toISOString();
  const moved = [...plan.targetDeltas]
    .filter(([, delta]) => delta !== 0)
    .map(([targetKey, delta]) => ({ ...parseKey(targetKey), delta }));
  // The targets as they were, so that their events carry `previous`. NOTE: an invoice that only receives settled
  // money is not rendered before: its event (paid or partially paid) is told by the state after alone, and one
  // rendering of an invoice with its customer's figures costs as much as the payment itself.
  const settledOnly = (target: { type: TargetType; delta: number }) =>
    target.type === 'invoice' && target.delta > 0 && source.invoiceColumn !== 'paid_pending_minor';
  const before = await snapshotsOf(
    ctx,
    moved.filter((target) => !settledOnly(target)),
  );

  await repo.deleteAllocations(ctx.db, ctx.account.id, plan.deletes);
  for (const update of plan.updates) {
    const target = parseKey(update.targetKey);
    await repo.updateAllocation(ctx.db, ctx.account.id, update.id, {
      target_type: target.type,
      target_id: target.id,
      amount_minor: update.amountMinor,
      updated_at: now,
    });
  }
  await repo.insertAllocations(
    ctx.db,
    plan.inserts.map((insert) => {
      const target = parseKey(insert.targetKey);
      return {
        account_id: ctx.account.id,
        customer_id: source.customerId,
        source_type: source.type,
        source_id: source.id,
        target_type: target.type,
        target_id: target.id,
        amount_minor: insert.amountMinor,
        created_at: now,
        updated_at: now,
      };
    }),
  );
  const invoicesAfter = new Map<number, { status: string; balanceMinor: number }>();
  for (const [targetKey, delta] of plan.targetDeltas) {
    const target = parseKey(targetKey);
    if (target.type === 'invoice')
      invoicesAfter.set(target.id, await addToInvoiceMoney(ctx, target.id, source.invoiceColumn, delta));
    else await repo.addToAdjustmentAllocated(ctx.db, ctx.account.id, target.id, delta, now);
  }
  await repo.setSourceAllocated(ctx.db, ctx.account.id, source.type, source.id, plan.allocatedMinor, now);

  // Rendered when the events are written, after whatever the caller changes next (a payment's deletion).
  const targetEvents: EventToEmit[] = moved.map((target) => {
    const ref = { type: target.type, id: target.id };
    const was = before.get(`${target.type}:${target.id}`);
    if (target.type !== 'invoice') return { type: 'adjustment.updated', ref, before: was! };
    const type = invoiceEventType(was, invoicesAfter.get(target.id)!, target.delta);
    return was ? { type, ref, before: was } : { type, ref };
  });
  const changed = plan.deletes.length + plan.updates.length + plan.inserts.length > 0;
  return { changed, targetEvents };
}

/** Removes every allocation of the source and gives the targets their money back (before the source is deleted). */
export function releaseAllocations(ctx: ServiceContext, source: MoneySource): Promise<AllocationOutcome> {
  return applyAllocations(ctx, source, { autoApply: false, entries: [] });
}

export interface Allocation {
  id: number;
  sourceType: SourceType;
  sourceId: number;
  targetType: TargetType;
  targetId: number;
  amountMinor: number;
}

function allocationFromRow(row: AllocationRow): Allocation {
  return {
    id: row.id,
    sourceType: row.source_type as SourceType,
    sourceId: row.source_id,
    targetType: row.target_type as TargetType,
    targetId: row.target_id,
    amountMinor: row.amount_minor,
  };
}

/** The allocations of these sources, by source id, in allocation order. */
export async function allocationsOfSources(
  ctx: ServiceContext,
  sourceType: SourceType,
  sourceIds: readonly number[],
): Promise<Map<number, Allocation[]>> {
  const rows = await repo.listAllocationsOfSources(ctx.db, ctx.account.id, sourceType, [
    ...new Set(sourceIds),
  ]);
  const bySource = new Map<number, Allocation[]>();
  for (const row of rows)
    bySource.set(row.source_id, [...(bySource.get(row.source_id) ?? []), allocationFromRow(row)]);
  return bySource;
}

/** The allocations made to these targets, by target id, in allocation order. */
export async function allocationsToTargets(
  ctx: ServiceContext,
  targetType: TargetType,
  targetIds: readonly number[],
): Promise<Map<number, Allocation[]>> {
  const rows = await repo.listAllocationsToTargets(ctx.db, ctx.account.id, targetType, [
    ...new Set(targetIds),
  ]);
  const byTarget = new Map<number, Allocation[]>();
  for (const row of rows)
    byTarget.set(row.target_id, [...(byTarget.get(row.target_id) ?? []), allocationFromRow(row)]);
  return byTarget;
}

/**
 * Each customer's Balance, in its currency's minor unit: what is open on its issued invoices and positive
 * adjustments, less what it has paid or been credited that is not yet allocated (payments that have not
 * failed, credit notes, negative adjustments). Amounts in another currency than the customer's are left out:
 * they cannot be added without a rate. A fixed number of statements whatever the number of customers.
 */
export async function customerBalances(
  ctx: ServiceContext,
  customers: readonly { id: number; currencyCode: string }[],
): Promise<Map<number, number>> {
  const balances = new Map(customers.map((c) => [c.id, 0]));
  if (customers.length === 0) return balances;
  const currencyOf = new Map(customers.map((c) => [c.id, c.currencyCode]));
  const ids = customers.map((c) => c.id);
  const add = (customerId: number, currencyCode: string, amountMinor: number) => {
    if (currencyOf.get(customerId) === currencyCode)
      balances.set(customerId, balances.get(customerId)! + amountMinor);
  };
  for (const sum of await customerInvoiceSums(ctx, ids))
    add(sum.customerId, sum.currencyCode, invoiceBalances(sum).balanceMinor);
  for (const sum of await repo.sumOpen(ctx.db, ctx.account.id, ids)) {
    add(sum.customerId, sum.currencyCode, sum.direction === 'positive' ? sum.openMinor : -sum.openMinor);
  }
  return balances;
}

/** Whether the customer has payments, credit notes or adjustments: records of money, which keep it from deletion. */
export function hasMoneyRecords(ctx: ServiceContext, customerId: number): Promise<boolean> {
  return repo.hasMoneyRecords(ctx.db, ctx.account.id, customerId);
}
