import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import { ByTarget, planAllocations } from '../../core/allocation.ts';
import type { AllocationPlan, AllocationTarget } from '../../core/allocation.ts';
import type { EventToEmit } from '../events/index.ts';
import { addToInvoicesMoney } from '../invoicing/index.ts';
import type { AllocatableInvoice, InvoiceMoneyAfter, InvoiceMoneyColumn } from '../invoicing/index.ts';
import { invoiceEventType, invoiceTarget } from './allocation.service.ts';
import type { NewAllocationRow } from './allocation.repository.ts';
import { insertAllocationRows, insertPaymentRows } from './collectedPayments.repository.ts';
import { newPaymentRow, paymentRef, recordCollectedPayment } from './payment.service.ts';
import type { CollectedPaymentInput } from './payment.service.ts';
import type { NewPaymentRow } from './payment.repository.ts';

/**
 * The allocation engine's batch entry, for a collection run's batch of answered charges (docs/gateways.md,
 * "Batches of a collection run"). recordCollectedPayment writes one payment in five statements (the payment, the
 * invoice locked again, the allocation, the payment's allocated total, the invoice's figure); a batch of 25 took 125
 * of a collection's statements (docs/benchmarks.md, "Collections"). Here the caller has locked the invoices already,
 * so each payment is planned against them by the engine's own rules (planAllocations), and the batch is written with
 * one statement for the payments (their allocated totals with them), one for the allocations and one for the
 * invoices' figures.
 */

/** What recording one collected payment made: its id, and the events of the change, in the caller's to emit. */
export interface RecordedPayment {
  paymentId: number;
  events: EventToEmit[];
}

interface Planned {
  input: CollectedPaymentInput;
  plan: AllocationPlan | undefined;
}

/** A settled payment's allocations count in the invoice's TotalActualPaid (paymentSource in payment.service.ts). */
const SETTLED_COLUMN: InvoiceMoneyColumn = 'paid_actual_minor';

/**
 * Records the charges as payments, as recordCollectedPayment does one by one, in the caller's transaction, which
 * holds their customers' locks and has locked the invoices they pay (`invoices`, by id, as
 * lockInvoicesForCollection returns them; an invoice paid is named by one input at most). Returns each input's
 * payment and events, in the inputs' order. A 422 when an allocation breaks the engine's rules, nothing written.
 *
 * NOTE: a batch with a pending payment, or with two payments of one invoice, is recorded one payment at a time:
 * a pending payment's invoice event carries `previous`, the invoice rendered between its payment's insert and its
 * allocation, and each of two payments of an invoice tells the invoice as its own payment left it: states only
 * the one-at-a-time path passes through.
 */
export async function recordCollectedPayments(
  ctx: ServiceContext,
  inputs: readonly CollectedPaymentInput[],
  invoices: ReadonlyMap<number, AllocatableInvoice>,
): Promise<RecordedPayment[]> {
  if (!recordableTogether(inputs)) return recordOneAtATime(ctx, inputs);
  const planned = planPayments(inputs, invoices);
  const now = nowInstant(ctx);
  const paymentIds = await insertPaymentRows(
    ctx.db,
    planned.map(({ input, plan }) => paymentRow(ctx, input, plan?.allocatedMinor ?? 0, now)),
  );
  await insertAllocationRows(ctx.db, allocationRows(ctx, planned, paymentIds, now));
  const invoicesAfter = await moveInvoiceFigures(ctx, planned);
  return planned.map(({ plan }, i) => ({
    paymentId: paymentIds[i]!,
    events: [
      { type: 'payment.created', ref: paymentRef(paymentIds[i]!) },
      ...(plan?.targetDeltas ?? []).map(({ target, deltaMinor }) => ({
        type: invoiceEventType(undefined, invoicesAfter.get(target.id)!, deltaMinor),
        ref: target,
      })),
    ],
  }));
}

/** Whether the batch's payments are settled or failed, each paying one invoice of its own. */
function recordableTogether(inputs: readonly CollectedPaymentInput[]): boolean {
  const invoiceIds = new Set<number>();
  for (const input of inputs) {
    if (input.state === 'pending' || input.allocations !== undefined) return false;
    if (input.invoiceId === null) continue;
    if (invoiceIds.has(input.invoiceId)) return false;
    invoiceIds.add(input.invoiceId);
  }
  return true;
}

async function recordOneAtATime(
  ctx: ServiceContext,
  inputs: readonly CollectedPaymentInput[],
): Promise<RecordedPayment[]> {
  const recorded: RecordedPayment[] = [];
  for (const input of inputs) recorded.push(await recordCollectedPayment(ctx, input));
  return recorded;
}

/**
 * Each payment's allocation planned by the engine's rules against the locked invoice, as if the payments were
 * recorded one after the other (each invoice's open amount taken down by the plans before it). A failed payment,
 * or one with nothing to allocate, has no plan.
 */
function planPayments(
  inputs: readonly CollectedPaymentInput[],
  invoices: ReadonlyMap<number, AllocatableInvoice>,
): Planned[] {
  const targets = new ByTarget<AllocationTarget>();
  for (const invoice of invoices.values())
    targets.set({ type: 'invoice', id: invoice.id }, invoiceTarget(invoice));
  return inputs.map((input) => {
    if (input.state === 'failed' || input.invoiceId === null || input.allocateMinor <= 0) {
      return { input, plan: undefined };
    }
    const target = { type: 'invoice' as const, id: input.invoiceId };
    if (!targets.has(target)) {
      throw new ValidationError(
        [{ field: 'allocations[0].invoiceID', message: `no such invoice: ${input.invoiceId}` }],
        'invalid_allocations',
      );
    }
    const result = planAllocations({
      sourceLabel: `the payment of invoice ${input.invoiceId}`,
      sourceAmountMinor: input.amountMinor,
      currencyCode: input.currencyCode,
      existing: [],
      requested: [{ allocationId: null, target, amountMinor: input.allocateMinor, field: 'allocations[0]' }],
      targets,
    });
    if ('problems' in result) throw new ValidationError(result.problems, 'invalid_allocations');
    for (const { target: moved, deltaMinor } of result.plan.targetDeltas) {
      const open = targets.get(moved)!;
      targets.set(moved, { ...open, openMinor: open.openMinor - deltaMinor });
    }
    return { input, plan: result.plan };
  });
}

/** The payment's row, as insertPayment writes it, with its allocated total already in (its allocations follow). */
function paymentRow(
  ctx: ServiceContext,
  input: CollectedPaymentInput,
  allocatedMinor: number,
  now: string,
): NewPaymentRow {
  return { ...newPaymentRow(ctx, input.customerId, input, input, now), allocated_minor: allocatedMinor };
}

function allocationRows(
  ctx: ServiceContext,
  planned: readonly Planned[],
  paymentIds: readonly number[],
  now: string,
): NewAllocationRow[] {
  return planned.flatMap(({ input, plan }, i) =>
    (plan?.inserts ?? []).map((insert) => ({
      account_id: ctx.account.id,
      customer_id: input.customerId,
      source_type: 'payment' as const,
      source_id: paymentIds[i]!,
      target_type: insert.target.type,
      target_id: insert.target.id,
      amount_minor: insert.amountMinor,
      created_at: now,
      updated_at: now,
    })),
  );
}

/** The invoices' figures moved, in one statement; their state after it, by id. */
function moveInvoiceFigures(
  ctx: ServiceContext,
  planned: readonly Planned[],
): Promise<Map<number, InvoiceMoneyAfter>> {
  const changes = planned.flatMap(({ plan }) =>
    (plan?.targetDeltas ?? []).map(({ target, deltaMinor }) => ({ invoiceId: target.id, deltaMinor })),
  );
  return addToInvoicesMoney(ctx, SETTLED_COLUMN, changes);
}
