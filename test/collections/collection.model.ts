import fc from 'fast-check';
import { expect } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { collectDueInvoices } from '../../src/modules/collections/index.ts';
import { accountContext } from '../helpers/context.ts';
import { toMinor, toWire } from '../helpers/ledger.ts';
import type { ApiResponse, TestService } from '../helpers/service.ts';
import {
  addCard,
  cardArb,
  customerSpecArb,
  invoicesOf,
  paymentMethodArb,
  paymentsOf,
} from './collection.fixtures.ts';
import type { CardSpec, CustomerPaymentMethod, CustomerSpec, Fixture, World } from './collection.fixtures.ts';
import { plusDays } from '../helpers/clock.ts';

// The command model of the collection property (collection.property.test.ts): what a timeline is made of (its
// Setup and its Steps), how fast-check draws them, what the test remembers beyond the service's state (Model), and
// how each step runs against the service's HTTP API (runStep). The invariants checked after each step are in
// collection.invariants.ts.

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
export const sum = (list: readonly number[]) => list.reduce((s, n) => s + n, 0);

/** Zones: UTC, with DST changes in the weeks the runs cover (New York, Auckland), and with odd offsets. */
const ZONES = ['UTC', 'America/New_York', 'Pacific/Auckland', 'Asia/Kolkata', 'Pacific/Chatham'] as const;

export interface Setup {
  /** When the account's clock starts: hours after 2027-03-10T00:00Z (New York moves to DST on 2027-03-14). */
  startHours: number;
  timeZone: string;
  /** Per customer, its payment settings and cards. */
  customers: CustomerSpec[];
}

export type Among = 'open' | 'inFlight';

/** A share of what is open on an invoice: all of it, or a part (per mille, at least 0.01). */
export type Share = { whole: true } | { permille: number };

export type Step =
  | {
      kind: 'invoice';
      customer: number;
      /**
       * Names its own collection (one of the customer's cards, `card`), or, false or the customer having no card,
       * names none and follows the customer's payment settings.
       */
      own: boolean;
      card: number;
      linesMinor: number[];
      dueIn: number;
    }
  /** The customer's PaymentMethod changed (PUT /v1/customers/{id}). */
  | { kind: 'setPaymentMethod'; customer: number; to: CustomerPaymentMethod }
  /** A new card made the customer's primary (which retries its invoices already tried at once). */
  | { kind: 'newCard'; customer: number; card: CardSpec }
  | { kind: 'advance'; minutes: number }
  | {
      kind: 'pay';
      /** Among the open invoices, or those whose charge is in flight (money arriving by other means meanwhile). */
      among: Among;
      pick: number;
      share: Share;
      extraMinor: number;
      method: 'eft' | 'cash' | 'cheque';
    }
  | {
      kind: 'editPayment';
      pick: number;
      change: AllocationChange;
      extraMinor: number;
    }
  | { kind: 'deletePayment'; pick: number }
  | { kind: 'credit'; among: Among; pick: number; share: Share; extraMinor: number }
  | { kind: 'reverse'; pick: number }
  | { kind: 'finishUnanswered' };

export const setupArb: fc.Arbitrary<Setup> = fc.record({
  startHours: fc.integer({ min: 0, max: 24 * 40 }),
  timeZone: fc.constantFrom(...ZONES),
  customers: fc.array(customerSpecArb, { minLength: 1, maxLength: 3 }),
});

const shareArb: fc.Arbitrary<Share> = fc.oneof(
  fc.constant({ whole: true as const }),
  fc.record({ permille: fc.integer({ min: 1, max: 999 }) }),
);
const amongArb = fc.constantFrom<Among>('open', 'inFlight');
const extraArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }) },
);

const invoiceArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('invoice' as const),
  customer: fc.nat(),
  own: fc.boolean(),
  card: fc.nat(),
  linesMinor: fc.array(fc.integer({ min: 1, max: 250_000 }), { minLength: 1, maxLength: 2 }),
  dueIn: fc.integer({ min: -3, max: 10 }),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: invoiceArb },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      minutes: fc.oneof(
        // The technical errors' back-off (5, 10, 20 … minutes), hours, and the soft retries' days.
        fc.integer({ min: 5, max: 120 }),
        fc.integer({ min: 1, max: 36 }).map((h) => h * 60),
        fc.integer({ min: 1, max: 16 }).map((d) => d * 1_440),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      among: amongArb,
      pick: fc.nat(),
      share: shareArb,
      extraMinor: extraArb,
      method: fc.constantFrom('eft' as const, 'cash' as const, 'cheque' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('editPayment' as const),
      pick: fc.nat(),
      change: fc.oneof(
        fc.constant('keep' as const),
        fc.constant('drop' as const),
        fc.record({ permille: fc.integer({ min: 1, max: 1000 }) }),
        fc.record({ moveTo: fc.nat() }),
      ),
      extraMinor: extraArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deletePayment' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      among: amongArb,
      pick: fc.nat(),
      share: shareArb,
      extraMinor: extraArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finishUnanswered' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setPaymentMethod' as const),
      customer: fc.nat(),
      to: paymentMethodArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('newCard' as const), customer: fc.nat(), card: cardArb }),
  },
);

// An invoice or more first, so that most steps find something to collect, pay or reverse.
export const stepsArb = fc
  .tuple(
    fc.array(invoiceArb, { minLength: 1, maxLength: 3 }),
    fc.array(stepArb, { minLength: 1, maxLength: 18 }),
  )
  .map(([first, rest]): Step[] => [...first, ...rest]);

/** What the test knows beyond the service's state. */
export interface Model {
  fx: Fixture;
  /** Each card (by payment method) as the test added it; each invoice's DueDate (a date in the account's zone). */
  cardOfMethod: Map<number, CardSpec>;
  dueDateOf: Map<number, string>;
  /** Manual payments made by the test: their fields, which an edit sends back. */
  manual: Map<number, { ref: string; date: string; method: string }>;
  /** Payments the test deleted (manual ones, and collected ones reversed). */
  deleted: Set<number>;
  /** Per invoice, how many steps of the test gave money back to it (a payment deleted or edited off it). */
  reopened: Map<number, number>;
  /** Per customer, when it last acted on how it pays: its PaymentMethod changed, or a new primary card (the clock). */
  settingsChangedAt: Map<number, string>;
  /** Per customer, when each new primary card came (the clock): each may try an exhausted invoice once more. */
  newCardsAt: Map<number, string[]>;
  seq: number;
  trace: string[];
}

export interface Outcome {
  res: ApiResponse | null;
  expected?: number;
  /** When the step ran a collection (a bill run): the business time of its last run. */
  ranAt?: string;
}

export const isIssued = (invoice: any) => !invoice.isDraft && !invoice.isCancelled;
/** The invoices money can go to; with `inFlight`, those whose charge is in flight when there are some. */
function openInvoices(world: World, among: Among = 'open') {
  const open = invoicesOf(world).filter(({ invoice }) => isIssued(invoice) && toMinor(invoice.Balance) > 0);
  const started = new Set(world.attempts.filter((a) => a.state === 'started').map((a) => a.invoiceId));
  const inFlight = open.filter(({ invoice }) => started.has(invoice.invoiceID));
  return among === 'inFlight' && inFlight.length > 0 ? inFlight : open;
}
export const shareOf = (share: Share, openMinor: number) =>
  'whole' in share ? openMinor : Math.max(1, Math.floor((openMinor * share.permille) / 1000));

/** How an edit changes a payment's allocations: keep them, drop them, resize the first, or move it whole. */
export type AllocationChange = 'keep' | 'drop' | { permille: number } | { moveTo: number };

/**
 * The allocations a payment (or a batch line, a payment too) holding `held` has after `change`, among its
 * customer's `invoices`, counting what it holds on an invoice as open there; amounts in minor units.
 */
export function changedAllocations(
  invoices: readonly any[],
  held: readonly any[],
  change: AllocationChange,
): { allocationID?: number; invoiceID: number; amountMinor: number }[] {
  const heldOn = (invoiceId: number) =>
    sum(held.filter((a) => a.invoiceID === invoiceId).map((a) => toMinor(a.amountApplied)));
  const openOf = (invoice: any) => toMinor(invoice.Balance) + heldOn(invoice.invoiceID);
  const candidates = invoices.filter((i) => isIssued(i) && openOf(i) > 0);
  if (change === 'keep') {
    return held.map((a) => ({
      allocationID: a.allocationID,
      invoiceID: a.invoiceID,
      amountMinor: toMinor(a.amountApplied),
    }));
  }
  if (change === 'drop') return [];
  if ('permille' in change) {
    const first = held[0];
    const target = first ? invoices.find((i) => i.invoiceID === first.invoiceID) : candidates[0];
    return target && openOf(target) > 0
      ? [
          {
            ...(first ? { allocationID: first.allocationID } : {}),
            invoiceID: target.invoiceID,
            amountMinor: shareOf({ permille: change.permille }, openOf(target)),
          },
        ]
      : [];
  }
  const target = candidates[change.moveTo % Math.max(1, candidates.length)];
  return target ? [{ invoiceID: target.invoiceID, amountMinor: openOf(target) }] : [];
}
export const collected = (payment: any) => payment.Method === 'credit_card';

export async function runStep(t: TestService, model: Model, world: World, step: Step): Promise<Outcome> {
  const { fx } = model;
  const { as } = fx;
  switch (step.kind) {
    case 'invoice': {
      const customer = fx.customers[step.customer % fx.customers.length]!;
      const own = step.own && customer.cards.length > 0;
      const collection = own
        ? {
            CollectionMethod: 'credit_card',
            gatewayID: fx.gatewayId,
            customerPaymentMethodID: customer.cards[step.card % customer.cards.length]!.paymentMethodId,
          }
        : {};
      const dueDate = plusDays(world.today, step.dueIn);
      const res = await as.request('POST', '/v1/invoices', {
        body: {
          customerID: customer.id,
          InvoiceDate: dueDate < world.today ? dueDate : world.today,
          DueDate: dueDate,
          ...collection,
          Charges: step.linesMinor.map((minor, i) => ({
            Descrip: `Work ${i + 1}`,
            Qty: 1,
            UnitCostEx: toWire(minor),
          })),
        },
      });
      if (res.status === 201) {
        model.dueDateOf.set(res.body.invoiceID, dueDate);
        expect(toMinor(res.body.Total), 'Total is the sum of the lines (no tax)').toBe(sum(step.linesMinor));
        expect(res.body.CollectionSource, 'names its own collection, or follows the customer').toBe(
          own ? 'invoice' : 'customer',
        );
      }
      return { res, expected: 201 };
    }
    case 'setPaymentMethod': {
      const customer = fx.customers[step.customer % fx.customers.length]!;
      const res = await as.request('PUT', `/v1/customers/${customer.id}`, {
        body: { PaymentMethod: step.to },
      });
      if (res.status === 204) model.settingsChangedAt.set(customer.id, world.now);
      return { res, expected: 204 };
    }
    case 'newCard': {
      const customer = fx.customers[step.customer % fx.customers.length]!;
      const paymentMethodId = await addCard(as, customer.id, step.card, true);
      customer.cards.push({ paymentMethodId, card: step.card });
      model.cardOfMethod.set(paymentMethodId, step.card);
      // A new primary card is the customer acting: invoices waiting for it are tried again (docs/gateways.md, "A
      // new card").
      model.settingsChangedAt.set(customer.id, world.now);
      model.newCardsAt.set(customer.id, [...(model.newCardsAt.get(customer.id) ?? []), world.now]);
      return { res: null };
    }
    case 'advance': {
      const to = new Date(Date.parse(world.now) + step.minutes * MINUTE_MS).toISOString();
      const res = await as.request('POST', '/v1/test-clock/advance', { body: { To: to } });
      return { res, expected: 200, ranAt: to };
    }
    case 'pay': {
      const open = openInvoices(world, step.among);
      const date = world.today;
      const ref = `M-${++model.seq}`;
      let body: Record<string, unknown>;
      if (open.length === 0) {
        // Nothing open: money on account, unallocated.
        const customer = fx.customers[step.pick % fx.customers.length]!;
        body = { customerID: customer.id, Amount: toWire(Math.max(1, step.extraMinor)), allocations: [] };
      } else {
        const { customerId, invoice } = open[step.pick % open.length]!;
        const applied = shareOf(step.share, toMinor(invoice.Balance));
        body = {
          customerID: customerId,
          Amount: toWire(applied + step.extraMinor),
          allocations: [{ invoiceID: invoice.invoiceID, amountApplied: toWire(applied) }],
        };
      }
      const res = await as.request('POST', '/v1/payments', {
        body: { ...body, CurrencyCode: 'USD', Date: date, Method: step.method, Ref: ref },
      });
      if (res.status === 201) model.manual.set(res.body.paymentID, { ref, date, method: step.method });
      return { res, expected: 201 };
    }
    case 'editPayment': {
      const manual = paymentsOf(world).filter((p) => model.manual.has(p.paymentID));
      if (manual.length === 0) return { res: null };
      const payment = manual[step.pick % manual.length]!;
      const made = model.manual.get(payment.paymentID)!;
      const customer = world.customers.find((c) => c.id === payment.customerID)!;
      const allocations = changedAllocations(customer.invoices, payment.Allocations, step.change);
      const amountMinor = Math.max(1, sum(allocations.map((a) => a.amountMinor)) + step.extraMinor);
      const res = await as.request('PUT', `/v1/payments/${payment.paymentID}`, {
        body: {
          customerID: payment.customerID,
          Amount: toWire(amountMinor),
          CurrencyCode: 'USD',
          Date: made.date,
          Method: made.method,
          Ref: made.ref,
          Allocations: allocations.map(({ amountMinor: minor, ...a }) => ({
            ...a,
            amountApplied: toWire(minor),
          })),
        },
      });
      return { res, expected: 204 };
    }
    case 'deletePayment': {
      const manual = paymentsOf(world).filter((p) => model.manual.has(p.paymentID));
      if (manual.length === 0) return { res: null };
      const payment = manual[step.pick % manual.length]!;
      const res = await as.request('DELETE', `/v1/payments/${payment.paymentID}`);
      if (res.status === 204) {
        model.manual.delete(payment.paymentID);
        model.deleted.add(payment.paymentID);
      }
      return { res, expected: 204 };
    }
    case 'credit': {
      const open = openInvoices(world, step.among);
      if (open.length === 0) return { res: null };
      const { customerId, invoice } = open[step.pick % open.length]!;
      const applied = shareOf(step.share, toMinor(invoice.Balance));
      const res = await as.request('POST', '/v1/credits', {
        body: {
          customerID: customerId,
          Date: world.today,
          CurrencyCode: 'USD',
          Amount: toWire(applied + step.extraMinor),
          CreditNumber: `CN-${++model.seq}`,
          Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: toWire(applied) }],
        },
      });
      return { res, expected: 201 };
    }
    case 'reverse': {
      // The only reversal the model makes: deleting the collected payment through the API. Late reversals by the
      // gateway (docs/gateways.md, "Late answers") are tested in cardCollection.test.ts.
      const collectedPayments = paymentsOf(world).filter(collected);
      if (collectedPayments.length === 0) return { res: null };
      const payment = collectedPayments[step.pick % collectedPayments.length]!;
      const res = await as.request('DELETE', `/v1/payments/${payment.paymentID}`);
      if (res.status === 204) model.deleted.add(payment.paymentID);
      return { res, expected: 204 };
    }
    case 'finishUnanswered': {
      // The next collection run, at the account's clock, once unanswered charges count as stale (here at once).
      const ctx = await accountContext(t, fx.accountId, fixedClock(world.now));
      await collectDueInvoices(ctx, { staleAfterMs: 0 });
      return { res: null, ranAt: world.now };
    }
  }
}
