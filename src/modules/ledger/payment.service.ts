import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { paymentStatus } from './allocation.ts';
import type { PaymentState } from './allocation.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { optionalText } from '../../core/text.ts';
import { assertCurrencyEnabled } from '../catalogue/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit, ResourceRef } from '../events/index.ts';
import type { InvoiceMoneyColumn } from '../invoicing/index.ts';
import {
  allocateNewSource,
  allocationsOfSources,
  applyAllocations,
  releaseAllocations,
} from './allocation.service.ts';
import type {
  Allocation,
  AllocationEntry,
  AllocationRequest,
  MoneySource,
  NewSourceAllocations,
} from './allocation.service.ts';
import {
  allocationRequestOf,
  assertSameCustomer,
  checkMoneyFieldsIn,
  editEvents,
  reallocateWithAmount,
  throwProblems,
  withLockedCustomerAndCurrency,
  withLockedRecord,
} from './moneyMovement.ts';
import type { Rendered } from './moneyMovement.ts';
import type { NewPayment, Payment, PaymentInput, PaymentRecord } from './payment.ts';
import { tellInvoicesUnpaid } from './ledgerMoments.ts';
import * as repo from './payment.repository.ts';
import { toPaymentDto } from './payments.serializer.ts';
import type { PaymentOut } from './payments.schemas.ts';

export type { Payment, PaymentInput } from './payment.ts';

/** Spec, Payment.Method, with the values its samples and the public service add (debit_order; ach, sepa, other). */
export const PAYMENT_METHODS = [
  'cash',
  'cheque',
  'credit_card',
  'bank_account',
  'eft',
  'debit_order',
  'ach',
  'sepa',
  'other',
] as const;

/** Where a payment's allocations count on an invoice: a pending payment is paid but not yet received. */
function invoiceColumnOf(state: PaymentState): InvoiceMoneyColumn {
  return state === 'pending' ? 'paid_pending_minor' : 'paid_actual_minor';
}

/** What the allocation engine needs of a payment. */
export type PaymentMoney = Pick<Payment, 'id' | 'customerId' | 'currencyCode' | 'amountMinor' | 'state'>;

export function paymentSource(payment: PaymentMoney): MoneySource {
  return {
    type: 'payment',
    id: payment.id,
    customerId: payment.customerId,
    currencyCode: payment.currencyCode,
    amountMinor: payment.amountMinor,
    invoiceColumn: invoiceColumnOf(payment.state),
    label: `payment ${payment.id}`,
  };
}

export const paymentRef = (id: number): ResourceRef => ({ type: 'payment', id });

/** A payment as the ledger answers it, from its record and its allocations (in allocation order). */
function paymentOf(record: PaymentRecord, allocations: Allocation[]): Payment {
  return {
    id: record.id,
    customerId: record.customerId,
    currencyCode: record.currencyCode,
    amountMinor: record.amountMinor,
    allocatedMinor: record.allocatedMinor,
    date: record.date,
    method: record.method,
    state: record.state,
    status: paymentStatus(record.state, record.amountMinor, record.allocatedMinor),
    memo: record.memo,
    ref: record.ref,
    failureReason: record.failureReason,
    paymentMethodId: record.paymentMethodId,
    allocations,
  };
}

async function assemble(ctx: ServiceContext, records: PaymentRecord[]): Promise<Payment[]> {
  const allocations = await allocationsOfSources(
    ctx,
    'payment',
    records.map((record) => record.id),
  );
  return records.map((record) => paymentOf(record, allocations.get(record.id) ?? []));
}

export async function getPaymentRecord(ctx: ServiceContext, paymentId: number): Promise<PaymentRecord> {
  const record = await repo.findPayment(ctx.db, ctx.account.id, paymentId);
  if (!record) throw new NotFoundError('Payment', paymentId);
  return record;
}

export async function getPayment(ctx: ServiceContext, paymentId: number): Promise<Payment> {
  return (await assemble(ctx, [await getPaymentRecord(ctx, paymentId)]))[0]!;
}

/** The account's payments with these ids, as getPayment reads them (unknown ids left out). */
export async function paymentsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, Payment>> {
  const found = await assemble(ctx, await repo.findPayments(ctx.db, ctx.account.id, ids));
  return new Map(found.map((payment) => [payment.id, payment]));
}

export async function listPayments(ctx: ServiceContext, page: Page, customerId?: number): Promise<Payment[]> {
  if (customerId !== undefined) await assertCustomerExists(ctx, customerId);
  return assemble(ctx, await repo.listPayments(ctx.db, ctx.account.id, page, customerId));
}

/** A payment's own fields, checked: what a request gives, whether recorded by hand or as a batch line. */
export interface PaymentFields {
  currencyCode: string;
  amountMinor: number;
  date: PlainDate;
  method: string;
  memo: string | null;
  ref: string | null;
}

/** How a payment was collected: by hand (settled, no method), by a gateway, or pending in a batch. */
export interface PaymentCollection {
  state: PaymentState;
  paymentMethodId: number | null;
  failureReason?: string;
  failureCode?: string;
}

/** Inserts a payment of the locked customer; returns it as stored (nothing allocated yet). */
export async function insertPayment(
  ctx: ServiceContext,
  customerId: number,
  fields: PaymentFields,
  collection: PaymentCollection,
): Promise<Payment> {
  const payment = newPayment(ctx, customerId, fields, collection, nowInstant(ctx));
  const id = await repo.insertPayment(ctx.db, payment);
  return paymentOf({ ...payment, id, allocatedMinor: 0 }, []);
}

/** A new payment, as insertPayment and the ledger's batch entry (collectedPayments.service.ts) write it. */
export function newPayment(
  ctx: ServiceContext,
  customerId: number,
  fields: PaymentFields,
  collection: PaymentCollection,
  now: string,
): NewPayment {
  return {
    accountId: ctx.account.id,
    customerId,
    currencyCode: fields.currencyCode,
    amountMinor: fields.amountMinor,
    date: fields.date,
    method: fields.method,
    state: collection.state,
    memo: fields.memo,
    ref: fields.ref,
    paymentMethodId: collection.paymentMethodId,
    failureReason: collection.failureReason ?? null,
    failureCode: collection.failureCode ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Writes a payment's edited fields (and a batch line's bank account); its allocated total moves with its
 * allocations.
 */
export function updatePaymentFields(
  ctx: ServiceContext,
  paymentId: number,
  fields: PaymentFields & { paymentMethodId?: number },
): Promise<void> {
  return repo.updatePayment(ctx.db, ctx.account.id, paymentId, {
    currencyCode: fields.currencyCode,
    amountMinor: fields.amountMinor,
    date: fields.date,
    method: fields.method,
    memo: fields.memo,
    ref: fields.ref,
    paymentMethodId: fields.paymentMethodId,
    updatedAt: nowInstant(ctx),
  });
}

/**
 * A payment inserted in this transaction with the allocations it was just given, rendered once as the API shows
 * it: `payment.created` carries that rendering, and the reply sends it (see idempotentCreate). Nothing is read
 * back: the row was written from these values, and its allocations are as their insert returned them.
 */
export function renderNewPayment(
  ctx: ServiceContext,
  inserted: Payment,
  allocated: NewSourceAllocations,
): Rendered<Payment, PaymentOut> {
  const payment: Payment = {
    ...inserted,
    allocatedMinor: allocated.allocatedMinor,
    status: paymentStatus(inserted.state, inserted.amountMinor, allocated.allocatedMinor),
    allocations: allocated.allocations,
  };
  return { record: payment, rendered: toPaymentDto(payment, ctx.account.timeZone) };
}

/** A payment recorded by hand, its request checked. */
interface CheckedPayment extends PaymentFields {
  request: AllocationRequest;
}

/**
 * The request's fields, every problem listed at once in the order of the wire: CurrencyCode (a 422 at once when
 * it is not enabled), Amount, Date, Method, then the allocations.
 */
async function checkPayment(ctx: ServiceContext, input: PaymentInput): Promise<CheckedPayment> {
  return checkPaymentIn(await assertCurrencyEnabled(ctx, input.currencyCode, 'CurrencyCode'), input);
}

/** checkPayment with the CurrencyCode already found enabled. */
function checkPaymentIn(currencyCode: string, input: PaymentInput): CheckedPayment {
  const problems: FieldProblem[] = [];
  const money = checkMoneyFieldsIn(currencyCode, input, problems);
  // In any letter case, as a customer's PaymentMethod is (customer.service.ts): "EFT" is eft.
  const method = input.method.trim().toLowerCase();
  if (!(PAYMENT_METHODS as readonly string[]).includes(method)) {
    problems.push({ field: 'Method', message: `must be one of ${PAYMENT_METHODS.join(', ')}` });
  }
  // Spec, Payments rule 1: AutoApply goes to invoices only.
  const request = allocationRequestOf(input, money.currencyCode, false, problems);
  throwProblems(problems);
  return {
    currencyCode: money.currencyCode,
    amountMinor: money.amountMinor,
    date: money.date!,
    method,
    memo: optionalText(input.memo) ?? null,
    ref: optionalText(input.ref) ?? null,
    request,
  };
}

/** A payment a batch collected from a bank account (a card's is charged directly, not in a batch). */
const isBankDebit = (row: PaymentRecord): boolean =>
  row.paymentMethodId !== null && row.method !== 'credit_card';

const bankDebitKept = (row: PaymentRecord) =>
  new ConflictError(
    'payment_collected',
    `Payment ${row.id} was collected by bank debit in a batch: only its allocations change here, and it is not deleted`,
  );

/** A debit or charge the bank has not answered yet is changed through its batch, or answered by the gateway. */
function assertNotInCollection(row: PaymentRecord): void {
  if (row.state === 'pending' && row.paymentMethodId !== null) {
    throw new ConflictError(
      'payment_in_collection',
      `Payment ${row.id} is being collected through a gateway; change it through its batch (/v1/batches/payments)`,
    );
  }
}

/**
 * A failed payment moved no money: giving it allocations by hand would pay invoices with money never received. A
 * bank debit's money fields are its batch line's: only its allocations change here.
 */
function assertEditable(row: PaymentRecord, payment: PaymentFields): void {
  if (row.state === 'failed') {
    throw new ConflictError(
      'payment_failed',
      `Payment ${row.id} failed (${row.failureReason ?? 'no reason'}); record the money again as a new payment`,
    );
  }
  const moved =
    payment.amountMinor !== row.amountMinor ||
    payment.currencyCode !== row.currencyCode ||
    payment.method !== row.method ||
    payment.date !== row.date;
  if (moved && isBankDebit(row)) throw bankDebitKept(row);
}

/**
 * POST /v1/payments: records a settled payment and allocates it, with the invoices' and the customer's figures, in
 * the caller's transaction (the route's, which records the reply in it) or its own. docs/architecture.md, "How
 * POST /v1/payments runs", lists its statements.
 */
export function createPayment(
  ctx: ServiceContext,
  input: PaymentInput,
): Promise<Rendered<Payment, PaymentOut>> {
  return withLockedCustomerAndCurrency(
    ctx,
    input.customerId,
    input.currencyCode,
    async (ctx, currencyCode) => {
      const checked = checkPaymentIn(currencyCode, input);
      const inserted = await insertPayment(ctx, input.customerId, checked, {
        state: 'settled',
        paymentMethodId: null,
      });
      const allocated = await allocateNewSource(ctx, paymentSource(inserted), checked.request);
      const payment = renderNewPayment(ctx, inserted, allocated);
      await emitEvents(ctx, [
        { type: 'payment.created', ref: paymentRef(inserted.id), after: payment.rendered },
        ...allocated.targetEvents,
      ]);
      return payment;
    },
  );
}

/**
 * PUT /v1/payments/{paymentID}: replaces a payment's fields and makes its allocations the list sent (Spec,
 * Payments rule 4). The customer of a payment does not change: money recorded for the wrong customer is deleted
 * and recorded again.
 */
export function updatePayment(ctx: ServiceContext, paymentId: number, input: PaymentInput): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, paymentId),
    async (ctx, row) => {
      assertNotInCollection(row);
      assertSameCustomer(input.customerId, row.customerId, 'payment');
      const checked = await checkPayment(ctx, input);
      assertEditable(row, checked);
      const before = await snapshotResource(ctx, paymentRef(paymentId));
      const edited = {
        ...paymentSource(row),
        currencyCode: checked.currencyCode,
        amountMinor: checked.amountMinor,
      };
      const allocated = await reallocateWithAmount(ctx, edited, row.amountMinor, checked.request, () =>
        updatePaymentFields(ctx, paymentId, checked),
      );
      await emitEvents(ctx, await editEvents(ctx, before, allocated));
    },
  );
}

/**
 * DELETE /v1/payments/{paymentID}: deletes a payment with its allocations; every invoice it paid owes that money
 * again.
 */
export function deletePayment(ctx: ServiceContext, paymentId: number): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, paymentId),
    async (ctx, row) => {
      assertNotInCollection(row);
      // The line of its batch: the bank may still return it, and the batch's figures are its lines.
      if (isBankDebit(row)) throw bankDebitKept(row);
      await removePayment(ctx, paymentSource(row));
    },
  );
}

/** Deletes a payment, its allocations released first (every invoice it paid owes that money again). */
export async function removePayment(ctx: ServiceContext, payment: MoneySource): Promise<void> {
  const ref = paymentRef(payment.id);
  const before = await snapshotResource(ctx, ref);
  const paid = await invoicesPaidBy(ctx, payment.id);
  const released = await releaseAllocations(ctx, payment);
  await repo.deletePayment(ctx.db, ctx.account.id, payment.id);
  await tellInvoicesUnpaid(ctx, paid);
  await emitEvents(ctx, [{ type: 'payment.deleted', ref, before }, ...released.targetEvents]);
}

/** A charge a gateway answered, to be recorded as a payment of one invoice. */
export interface CollectedPaymentInput {
  customerId: number;
  /** The invoice it pays; null for money taken with no invoice named (a capture widget's sale), unallocated. */
  invoiceId: number | null;
  currencyCode: string;
  amountMinor: number;
  /** What of the amount the invoice still owes (the rest, paid meanwhile by other means, stays unallocated). */
  allocateMinor: number;
  /**
   * Several invoices paid by one charge (the customer portal's "Pay all overdue"), each with what it owes: given,
   * they replace `invoiceId` and `allocateMinor`.
   */
  allocations?: readonly { invoiceId: number; amountMinor: number }[];
  date: PlainDate;
  method: string;
  /** The method charged; null when it was not kept (a capture widget's Sale). */
  paymentMethodId: number | null;
  state: PaymentState;
  /** The gateway's charge id. */
  ref: string | null;
  memo: string;
  failureReason?: string;
  failureCode?: string;
}

/**
 * Records a payment collected through a gateway, in the caller's transaction (which holds the customer's lock, see
 * withLockedCustomer): allocated to its invoice unless it failed (a failed payment moves no money and keeps its
 * reason), pending or settled as the gateway said. Returns its id and the events the change makes.
 */
export async function recordCollectedPayment(
  ctx: ServiceContext,
  input: CollectedPaymentInput,
): Promise<{ paymentId: number; events: EventToEmit[] }> {
  const source = paymentSource(
    await insertPayment(ctx, input.customerId, input, {
      state: input.state,
      paymentMethodId: input.paymentMethodId,
      failureReason: input.failureReason,
      failureCode: input.failureCode,
    }),
  );
  const paymentId = source.id;
  const events: EventToEmit[] = [{ type: 'payment.created', ref: paymentRef(paymentId) }];
  const entries = collectedEntries(input);
  if (entries.length > 0) {
    const allocated = await allocateNewSource(ctx, source, { autoApply: false, entries });
    events.push(...allocated.targetEvents);
  }
  return { paymentId, events };
}

/**
 * The allocations a collected payment asks for: its invoices, each with what it owes (none when the payment
 * failed: it moved no money). Recorded one by one or in a batch (collectedPayments.service.ts), the same.
 */
export function collectedEntries(input: CollectedPaymentInput): AllocationEntry[] {
  if (input.state === 'failed') return [];
  const allocations =
    input.allocations ??
    (input.invoiceId === null ? [] : [{ invoiceId: input.invoiceId, amountMinor: input.allocateMinor }]);
  return allocations
    .filter((allocation) => allocation.amountMinor > 0)
    .map((allocation, i) => ({
      allocationId: null,
      amountMinor: allocation.amountMinor,
      target: { type: 'invoice' as const, id: allocation.invoiceId },
      field: `allocations[${i}]`,
      targetField: `allocations[${i}].invoiceID`,
    }));
}

/** The id of the customer's payment recorded for a gateway's charge, if there is one. */
export function findPaymentIdOfCharge(
  ctx: ServiceContext,
  customerId: number,
  chargeId: string,
): Promise<number | undefined> {
  return repo.listPaymentIdsByRef(ctx.db, ctx.account.id, chargeId, 1, customerId).then(([id]) => id);
}

/** The account's payment whose Ref is a provider's charge id, whichever its customer; undefined when none. */
export function findPaymentIdByChargeRef(ctx: ServiceContext, chargeId: string): Promise<number | undefined> {
  return repo.listPaymentIdsByRef(ctx.db, ctx.account.id, chargeId, 1).then(([id]) => id);
}

/**
 * The account's payments whose Ref is a provider's charge id, whichever their customer and gateway (a few at most:
 * two gateways' providers may use the same id); the caller tells which gateway made each.
 */
export function listPaymentIdsByChargeRef(ctx: ServiceContext, chargeId: string): Promise<number[]> {
  return repo.listPaymentIdsByRef(ctx.db, ctx.account.id, chargeId, 20);
}

/**
 * A late answer about a payment collected through a gateway (a dispute, a refund by the bank, an unpaid debit):
 * the payment becomes Failed with the reason, its allocations are released (the invoices owe that money again),
 * under the customer's lock. 409 for a payment that did not come through a gateway or has failed already.
 */
export function reversePayment(
  ctx: ServiceContext,
  paymentId: number,
  failure: { reason: string; code: string },
  alsoInTransaction: (ctx: ServiceContext) => Promise<EventToEmit[]> = async () => [],
): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, paymentId),
    async (ctx, row) => {
      if (row.paymentMethodId === null) {
        throw new ConflictError(
          'payment_not_collected',
          `Payment ${paymentId} was not collected through a gateway`,
        );
      }
      if (row.state === 'failed') {
        throw new ConflictError('payment_failed', `Payment ${paymentId} has failed already`);
      }
      const ref = paymentRef(paymentId);
      const before = await snapshotResource(ctx, ref);
      const paid = await invoicesPaidBy(ctx, paymentId);
      const outcome = await releaseAllocations(ctx, paymentSource(row));
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, {
        state: 'failed',
        failureReason: failure.reason,
        failureCode: failure.code,
        updatedAt: ctx.clock.now().toISOString(),
      });
      await tellInvoicesUnpaid(ctx, paid);
      const also = await alsoInTransaction(ctx);
      await emitEvents(ctx, [{ type: 'payment.reversed', ref, before }, ...outcome.targetEvents, ...also]);
    },
  );
}

/**
 * A pending payment the gateway settled: its allocations move from the invoices' pending figures to their paid
 * ones (released as pending and made again as settled: the allocations get new ids). `date`: the day the money
 * moved, when it is not the day the payment was recorded (a debit's action date).
 */
export function settlePayment(ctx: ServiceContext, paymentId: number, date?: PlainDate): Promise<void> {
  return withLockedRecord(
    ctx,
    (ctx) => getPaymentRecord(ctx, paymentId),
    async (ctx, row) => {
      if (row.state !== 'pending') {
        throw new ConflictError('payment_not_pending', `Payment ${paymentId} is not pending`);
      }
      const ref = paymentRef(paymentId);
      const before = await snapshotResource(ctx, ref);
      const allocations = (await allocationsOfSources(ctx, 'payment', [paymentId])).get(paymentId) ?? [];
      await releaseAllocations(ctx, paymentSource(row));
      await repo.updatePayment(ctx.db, ctx.account.id, paymentId, {
        state: 'settled',
        ...(date ? { date } : {}),
        updatedAt: ctx.clock.now().toISOString(),
      });
      const outcome = await applyAllocations(ctx, paymentSource({ ...row, state: 'settled' }), {
        autoApply: false,
        entries: allocations.map((allocation, i) => ({
          allocationId: null,
          amountMinor: allocation.amountMinor,
          target: { type: allocation.targetType, id: allocation.targetId },
          field: `allocations[${i}]`,
          targetField: `allocations[${i}].invoiceID`,
        })),
      });
      await emitEvents(ctx, [{ type: 'payment.updated', ref, before }, ...outcome.targetEvents]);
    },
  );
}

/** The invoices the payment's allocations pay, which its reversal or deletion leaves owing that money again. */
async function invoicesPaidBy(ctx: ServiceContext, paymentId: number): Promise<number[]> {
  const allocations = (await allocationsOfSources(ctx, 'payment', [paymentId])).get(paymentId) ?? [];
  return [
    ...new Set(
      allocations.filter((allocation) => allocation.targetType === 'invoice').map((a) => a.targetId),
    ),
  ];
}
