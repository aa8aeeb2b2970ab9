import fc from 'fast-check';
import { expect } from 'vitest';
import { addBusinessDays, earliestActionDate, onBusinessDay } from '../../src/core/bankingDays.ts';
import { dateAt } from '../../src/core/calendar.ts';
import type { Rail } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { issuedInvoiceBody } from '../helpers/invoices.ts';
import { toMinor, toWire } from '../helpers/ledger.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { invoicesOf, paymentsOf } from '../collections/collection.fixtures.ts';
import type { Fixture, World } from '../collections/collection.fixtures.ts';
import { changedAllocations, isIssued, shareOf, sum } from '../collections/collection.model.ts';
import type { AllocationChange, Share } from '../collections/collection.model.ts';
import type { BatchView } from './batch.invariants.ts';
import { bankAccount, plusDays } from './fixtures.ts';

// The command model of the batch property (batch.property.test.ts): what a timeline is made of (its Setup and its
// Steps), how fast-check draws them, what the test remembers beyond the service's state (Model), and how each step
// runs against the HTTP API (runStep), with the status the documented rules (docs/gateways.md, "Debit orders and
// payment batches") make it answer. The invariants checked after each step are in batch.invariants.ts; the world is
// read back with the collection property's readWorld (invoices, payments, credit notes, customers' balances).

/** A bank account the test gateway gives a meaning to (docs/gateways.md, "The test gateway's bank accounts"). */
export interface BankSpec {
  rail: Rail;
  number: string;
  /** Validated through POST /v1/ValidateBankAccount; one that is not fails the build of a batch it is in. */
  validated: boolean;
  /** What the test gateway does with a line debiting it. */
  fate: 'paid' | 'unpaid 02' | 'closed 12' | 'paid, late unpaid 02' | 'unpaid R01';
}

export const PAID: BankSpec = { rail: 'debit_order', number: '1000000001', validated: true, fate: 'paid' };
export const UNPAID_02: BankSpec = {
  rail: 'debit_order',
  number: '9900000002',
  validated: true,
  fate: 'unpaid 02',
};
export const CLOSED_12: BankSpec = {
  rail: 'debit_order',
  number: '9900000012',
  validated: true,
  fate: 'closed 12',
};
export const LATE_UNPAID: BankSpec = {
  rail: 'debit_order',
  number: '9900000101',
  validated: true,
  fate: 'paid, late unpaid 02',
};
export const NOT_VALIDATED: BankSpec = { ...PAID, validated: false };
/** ACH accounts of a ZAR customer: their lines may not join a debit-order batch (one batch, one rail). */
export const ACH: BankSpec = { rail: 'ach', number: '000123456789', validated: true, fate: 'paid' };
export const ACH_R01: BankSpec = { rail: 'ach', number: '000222222227', validated: true, fate: 'unpaid R01' };

const bankSpecArb: fc.Arbitrary<BankSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(PAID) },
  { weight: 3, arbitrary: fc.constant(UNPAID_02) },
  { weight: 2, arbitrary: fc.constant(CLOSED_12) },
  { weight: 3, arbitrary: fc.constant(LATE_UNPAID) },
  { weight: 1, arbitrary: fc.constant(NOT_VALIDATED) },
  { weight: 1, arbitrary: fc.constant(ACH) },
  { weight: 1, arbitrary: fc.constant(ACH_R01) },
);

/** Zones: the account's (UTC, as the batch fixtures use) and South Africa's, two hours ahead. */
const ZONES = ['UTC', 'Africa/Johannesburg'] as const;

export interface Setup {
  /** When the account's clock starts: days after Monday 2027-03-01T08:00Z (weekends fall at random). */
  startDays: number;
  timeZone: string;
  /** Per customer (ZAR), its bank accounts; the first is the primary. */
  customers: BankSpec[][];
}

export type Step =
  | {
      kind: 'invoice';
      customer: number;
      account: number;
      amountMinor: number;
      dueIn: number;
      /** Collected by debit order (the run bundles it once due), or left to be paid by hand. */
      debitOrder: boolean;
    }
  | { kind: 'newBatch'; actionIn: number }
  | {
      kind: 'addLine';
      /** Among the open batches (or, when `anyBatch`, all of them: a closed one answers 409). */
      batch: number;
      anyBatch: boolean;
      customer: number;
      account: number;
      /** The first open invoice of the customer it pays, and whether it pays a second one too. */
      pick: number;
      second: boolean;
      share: Share;
      extraMinor: number;
      /** Asks one cent more than the first invoice owes: 422. */
      over: boolean;
    }
  | {
      kind: 'editLine';
      pick: number;
      anyLine: boolean;
      change: AllocationChange;
      extraMinor: number;
    }
  | { kind: 'deleteLine'; pick: number; anyLine: boolean }
  | {
      kind: 'submit';
      batch: number;
      anyBatch: boolean;
      /** Business days after the earliest action date the rail allows; −1: the next business day (a debit order's
       *  lead is two: 422; ACH's is one). */
      lead: number;
    }
  | { kind: 'cancel'; batch: number }
  | {
      kind: 'result';
      /** Among the lines of batches the bank reports on that have not failed (or, when `anyLine`, all: 409s). */
      pick: number;
      anyLine: boolean;
      status: 'paid' | 'unpaid';
      code: '02' | '04' | '12';
    }
  | { kind: 'pay'; pick: number; share: Share; extraMinor: number; method: 'eft' | 'cash' | 'cheque' }
  | { kind: 'credit'; pick: number; share: Share; extraMinor: number }
  | { kind: 'simulate'; pick: number; scenario: 'paid' | 'dispute' | 'refund' | 'unpaid:02' }
  /** DELETE /v1/payments/{id} on a line's payment: always 409 (a bank debit goes only through its batch). */
  | { kind: 'deletePayment'; pick: number }
  /** PUT /v1/payments/{id} on a line's payment (a settled one, or when `anyLine` any): its allocations moved. */
  | { kind: 'reallocate'; pick: number; anyLine: boolean; moveTo: number }
  | { kind: 'advance'; days: number; hours: number };

export const setupArb: fc.Arbitrary<Setup> = fc.record({
  startDays: fc.integer({ min: 0, max: 13 }),
  timeZone: fc.constantFrom(...ZONES),
  customers: fc.array(fc.array(bankSpecArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
});

const shareArb: fc.Arbitrary<Share> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ whole: true as const }) },
  { weight: 3, arbitrary: fc.record({ permille: fc.integer({ min: 1, max: 999 }) }) },
);
/** true one time in four, one in seven. */
const sometimes = fc.oneof(
  { weight: 3, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);
const rarely = fc.oneof(
  { weight: 6, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);
const extraArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }) },
);

export const invoiceArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('invoice' as const),
  customer: fc.nat(),
  account: fc.nat(),
  amountMinor: fc.integer({ min: 1, max: 250_000 }),
  dueIn: fc.integer({ min: 0, max: 6 }),
  debitOrder: fc.boolean(),
});

const newBatchArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('newBatch' as const),
  actionIn: fc.integer({ min: 0, max: 6 }),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: invoiceArb },
  { weight: 1, arbitrary: newBatchArb },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('addLine' as const),
      batch: fc.nat(),
      anyBatch: sometimes,
      customer: fc.nat(),
      account: fc.nat(),
      pick: fc.nat(),
      second: fc.boolean(),
      share: shareArb,
      extraMinor: extraArb,
      over: rarely,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('editLine' as const),
      pick: fc.nat(),
      anyLine: sometimes,
      change: fc.oneof(
        fc.constant('keep' as const),
        fc.constant('drop' as const),
        fc.record({ permille: fc.integer({ min: 1, max: 1000 }) }),
        fc.record({ moveTo: fc.nat() }),
      ),
      extraMinor: extraArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deleteLine' as const),
      pick: fc.nat(),
      anyLine: sometimes,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const),
      batch: fc.nat(),
      anyBatch: sometimes,
      lead: fc.constantFrom(-1, 0, 0, 1, 3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), batch: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      pick: fc.nat(),
      anyLine: sometimes,
      status: fc.constantFrom('paid' as const, 'unpaid' as const),
      code: fc.constantFrom('02' as const, '04' as const, '12' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      pick: fc.nat(),
      share: shareArb,
      extraMinor: extraArb,
      method: fc.constantFrom('eft' as const, 'cash' as const, 'cheque' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      pick: fc.nat(),
      share: shareArb,
      extraMinor: extraArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('simulate' as const),
      pick: fc.nat(),
      scenario: fc.constantFrom('paid' as const, 'dispute' as const, 'refund' as const, 'unpaid:02' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deletePayment' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('reallocate' as const),
      pick: fc.nat(),
      anyLine: sometimes,
      moveTo: fc.nat(),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      days: fc.integer({ min: 0, max: 5 }),
      hours: fc.constantFrom(0, 0, 6, 12),
    }),
  },
);

// An invoice or more and a manual batch first, so that most steps find something to bundle, pay or put in a batch.
export const stepsArb = fc
  .tuple(
    fc.array(invoiceArb, { minLength: 1, maxLength: 3 }),
    newBatchArb,
    fc.array(stepArb, { minLength: 1, maxLength: 30, size: 'large' }),
  )
  .map(([first, batch, rest]): Step[] => [...first, batch, ...rest]);

/** A customer of the timeline, with its bank accounts (each remembered with its spec). */
export interface CustomerFx {
  id: number;
  accounts: { paymentMethodId: number; spec: BankSpec }[];
}

/** What the test knows beyond the service's state. */
export interface Model {
  fx: Fixture;
  customers: CustomerFx[];
  gatewayToken: string;
  /** The batches the test made (POST /v1/batches); the others are the run's automatic ones. */
  manual: Set<string>;
  /** The state each batch was last seen in. */
  stateOf: Map<string, string>;
  seq: number;
  trace: string[];
}

export interface Outcome {
  res: ApiResponse | null;
  /** The statuses the rules allow for this request, as the world stood before it. */
  expected?: number[];
}

/** The timeline's account: ZAR enabled, its test gateway, customers with their bank accounts (validated or not). */
export async function setUpDebitAccount(
  as: TestAccount,
  timeZone: string,
  customers: readonly (readonly BankSpec[])[],
): Promise<{ fx: Fixture; customers: CustomerFx[]; gatewayToken: string }> {
  await ok(as, 'POST', '/v1/currencies', { CurrencyCode: 'ZAR' });
  const [gateway] = await ok<any[]>(as, 'GET', '/v1/gateways');
  const made: CustomerFx[] = [];
  for (const [n, specs] of customers.entries()) {
    const customer = await ok(as, 'POST', '/v1/customers', {
      Name: `Customer ${n + 1}`,
      Email: `c${n + 1}@example.com`,
      CurrencyCode: 'ZAR',
    });
    const accounts: CustomerFx['accounts'] = [];
    for (const [i, spec] of specs.entries()) {
      const details = bankAccount(spec.rail, spec.number);
      const method = await ok(
        as,
        'POST',
        '/v1/paymentmethods/bankaccount',
        { customerID: customer.customerID, isPrimary: i === 0, BankAccount: details },
        200,
      );
      if (spec.validated) {
        await ok(
          as,
          'POST',
          `/v1/ValidateBankAccount/${gateway.gatewayID}`,
          { customerID: customer.customerID, BankAccount: details },
          204,
        );
      }
      accounts.push({ paymentMethodId: method.paymentMethodID, spec });
    }
    made.push({ id: customer.customerID, accounts });
  }
  const fx: Fixture = {
    as,
    accountId: as.accountId,
    gatewayId: gateway.gatewayID,
    timeZone,
    customers: made.map((c) => ({ id: c.id, cards: [] })),
  };
  return { fx, customers: made, gatewayToken: gateway.GatewayToken };
}

/** The issued invoices that still owe something, with their customer. */
const openInvoices = (world: World) =>
  invoicesOf(world).filter(({ invoice }) => isIssued(invoice) && toMinor(invoice.Balance) > 0);

/** The states in which the bank reports on a batch's lines (a result recorded by hand answers 409 before). */
const LINE_STATES_REPORTED = ['submitted', 'processing', 'processed'];

/** The rail of a batch: its lines' (their payments' Method), none while it has no line. */
const railOfLines = (world: World, batch: BatchView): Rail | undefined =>
  linesOf(world, [batch]).find((l) => l.payment)?.payment.Method;

/** Every line of every batch, with its batch and its payment as the customer's payments list it. */
export function linesOf(world: World, batches: readonly BatchView[]) {
  const payments = new Map(paymentsOf(world).map((p) => [p.paymentID as number, p]));
  return batches.flatMap((batch) =>
    batch.lines.map((line) => ({ batch, paymentId: line.paymentId, payment: payments.get(line.paymentId) })),
  );
}

export async function runStep(
  model: Model,
  world: World,
  batches: readonly BatchView[],
  step: Step,
): Promise<Outcome> {
  const { as } = model.fx;
  const lines = linesOf(world, batches);
  const openBatches = batches.filter((b) => b.state === 'open');
  switch (step.kind) {
    case 'invoice': {
      const customer = model.customers[step.customer % model.customers.length]!;
      const { paymentMethodId } = customer.accounts[step.account % customer.accounts.length]!;
      const res = await as.request('POST', '/v1/invoices', {
        body: issuedInvoiceBody({
          customerId: customer.id,
          invoiceDate: world.today,
          dueDate: plusDays(world.today, step.dueIn),
          collect: step.debitOrder
            ? { method: 'debit_order', gatewayId: model.fx.gatewayId, paymentMethodId }
            : undefined,
          description: 'Subscription',
          amount: toWire(step.amountMinor),
        }),
      });
      if (res.status === 201) {
        expect(toMinor(res.body.Total), 'Total is the line (no tax)').toBe(step.amountMinor);
      }
      return { res, expected: [201] };
    }
    case 'newBatch': {
      const res = await as.request('POST', '/v1/batches', {
        body: {
          CurrencyCode: 'ZAR',
          GatewayToken: model.gatewayToken,
          // A person's ActionDate is an SA business day (docs/gateways.md, "Action dates a person sets").
          ActionDate: onBusinessDay(plusDays(world.today, step.actionIn), 'debit_order'),
          Notes: `Batch ${++model.seq}`,
        },
      });
      if (res.status === 201) model.manual.add(res.body.BatchToken);
      return { res, expected: [201] };
    }
    case 'addLine': {
      const pool = step.anyBatch ? batches : openBatches;
      if (pool.length === 0) return { res: null };
      const batch = pool[step.batch % pool.length]!;
      const customer = model.customers[step.customer % model.customers.length]!;
      const { paymentMethodId, spec } = customer.accounts[step.account % customer.accounts.length]!;
      const owed = openInvoices(world).filter((i) => i.customerId === customer.id);
      const applied: { invoiceID: number; amount: string }[] = [];
      let over = false;
      if (step.over) {
        // One cent more than the invoice owes (a paid invoice owes nothing: one cent is too much).
        const invoices = invoicesOf(world).filter((i) => i.customerId === customer.id && isIssued(i.invoice));
        const target = invoices[step.pick % Math.max(1, invoices.length)];
        if (target) {
          applied.push({
            invoiceID: target.invoice.invoiceID,
            amount: toWire(toMinor(target.invoice.Balance) + 1),
          });
          over = true;
        }
      } else if (owed.length > 0) {
        const first = owed[step.pick % owed.length]!;
        applied.push({
          invoiceID: first.invoice.invoiceID,
          amount: toWire(shareOf(step.share, toMinor(first.invoice.Balance))),
        });
        const second = owed[(step.pick + 1) % owed.length]!;
        if (step.second && second !== first) {
          applied.push({
            invoiceID: second.invoice.invoiceID,
            amount: toWire(toMinor(second.invoice.Balance)),
          });
        }
      }
      const amountMinor = Math.max(1, sum(applied.map((a) => toMinor(a.amount))) + step.extraMinor);
      const res = await as.request('POST', '/v1/batches/payments', {
        body: {
          BatchToken: batch.token,
          customerID: customer.id,
          Amount: toWire(amountMinor),
          paymentMethodID: paymentMethodId,
          Ref: `L-${++model.seq}`,
          PaymentApplied: applied,
        },
      });
      // Docs: one batch, one rail (its lines'); a batch whose lines were all removed takes any.
      const rail = railOfLines(world, batch);
      let expected = 201;
      if (batch.state !== 'open') expected = 409;
      else if ((rail !== undefined && rail !== spec.rail) || over) expected = 422;
      return { res, expected: [expected] };
    }
    case 'editLine': {
      const pending = lines.filter((l) => l.batch.state === 'open' && l.payment?.Status === 'Pending');
      const pool = step.anyLine ? lines : pending;
      if (pool.length === 0) return { res: null };
      const line = pool[step.pick % pool.length]!;
      const payment = line.payment;
      if (!payment)
        throw new Error(`line ${line.paymentId} of batch ${line.batch.token}: its payment is not listed`);
      const customer = world.customers.find((c) => c.id === payment.customerID)!;
      const applied = changedAllocations(customer.invoices, payment.Allocations, step.change);
      const amountMinor = Math.max(1, sum(applied.map((a) => a.amountMinor)) + step.extraMinor);
      const res = await as.request('PUT', '/v1/batches/payments', {
        body: {
          paymentID: payment.paymentID,
          BatchToken: line.batch.token,
          customerID: payment.customerID,
          Amount: toWire(amountMinor),
          PaymentApplied: applied.map(({ amountMinor: minor, ...a }) => ({ ...a, amount: toWire(minor) })),
        },
      });
      // Docs: a line is changed only while it is pending and its batch open.
      const changeable = line.batch.state === 'open' && payment.Status === 'Pending';
      return { res, expected: [changeable ? 204 : 409] };
    }
    case 'deleteLine': {
      const pending = lines.filter((l) => l.batch.state === 'open' && l.payment?.Status === 'Pending');
      const pool = step.anyLine ? lines : pending;
      if (pool.length === 0) return { res: null };
      const line = pool[step.pick % pool.length]!;
      const res = await as.request('DELETE', `/v1/batches/payments/${line.paymentId}`);
      const changeable = line.batch.state === 'open' && line.payment?.Status === 'Pending';
      return { res, expected: [changeable ? 204 : 409] };
    }
    case 'submit': {
      // Mostly an open batch with lines; sometimes any (409 for one closed or empty).
      const pool = step.anyBatch ? batches : openBatches.filter((b) => b.lines.length > 0);
      if (pool.length === 0) return { res: null };
      const batch = pool[step.batch % pool.length]!;
      const rail = railOfLines(world, batch) ?? 'debit_order';
      const earliest = earliestActionDate(rail, world.today);
      const actionDate =
        step.lead < 0
          ? addBusinessDays(world.today, 1, 'debit_order')
          : addBusinessDays(earliest, step.lead, 'debit_order');
      const res = await as.request('PUT', '/v1/batches/submit', {
        body: { BatchToken: batch.token, ActionDate: actionDate },
      });
      // Docs: an open batch with lines, on an ActionDate at least its rail's lead time ahead.
      let expected = 204;
      if (batch.state !== 'open' || batch.lines.length === 0) expected = 409;
      else if (actionDate < earliest) expected = 422;
      return { res, expected: [expected] };
    }
    case 'cancel': {
      if (batches.length === 0) return { res: null };
      const batch = batches[step.batch % batches.length]!;
      const res = await as.request('PUT', '/v1/batches/cancel', { body: { BatchToken: batch.token } });
      // Docs: from open or build, or from submitted before its action date; never once a line is recorded as paid
      // (its invoice would stay paid by a debit revoked before the bank made it: batch.property.test.ts, bug 1).
      // NOTE: the rule of the working tree at the time of writing; docs/gateways.md does not say it yet.
      const settled = linesOf(world, [batch]).some(
        (l) => l.payment && l.payment.Status !== 'Pending' && l.payment.Status !== 'Failed',
      );
      const cancellable =
        !settled &&
        (batch.state === 'open' ||
          batch.state === 'build' ||
          (batch.state === 'submitted' && world.today < batch.actionDate));
      return { res, expected: [cancellable ? 204 : 409] };
    }
    case 'result': {
      const reported = lines.filter((l) => LINE_STATES_REPORTED.includes(l.batch.state));
      const answerable = reported.filter((l) => l.payment?.Status !== 'Failed');
      const pool = step.anyLine ? lines : answerable;
      if (pool.length === 0) return { res: null };
      const line = pool[step.pick % pool.length]!;
      const res = await as.request('PUT', `/v1/batches/payments/${line.paymentId}/result`, {
        body: { Status: step.status, ...(step.status === 'unpaid' ? { ReasonCode: step.code } : {}) },
      });
      // Docs: recorded once the batch is with the bank (also after processed, a late return), final once failed.
      // NOTE: paid only from the action date (processing): the rule of the working tree at the time of writing.
      const status = line.payment?.Status;
      let expected = 204;
      if (!LINE_STATES_REPORTED.includes(line.batch.state)) expected = 409;
      else if (status === 'Failed' || (step.status === 'paid' && status !== 'Pending')) expected = 409;
      else if (step.status === 'paid' && line.batch.state === 'submitted') expected = 409;
      return { res, expected: [expected] };
    }
    case 'pay': {
      const open = openInvoices(world);
      if (open.length === 0) return { res: null };
      const { customerId, invoice } = open[step.pick % open.length]!;
      const applied = shareOf(step.share, toMinor(invoice.Balance));
      const res = await as.request('POST', '/v1/payments', {
        body: {
          customerID: customerId,
          Amount: toWire(applied + step.extraMinor),
          CurrencyCode: 'ZAR',
          Date: world.today,
          Method: step.method,
          Ref: `M-${++model.seq}`,
          allocations: [{ invoiceID: invoice.invoiceID, amountApplied: toWire(applied) }],
        },
      });
      return { res, expected: [201] };
    }
    case 'credit': {
      const open = openInvoices(world);
      if (open.length === 0) return { res: null };
      const { customerId, invoice } = open[step.pick % open.length]!;
      const applied = shareOf(step.share, toMinor(invoice.Balance));
      const res = await as.request('POST', '/v1/credits', {
        body: {
          customerID: customerId,
          Date: world.today,
          CurrencyCode: 'ZAR',
          Amount: toWire(applied + step.extraMinor),
          CreditNumber: `CN-${++model.seq}`,
          Allocations: [{ invoiceID: invoice.invoiceID, amountApplied: toWire(applied) }],
        },
      });
      return { res, expected: [201] };
    }
    case 'simulate': {
      if (lines.length === 0) return { res: null };
      const line = lines[step.pick % lines.length]!;
      const res = await as.request('POST', '/v1/test/simulate', {
        body: { paymentID: line.paymentId, scenario: step.scenario },
      });
      // Docs, "Late answers": on a line, the bank's report takes the path of a real one: only once the batch is
      // submitted, `paid` only on a pending line of a batch the bank processes, and nothing on a failed line.
      const status = line.payment?.Status;
      const state = line.batch.state;
      const reporting = ['submitted', 'processing', 'processed'].includes(state);
      const allowed =
        reporting &&
        status !== 'Failed' &&
        (step.scenario !== 'paid' || (status === 'Pending' && state !== 'submitted'));
      return { res, expected: [allowed ? 200 : 409] };
    }
    case 'deletePayment': {
      if (lines.length === 0) return { res: null };
      const line = lines[step.pick % lines.length]!;
      const res = await as.request('DELETE', `/v1/payments/${line.paymentId}`);
      // Docs: a pending line is changed only through its batch (409 payment_in_collection); NOTE: and a line is
      // never deleted there (409 payment_collected: the bank may still return it), as of commit a3f5b8c.
      return { res, expected: [409] };
    }
    case 'reallocate': {
      // A line's money moved to another invoice of its customer through PUT /v1/payments: only its allocations.
      const pool = lines.filter((l) => l.payment && (step.anyLine || l.payment.Status !== 'Pending'));
      if (pool.length === 0) return { res: null };
      const { payment } = pool[step.pick % pool.length]!;
      const customer = world.customers.find((c) => c.id === payment.customerID)!;
      const held: any[] = payment.Allocations;
      const heldOn = (invoiceId: number) =>
        sum(held.filter((a) => a.invoiceID === invoiceId).map((a) => toMinor(a.amountApplied)));
      const openOf = (invoice: any) => toMinor(invoice.Balance) + heldOn(invoice.invoiceID);
      const candidates = customer.invoices.filter((i) => isIssued(i) && openOf(i) > 0);
      const target = candidates[step.moveTo % Math.max(1, candidates.length)];
      const amountMinor = toMinor(payment.Amount);
      const allocations = target
        ? [{ invoiceID: target.invoiceID, amountApplied: toWire(Math.min(amountMinor, openOf(target))) }]
        : [];
      const res = await as.request('PUT', `/v1/payments/${payment.paymentID}`, {
        body: {
          customerID: payment.customerID,
          Amount: toWire(amountMinor),
          CurrencyCode: payment.CurrencyCode,
          Date: dateAt(payment.Date, model.fx.timeZone),
          Method: payment.Method,
          Ref: payment.Ref,
          Allocations: allocations,
        },
      });
      // Docs: a pending line changes through its batch (payment_in_collection), a failed payment not at all.
      return { res, expected: [payment.Status === 'Pending' || payment.Status === 'Failed' ? 409 : 204] };
    }
    case 'advance': {
      const to = new Date(Date.parse(world.now) + (step.days * 24 + step.hours) * 3_600_000).toISOString();
      const res = await as.request('POST', '/v1/test-clock/advance', { body: { To: to } });
      return { res, expected: [200] };
    }
  }
}
