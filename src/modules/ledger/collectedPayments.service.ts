import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ByTarget } from './allocation.ts';
import type { AllocationPlan, AllocationTarget } from './allocation.ts';
import type { EventToEmit } from '../events/index.ts';
import type { AllocatableInvoice } from '../invoicing/index.ts';
import {
  invoiceTarget,
  planOrRefuse,
  requestedOf,
  targetEvents,
  writeAllocationChanges,
} from './allocation.service.ts';
import { insertPayments } from './collectedPayments.repository.ts';
import {
  collectedEntries,
  newPayment,
  paymentRef,
  paymentSource,
  recordCollectedPayment,
} from './payment.service.ts';
import type { CollectedPaymentInput } from './payment.service.ts';
import type { NewPayment } from './payment.ts';

/**
 * The allocation engine's batch entry, for a collection run's batch of answered charges (docs/gateways.md,
 * "Batches of a collection run"). recordCollectedPayment writes one payment in five statements (the payment, the
 * invoice locked again, the allocation, the payment's allocated total, the invoice's figure); a batch of 25 took 125
 * of a collection's statements (docs/benchmarks.md, "Collections"). Here the caller has locked the invoices already,
 * so each payment's request (collectedEntries, as recordCollectedPayment makes it) is planned by the engine
 * (requestedOf, planOrRefuse) against them, and the engine's writer (writeAllocationChanges) writes the batch's
 * plans together: one statement for the payments (their allocated totals with them), one for the allocations and
 * one for the invoices' figures.
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
  const paymentIds = await insertPayments(
    ctx.db,
    planned.map(({ input, plan }) => newCollectedPayment(ctx, input, plan?.allocatedMinor ?? 0, now)),
  );
  const changes = planned.flatMap(({ input, plan }, i) =>
    plan ? [{ source: sourceOf(input, paymentIds[i]!), plan }] : [],
  );
  const { invoicesAfter } = await writeAllocationChanges(ctx, changes, 'inserted');
  return planned.map(({ plan }, i) => ({
    paymentId: paymentIds[i]!,
    events: [
      { type: 'payment.created', ref: paymentRef(paymentIds[i]!) },
      ...(plan ? targetEvents(plan, new ByTarget(), invoicesAfter) : []),
    ],
  }));
}

/** The payment as a source of money, once inserted (a plan is made before: its id is not known then). */
function sourceOf(input: CollectedPaymentInput, paymentId: number) {
  return {
    ...paymentSource({ ...input, id: paymentId }),
    label: paymentId > 0 ? `payment ${paymentId}` : `the payment of invoice ${input.invoiceId}`,
  };
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
    const entries = collectedEntries(input);
    if (entries.length === 0) return { input, plan: undefined };
    const own = targetsOfCustomer(targets, invoices, input.customerId);
    const plan = planOrRefuse(sourceOf(input, 0), [], requestedOf(entries, own), own);
    takeFromOpen(targets, plan);
    return { input, plan };
  });
}

/**
 * The locked invoices as targets for money of this customer: another customer's is refused, as
 * lockInvoicesForAllocation tells a payment recorded alone.
 */
function targetsOfCustomer(
  targets: ByTarget<AllocationTarget>,
  invoices: ReadonlyMap<number, AllocatableInvoice>,
  customerId: number,
): ByTarget<AllocationTarget> {
  const own = new ByTarget<AllocationTarget>();
  for (const [target, figures] of targets.entries()) {
    const theirs = invoices.get(target.id)!.customerId !== customerId;
    own.set(
      target,
      theirs && !figures.refusal ? { ...figures, refusal: 'belongs to another customer' } : figures,
    );
  }
  return own;
}

/** What a plan allocates is no longer open to the payments after it. */
function takeFromOpen(targets: ByTarget<AllocationTarget>, plan: AllocationPlan): void {
  for (const { target, deltaMinor } of plan.targetDeltas) {
    const open = targets.get(target)!;
    targets.set(target, { ...open, openMinor: open.openMinor - deltaMinor });
  }
}

/** The payment, as insertPayment writes it, with its allocated total already in (its allocations follow). */
function newCollectedPayment(
  ctx: ServiceContext,
  input: CollectedPaymentInput,
  allocatedMinor: number,
  now: string,
): NewPayment {
  return { ...newPayment(ctx, input.customerId, input, input, now), allocatedMinor };
}
