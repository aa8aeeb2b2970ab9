import { expect } from 'vitest';
import { toMinor } from '../helpers/ledger.ts';
import { invoicesOf, paymentsOf } from './collection.fixtures.ts';
import type { CustomerView, World } from './collection.fixtures.ts';
import { collected, DAY_MS, isIssued, sum } from './collection.model.ts';
import type { Model } from './collection.model.ts';

// The invariants of the collection property (collection.property.test.ts), checked against the world read back
// after every step: the ledger, the attempts and charges, and the retry schedule. Each family is its own property
// so that one failing does not hide the others. `at` names the step in every failure message.

export type Family = 'ledger' | 'attempts' | 'schedule';

const minorOf = (list: readonly any[]) => sum(list.map((a) => toMinor(a.amountApplied)));
const DECIDED = new Set(['succeeded', 'pending', 'declined']);

/**
 * The ledger: each invoice's figures are the sums of the allocations they stand for (Balance = Total − settled −
 * pending − credits; ActualBalance = Total − settled − credits), a Failed payment holds nothing and says why, a
 * collected payment names its charge, and the customer's Balance is what the service defines it to be
 * (src/readModels/customers.view.ts, the ledger's customerBalanceFigure): the Balance of its issued invoices less the money it holds
 * unallocated (payments that did not fail, credit notes).
 */
export function checkLedger(world: World, at: (what: string) => string) {
  for (const customer of world.customers) {
    const payments = new Map(customer.payments.map((p) => [p.paymentID, p]));
    for (const invoice of customer.invoices) {
      const key = `invoice ${invoice.invoiceID}`;
      const applied: any[] = invoice.PaymentsApplied;
      const statusOf = (a: any) => payments.get(a.paymentID)?.Status;
      for (const a of applied)
        expect(statusOf(a), at(`${key}: allocation ${a.allocationID} from a payment listed`)).toBeDefined();
      const pending = minorOf(applied.filter((a) => statusOf(a) === 'Pending'));
      const failed = minorOf(applied.filter((a) => statusOf(a) === 'Failed'));
      const settled = minorOf(applied.filter((a) => !['Pending', 'Failed'].includes(statusOf(a))));
      const credits = minorOf(invoice.NegativeAdjustmentsApplied);
      const total = toMinor(invoice.Total);
      expect(failed, at(`${key}: nothing allocated from a Failed payment`)).toBe(0);
      expect(toMinor(invoice.TotalActualPaid), at(`${key}: TotalActualPaid = Σ settled allocations`)).toBe(
        settled,
      );
      expect(toMinor(invoice.TotalPendingPaid), at(`${key}: TotalPendingPaid = Σ pending allocations`)).toBe(
        pending,
      );
      expect(toMinor(invoice.TotalNegativeAdjs), at(`${key}: TotalNegativeAdjs = Σ credits`)).toBe(credits);
      expect(toMinor(invoice.Balance), at(`${key}: Balance = Total − settled − pending − credits`)).toBe(
        total - settled - pending - credits,
      );
      expect(toMinor(invoice.ActualBalance), at(`${key}: ActualBalance = Total − settled − credits`)).toBe(
        total - settled - credits,
      );
      expect(toMinor(invoice.Balance), at(`${key}: not over-allocated`)).toBeGreaterThanOrEqual(0);
      if (isIssued(invoice)) {
        expect(invoice.Status === 'Paid', at(`${key}: Paid exactly when ActualBalance ≤ 0`)).toBe(
          toMinor(invoice.ActualBalance) <= 0,
        );
      }
      // The invoice and its sources list the same allocations.
      const fromPayments = customer.payments.flatMap((p) =>
        p.Allocations.filter((a: any) => a.invoiceID === invoice.invoiceID).map((a: any) => a.allocationID),
      );
      expect(
        applied.map((a) => a.allocationID).sort(),
        at(`${key}: PaymentsApplied as the payments list them`),
      ).toEqual(fromPayments.sort());
      const fromCredits = customer.credits.flatMap((c) =>
        c.Allocations.filter((a: any) => a.invoiceID === invoice.invoiceID).map((a: any) => a.allocationID),
      );
      expect(
        invoice.NegativeAdjustmentsApplied.map((a: any) => a.allocationID).sort(),
        at(`${key}: credit notes applied as the credit notes list them`),
      ).toEqual(fromCredits.sort());
    }
    for (const payment of customer.payments) {
      const key = `payment ${payment.paymentID}`;
      const allocated = minorOf(payment.Allocations);
      expect(allocated, at(`${key}: allocates at most its Amount`)).toBeLessThanOrEqual(
        toMinor(payment.Amount),
      );
      if (payment.Status === 'Failed') {
        expect(payment.Allocations, at(`${key}: a Failed payment has no allocations`)).toEqual([]);
        expect(payment.FailureReason, at(`${key}: a Failed payment has a FailureReason`)).toEqual(
          expect.any(String),
        );
      } else {
        expect(payment.FailureReason, at(`${key}: FailureReason only on a Failed payment`)).toBeNull();
      }
      if (collected(payment) && payment.Status !== 'Failed') {
        expect(payment.Ref, at(`${key}: a collected payment's Ref is its charge`)).toMatch(/^ch_test_/);
      }
    }
    const unallocated =
      sum(
        customer.payments
          .filter((p) => p.Status !== 'Failed')
          .map((p) => toMinor(p.Amount) - minorOf(p.Allocations)),
      ) + sum(customer.credits.map((c) => toMinor(c.Amount) - minorOf(c.Allocations)));
    const invoiceBalances = sum(customer.invoices.filter(isIssued).map((i) => toMinor(i.Balance)));
    expect(
      customer.balanceMinor,
      at(`customer ${customer.id}: Balance = Σ invoices' Balance − unallocated money`),
    ).toBe(invoiceBalances - unallocated);
  }
}

/**
 * Attempts and charges: every charge is an attempt's (`inv_<id>_try_<n>`, n = 1, 2, … without gaps), of the amount
 * the attempt claimed, answered as the attempt recorded it; an invoice is charged successfully at most once unless a
 * step gave money back to it; a charge that succeeded is recorded by exactly one payment, a decline by one Failed
 * payment, a technical error by none; NumTries is the number of attempts that got a decision, at most 5; and each
 * card class does what docs/gateways.md says. Each attempt the step made charged the card the invoice names, or,
 * for one that follows its customer, the primary card of a customer paying by credit_card: an invoice following a
 * customer who pays by eft or not at all, or who has no card, is never charged.
 */
export function checkAttempts(before: World, world: World, model: Model, at: (what: string) => string) {
  const payments = new Map(paymentsOf(world).map((p) => [p.paymentID, p]));
  const charges = new Map(world.charges.map((c) => [c.key, c]));
  const attemptKeys = new Set(world.attempts.map((a) => a.key));
  for (const charge of world.charges) {
    expect(attemptKeys.has(charge.key), at(`charge ${charge.key} belongs to an attempt`)).toBe(true);
  }
  const earlier = new Set(before.attempts.map((a) => a.key));
  const invoices = invoicesOf(world);
  for (const attempt of world.attempts.filter((a) => !earlier.has(a.key))) {
    const { customerId, invoice } = invoices.find((i) => i.invoice.invoiceID === attempt.invoiceId)!;
    const customer = world.customers.find((c) => c.id === customerId)!;
    const what = `invoice ${attempt.invoiceId} attempt ${attempt.attemptNo} (${invoice.CollectionSource})`;
    if (invoice.CollectionSource === 'customer') {
      expect(customer.paymentMethod, at(`${what}: made for a customer who pays by card`)).toBe('credit_card');
      expect(attempt.paymentMethodId, at(`${what}: from the customer's primary card`)).toBe(
        customer.primaryMethodId,
      );
    } else {
      expect(attempt.paymentMethodId, at(`${what}: from the card the invoice names`)).toBe(
        invoice.customerPaymentMethodID,
      );
    }
  }
  for (const { customerId, invoice } of invoicesOf(world)) {
    const id: number = invoice.invoiceID;
    const key = `invoice ${id}`;
    const attempts = world.attempts.filter((a) => a.invoiceId === id);
    expect(
      attempts.map((a) => [a.attemptNo, a.key]),
      at(`${key}: attempts numbered 1..n, keyed inv_<id>_try_<n>`),
    ).toEqual(attempts.map((_, i) => [i + 1, `inv_${id}_try_${i + 1}`]));
    expect(
      attempts.filter((a) => a.state === 'started').length,
      at(`${key}: one attempt in flight at most`),
    ).toBeLessThanOrEqual(1);
    const decided = attempts.filter((a) => DECIDED.has(a.state));
    expect(invoice.NumTries, at(`${key}: NumTries = attempts with a decision`)).toBe(decided.length);
    // Five tries at most on the schedule; past them, a try only after a new card that came since the one before
    // (docs/gateways.md, "A new card").
    const newCardsAt = model.newCardsAt.get(customerId) ?? [];
    for (const [n, attempt] of decided.entries()) {
      if (n < 5) continue;
      const previous = decided[n - 1]!.startedAt;
      expect(
        newCardsAt.some((cardAt) => cardAt >= previous && cardAt <= attempt.startedAt),
        at(`${key} try ${n + 1}: past 5 only after a new card since try ${n}`),
      ).toBe(true);
    }
    for (const attempt of attempts) {
      const what = `${key} attempt ${attempt.attemptNo} (${attempt.state})`;
      const charge = charges.get(attempt.key);
      expect(attempt.amountMinor, at(`${what}: claims what was owed, > 0`)).toBeGreaterThan(0);
      expect(attempt.amountMinor, at(`${what}: claims at most the Total`)).toBeLessThanOrEqual(
        toMinor(invoice.Total),
      );
      if (charge)
        expect(charge.amountMinor, at(`${what}: charged the claimed amount`)).toBe(attempt.amountMinor);
      const payment = attempt.paymentId === null ? undefined : payments.get(attempt.paymentId);
      const gone = attempt.paymentId !== null && model.deleted.has(attempt.paymentId);
      switch (attempt.state) {
        case 'succeeded':
        case 'pending':
          expect(charge?.outcome, at(`${what}: the gateway's charge`)).toBe(attempt.state);
          expect(attempt.paymentId, at(`${what}: recorded by a payment`)).not.toBeNull();
          if (!gone) {
            expect(payment, at(`${what}: its payment is listed`)).toBeDefined();
            expect(payment, at(`${what}: its payment`)).toMatchObject({
              Ref: charge!.chargeId,
              Method: 'credit_card',
              Status:
                attempt.state === 'pending' ? 'Pending' : expect.not.stringMatching(/^(Failed|Pending)$/),
            });
            expect(toMinor(payment.Amount), at(`${what}: its payment's Amount`)).toBe(attempt.amountMinor);
          }
          break;
        case 'declined':
          expect(charge?.outcome, at(`${what}: the gateway's charge`)).toBe('declined');
          expect(attempt.paymentId, at(`${what}: recorded by a payment`)).not.toBeNull();
          if (!gone) {
            expect(payment, at(`${what}: its payment`)).toMatchObject({
              Status: 'Failed',
              Method: 'credit_card',
              FailureReason: attempt.reason,
              Allocations: [],
            });
          }
          break;
        case 'error':
          expect(charge, at(`${what}: no charge made`)).toBeUndefined();
          expect(attempt.paymentId, at(`${what}: no payment`)).toBeNull();
          break;
        case 'started':
          expect(attempt.paymentId, at(`${what}: no payment yet`)).toBeNull();
          break;
        default:
          throw new Error(at(`${what}: unknown attempt state`));
      }
    }
    // Charged successfully once, unless money was given back to the invoice since.
    const succeeded = attempts.filter((a) => charges.get(a.key)?.outcome === 'succeeded').length;
    expect(
      succeeded,
      at(`${key}: succeeded charges ≤ 1 + times money was given back (${model.reopened.get(id) ?? 0})`),
    ).toBeLessThanOrEqual(1 + (model.reopened.get(id) ?? 0));
    // Each attempt answered as its card's class says (docs/gateways.md), by the card it charged.
    for (const attempt of attempts) {
      const what = `${key} attempt ${attempt.attemptNo} (${attempt.state})`;
      const card = model.cardOfMethod.get(attempt.paymentMethodId)!;
      const allowed = {
        approve: ['succeeded'],
        soft: ['declined'],
        technical: ['error'],
        auth: ['declined'],
        unanswered: ['succeeded'],
      }[card.cls];
      expect([...allowed, 'started'], at(`${what}: from a ${card.cls} card`)).toContain(attempt.state);
      if (attempt.state === 'declined') expect(attempt.reason, at(`${what}: reason`)).toBe(card.reason);
      // A failure that needs the customer is not tried again on that card.
      const needsCustomer = attempts.find(
        (a) => a.attemptNo < attempt.attemptNo && a.reason === 'authentication_required',
      );
      expect(
        needsCustomer?.paymentMethodId,
        at(`${what}: no automatic retry after authentication_required on the same card`),
      ).not.toBe(attempt.paymentMethodId);
    }
  }
  // Every collected payment is an attempt's, and each charge is recorded once.
  const attemptPayments = world.attempts.flatMap((a) => (a.paymentId === null ? [] : [a.paymentId]));
  expect(new Set(attemptPayments).size, at('no payment recorded for two attempts')).toBe(
    attemptPayments.length,
  );
  for (const payment of paymentsOf(world).filter(collected)) {
    expect(attemptPayments, at(`collected payment ${payment.paymentID} is an attempt's`)).toContain(
      payment.paymentID,
    );
  }
  const refs = paymentsOf(world)
    .filter(collected)
    .map((p) => p.Ref)
    .filter((ref) => ref !== null);
  expect(new Set(refs).size, at('each charge recorded by one payment at most')).toBe(refs.length);
}

/** Collected by the service now: naming its own card, or following a customer who pays by card and has one. */
const collectsItself = (invoice: any, customer: CustomerView) =>
  invoice.CollectionSource === 'invoice' ||
  (customer.paymentMethod === 'credit_card' && customer.primaryMethodId !== null);

/**
 * The retry schedule (docs/gateways.md): NextTryDate is null when nothing is owed (Paid, or covered by pending
 * money), while an attempt is in flight, once 5 tries are made (until the customer acts on how it pays: a new card
 * tries again), and after a failure that needs the customer until it acts (a new card). Before the first attempt it is null or the invoice's DueDate (its first try, which may be past:
 * the next run makes it);
 * otherwise it is never in the past by more than a bill run's step (a day), unless the invoice follows a customer
 * whose settings changed since its last attempt. A run collects at the account's clock, never before it. And right
 * after a run at T every invoice it should have tried was tried: none still owed with a NextTryDate at or before T,
 * none owed, due by T's date, collected by the service (collectsItself) and never attempted.
 */
export function checkSchedule(
  before: World,
  world: World,
  model: Model,
  at: (what: string) => string,
  ranAt: string | undefined,
) {
  // A run acts at the account's clock or later, never before it (a collection dated before the clock).
  const earlier = new Set(before.attempts.map((a) => a.key));
  for (const attempt of world.attempts.filter((a) => !earlier.has(a.key))) {
    expect(
      Date.parse(attempt.startedAt),
      at(`attempt ${attempt.key} made at ${attempt.startedAt}: not before the clock (${before.now})`),
    ).toBeGreaterThanOrEqual(Date.parse(before.now));
  }
  for (const { customerId, invoice } of invoicesOf(world)) {
    const id: number = invoice.invoiceID;
    const key = `invoice ${id} (${invoice.Status}, due ${model.dueDateOf.get(id)}, NextTryDate ${invoice.NextTryDate})`;
    const customer = world.customers.find((c) => c.id === customerId)!;
    const next = invoice.NextTryDate === null ? null : Date.parse(invoice.NextTryDate);
    const attempts = world.attempts.filter((a) => a.invoiceId === id);
    const owed = isIssued(invoice) && toMinor(invoice.Balance) > 0;
    if (isIssued(invoice) && !owed) {
      expect(invoice.NextTryDate, at(`${key}: no next try once paid`)).toBeNull();
    }
    if (attempts.some((a) => a.state === 'started')) {
      expect(invoice.NextTryDate, at(`${key}: no next try while in flight`)).toBeNull();
    }
    const lastDecided = attempts.filter((a) => DECIDED.has(a.state)).at(-1);
    const customerActedSince =
      lastDecided !== undefined && (model.settingsChangedAt.get(customerId) ?? '') >= lastDecided.startedAt;
    // Exhausted, unless the customer acted since the last try: a new card tries it again at once (docs/gateways.md,
    // "A new card").
    if (invoice.NumTries >= 5 && !customerActedSince) {
      expect(invoice.NextTryDate, at(`${key}: exhausted`)).toBeNull();
    }
    if (
      lastDecided?.reason === 'authentication_required' &&
      lastDecided === attempts.at(-1) &&
      !customerActedSince
    ) {
      expect(invoice.NextTryDate, at(`${key}: waits for the customer`)).toBeNull();
    }
    // Never tried (no attempt, or only technical errors, which do not count): the first try may be the DueDate.
    const firstTry = next !== null && invoice.NumTries === 0 && next === Date.parse(invoice.DueDate);
    if (next !== null && attempts.length === 0) {
      expect(next, at(`${key}: before the first attempt, the first try is on the DueDate`)).toBe(
        Date.parse(invoice.DueDate),
      );
    }
    // A retry scheduled while the customer paid by card, then by hand, and by card again is made by the next run:
    // until then it may be past.
    const resumed =
      invoice.CollectionSource === 'customer' &&
      attempts.length > 0 &&
      (model.settingsChangedAt.get(customerId) ?? '') >= attempts.at(-1)!.startedAt;
    if (next !== null && attempts.length > 0 && !firstTry && !resumed) {
      expect(
        next,
        at(`${key}: not in the past by more than a day (now ${world.now})`),
      ).toBeGreaterThanOrEqual(Date.parse(world.now) - DAY_MS);
    }
    if (ranAt !== undefined && owed) {
      if (next !== null) {
        expect(next, at(`${key}: after the run at ${ranAt}, a next try is later`)).toBeGreaterThan(
          Date.parse(ranAt),
        );
      }
      if (model.dueDateOf.get(id)! <= world.today && collectsItself(invoice, customer)) {
        expect(
          attempts.length,
          at(`${key}: due by ${world.today}, tried by the run at ${ranAt}`),
        ).toBeGreaterThan(0);
      }
    }
  }
}

const NO_METHOD = 'the customer has no primary payment method';

/**
 * Invoices and their customers' payment settings (docs/gateways.md, "From the customer's settings to the money"):
 * one that names its own card shows it; one that follows its customer shows what the customer's settings do now
 * (the primary card of a customer paying by credit_card; nothing for eft or none, with no next try; for a card
 * customer without a card, the problem and no next try). Once a run has seen such an invoice due and owed, the
 * customer was told of the problem: one invoice.collection_blocked event and one e-mail asking for a method, never
 * more, however many runs see it (here the only problem there can be is a missing card, and a card once added is
 * never removed, so never more than one per invoice).
 */
export function checkFollowing(
  world: World,
  model: Model,
  at: (what: string) => string,
  ranAt: string | undefined,
) {
  for (const customer of world.customers) {
    for (const invoice of customer.invoices) {
      const id: number = invoice.invoiceID;
      const key = `invoice ${id} (${invoice.CollectionSource}, customer ${customer.id} ${customer.paymentMethod}, primary ${customer.primaryMethodId})`;
      const told = world.blockedEvents.get(id) ?? 0;
      expect(told, at(`${key}: invoice.collection_blocked at most once`)).toBeLessThanOrEqual(1);
      expect(
        world.askingMails.get(invoice.invoiceNum) ?? 0,
        at(`${key}: one e-mail asking for a method per invoice.collection_blocked`),
      ).toBe(told);
      const shown = {
        CollectionMethod: invoice.CollectionMethod,
        gatewayID: invoice.gatewayID,
        customerPaymentMethodID: invoice.customerPaymentMethodID,
        CollectionProblem: invoice.CollectionProblem,
      };
      if (invoice.CollectionSource === 'invoice') {
        expect(shown, at(`${key}: its own collection`)).toMatchObject({
          CollectionMethod: 'credit_card',
          gatewayID: model.fx.gatewayId,
          CollectionProblem: null,
        });
        expect(told, at(`${key}: names its own, never reported blocked`)).toBe(0);
        continue;
      }
      expect(invoice.CollectionSource, at(`${key}: follows its customer`)).toBe('customer');
      if (customer.paymentMethod !== 'credit_card') {
        expect(
          { ...shown, NextTryDate: invoice.NextTryDate },
          at(`${key}: a customer who pays by hand: nothing collected, no next try`),
        ).toEqual({
          CollectionMethod: customer.paymentMethod,
          gatewayID: null,
          customerPaymentMethodID: null,
          CollectionProblem: null,
          NextTryDate: null,
        });
      } else if (customer.primaryMethodId !== null) {
        expect(shown, at(`${key}: the customer's primary card`)).toEqual({
          CollectionMethod: 'credit_card',
          gatewayID: model.fx.gatewayId,
          customerPaymentMethodID: customer.primaryMethodId,
          CollectionProblem: null,
        });
      } else {
        expect(
          { ...shown, gatewayID: undefined, NextTryDate: invoice.NextTryDate },
          at(`${key}: a card customer without a card: the problem, no next try`),
        ).toEqual({
          CollectionMethod: 'credit_card',
          gatewayID: undefined,
          customerPaymentMethodID: null,
          CollectionProblem: NO_METHOD,
          NextTryDate: null,
        });
        const dueAndOwed =
          isIssued(invoice) && toMinor(invoice.Balance) > 0 && model.dueDateOf.get(id)! <= world.today;
        if (ranAt !== undefined && dueAndOwed) {
          expect(told, at(`${key}: due and owed at the run at ${ranAt}: the customer was told`)).toBe(1);
        }
      }
    }
  }
}
