import { expect } from 'vitest';
import { dateAt } from '../../src/core/calendar.ts';
import { RAILS, addBusinessDays } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { toMinor } from '../helpers/ledger.ts';
import type { TestAccount } from '../helpers/service.ts';
import { invoicesOf, paymentsOf } from '../collections/collection.fixtures.ts';
import type { World } from '../collections/collection.fixtures.ts';
import { isIssued, sum } from '../collections/collection.model.ts';

// The batch invariants of the batch property (batch.property.test.ts), checked after every step beside the ledger's
// (collection.invariants.ts, checkLedger): what a batch says of itself against its lines, one rail per batch, no
// line left Pending in a batch that is done, no invoice promised more by pending lines than it owes, and the
// batch's states moving only as docs/gateways.md draws them. `at` names the step in every failure message.

/** A batch as the list and its single read answer it. */
export interface BatchView {
  token: string;
  state: string;
  /** The action date, in the account's time zone. */
  actionDate: string;
  buildError: string | null;
  numberOfPayments: number;
  paymentsTotalMinor: number;
  /** The single read's Payments. */
  lines: { paymentId: number; amountMinor: number }[];
  /** The list's entry, to compare with the single read. */
  listed: any;
  single: any;
}

export async function readBatches(as: TestAccount, timeZone: string): Promise<BatchView[]> {
  const list = await ok<any[]>(as, 'GET', '/v1/batches?page_size=200');
  return Promise.all(
    list.map(async (listed) => {
      const single = await ok(as, 'GET', `/v1/batches/${listed.BatchToken}`);
      return {
        token: single.BatchToken,
        state: single.State,
        actionDate: dateAt(single.ActionDate, timeZone),
        buildError: single.BuildError,
        numberOfPayments: single.NumberOfPayments,
        paymentsTotalMinor: toMinor(single.PaymentsTotal),
        lines: (single.Payments as any[]).map((p) => ({
          paymentId: p.paymentID,
          amountMinor: toMinor(p.Amount),
        })),
        listed,
        single,
      };
    }),
  );
}

/**
 * Where a batch may go from where it was (docs/gateways.md, the state diagram), over one step that may run several
 * days' runs: forward along open → build → submitted → processing → processed, back from build to open (a failed
 * build, also after further steps forward that a later build failed), to cancelled from open, build or submitted.
 */
const NEXT: Readonly<Record<string, readonly string[]>> = {
  open: ['open', 'build', 'cancelled'],
  build: ['build', 'open', 'submitted', 'processing', 'processed', 'cancelled'],
  submitted: ['submitted', 'processing', 'processed', 'cancelled'],
  processing: ['processing', 'processed'],
  processed: ['processed'],
  cancelled: ['cancelled'],
};

const RAIL_METHODS: readonly string[] = RAILS;

export function checkBatches(
  world: World,
  batches: readonly BatchView[],
  stateBefore: ReadonlyMap<string, string>,
  at: (what: string) => string,
) {
  const payments = new Map(paymentsOf(world).map((p) => [p.paymentID as number, p]));
  const batchOfPayment = new Map<number, string>();
  for (const batch of batches) {
    const key = `batch ${batch.token} (${batch.state}, action ${batch.actionDate})`;
    // The list and the single read agree; the count and total are the lines'.
    const { Payments: _, ...single } = batch.single;
    expect(batch.listed, at(`${key}: the list's entry is the single read's`)).toEqual(single);
    expect(batch.numberOfPayments, at(`${key}: NumberOfPayments = its lines`)).toBe(batch.lines.length);
    expect(batch.paymentsTotalMinor, at(`${key}: PaymentsTotal = Σ its lines' Amount`)).toBe(
      sum(batch.lines.map((l) => l.amountMinor)),
    );
    const before = stateBefore.get(batch.token);
    if (before !== undefined) {
      expect(NEXT[before], at(`${key}: moves from ${before} only as the states allow`)).toContain(
        batch.state,
      );
    }
    const methods = new Set<string>();
    for (const line of batch.lines) {
      const what = `${key} line ${line.paymentId}`;
      expect(batchOfPayment.get(line.paymentId), at(`${what}: in one batch only`)).toBeUndefined();
      batchOfPayment.set(line.paymentId, batch.token);
      const payment = payments.get(line.paymentId);
      expect(payment, at(`${what}: its payment is listed`)).toBeDefined();
      expect(toMinor(payment.Amount), at(`${what}: the batch's Amount is its payment's`)).toBe(
        line.amountMinor,
      );
      expect(payment.CurrencyCode, at(`${what}: in the batch's currency`)).toBe(batch.single.CurrencyCode);
      methods.add(payment.Method);
      if (batch.state === 'processed' || batch.state === 'cancelled') {
        expect(payment.Status, at(`${what}: never Pending once the batch is ${batch.state}`)).not.toBe(
          'Pending',
        );
      }
      if (batch.state === 'cancelled' && payment.Status === 'Failed') {
        // A line failed by the cancel says so; one the bank answered before keeps the bank's reason.
        expect(payment.FailureReason, at(`${what}: failed with a reason`)).toEqual(expect.any(String));
      }
    }
    // One batch, one rail (one bank file).
    expect(
      methods.size,
      at(`${key}: lines of one rail only (${[...methods].join(', ')})`),
    ).toBeLessThanOrEqual(1);
  }
  // Every debit (a payment by a rail: only lines make them here) is a line of a batch.
  for (const payment of paymentsOf(world).filter((p) => RAIL_METHODS.includes(p.Method))) {
    expect(
      batchOfPayment.has(payment.paymentID),
      at(`payment ${payment.paymentID} (${payment.Method}) is a line`),
    ).toBe(true);
  }
  // No invoice is promised more by pending lines than it still owes once settled money and credits are counted.
  for (const { invoice } of invoicesOf(world)) {
    const key = `invoice ${invoice.invoiceID}`;
    const pendingLines = [...batchOfPayment.keys()]
      .map((id) => payments.get(id))
      .filter((p) => p?.Status === 'Pending');
    const promised = sum(
      pendingLines.flatMap((p) =>
        p.Allocations.filter((a: any) => a.invoiceID === invoice.invoiceID).map((a: any) =>
          toMinor(a.amountApplied),
        ),
      ),
    );
    const owed =
      toMinor(invoice.Total) - toMinor(invoice.TotalActualPaid) - toMinor(invoice.TotalNegativeAdjs);
    expect(
      promised,
      at(`${key}: pending lines cover at most what is owed (${owed} of ${invoice.Total})`),
    ).toBeLessThanOrEqual(Math.max(0, owed));
    if (!isIssued(invoice)) expect(promised, at(`${key}: no pending line on an invoice not issued`)).toBe(0);
  }
}

/** What the schedule checks learn from each step: the tries each invoice has had, and what happened to it. */
export interface ScheduleMemory {
  /** Per invoice, the builds of batches with a line paying it (docs: a try is counted at the build). */
  tries: Map<number, number>;
  /** Invoices a line paying them was returned unpaid by the bank (or by hand) for: only they may have a next try. */
  returned: Set<number>;
  /**
   * Invoices paid by a line of a batch the test made (the docs promise automatic collection again only after an
   * automatic batch is cancelled), by a line that went, or whose money a person moved (PUT /v1/payments): money
   * taken away by hand does not bring back a try (invoiceMoney.service.ts).
   */
  byHand: Set<number>;
  /** Invoices whose line failed as its batch was cancelled after its build: due again at once. */
  cancelledAfterBuild: Set<number>;
}

/** A payment's allocations as invoice:amount, to tell whether they moved (settling a line renews their ids). */
const allocationsOf = (payment: any): string =>
  (payment.Allocations as any[])
    .map((a) => `${a.invoiceID}:${toMinor(a.amountApplied)}`)
    .sort()
    .join(',');

const invoicesPaidBy = (payment: any): number[] => [
  ...new Set<number>(
    (payment?.Allocations ?? []).map((a: any) => a.invoiceID).filter((id: number) => id > 0),
  ),
];

/** Learns from the step that took `before` to `after`: the batches it built, the lines the bank returned. */
export function noteStep(
  memory: ScheduleMemory,
  manualBatches: ReadonlySet<string>,
  before: { world: World; batches: readonly BatchView[] },
  after: { world: World; batches: readonly BatchView[] },
) {
  const paymentsBefore = new Map(paymentsOf(before.world).map((p) => [p.paymentID as number, p]));
  const paymentsAfter = new Map(paymentsOf(after.world).map((p) => [p.paymentID as number, p]));
  const batchBefore = new Map(before.batches.map((b) => [b.token, b]));
  const linesAfter = new Set(after.batches.flatMap((b) => b.lines.map((l) => l.paymentId)));
  for (const was of before.batches) {
    for (const line of was.lines) {
      if (!linesAfter.has(line.paymentId)) {
        for (const id of invoicesPaidBy(paymentsBefore.get(line.paymentId))) memory.byHand.add(id);
      }
    }
  }
  for (const batch of after.batches) {
    const was = batchBefore.get(batch.token);
    // Built: from build to submitted or beyond. Its lines cannot change in build, so they are as they were.
    if (was?.state === 'build' && ['submitted', 'processing', 'processed'].includes(batch.state)) {
      const invoices = new Set(was.lines.flatMap((l) => invoicesPaidBy(paymentsBefore.get(l.paymentId))));
      for (const id of invoices) memory.tries.set(id, (memory.tries.get(id) ?? 0) + 1);
    }
    for (const line of batch.lines) {
      const now = paymentsAfter.get(line.paymentId);
      const then = paymentsBefore.get(line.paymentId);
      if (manualBatches.has(batch.token)) {
        for (const id of [...invoicesPaidBy(then), ...invoicesPaidBy(now)]) memory.byHand.add(id);
      }
      // Its money moved by hand (PUT /v1/payments): the invoices it left and those it went to.
      if (now && then && now.Status !== 'Failed' && allocationsOf(now) !== allocationsOf(then)) {
        for (const id of [...invoicesPaidBy(then), ...invoicesPaidBy(now)]) memory.byHand.add(id);
      }
      if (now?.Status === 'Failed' && then && then.Status !== 'Failed') {
        const built = was !== undefined && ['submitted', 'processing', 'processed'].includes(was.state);
        if (now.FailureReason !== 'batch_cancelled') {
          for (const id of invoicesPaidBy(then)) memory.returned.add(id);
        } else if (built) {
          for (const id of invoicesPaidBy(then)) memory.cancelledAfterBuild.add(id);
        }
      }
    }
  }
}

/**
 * The collection schedule of invoices paid by batches (docs/gateways.md, "Debit orders and payment batches";
 * docs/spec-decisions.md, "Collections" and "NumTries and NextTryDate of a debit-order invoice"): NumTries counts
 * the builds of batches paying the invoice; NextTryDate is null once money pays the invoice, only ever on a
 * debit-order invoice, and never null on one that owes and was never presented (its planned action date). And after a run (`run`: a test-clock advance runs the day's), every debit-order invoice it should
 * have bundled was (docs: "Still due by debit order, an invoice of a cancelled automatic batch is bundled again by
 * the next run"): none still owes with a valid bank account (`validMethods`) and either a NextTryDate within the
 * two business days a debit order needs, or none and a due date within them, never returned nor paid by hand
 * through a batch.
 * NOTE: gateways.md also says an invoice has no NextTryDate while a batch paying it is in flight; an invoice paid by
 * two lines in two batches gets one from the return of the first while the second is still in flight (only what
 * the return gave back is presented again), so that rule is not checked here.
 */
export function checkSchedule(
  world: World,
  memory: ScheduleMemory,
  at: (what: string) => string,
  run?: { ranOn: string; timeZone: string; validMethods: ReadonlySet<number> },
) {
  for (const { invoice } of invoicesOf(world)) {
    const id: number = invoice.invoiceID;
    const key = `invoice ${id} (${invoice.CollectionMethod ?? 'no collection'}, NextTryDate ${invoice.NextTryDate})`;
    expect(invoice.NumTries, at(`${key}: NumTries = builds of batches paying it`)).toBe(
      memory.tries.get(id) ?? 0,
    );
    if (isIssued(invoice) && toMinor(invoice.Balance) <= 0 && toMinor(invoice.TotalPendingPaid) === 0) {
      expect(invoice.NextTryDate, at(`${key}: no next try once paid`)).toBeNull();
    }
    if (invoice.NextTryDate !== null) {
      expect(invoice.CollectionMethod, at(`${key}: a next try only by debit order`)).toBe('debit_order');
    }
    if (!run || !isIssued(invoice) || invoice.CollectionMethod !== 'debit_order') continue;
    // docs/gateways.md, "Debit orders on the mandate's day": a debit-order invoice that owes and was never
    // presented shows when it will be, or why it cannot be, from the first run after it is issued.
    if (
      toMinor(invoice.Balance) > 0 &&
      invoice.NumTries === 0 &&
      run.validMethods.has(invoice.customerPaymentMethodID) &&
      !memory.byHand.has(id)
    ) {
      expect(
        invoice.NextTryDate ?? invoice.CollectionProblem,
        at(`${key}: a due debit-order invoice has a NextTryDate or a CollectionProblem`),
      ).not.toBeNull();
    }
    if (toMinor(invoice.Balance) <= 0 || !run.validMethods.has(invoice.customerPaymentMethodID)) continue;
    const horizon = addBusinessDays(run.ranOn, 2, 'debit_order');
    const due =
      invoice.NextTryDate === null
        ? dateAt(invoice.DueDate, run.timeZone) <= horizon &&
          !memory.returned.has(id) &&
          !memory.byHand.has(id)
        : dateAt(invoice.NextTryDate, run.timeZone) <= horizon;
    if (due) {
      throw new Error(
        at(
          `${key}: owes ${invoice.Balance}, due ${invoice.DueDate.slice(0, 10)}, NumTries ${invoice.NumTries}, ` +
            `its bank account valid: the run on ${run.ranOn} should have bundled it`,
        ),
      );
    }
  }
}
