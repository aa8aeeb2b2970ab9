import { sql } from 'kysely';
import { addDays, dateAt, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { ByTarget, autoApply, planAllocations } from './allocation.ts';
import type {
  AllocationPlan,
  AllocationTarget,
  ExistingAllocation,
  RequestedAllocation,
  TargetRef,
  TargetType,
} from './allocation.ts';
import type { CustomerFigure } from '../customers/index.ts';
import { snapshotResources } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import {
  addToInvoicesMoney,
  issuedInvoicesBalanceOf,
  lockInvoicesForAllocation,
  lockOpenInvoices,
} from '../invoicing/index.ts';
import type { AllocatableInvoice, InvoiceMoneyColumn } from '../invoicing/index.ts';
import * as repo from './allocation.repository.ts';
import { tellInvoicesCredited, tellInvoicesPaid } from './ledgerMoments.ts';
import { recordReductionsOfAllocations } from './reduction.service.ts';
import type { SupplyReduction } from './reduction.ts';
import type { InvoiceCredited } from './ports.ts';
import type { Allocation, NewAllocation, SourceType, TargetAdjustment } from './allocation.repository.ts';

export type { Allocation } from './allocation.repository.ts';

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
  /** Its allocations reduce the invoices' consideration, with their VAT (docs/tax.md); absent: it pays them. */
  reduces?: SupplyReduction;
}

/** How a request names a target: by its id, or an invoice by its invoiceNum (found once the invoices are locked). */
export type NamedTarget = TargetRef | { type: 'invoice'; number: number };

/** One allocation of a request, its target named as the wire allows. */
export interface AllocationEntry {
  allocationId: number | null;
  amountMinor: number;
  target: NamedTarget;
  /** The wire path of the entry: `allocations[0]`. */
  field: string;
  /** The key that named the target (`allocations[0].invoiceID`, `.objectID`, ...): an unknown one is told there. */
  targetField: string;
}

export type AllocationRequest =
  | { autoApply: false; entries: AllocationEntry[] }
  /** Spec: AutoApply applies to the earliest invoice (negative adjustments: or positive adjustment) and on. */
  | { autoApply: true; includeAdjustments: boolean };

/** What an allocation change did: whether the source's allocations changed, and the events of its targets. */
export interface AllocationOutcome {
  changed: boolean;
  /** For the caller to emit with its source's event, in its transaction. */
  targetEvents: EventToEmit[];
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
  return (await reallocate(ctx, source, await allocationsHeld(ctx, source), request)).outcome;
}

/**
 * applyAllocations that also returns the allocations it inserted, as stored: a credit grant's consumption
 * (grantAllocation.service.ts) records each in its journal.
 */
export async function applyAllocationsReturning(
  ctx: ServiceContext,
  source: MoneySource,
  request: AllocationRequest,
): Promise<{ outcome: AllocationOutcome; inserted: Allocation[] }> {
  const { outcome, inserted } = await reallocate(ctx, source, await allocationsHeld(ctx, source), request);
  return { outcome, inserted };
}

/** What allocating a new source made: its allocations as stored and their total, besides the outcome. */
export interface NewSourceAllocations extends AllocationOutcome {
  allocatedMinor: number;
  /** In allocation order, as allocationsOfSources would read them. */
  allocations: Allocation[];
}

/**
 * applyAllocations for a source inserted in this transaction: it holds no allocations, so none are read, and the
 * ones it gets are returned as stored, so that the caller renders the source without reading it back.
 */
export async function allocateNewSource(
  ctx: ServiceContext,
  source: MoneySource,
  request: AllocationRequest,
): Promise<NewSourceAllocations> {
  const { outcome, allocatedMinor, inserted } = await reallocate(ctx, source, [], request);
  return { ...outcome, allocatedMinor, allocations: inserted };
}

/** Removes every allocation of the source and gives the targets their money back (before the source is deleted). */
export function releaseAllocations(ctx: ServiceContext, source: MoneySource): Promise<AllocationOutcome> {
  return applyAllocations(ctx, source, { autoApply: false, entries: [] });
}

/**
 * The steps of every allocation change, in order; each target is locked before its figure is read. Returns the
 * outcome, the source's allocated total and the allocations it inserted.
 */
async function reallocate(
  ctx: ServiceContext,
  source: MoneySource,
  held: readonly ExistingAllocation[],
  request: AllocationRequest,
): Promise<{ outcome: AllocationOutcome; allocatedMinor: number; inserted: Allocation[] }> {
  const { requested, targets } = request.autoApply
    ? await lockAutoApplyTargets(ctx, source, held, request.includeAdjustments)
    : await lockListedTargets(ctx, source, held, request.entries);
  const plan = planOrRefuse(source, held, requested, targets);
  const before = await targetsBeforeChange(ctx, source, plan);
  const { inserted, invoicesAfter } = await writeAllocationChanges(ctx, [{ source, plan }], 'set');
  const outcome = {
    changed: plan.deletes.length + plan.updates.length + plan.inserts.length > 0,
    targetEvents: targetEvents(plan, before, invoicesAfter),
  };
  return { outcome, allocatedMinor: plan.allocatedMinor, inserted };
}

/** The source's allocations as they stand, each with its target. */
async function allocationsHeld(ctx: ServiceContext, source: MoneySource): Promise<ExistingAllocation[]> {
  const allocations = await repo.listAllocationsOfSources(ctx.db, ctx.account.id, source.type, [source.id]);
  return allocations.map((allocation) => ({
    id: allocation.id,
    target: { type: allocation.targetType, id: allocation.targetId },
    amountMinor: allocation.amountMinor,
  }));
}

/**
 * A target with its place in AutoApply's order: an invoice's InvoiceDate then invoiceNum, an adjustment's Date
 * then id. NOTE: an invoice's id is not its number's order: a draft takes its invoiceNum when finalized.
 */
type DatedTarget = AllocationTarget & { date: string; sequence: number };

export function invoiceTarget(invoice: AllocatableInvoice): DatedTarget {
  return {
    date: invoice.invoiceDate,
    // Drafts have no number; they are refused anyway.
    sequence: invoice.invoiceNum ?? invoice.id,
    target: { type: 'invoice', id: invoice.id },
    label: `invoice ${invoice.id}`,
    currencyCode: invoice.currencyCode,
    openMinor: invoice.openMinor,
    ...(invoice.refusal ? { refusal: invoice.refusal } : {}),
  };
}

function adjustmentTarget(adjustment: TargetAdjustment, customerId: number): DatedTarget {
  const refusal =
    adjustment.direction !== 'positive'
      ? 'is not a positive adjustment'
      : adjustment.customerId !== customerId
        ? 'belongs to another customer'
        : undefined;
  return {
    date: adjustment.date,
    sequence: adjustment.id,
    target: { type: 'adjustment', id: adjustment.id },
    label: `positive adjustment ${adjustment.id}`,
    currencyCode: adjustment.currencyCode,
    openMinor: adjustment.amountMinor - adjustment.allocatedMinor,
    ...(refusal ? { refusal } : {}),
  };
}

/** The allocations asked for, each naming its target by id, and every target they and the source's allocations touch. */
interface LockedRequest {
  requested: RequestedAllocation[];
  targets: ByTarget<DatedTarget>;
}

/**
 * Locks the targets named (invoices, then positive adjustments) and returns them, with the ids of the invoices
 * named by invoiceNum.
 */
async function lockTargets(
  ctx: ServiceContext,
  source: MoneySource,
  named: readonly NamedTarget[],
): Promise<{ targets: ByTarget<DatedTarget>; invoiceIdOfNum: Map<number, number> }> {
  const invoiceIds: number[] = [];
  const invoiceNums: number[] = [];
  const adjustmentIds = new Set<number>();
  for (const target of named) {
    if ('number' in target) invoiceNums.push(target.number);
    else if (target.type === 'invoice') invoiceIds.push(target.id);
    else adjustmentIds.add(target.id);
  }
  const invoices = await lockInvoicesForAllocation(ctx, source.customerId, invoiceIds, invoiceNums);
  const adjustments = await repo.lockAdjustments(ctx.db, ctx.account.id, [...adjustmentIds]);
  const targets = new ByTarget<DatedTarget>();
  for (const invoice of invoices) targets.set({ type: 'invoice', id: invoice.id }, invoiceTarget(invoice));
  for (const adjustment of adjustments)
    targets.set({ type: 'adjustment', id: adjustment.id }, adjustmentTarget(adjustment, source.customerId));
  const invoiceIdOfNum = new Map(
    invoices.filter((i) => i.invoiceNum !== null).map((i) => [i.invoiceNum!, i.id]),
  );
  return { targets, invoiceIdOfNum };
}

/** A list's targets (and those the source holds) locked; a 422 naming each entry whose target is unknown. */
async function lockListedTargets(
  ctx: ServiceContext,
  source: MoneySource,
  held: readonly ExistingAllocation[],
  entries: readonly AllocationEntry[],
): Promise<LockedRequest> {
  const { targets, invoiceIdOfNum } = await lockTargets(ctx, source, [
    ...held.map((allocation) => allocation.target),
    ...entries.map((entry) => entry.target),
  ]);
  return { requested: requestedOf(entries, targets, invoiceIdOfNum), targets };
}

/**
 * A list's entries, each naming its target by id among the locked targets; a 422 naming each entry whose target is
 * unknown.
 */
export function requestedOf(
  entries: readonly AllocationEntry[],
  targets: ByTarget<AllocationTarget>,
  invoiceIdOfNum: ReadonlyMap<number, number> = new Map(),
): RequestedAllocation[] {
  const requested: RequestedAllocation[] = [];
  const problems: FieldProblem[] = [];
  for (const entry of entries) {
    const target = lockedTargetOf(entry.target, targets, invoiceIdOfNum);
    if (target === undefined)
      problems.push({ field: entry.targetField, message: unknownTarget(entry.target) });
    else
      requested.push({
        allocationId: entry.allocationId,
        target,
        amountMinor: entry.amountMinor,
        field: entry.field,
      });
  }
  if (problems.length > 0) throw new ValidationError(problems, 'invalid_allocations');
  return requested;
}

function lockedTargetOf(
  named: NamedTarget,
  targets: ByTarget<AllocationTarget>,
  invoiceIdOfNum: ReadonlyMap<number, number>,
): TargetRef | undefined {
  if (!('number' in named)) return targets.has(named) ? named : undefined;
  const id = invoiceIdOfNum.get(named.number);
  return id === undefined ? undefined : { type: 'invoice', id };
}

function unknownTarget(named: NamedTarget): string {
  if ('number' in named) return `no invoice has invoiceNum ${named.number}`;
  return named.type === 'invoice'
    ? `no such invoice: ${named.id}`
    : `no such positive adjustment: ${named.id}`;
}

/** AutoApply's allocations: the customer's open targets locked, the earliest filled first. */
async function lockAutoApplyTargets(
  ctx: ServiceContext,
  source: MoneySource,
  held: readonly ExistingAllocation[],
  includeAdjustments: boolean,
): Promise<LockedRequest> {
  // What this source already holds is open to it again: an edit re-spreads the whole amount.
  const { targets } = await lockTargets(
    ctx,
    source,
    held.map((allocation) => allocation.target),
  );
  for (const invoice of await lockOpenInvoices(ctx, source.customerId, source.currencyCode)) {
    targets.set({ type: 'invoice', id: invoice.id }, invoiceTarget(invoice));
  }
  if (includeAdjustments) {
    const open = await repo.lockOpenPositiveAdjustments(
      ctx.db,
      ctx.account.id,
      source.customerId,
      source.currencyCode,
    );
    for (const adjustment of open)
      targets.set({ type: 'adjustment', id: adjustment.id }, adjustmentTarget(adjustment, source.customerId));
  }
  const heldOn = new ByTarget<number>();
  for (const a of held) heldOn.set(a.target, (heldOn.get(a.target) ?? 0) + a.amountMinor);
  const candidates = [...targets.entries()].filter(
    ([target, dated]) =>
      !dated.refusal &&
      dated.currencyCode === source.currencyCode &&
      (includeAdjustments || target.type === 'invoice'),
  );
  // Spec, Payments rule 1: the earliest invoice first, by InvoiceDate then invoiceNum; on one day, invoices
  // before positive adjustments.
  const rank = (target: TargetRef) => (target.type === 'invoice' ? 0 : 1);
  candidates.sort(([a, x], [b, y]) =>
    x.date < y.date ? -1 : x.date > y.date ? 1 : rank(a) - rank(b) || x.sequence - y.sequence,
  );
  const spread = autoApply(
    source.amountMinor,
    candidates.map(([target, dated]) => ({ target, openMinor: dated.openMinor + (heldOn.get(target) ?? 0) })),
  );
  return {
    targets,
    requested: spread.map((allocation, i) => ({
      allocationId: null,
      target: allocation.target,
      amountMinor: allocation.amountMinor,
      field: `allocations[${i}]`,
    })),
  };
}

/** The plan of the change, or a 422 naming each allocation that cannot be made. */
export function planOrRefuse(
  source: MoneySource,
  held: readonly ExistingAllocation[],
  requested: readonly RequestedAllocation[],
  targets: ByTarget<AllocationTarget>,
): AllocationPlan {
  const result = planAllocations({
    sourceLabel: source.label,
    sourceAmountMinor: source.amountMinor,
    currencyCode: source.currencyCode,
    existing: held,
    requested,
    targets,
  });
  if ('problems' in result) throw new ValidationError(result.problems, 'invalid_allocations');
  return result.plan;
}

/**
 * The targets whose figures move, rendered as they are before the change, so that their events carry `previous`.
 * NOTE: an invoice that only receives settled money is not rendered before: its event (paid or partially paid) is
 * told by the state after alone, and one rendering of an invoice with its customer's figures costs as much as the
 * payment itself.
 */
async function targetsBeforeChange(
  ctx: ServiceContext,
  source: MoneySource,
  plan: AllocationPlan,
): Promise<ByTarget<Snapshot>> {
  const settledOnly = (target: TargetRef, deltaMinor: number) =>
    target.type === 'invoice' && deltaMinor > 0 && source.invoiceColumn !== 'paid_pending_minor';
  const rendered = plan.targetDeltas
    .filter(({ target, deltaMinor }) => !settledOnly(target, deltaMinor))
    .map(({ target }) => target);
  const snapshots = new ByTarget<Snapshot>();
  for (const type of ['invoice', 'adjustment'] as const) {
    const ids = rendered.filter((target) => target.type === type).map((target) => target.id);
    if (ids.length === 0) continue;
    for (const [id, snapshot] of await snapshotResources(ctx, type, ids))
      snapshots.set({ type, id: Number(id) }, snapshot);
  }
  return snapshots;
}

/** One source's planned change, as the writer takes it. */
export interface SourceChange {
  source: MoneySource;
  plan: AllocationPlan;
}

/** What writing changes did: the allocations inserted (when totals are set with them), the invoices after. */
export interface WrittenChanges {
  inserted: Allocation[];
  /** The Status and Balance of each invoice whose figure moved, by id. */
  invoicesAfter: Map<number, InvoiceAfter>;
}

/**
 * The one writer of allocations, for one source's change or a batch of them (collectedPayments.service.ts): the
 * plans' deletes, updates and inserts, the sources' allocated totals, then the targets' figures moved by the plans'
 * deltas. `totals`: 'set' writes each source's allocated total with its inserts (and returns what they inserted);
 * 'inserted' when the sources were inserted with their totals already (a batch's payments), whose allocations are
 * then inserted in one statement and not read back.
 */
export async function writeAllocationChanges(
  ctx: ServiceContext,
  changes: readonly SourceChange[],
  totals: 'set' | 'inserted',
): Promise<WrittenChanges> {
  const now = nowInstant(ctx);
  const plans = changes.map((change) => change.plan);
  await repo.deleteAllocations(
    ctx.db,
    ctx.account.id,
    plans.flatMap((plan) => plan.deletes),
  );
  for (const update of plans.flatMap((plan) => plan.updates))
    await repo.updateAllocation(ctx.db, ctx.account.id, update, now);
  const inserted: Allocation[] = [];
  if (totals === 'inserted') {
    await repo.insertAllocations(ctx.db, ctx.account.id, changes.flatMap(newAllocationsOf), now);
  } else {
    for (const change of changes) inserted.push(...(await insertSettingTotal(ctx, change, now)));
  }
  const invoicesAfter = await moveTargetFigures(ctx, changes, now);
  await recordReductionsOfAllocations(ctx, changes);
  // Before "paid": a top-up credited before its grant exists has nothing to take from (docs/credits.md).
  await tellInvoicesCredited(ctx, invoicesCredited(changes));
  await tellInvoicesPaid(ctx, invoicesBecomePaid(changes, invoicesAfter));
  return { inserted, invoicesAfter };
}

/**
 * The invoices the changes made Paid: money came in and they owe nothing now (one with something open before cannot
 * have been Paid). A paid top-up's grant is made at that moment (docs/credits.md, "Paid top-ups").
 */
function invoicesBecomePaid(
  changes: readonly SourceChange[],
  invoicesAfter: ReadonlyMap<number, InvoiceAfter>,
): number[] {
  const received = new Map<number, number>();
  for (const { plan } of changes)
    for (const { target, deltaMinor } of plan.targetDeltas)
      if (target.type === 'invoice') received.set(target.id, (received.get(target.id) ?? 0) + deltaMinor);
  return [...received]
    .filter(([id, deltaMinor]) => deltaMinor > 0 && invoicesAfter.get(id)?.status === 'Paid')
    .map(([id]) => id);
}

/**
 * The credit notes' and negative adjustments' money the changes moved on each invoice (payments' and grants' left
 * out): what a paid top-up's grant answers to (docs/credits.md, "Crediting a top-up").
 */
function invoicesCredited(changes: readonly SourceChange[]): InvoiceCredited[] {
  const credited = new Map<number, number>();
  for (const { source, plan } of changes) {
    if (source.type !== 'credit_note' && source.type !== 'adjustment') continue;
    for (const { target, deltaMinor } of plan.targetDeltas)
      if (target.type === 'invoice') credited.set(target.id, (credited.get(target.id) ?? 0) + deltaMinor);
  }
  return [...credited]
    .filter(([, deltaMinor]) => deltaMinor !== 0)
    .map(([invoiceId, deltaMinor]) => ({ invoiceId, deltaMinor }));
}

function newAllocationsOf({ source, plan }: SourceChange): NewAllocation[] {
  return plan.inserts.map((insert) => ({
    customerId: source.customerId,
    source: { type: source.type, id: source.id },
    target: insert.target,
    amountMinor: insert.amountMinor,
  }));
}

function insertSettingTotal(ctx: ServiceContext, change: SourceChange, now: string): Promise<Allocation[]> {
  const { source, plan } = change;
  return repo.insertAllocationsSettingTotal(
    ctx.db,
    ctx.account.id,
    source,
    plan.allocatedMinor,
    now,
    newAllocationsOf(change),
  );
}

/**
 * Adds each target's change to its figure: the invoices' column for each kind of source (one statement per
 * column, each invoice once), a positive adjustment's allocated amount. Returns the invoices' status and Balance
 * afterwards, by id.
 */
async function moveTargetFigures(
  ctx: ServiceContext,
  changes: readonly SourceChange[],
  now: string,
): Promise<Map<number, InvoiceAfter>> {
  const invoiceDeltas = new Map<InvoiceMoneyColumn, Map<number, number>>();
  const adjustmentDeltas = new Map<number, number>();
  for (const { source, plan } of changes) {
    for (const { target, deltaMinor } of plan.targetDeltas) {
      if (target.type === 'adjustment') {
        adjustmentDeltas.set(target.id, (adjustmentDeltas.get(target.id) ?? 0) + deltaMinor);
        continue;
      }
      const ofColumn = invoiceDeltas.get(source.invoiceColumn) ?? new Map<number, number>();
      ofColumn.set(target.id, (ofColumn.get(target.id) ?? 0) + deltaMinor);
      invoiceDeltas.set(source.invoiceColumn, ofColumn);
    }
  }
  const invoicesAfter = new Map<number, InvoiceAfter>();
  for (const [column, deltas] of invoiceDeltas) {
    const moved = [...deltas].map(([invoiceId, deltaMinor]) => ({ invoiceId, deltaMinor }));
    for (const [id, after] of await addToInvoicesMoney(ctx, column, moved)) invoicesAfter.set(id, after);
  }
  for (const [adjustmentId, deltaMinor] of adjustmentDeltas)
    await repo.addToAdjustmentAllocated(ctx.db, ctx.account.id, adjustmentId, deltaMinor, now);
  return invoicesAfter;
}

interface InvoiceAfter {
  status: string;
  balanceMinor: number;
}

/**
 * An invoice whose allocations changed: `invoice.paid` when it became Paid, `invoice.partially_paid` when money
 * came in and leaves a Balance, `invoice.updated` otherwise (money taken back, or covered by pending payments).
 */
export function invoiceEventType(
  before: Snapshot | undefined,
  after: InvoiceAfter,
  deltaMinor: number,
): string {
  // Without `before`, money only came in: an invoice Paid now was not Paid before it.
  if (after.status === 'Paid' && before?.object?.['Status'] !== 'Paid') return 'invoice.paid';
  if (deltaMinor > 0 && after.balanceMinor > 0) return 'invoice.partially_paid';
  return 'invoice.updated';
}

/**
 * The targets' events, rendered when they are written, after whatever the caller changes next (a deletion). A
 * target without a rendering before (an invoice that only received settled money) is told by its state after.
 */
export function targetEvents(
  plan: AllocationPlan,
  before: ByTarget<Snapshot>,
  invoicesAfter: ReadonlyMap<number, InvoiceAfter>,
): EventToEmit[] {
  return plan.targetDeltas.map(({ target, deltaMinor }) => {
    const was = before.get(target);
    if (target.type !== 'invoice') return { type: 'adjustment.updated', ref: target, before: was! };
    const type = invoiceEventType(was, invoicesAfter.get(target.id)!, deltaMinor);
    return was ? { type, ref: target, before: was } : { type, ref: target };
  });
}

/** The allocations of these sources, by source id, in allocation order. */
export async function allocationsOfSources(
  ctx: ServiceContext,
  sourceType: SourceType,
  sourceIds: readonly number[],
): Promise<Map<number, Allocation[]>> {
  const allocations = await repo.listAllocationsOfSources(ctx.db, ctx.account.id, sourceType, [
    ...new Set(sourceIds),
  ]);
  const bySource = new Map<number, Allocation[]>();
  for (const allocation of allocations)
    bySource.set(allocation.sourceId, [...(bySource.get(allocation.sourceId) ?? []), allocation]);
  return bySource;
}

/** The allocations made to these targets, by target id, in allocation order. */
export async function allocationsToTargets(
  ctx: ServiceContext,
  targetType: TargetType,
  targetIds: readonly number[],
): Promise<Map<number, Allocation[]>> {
  const allocations = await repo.listAllocationsToTargets(ctx.db, ctx.account.id, targetType, [
    ...new Set(targetIds),
  ]);
  const byTarget = new Map<number, Allocation[]>();
  for (const allocation of allocations)
    byTarget.set(allocation.targetId, [...(byTarget.get(allocation.targetId) ?? []), allocation]);
  return byTarget;
}

/** The payments allocated to an invoice, with what each pays on it now (payment id to amount). */
export async function paymentsOnInvoice(
  ctx: ServiceContext,
  invoiceId: number,
): Promise<Map<number, number>> {
  const paid = new Map<number, number>();
  for (const allocation of (await allocationsToTargets(ctx, 'invoice', [invoiceId])).get(invoiceId) ?? [])
    if (allocation.sourceType === 'payment')
      paid.set(allocation.sourceId, (paid.get(allocation.sourceId) ?? 0) + allocation.amountMinor);
  return paid;
}

/**
 * The customer's Balance, in its currency's minor unit: what is open on its issued invoices and positive
 * adjustments, less what it has paid or been credited that is not yet allocated (payments that have not failed,
 * credit notes, negative adjustments). Amounts in another currency than the customer's are left out: they cannot
 * be added without a rate. Read in the statement that reads the customer (customerReadModel).
 */
export const customerBalanceFigure: CustomerFigure<number> = {
  columns: (customer) => ({
    minor: sql<
      number | string
    >`coalesce(${issuedInvoicesBalanceOf(customer)}, 0) + ${repo.openMoneyOf(customer)}`,
  }),
  read(column) {
    const value = column('minor');
    // NOTE: numeric on PostgreSQL, read as text; an integer on SQLite.
    const balance = Number(value);
    if (!Number.isSafeInteger(balance))
      throw new RangeError(`balance ${String(value)} is beyond the safe integer range`);
    return balance;
  },
};

/** Whether the customer has payments, credit notes or adjustments: records of money, which keep it from deletion. */
export function hasMoneyRecords(ctx: ServiceContext, customerId: number): Promise<boolean> {
  return repo.hasMoneyRecords(ctx.db, ctx.account.id, customerId);
}

/** Money received on an invoice (the VAT report's payments basis, docs/tax.md): a payment's, or credit's. */
export interface MoneyReceived {
  allocationId: number;
  invoiceId: number;
  customerId: number;
  source: { type: 'payment' | 'credit_grant'; id: number };
  amountMinor: number;
  /** The payment's date; credit's, the day it was applied in the account's time zone. */
  date: PlainDate;
}

/**
 * The money settled payments dated within [from, to] put on invoices, and the credit grants applied to invoices on
 * those days (the caller keeps the credit that is money: taxed when used), as the allocations stand now.
 */
export async function moneyReceivedBetween(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<MoneyReceived[]> {
  const zone = ctx.account.timeZone;
  const rows = await repo.listMoneyOnInvoicesBetween(ctx.db, ctx.account.id, {
    from,
    to,
    fromInstant: startOfDate(from, zone),
    toInstant: startOfDate(addDays(to, 1), zone),
  });
  return rows.map((row) => ({
    allocationId: row.allocationId,
    invoiceId: row.invoiceId,
    customerId: row.customerId,
    source: { type: row.sourceType, id: row.sourceId },
    amountMinor: row.amountMinor,
    date: row.paymentDate ?? dateAt(row.createdAt, zone),
  }));
}
