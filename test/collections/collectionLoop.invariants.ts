import { expect } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { toMinor } from '../helpers/ledger.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import type { LoopFixture } from './collectionLoop.model.ts';

// The world of one account of the collection-loop property (collectionLoop.property.test.ts), read back whole
// after every step, and the invariants it must keep whatever the cards, banks, credits and clock did: no balance
// collected twice, never more collected than owed, no due invoice without a plan or a problem, and the ledger
// reconciled. `at` names the step in every failure message.

export interface NegativeView {
  id: number;
  amountMinor: number;
  allocations: { allocationID: number; invoiceID: number; amountMinor: number }[];
}

export interface LoopCustomerView {
  id: number;
  balanceMinor: number;
  invoices: any[];
  payments: any[];
  credits: any[];
  negatives: NegativeView[];
  /** Its cards and bank accounts, with whether each is valid. */
  methods: any[];
}

export interface LoopWorld {
  now: string;
  today: string;
  customers: LoopCustomerView[];
  /** The test gateway's card charges: `inv_<invoiceID>_try_<n>` and their outcome. */
  charges: { key: string; outcome: string; amountMinor: number }[];
}

const sum = (list: readonly number[]) => list.reduce((s, n) => s + n, 0);
const minorOf = (allocations: readonly any[]) => sum(allocations.map((a) => toMinor(a.amountApplied)));
const all = (as: TestAccount, path: string) => ok<any[]>(as, 'GET', `${path}?page_size=200`);

async function negativesOf(as: TestAccount, customerId: number): Promise<NegativeView[]> {
  const list = await ok(
    as,
    'GET',
    `/v1/adjustment/list?type=negative&customerID=${customerId}&page_size=200`,
  );
  return Promise.all(
    (list.adjustments as any[]).map(async (entry) => {
      const { adjustment } = await ok(
        as,
        'GET',
        `/v1/adjustment/get?type=negative&adjustmentID=${entry.adjustmentID}&customerID=${customerId}`,
      );
      return {
        id: entry.adjustmentID as number,
        amountMinor: toMinor(adjustment.Amount),
        allocations: (adjustment.allocations as any[]).map((a) => ({
          allocationID: a.allocationID as number,
          invoiceID: a.objectID as number,
          amountMinor: toMinor(a.amountApplied ?? a.AmtAllocated),
        })),
      };
    }),
  );
}

export async function readLoopWorld(t: TestService, fx: LoopFixture): Promise<LoopWorld> {
  const [clock, customers, charges] = await Promise.all([
    ok(fx.as, 'GET', '/v1/test-clock'),
    Promise.all(
      fx.customers.map(async ({ id }) => {
        const [customer, invoices, payments, credits, negatives, methods] = await Promise.all([
          ok(fx.as, 'GET', `/v1/customers/${id}`),
          all(fx.as, `/v1/customers/${id}/invoices`),
          all(fx.as, `/v1/customers/${id}/payments`),
          all(fx.as, `/v1/customers/${id}/credits`),
          negativesOf(fx.as, id),
          ok<any[]>(fx.as, 'GET', `/v1/customers/${id}/paymentmethods`),
        ]);
        const balanceMinor = toMinor(customer.Balance);
        return { id, balanceMinor, invoices, payments, credits, negatives, methods };
      }),
    ),
    t.service.storage.db
      .selectFrom('test_gateway_charges')
      .select(['idempotency_key', 'outcome', 'amount_minor'])
      .where('gateway_id', '=', fx.gatewayId)
      .execute(),
  ]);
  return {
    now: new Date(clock.Now).toISOString(),
    today: clock.Today,
    customers,
    charges: charges.map((c) => ({
      key: c.idempotency_key,
      outcome: c.outcome,
      amountMinor: Number(c.amount_minor),
    })),
  };
}

export const isIssued = (invoice: any) => !invoice.isDraft && !invoice.isCancelled;
/** Money the service took by itself: a card charge or a debit-order line. */
export const isCollected = (payment: any) => ['credit_card', 'debit_order'].includes(payment.Method);
const notFailed = (payment: any) => payment.Status !== 'Failed';

/**
 * What the customer holds unapplied, in minor units: the unallocated part of its settled payments (not Failed, not
 * Pending: docs/gateways.md, "Credit first"), credit notes and negative adjustments.
 */
export function unappliedOf(customer: LoopCustomerView): number {
  return (
    sum(
      customer.payments
        .filter((p) => !['Failed', 'Pending'].includes(p.Status))
        .map((p) => toMinor(p.Amount) - minorOf(p.Allocations)),
    ) +
    sum(customer.credits.map((c) => toMinor(c.Amount) - minorOf(c.Allocations))) +
    sum(customer.negatives.map((n) => n.amountMinor - sum(n.allocations.map((a) => a.amountMinor))))
  );
}

/** How much of the customer's own money (EFT payments, credit notes, negative adjustments) is applied. */
export function appliedCreditOf(customer: LoopCustomerView): number {
  return (
    sum(customer.payments.filter((p) => !isCollected(p)).map((p) => minorOf(p.Allocations))) +
    sum(customer.credits.map((c) => minorOf(c.Allocations))) +
    sum(customer.negatives.map((n) => sum(n.allocations.map((a) => a.amountMinor))))
  );
}

/**
 * Balances reconcile (docs/spec-decisions.md, "Money movements: allocations"): per invoice, paid + pending +
 * credits + Balance = Total, each figure the sum of the allocations it stands for, listed alike on the invoice and
 * on its sources; no source allocates more than its Amount, a Failed payment nothing; the customer's Balance is the
 * Balance of its issued invoices less the money it holds unapplied (Failed payments excepted).
 */
export function checkReconciled(world: LoopWorld, at: (what: string) => string) {
  for (const customer of world.customers) {
    const payments = new Map(customer.payments.map((p) => [p.paymentID, p]));
    for (const invoice of customer.invoices) {
      const key = `invoice ${invoice.invoiceID}`;
      const statusOf = (a: any) => payments.get(a.paymentID)?.Status;
      const applied: any[] = invoice.PaymentsApplied;
      const settled = minorOf(applied.filter((a) => !['Pending', 'Failed'].includes(statusOf(a))));
      const pending = minorOf(applied.filter((a) => statusOf(a) === 'Pending'));
      const credits = minorOf(invoice.NegativeAdjustmentsApplied);
      const total = toMinor(invoice.Total);
      expect(
        minorOf(applied.filter((a) => statusOf(a) === 'Failed')),
        at(`${key}: nothing from Failed`),
      ).toBe(0);
      expect(toMinor(invoice.TotalActualPaid), at(`${key}: TotalActualPaid = Σ settled`)).toBe(settled);
      expect(toMinor(invoice.TotalPendingPaid), at(`${key}: TotalPendingPaid = Σ pending`)).toBe(pending);
      expect(toMinor(invoice.TotalNegativeAdjs), at(`${key}: TotalNegativeAdjs = Σ credits`)).toBe(credits);
      expect(
        settled + pending + credits + toMinor(invoice.Balance),
        at(`${key}: paid + pending + credits + Balance = Total`),
      ).toBe(total);
      expect(toMinor(invoice.ActualBalance), at(`${key}: ActualBalance = Total − paid − credits`)).toBe(
        total - settled - credits,
      );
      const fromPayments = customer.payments.flatMap((p) =>
        p.Allocations.filter((a: any) => a.invoiceID === invoice.invoiceID).map((a: any) => a.allocationID),
      );
      expect(
        applied.map((a) => a.allocationID).sort(),
        at(`${key}: PaymentsApplied as the payments list them`),
      ).toEqual(fromPayments.sort());
      const fromCredits = [
        ...customer.credits.flatMap((c) =>
          c.Allocations.filter((a: any) => a.invoiceID === invoice.invoiceID).map((a: any) => a.allocationID),
        ),
        ...customer.negatives.flatMap((n) =>
          n.allocations.filter((a) => a.invoiceID === invoice.invoiceID).map((a) => a.allocationID),
        ),
      ];
      expect(
        invoice.NegativeAdjustmentsApplied.map((a: any) => a.allocationID).sort(),
        at(`${key}: credits applied as the credit notes and adjustments list them`),
      ).toEqual(fromCredits.sort());
    }
    for (const payment of customer.payments) {
      const key = `payment ${payment.paymentID} (${payment.Method}, ${payment.Status})`;
      expect(minorOf(payment.Allocations), at(`${key}: allocates at most its Amount`)).toBeLessThanOrEqual(
        toMinor(payment.Amount),
      );
      if (payment.Status === 'Failed')
        expect(payment.Allocations, at(`${key}: Failed holds nothing`)).toEqual([]);
    }
    for (const credit of customer.credits) {
      expect(
        minorOf(credit.Allocations),
        at(`credit note ${credit.creditNoteID}: at most its Amount`),
      ).toBeLessThanOrEqual(toMinor(credit.Amount));
    }
    for (const negative of customer.negatives) {
      expect(
        sum(negative.allocations.map((a) => a.amountMinor)),
        at(`adjustment ${negative.id}: at most its Amount`),
      ).toBeLessThanOrEqual(negative.amountMinor);
    }
    const unapplied =
      sum(customer.payments.filter(notFailed).map((p) => toMinor(p.Amount) - minorOf(p.Allocations))) +
      sum(customer.credits.map((c) => toMinor(c.Amount) - minorOf(c.Allocations))) +
      sum(customer.negatives.map((n) => n.amountMinor - sum(n.allocations.map((a) => a.amountMinor))));
    const balances = sum(customer.invoices.filter(isIssued).map((i) => toMinor(i.Balance)));
    expect(
      customer.balanceMinor,
      at(`customer ${customer.id}: Balance = Σ invoice Balances − unapplied`),
    ).toBe(balances - unapplied);
  }
}

/**
 * Never collected twice, never more than owed: no invoice's Balance or ActualBalance below zero; every card charge
 * or debit that did not fail is wholly allocated (none of the money it took is left over on the customer); at most
 * one of them is allocated to an invoice (one balance, one successful collection: here nothing gives money back to
 * an invoice but a return, whose line then fails), and the test gateway charged each invoice successfully once at
 * most.
 */
export function checkCollectedOnce(world: LoopWorld, at: (what: string) => string) {
  for (const customer of world.customers) {
    for (const invoice of customer.invoices) {
      const key = `invoice ${invoice.invoiceID}`;
      expect(toMinor(invoice.Balance), at(`${key}: Balance ≥ 0`)).toBeGreaterThanOrEqual(0);
      expect(toMinor(invoice.ActualBalance), at(`${key}: ActualBalance ≥ 0`)).toBeGreaterThanOrEqual(0);
      const collectedBy = customer.payments.filter(
        (p) =>
          isCollected(p) && notFailed(p) && p.Allocations.some((a: any) => a.invoiceID === invoice.invoiceID),
      );
      const by = collectedBy.map((p) => `${p.paymentID} ${p.Method} ${p.Status} ${p.Amount}`).join('; ');
      expect(collectedBy.length, at(`${key}: collected once at most (${by})`)).toBeLessThanOrEqual(1);
      const charged = world.charges.filter(
        (c) => c.key.startsWith(`inv_${invoice.invoiceID}_try_`) && c.outcome === 'succeeded',
      );
      const keys = charged.map((c) => c.key).join(', ');
      expect(charged.length, at(`${key}: charged successfully once at most (${keys})`)).toBeLessThanOrEqual(
        1,
      );
    }
    for (const payment of customer.payments.filter((p) => isCollected(p) && notFailed(p))) {
      expect(
        minorOf(payment.Allocations),
        at(`payment ${payment.paymentID} (${payment.Method}): all it took went to what was owed`),
      ).toBe(toMinor(payment.Amount));
    }
  }
}

/**
 * Credit first (docs/gateways.md, "Credit first"), over a step that ran the bill run with the account's setting
 * unchanged: on, a customer collected anew (a charge or a debit line that did not fail) holds no money unapplied
 * after it; off, none of the customer's own money was applied by the run.
 */
export function checkCreditFirst(
  before: LoopWorld,
  world: LoopWorld,
  applyCreditFirst: boolean,
  at: (what: string) => string,
) {
  for (const customer of world.customers) {
    const earlier = before.customers.find((c) => c.id === customer.id)!;
    const known = new Set(earlier.payments.map((p) => p.paymentID));
    const fresh = customer.payments.filter((p) => isCollected(p) && notFailed(p) && !known.has(p.paymentID));
    if (applyCreditFirst && fresh.length > 0) {
      expect(
        unappliedOf(customer),
        at(
          `customer ${customer.id}: collected anew (${fresh.map((p) => p.paymentID)}) with credit left unapplied`,
        ),
      ).toBe(0);
    }
    if (!applyCreditFirst) {
      expect(
        appliedCreditOf(customer),
        at(`customer ${customer.id}: credit applied with the setting off`),
      ).toBe(appliedCreditOf(earlier));
    }
  }
}

/**
 * No due invoice without a plan or a problem (docs/gateways.md, "From the customer's settings to the money", "When
 * the settings cannot collect", "One customer never holds up a batch"): after a run, every issued invoice that
 * still owes money (ActualBalance > 0), due by the account's today and collected automatically (every customer
 * here pays by card or debit order), has a NextTryDate, or a pending debit, or a CollectionProblem, or its tries
 * stopped (NumTries > 0 with no NextTryDate: ran out, a hard decline, a confirmation asked for).
 */
export function checkPlanned(
  world: LoopWorld,
  dueDateOf: ReadonlyMap<number, string>,
  at: (what: string) => string,
) {
  for (const customer of world.customers) {
    for (const invoice of customer.invoices) {
      if (!isIssued(invoice) || toMinor(invoice.ActualBalance) <= 0) continue;
      const due = dueDateOf.get(invoice.invoiceID)!;
      if (due > world.today) continue;
      const planned =
        invoice.NextTryDate !== null ||
        toMinor(invoice.TotalPendingPaid) > 0 ||
        invoice.CollectionProblem !== null ||
        invoice.NumTries > 0;
      expect(
        planned,
        at(
          `invoice ${invoice.invoiceID} (${invoice.CollectionMethod}, due ${due}, owes ${invoice.ActualBalance}): ` +
            'a NextTryDate, a pending debit, a CollectionProblem or tries made',
        ),
      ).toBe(true);
    }
  }
}

/**
 * Debit orders presented as docs/gateways.md, "Returns presented again", says: at most 2 presentations (NumTries:
 * each build counts one), none after a return that may not be retried (04, payment stopped; 12, account closed),
 * and an invoice owing again after a retryable return (02) with a presentation left is planned again (a
 * NextTryDate) unless a CollectionProblem says why not. `fateOf` tells what the test gateway does with a
 * customer's debits (null for a card customer). Alike for invoices that name their own debit order and those that
 * follow their customer's debit_order setting.
 */
export function checkPresentations(
  world: LoopWorld,
  fateOf: (customerId: number) => string | null,
  at: (what: string) => string,
) {
  for (const customer of world.customers) {
    const fate = fateOf(customer.id);
    if (fate === null) continue;
    for (const invoice of customer.invoices) {
      if (!isIssued(invoice)) continue;
      const key = `invoice ${invoice.invoiceID} (debits ${fate}, tries ${invoice.NumTries}, next ${invoice.NextTryDate})`;
      expect(invoice.NumTries, at(`${key}: presented twice at most`)).toBeLessThanOrEqual(2);
      if (fate === 'unpaid 04' || fate === 'closed 12') {
        expect(
          invoice.NumTries,
          at(`${key}: never presented again after a final return`),
        ).toBeLessThanOrEqual(1);
      }
      const owedAgain =
        toMinor(invoice.ActualBalance) > 0 &&
        toMinor(invoice.TotalPendingPaid) === 0 &&
        invoice.CollectionProblem === null &&
        invoice.NumTries === 1;
      if (owedAgain && (fate === 'unpaid 02' || fate === 'paid, late unpaid 02')) {
        expect(invoice.NextTryDate, at(`${key}: returned 02 once, presented again`)).not.toBeNull();
      }
    }
  }
}
