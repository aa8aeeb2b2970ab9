import { inTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { lockCustomerForMoney } from '../customers/index.ts';
import { changedFields } from '../../core/eventTypes.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, ResourceRef, Snapshot } from '../events/index.ts';
import { applyAllocations, releaseAllocations } from './allocation.service.ts';
import type { AllocationOutcome, AllocationRequest, MoneySource } from './allocation.service.ts';
import { allocationEntries } from './allocationInput.ts';
import type { AllocationInput } from './allocationInput.ts';
import { amountInMinor, readValue } from './moneyInput.ts';
import type { DecimalAmount, Read } from './moneyInput.ts';

/**
 * What the money records' use cases share: their transaction and locks, the checks of the request fields
 * payments and credit notes have in common, the order in which an edit writes a new amount and new allocations,
 * and, for payments and credit notes, the whole create, update and delete, each kind giving only what differs
 * (`MoneySourceKind`).
 */

/**
 * A last step a create runs inside its own transaction, with what it created: the route records the request's
 * idempotent response there (`idempotentCreate`), so that the response commits with the change or not at all.
 */
export type BeforeCommit<T> = (ctx: ServiceContext, created: T) => Promise<void>;

const nothingMore: BeforeCommit<unknown> = async () => {};

/**
 * Runs `work` in a transaction of its own, under the customer's lock, its first statement: every money movement
 * of one customer is serial from there. NOTE: `transaction()`, not `withTransaction`: a money movement commits on
 * its own (with its idempotent response), and Kysely refuses to nest it in a caller's transaction.
 */
export function withLockedCustomer<T>(
  ctx: ServiceContext,
  customerId: number,
  work: (ctx: ServiceContext, customer: { id: number; currencyCode: string }) => Promise<T>,
): Promise<T> {
  if (ctx.db.isTransaction)
    throw new Error('a money movement runs in a transaction of its own, not in a caller’s');
  return ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    return work(tctx, await lockCustomerForMoney(tctx, customerId));
  });
}

/**
 * Runs `work` on a money record under its customer's lock, in a transaction of its own. `get` reads the record
 * (throwing not-found): once before the transaction for its customer, which a record never changes, and again under
 * the lock, since it may have changed or gone meanwhile.
 */
export async function withLockedRecord<Row extends { customer_id: number }, T>(
  ctx: ServiceContext,
  get: (ctx: ServiceContext) => Promise<Row>,
  work: (ctx: ServiceContext, row: Row) => Promise<T>,
): Promise<T> {
  const { customer_id: customerId } = await get(ctx);
  return withLockedCustomer(ctx, customerId, async (ctx) => work(ctx, await get(ctx)));
}

/** The request fields every money source shares: its amount, currency and date. */
export interface MoneyFieldsInput {
  amount: DecimalAmount;
  currencyCode: string;
  date: Read<PlainDate>;
}

/** How a request allocates a money source. */
export interface AllocationFieldsInput {
  autoApply: boolean;
  /** Undefined when the request has no allocation list. */
  allocations: readonly AllocationInput[] | undefined;
  /** The key the list came under (`allocations`, `Allocations`, ...), for messages. */
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
 * most the currency's decimals, above 0) and Date; problems are noted, not thrown.
 */
export async function checkMoneyFields(
  ctx: ServiceContext,
  input: MoneyFieldsInput,
  problems: FieldProblem[],
): Promise<CheckedMoneyFields> {
  const currencyCode = await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode');
  const amountMinor = amountInMinor(input.amount, currencyCode, 'Amount', problems) ?? 0;
  return { currencyCode, amountMinor, date: readValue(input.date, 'Date', problems) };
}

/**
 * How a money source is to be allocated. Spec, Payments rule 1 (and Credit notes, Adjustments): with AutoApply
 * the allocation list is neither required nor used and the money goes to the earliest open invoices (and, when
 * `includeAdjustments`, positive adjustments); without it the list is required. Problems are noted, not thrown.
 */
export function allocationRequestOf(
  input: AllocationFieldsInput,
  currencyCode: string,
  includeAdjustments: boolean,
  problems: FieldProblem[],
): AllocationRequest {
  if (input.autoApply) return { autoApply: true, includeAdjustments };
  if (input.allocations === undefined) {
    problems.push({ field: input.allocationsField, message: 'is required when AutoApply is false' });
    return { autoApply: false, entries: [] };
  }
  return { autoApply: false, entries: allocationEntries(input.allocations, currencyCode, problems) };
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
): Promise<AllocationOutcome> {
  if (source.amountMinor >= storedAmountMinor) {
    await writeRow();
    return applyAllocations(ctx, source, request);
  }
  const outcome = await applyAllocations(ctx, source, request);
  await writeRow();
  return outcome;
}

/** The fields of a money record that only its allocations move: a change of them alone is `.allocated`. */
const ALLOCATION_FIELDS = new Set(['Status', 'Allocations', 'allocations']);

/**
 * The events of an edit of a money record, from its `before`: `.updated` when a field of its own changed,
 * `.allocated` when its allocations did, then the events of the targets whose figures moved.
 */
export async function editEvents(
  ctx: ServiceContext,
  before: Snapshot,
  outcome: AllocationOutcome,
): Promise<EventToEmit[]> {
  const { ref } = before;
  const after = await snapshotResource(ctx, ref);
  const changed = Object.keys(changedFields(before.object ?? {}, after.object ?? {}));
  const rendered = after.object ? { after: after.object } : {};
  return [
    ...(changed.some((field) => !ALLOCATION_FIELDS.has(field))
      ? [{ type: `${ref.type}.updated`, ref, before, ...rendered }]
      : []),
    ...(outcome.changed ? [{ type: `${ref.type}.allocated`, ref, before, ...rendered }] : []),
    ...outcome.targetEvents,
  ];
}

export const moneyRef = (type: string, id: number): ResourceRef => ({ type, id });

/** A payment's or credit note's request: the shared fields, and the kind's own. */
export type MoneySourceInput = MoneyFieldsInput & AllocationFieldsInput & { customerId: number };

/** A request whose every field is valid: the shared fields checked, and the kind's own (`Fields`). */
export type CheckedSource<Fields> = Fields & {
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  request: AllocationRequest;
};

/** The stored columns the template reads. */
interface StoredSource {
  id: number;
  customer_id: number;
  amount_minor: number;
}

/** The columns of a money source's edit that the template fills in; the kind adds its own. */
export interface SourceChanges {
  currency_code: string;
  amount_minor: number;
  updated_at: string;
}

/** The columns of a new money source's row that the template fills in; the kind adds its own. */
export interface NewSourceColumns extends SourceChanges {
  account_id: number;
  customer_id: number;
  created_at: string;
}

/** What makes a payment a payment and a credit note a credit note; the use cases below do the rest. */
export interface MoneySourceKind<Row extends StoredSource, Input extends MoneySourceInput, Fields, Out> {
  /** As messages name one: `payment`, `credit note`. */
  noun: string;
  /** As events name one: `payment`, `credit_note`. */
  resourceType: string;
  /** The stored record; throws not-found. */
  getRow(ctx: ServiceContext, id: number): Promise<Row>;
  sourceOf(row: Row): MoneySource;
  /** The kind's own fields, checked between the shared fields and the allocations, so problems follow the wire. */
  checkFields(input: Input, problems: FieldProblem[]): Fields;
  /** Whether the stored record may be edited or deleted at all, checked under the lock before anything else. */
  assertChangeable?(ctx: ServiceContext, row: Row): Promise<void>;
  /** Whether it may be deleted, checked under the lock after assertChangeable. */
  assertDeletable?(ctx: ServiceContext, row: Row): Promise<void>;
  /** What can be checked only once every field is valid (a CreditNumber taken); `current` on an edit. */
  assertWritable?(ctx: ServiceContext, checked: CheckedSource<Fields>, current?: Row): Promise<void>;
  /** Inserts the record with the kind's own columns added, as the source it now is. */
  insert(
    ctx: ServiceContext,
    columns: NewSourceColumns,
    checked: CheckedSource<Fields>,
  ): Promise<MoneySource>;
  update(
    ctx: ServiceContext,
    row: Row,
    changes: SourceChanges,
    checked: CheckedSource<Fields>,
  ): Promise<void>;
  delete(ctx: ServiceContext, row: Row): Promise<void>;
  /** The record as the use cases answer it. */
  read(ctx: ServiceContext, id: number): Promise<Out>;
}

async function checkSource<Row extends StoredSource, Input extends MoneySourceInput, Fields, Out>(
  kind: MoneySourceKind<Row, Input, Fields, Out>,
  ctx: ServiceContext,
  input: Input,
  current?: Row,
): Promise<CheckedSource<Fields>> {
  const problems: FieldProblem[] = [];
  const money = await checkMoneyFields(ctx, input, problems);
  const fields = kind.checkFields(input, problems);
  // Spec, Payments rule 1 and Credit notes: AutoApply goes to invoices only.
  const request = allocationRequestOf(input, money.currencyCode, false, problems);
  if (problems.length > 0) throw new ValidationError(problems);
  const checked = { ...fields, ...money, date: money.date!, request };
  await kind.assertWritable?.(ctx, checked, current);
  return checked;
}

/** Records a money source and allocates it, in one transaction with the invoices' and the customer's figures. */
export function createMoneySource<Row extends StoredSource, Input extends MoneySourceInput, Fields, Out>(
  kind: MoneySourceKind<Row, Input, Fields, Out>,
  ctx: ServiceContext,
  input: Input,
  beforeCommit: BeforeCommit<Out> = nothingMore,
): Promise<Out> {
  return withLockedCustomer(ctx, input.customerId, async (ctx) => {
    const checked = await checkSource(kind, ctx, input);
    const now = ctx.clock.now().toISOString();
    const source = await kind.insert(
      ctx,
      {
        account_id: ctx.account.id,
        customer_id: input.customerId,
        currency_code: checked.currencyCode,
        amount_minor: checked.amountMinor,
        created_at: now,
        updated_at: now,
      },
      checked,
    );
    const outcome = await applyAllocations(ctx, source, checked.request);
    await emitEvents(ctx, [
      { type: `${kind.resourceType}.created`, ref: moneyRef(kind.resourceType, source.id) },
      ...outcome.targetEvents,
    ]);
    const created = await kind.read(ctx, source.id);
    await beforeCommit(ctx, created);
    return created;
  });
}

/**
 * Replaces a money source's fields and makes its allocations the list sent (Spec, Payments rule 4; Credit notes
 * likewise). Its customer does not change: money recorded for the wrong customer is deleted and recorded again.
 */
export function updateMoneySource<Row extends StoredSource, Input extends MoneySourceInput, Fields, Out>(
  kind: MoneySourceKind<Row, Input, Fields, Out>,
  ctx: ServiceContext,
  id: number,
  input: Input,
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => kind.getRow(ctx, id),
    async (ctx, row) => {
      await kind.assertChangeable?.(ctx, row);
      if (input.customerId !== row.customer_id) {
        throw ValidationError.field('customerID', `must be the ${kind.noun}'s customer (${row.customer_id})`);
      }
      const checked = await checkSource(kind, ctx, input, row);
      const source = {
        ...kind.sourceOf(row),
        currencyCode: checked.currencyCode,
        amountMinor: checked.amountMinor,
      };
      const changes = {
        currency_code: checked.currencyCode,
        amount_minor: checked.amountMinor,
        updated_at: ctx.clock.now().toISOString(),
      };
      const before = await snapshotResource(ctx, moneyRef(kind.resourceType, id));
      const outcome = await reallocateWithAmount(ctx, source, row.amount_minor, checked.request, () =>
        kind.update(ctx, row, changes, checked),
      );
      await emitEvents(ctx, await editEvents(ctx, before, outcome));
    },
  );
}

/** Deletes a money source with its allocations; every invoice it paid or credited owes that money again. */
export function deleteMoneySource<Row extends StoredSource, Input extends MoneySourceInput, Fields, Out>(
  kind: MoneySourceKind<Row, Input, Fields, Out>,
  ctx: ServiceContext,
  id: number,
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => kind.getRow(ctx, id),
    async (ctx, row) => {
      await kind.assertChangeable?.(ctx, row);
      await kind.assertDeletable?.(ctx, row);
      const ref = moneyRef(kind.resourceType, id);
      const before = await snapshotResource(ctx, ref);
      const outcome = await releaseAllocations(ctx, kind.sourceOf(row));
      await kind.delete(ctx, row);
      await emitEvents(ctx, [{ type: `${kind.resourceType}.deleted`, ref, before }, ...outcome.targetEvents]);
    },
  );
}
