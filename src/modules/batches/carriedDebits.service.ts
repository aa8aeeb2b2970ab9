import type { ServiceContext } from '../../context.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { dateAt } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { noticeDebitMoved } from '../collections/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import {
  getInvoice,
  heldCollectionProblem,
  setCollectionProblem,
  setCollectionSchedule,
} from '../invoicing/index.ts';
import {
  checkBatchLinePayment,
  deleteBatchLinePayment,
  paymentsByIds,
  updateBatchLinePayment,
} from '../ledger/index.ts';
import type { AllocationInput, Payment } from '../ledger/index.ts';
import { emandatesOfPaymentMethods, periodOfActionDate } from '../mandates/index.ts';
import type { MandateTerms } from '../mandates/index.ts';
import * as repo from './batch.repository.ts';
import { showPlannedDate } from './batchPlan.service.ts';
import { isCarried, meetInPeriod } from './carriedDebits.ts';
import type { CarriedDebit } from './carriedDebits.ts';

/**
 * Months that stay in step (docs/gateways.md, "Months that stay in step"): what happens to a debit order that
 * missed its own date (the rules: carriedDebits.ts) and what its customer is told, for the three places that meet
 * one: a return presented again (batchReturns.service.ts), a batch submitted too late (batchSubmission.service.ts)
 * and the run's bundling (batchBundling.service.ts). Each step runs in the caller's transaction, under the
 * customer's lock.
 */

/** The terms of the signed eMandate the bank account is linked to; undefined without one, or one not signed. */
export async function mandateTermsOf(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<MandateTerms | undefined> {
  const mandate = (await emandatesOfPaymentMethods(ctx, [paymentMethodId])).get(paymentMethodId);
  return mandate?.status === 'signed' ? mandate.debit : undefined;
}

/**
 * Whether a line's payment pays a subscription's invoice: the subscription's next invoice will want the next
 * period's debit of the mandate (carryDebit's `ownDebitThere`).
 */
export async function fromSubscription(ctx: ServiceContext, paymentId: number): Promise<boolean> {
  const payment = (await paymentsByIds(ctx, [paymentId])).get(paymentId);
  for (const allocation of payment ? invoiceAllocations(payment) : []) {
    if ((await getInvoice(ctx, allocation.targetId)).subscriptionId !== null) return true;
  }
  return false;
}

/** A debit that missed its own date: what it collects for one invoice, from which account, and the date told. */
export interface MissedDebit {
  invoiceId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  paymentMethodId: number;
  /** The date its customer was told it would be debited on. */
  from: PlainDate;
}

/** The staff's words for an invoice handed to its customer (its CollectionProblem). */
const handOverReason = (actionDate: PlainDate) =>
  `handed to the customer to pay: the debit order of ${actionDate} collects that period's own invoice, and the ` +
  'mandate allows neither a second debit in the period nor both in one';

/**
 * Hands the invoice to its customer to pay: its CollectionProblem says so (stored as `customer_pays`), no next try,
 * `invoice.updated`. The run leaves it alone from then on; a payment, or a line a person adds, settles it.
 */
export async function handToCustomer(
  ctx: ServiceContext,
  invoiceId: number,
  actionDate: PlainDate,
): Promise<void> {
  const ref = { type: 'invoice', id: invoiceId };
  const before = await snapshotResource(ctx, ref);
  await setCollectionProblem(
    ctx,
    invoiceId,
    heldCollectionProblem(handOverReason(actionDate), 'customer_pays'),
  );
  await setCollectionSchedule(ctx, invoiceId, { addTry: false, nextTryDate: null });
  await emitEvent(ctx, 'invoice.updated', ref, { before });
}

/**
 * Carries a debit that missed its own date as `plan` says: to its next date as its NextTryDate (alone, or with that
 * date's own debit), or to its customer; and tells the customer the new date, the amount and the account, or how to
 * pay instead. `why` is the reason in a customer's words. Whether an e-mail was queued.
 */
export async function carryMissedDebit(
  ctx: ServiceContext,
  debit: MissedDebit,
  plan: CarriedDebit,
  why: string,
): Promise<boolean> {
  if (plan.way === 'customer') {
    await handToCustomer(ctx, debit.invoiceId, plan.actionDate);
    return noticeDebitMoved(ctx, { ...debit, to: null, why });
  }
  await showPlannedDate(ctx, debit.invoiceId, plan.actionDate);
  return noticeDebitMoved(ctx, { ...debit, to: plan.actionDate, together: plan.way === 'together', why });
}

/** The date an invoice's debit was announced for: its NextTryDate, else the date now planned. */
export function announcedDate(
  ctx: ServiceContext,
  invoice: { nextTryDate: string | null },
  planned: PlainDate,
): PlainDate {
  return invoice.nextTryDate === null ? planned : dateAt(invoice.nextTryDate, ctx.account.timeZone);
}

/** What the run's bundling does with a debit it is about to put in a batch. */
export interface Meeting {
  /** `add` a line of its own; `joined` an existing line of its bank account; `handed_over` to its customer. */
  outcome: 'add' | 'joined' | 'handed_over';
  mailed: boolean;
}

/** A debit the run is bundling: its invoice, bank account, rail, action date and amount. */
export interface IncomingDebit {
  invoice: {
    id: number;
    customerId: number;
    currencyCode: string;
    dueDate: PlainDate;
    nextTryDate: string | null;
  };
  paymentMethodId: number;
  rail: Rail;
  actionDate: PlainDate;
  amountMinor: number;
}

const MISSED_WHY =
  'Your debit order mandate allows one debit order a month, and that month’s own invoice is collected on its date.';

/**
 * Before the run bundles a debit into the open batch `batchId` (undefined: none yet), under the customer's and the
 * batch's locks: when its bank account's mandate already collects in that period (a pending line of the batch, or
 * a collection another batch makes), the two meet (meetInPeriod): one debit of both, or the carried one handed to
 * its customer, so that no invoice loses its own date. A bank account without periods adds its line as before.
 */
export async function meetInBatch(
  ctx: ServiceContext,
  batchId: number | undefined,
  incoming: IncomingDebit,
): Promise<Meeting> {
  const add: Meeting = { outcome: 'add', mailed: false };
  if (incoming.rail !== 'debit_order') return add;
  const terms = await mandateTermsOf(ctx, incoming.paymentMethodId);
  const period = terms && periodOfActionDate(terms, incoming.actionDate);
  if (terms === undefined || period === undefined) return add;
  const carried = isCarried(terms, incoming.invoice.dueDate, incoming.actionDate);
  const existing = batchId === undefined ? undefined : await pendingLineOf(ctx, batchId, incoming);
  if (!existing) {
    const elsewhere = (
      await repo.listCollectionsFrom(ctx.db, ctx.account.id, [incoming.paymentMethodId], batchId ?? 0)
    ).some((other) => periodOfActionDate(terms, other.actionDate) === period);
    return elsewhere && carried ? handOverIncoming(ctx, incoming) : add;
  }
  const invoices = await Promise.all(
    invoiceAllocations(existing).map((allocation) => getInvoice(ctx, allocation.targetId)),
  );
  const existingCarried =
    invoices.length > 0 &&
    invoices.every((invoice) => isCarried(terms, invoice.dueDate, incoming.actionDate));
  const meeting = meetInPeriod(
    terms,
    incoming.actionDate,
    { amountMinor: existing.amountMinor, carried: existingCarried },
    { amountMinor: incoming.amountMinor, carried },
  );
  if (meeting === 'together') {
    await joinLine(ctx, existing, incoming);
    return { outcome: 'joined', mailed: false };
  }
  if (meeting === 'incoming_leaves') return handOverIncoming(ctx, incoming);
  if (meeting === 'existing_leaves') {
    return { outcome: 'add', mailed: await handOverLine(ctx, existing, incoming.actionDate) };
  }
  return add;
}

/** The batch's pending line from the same bank account, with its payment. */
async function pendingLineOf(
  ctx: ServiceContext,
  batchId: number,
  incoming: IncomingDebit,
): Promise<Payment | undefined> {
  const line = (await repo.listLines(ctx.db, ctx.account.id, batchId)).find(
    (other) => other.paymentMethodId === incoming.paymentMethodId && other.state === 'pending',
  );
  return line && (await paymentsByIds(ctx, [line.paymentId])).get(line.paymentId);
}

const invoiceAllocations = (payment: Payment) =>
  payment.allocations.filter((allocation) => allocation.targetType === 'invoice');

const amountOf = (minor: number, currencyCode: string) => ({
  value: minorToDecimalText(minor, currencyCode),
});

/** The debit joins the line of its bank account: one debit of both, its amount the sum, allocated to each. */
async function joinLine(ctx: ServiceContext, line: Payment, incoming: IncomingDebit): Promise<void> {
  const { currencyCode } = line;
  const allocation = (
    allocationId: number | null,
    invoiceId: number,
    minor: number,
    at: number,
  ): AllocationInput => ({
    allocationId,
    field: `PaymentApplied[${at}]`,
    amount: amountOf(minor, currencyCode),
    amountField: `PaymentApplied[${at}].amount`,
    target: { value: { type: 'invoice', id: invoiceId } },
    targetField: `PaymentApplied[${at}].invoiceID`,
  });
  const kept = invoiceAllocations(line);
  const allocations = [
    ...kept.map((a, at) => allocation(a.id, a.targetId, a.amountMinor, at)),
    allocation(null, incoming.invoice.id, incoming.amountMinor, kept.length),
  ];
  const invoices = [...kept.map((a) => a.targetId), incoming.invoice.id];
  const checked = await checkBatchLinePayment(ctx, {
    customerId: line.customerId,
    amount: amountOf(line.amountMinor + incoming.amountMinor, currencyCode),
    currencyCode,
    date: { value: incoming.actionDate },
    method: incoming.rail,
    paymentMethodId: incoming.paymentMethodId,
    memo: `Invoices ${invoices.join(', ')}, collected by debit order in one debit`,
    autoApply: false,
    allocations,
    allocationsField: 'PaymentApplied',
  });
  await updateBatchLinePayment(ctx, line, checked);
}

/** The coming debit is handed to its customer: it never joins the batch. */
async function handOverIncoming(ctx: ServiceContext, incoming: IncomingDebit): Promise<Meeting> {
  const { invoice } = incoming;
  const mailed = await carryMissedDebit(
    ctx,
    {
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      currencyCode: invoice.currencyCode,
      amountMinor: incoming.amountMinor,
      paymentMethodId: incoming.paymentMethodId,
      from: announcedDate(ctx, invoice, incoming.actionDate),
    },
    { way: 'customer', actionDate: incoming.actionDate },
    MISSED_WHY,
  );
  return { outcome: 'handed_over', mailed };
}

/** A line of carried debits gives way to an invoice's own: it leaves the batch, its invoices to their customer. */
async function handOverLine(ctx: ServiceContext, line: Payment, actionDate: PlainDate): Promise<boolean> {
  const allocations = invoiceAllocations(line);
  const invoices = await Promise.all(allocations.map((a) => getInvoice(ctx, a.targetId)));
  await deleteBatchLinePayment(ctx, line);
  let mailed = false;
  for (const [at, allocation] of allocations.entries()) {
    const debit: MissedDebit = {
      invoiceId: allocation.targetId,
      customerId: line.customerId,
      currencyCode: line.currencyCode,
      amountMinor: allocation.amountMinor,
      paymentMethodId: line.paymentMethodId!,
      from: announcedDate(ctx, invoices[at]!, actionDate),
    };
    const plan: CarriedDebit = { way: 'customer', actionDate };
    if (await carryMissedDebit(ctx, debit, plan, MISSED_WHY)) mailed = true;
  }
  return mailed;
}
