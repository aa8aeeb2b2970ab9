import { readTogether, withTransaction } from '../../context.ts';
import type { MemoryPart, ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { changedFields } from '../events/index.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { lockCustomerForMoney, lockCustomersForMoney } from '../customers/index.ts';
import { snapshotResource } from '../events/index.ts';
import type { EventToEmit, Snapshot } from '../events/index.ts';
import { applyAllocations } from './allocation.service.ts';
import type { AllocationOutcome, AllocationRequest, MoneySource } from './allocation.service.ts';
import { allocationEntries } from './allocationInput.ts';
import type { AllocationInput } from './allocationInput.ts';
import { amountInMinor, readValue } from './moneyInput.ts';
import type { DecimalAmount, Read } from './moneyInput.ts';

/**
 * The steps the money movements share (payments, credit notes, batch lines, adjustments): their lock, the checks
 * of the request fields they have in common, the order in which an edit writes a new amount and new allocations,
 * and the events of an edit. Each use case calls them in its own order (docs/architecture.md, "How POST
 * /v1/payments runs").
 */

/**
 * Runs `work` under the customer's lock, taken first in the caller's transaction (the route's, see
 * idempotentCreate) or in a new one: every money movement of one customer is serial from there, and the lock order
 * is always customer → batch → invoices → positive adjustments. NOTE: a caller that opens the transaction for a
 * money movement takes no lock in it before.
 */
export function withLockedCustomer<T>(
  ctx: ServiceContext,
  customerId: number,
  work: (ctx: ServiceContext, customer: { id: number; currencyCode: string }) => Promise<T>,
): Promise<T> {
  return withTransaction(ctx, (ctx) =>
    inMoneyScope(ctx, async () => work(ctx, await lockCustomerForMoney(ctx, customerId))),
  );
}

/**
 * Runs `work` under the locks of several customers, taken first, at once and in id order (the lock order of
 * withLockedCustomer, for a batch of money movements of many customers in one transaction).
 */
export function withLockedCustomers<T>(
  ctx: ServiceContext,
  customerIds: readonly number[],
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  return withTransaction(ctx, (ctx) =>
    inMoneyScope(ctx, async () => {
      await lockCustomersForMoney(ctx, customerIds);
      return work(ctx);
    }),
  );
}

/**
 * withLockedCustomer for a new money source, with the request's CurrencyCode checked (enabled for the account,
 * else a 422) in the lock's round trip on PostgreSQL (readTogether); `work` gets the currency as enabled. An
 * unknown customer is still a 404 before the currency is looked at: the first failure in order wins.
 */
export function withLockedCustomerAndCurrency<T>(
  ctx: ServiceContext,
  customerId: number,
  currencyCode: string,
  work: (ctx: ServiceContext, enabledCurrency: string) => Promise<T>,
): Promise<T> {
  return withTransaction(ctx, (ctx) =>
    inMoneyScope(ctx, async () => {
      const [, enabledCurrency] = await readTogether(
        ctx,
        (ctx) => lockCustomerForMoney(ctx, customerId),
        (ctx) => assertCurrencyEnabled(ctx, currencyCode, 'CurrencyCode'),
      );
      return work(ctx, enabledCurrency);
    }),
  );
}

/**
 * Runs `work` on a money record under its customer's lock. `get` reads the record (throwing not-found): once
 * before the transaction for its customer, which a record never changes, and again under the lock, since it may
 * have changed or gone meanwhile.
 */
export async function withLockedRecord<Row extends { customerId: number }, T>(
  ctx: ServiceContext,
  get: (ctx: ServiceContext) => Promise<Row>,
  work: (ctx: ServiceContext, row: Row) => Promise<T>,
): Promise<T> {
  const { customerId } = await get(ctx);
  return withLockedCustomer(ctx, customerId, async (ctx) => work(ctx, await get(ctx)));
}

/**
 * A money movement's transaction, while work under a customer's lock (the three helpers above) runs in it: how deep
 * those helpers are nested, and the work asked to follow the movement (afterMoneyMovement), by key. Kept by the
 * transaction (a Kysely transaction is one object for all the contexts made on it) and dropped when the outermost
 * helper returns.
 */
interface MoneyScope {
  depth: number;
  after: Map<string, (ctx: ServiceContext) => Promise<void>>;
}

/** In the service's memory, the money movements under way, by their transaction. */
export const MONEY_SCOPES: MemoryPart<Map<object, MoneyScope>> = {
  name: 'money movements under way',
  make: () => new Map(),
};

/** Runs `work` as a money movement of the transaction `ctx` is in; the outermost one then runs what was asked to follow. */
async function inMoneyScope<T>(ctx: ServiceContext, work: () => Promise<T>): Promise<T> {
  const moneyScopes = ctx.memory.part(MONEY_SCOPES);
  const scope = moneyScopes.get(ctx.db) ?? { depth: 0, after: new Map() };
  moneyScopes.set(ctx.db, scope);
  scope.depth += 1;
  try {
    const result = await work();
    if (scope.depth === 1) {
      // What follows may move money in turn and ask for more: taken in the order asked, until none is left.
      for (const [key, task] of scope.after) {
        scope.after.delete(key);
        await task(ctx);
      }
    }
    return result;
  } finally {
    scope.depth -= 1;
    if (scope.depth === 0) moneyScopes.delete(ctx.db);
  }
}

/**
 * Work that must follow the money movement in progress, in its transaction and under its customer's lock, once the
 * movement is done: when the outermost of withLockedCustomer, withLockedCustomers and withLockedCustomerAndCurrency
 * has finished its work, before it returns; at once when none is running. A paid top-up's credit pays the
 * customer's open invoices so (docs/credits.md, "Consumption order"): the moment is found in the middle of an
 * allocation, whose caller goes on with the figures it planned (credit first spreading the next source, a
 * collection run recording its other answers), so paying other invoices there would change them under it. Work
 * asked twice under one key (the same customer and currency) runs once. A failure fails the movement, as the work
 * would have done in it.
 */
export async function afterMoneyMovement(
  ctx: ServiceContext,
  key: string,
  task: (ctx: ServiceContext) => Promise<void>,
): Promise<void> {
  const scope = ctx.memory.part(MONEY_SCOPES).get(ctx.db);
  if (scope === undefined || scope.depth === 0) return task(ctx);
  if (!scope.after.has(key)) scope.after.set(key, task);
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

/** A payment's or credit note's request: the shared fields, and the kind's own. */
export type MoneySourceInput = MoneyFieldsInput & AllocationFieldsInput & { customerId: number };

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
  return checkMoneyFieldsIn(currencyCode, input, problems);
}

/** checkMoneyFields with the CurrencyCode already found enabled. */
export function checkMoneyFieldsIn(
  currencyCode: string,
  input: MoneyFieldsInput,
  problems: FieldProblem[],
): CheckedMoneyFields {
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

/** A 422 unless every problem noted is gone. */
export function throwProblems(problems: readonly FieldProblem[]): void {
  if (problems.length > 0) throw new ValidationError([...problems]);
}

/** Spec, Payments rule 4 (and Credit notes): an edit keeps the record's customer. */
export function assertSameCustomer(customerId: number, stored: number, noun: string): void {
  if (customerId !== stored)
    throw ValidationError.field('customerID', `must be the ${noun}'s customer (${stored})`);
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

/** What a create made, read once, with the API's one rendering of it: its event carries it, the reply sends it. */
export interface Rendered<T, Wire> {
  record: T;
  rendered: Wire;
}
