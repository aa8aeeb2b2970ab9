import fc from 'fast-check';
import { expect } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { toMinor, toWire } from '../helpers/ledger.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import { bankAccountBody, mandateBody, signedMandate } from '../mandates/fixtures.ts';
import { plusDays } from '../helpers/clock.ts';

// The command model of the collection-loop property (collectionLoop.property.test.ts): customers who pay by card or
// by debit order under a signed eMandate, their invoices, the money they hold unapplied (payments, credit notes,
// negative adjustments) with the account's ApplyCreditBeforeCollecting on or off, and the test clock driving the
// bill run over days and months: card declines (soft, hard, authentication_required) and debit returns (SA 02,
// presented again; 04 and 12, final) come from the test gateway's cards and bank accounts (docs/gateways.md, "The
// test gateway's cards" and "The test gateway's bank accounts"). How each step runs against the HTTP API is
// runLoopStep; the world read back after it is readLoopWorld; the invariants are in collectionLoop.invariants.ts.

/** A card the test gateway keeps, and what it does on each charge. */
export interface LoopCard {
  number: string;
  outcome: 'approved' | 'soft decline' | 'hard decline' | 'authentication_required' | 'technical error';
}
export const APPROVE: LoopCard = { number: '4242424242424242', outcome: 'approved' };
export const SOFT: LoopCard = { number: '4000000000009995', outcome: 'soft decline' };
/** Stored while good, reported lost since: declined lost_card, the card made not valid. */
export const HARD: LoopCard = { number: '4000000000000085', outcome: 'hard decline' };
export const AUTH: LoopCard = { number: '4000002500003155', outcome: 'authentication_required' };
export const TECHNICAL: LoopCard = { number: '4000000000000119', outcome: 'technical error' };

/** A bank account under a signed eMandate; its number picks what the test gateway does with a debit of it. */
export interface BankSpec {
  number: string;
  fate: 'paid' | 'unpaid 02' | 'unpaid 04' | 'closed 12' | 'paid, late unpaid 02';
}
export const PAID: BankSpec = { number: '62847123459876', fate: 'paid' };
export const UNPAID_02: BankSpec = { number: '9900000002', fate: 'unpaid 02' };
export const UNPAID_04: BankSpec = { number: '9900000004', fate: 'unpaid 04' };
export const CLOSED_12: BankSpec = { number: '9900000012', fate: 'closed 12' };
export const LATE_02: BankSpec = { number: '9900000101', fate: 'paid, late unpaid 02' };

export type CustomerSpec =
  | { kind: 'card'; card: LoopCard }
  | {
      kind: 'debit';
      bank: BankSpec;
      /** Monthly on `actionDay`, or ad hoc (no schedule, no periods). Variable amounts up to 1 500.00. */
      frequency: 'Monthly' | 'AdHoc';
      actionDay: number;
    };

export interface LoopSetup {
  /** When the account's clock starts: days after Monday 2027-03-01T06:00Z (weekends and holidays at random). */
  startDays: number;
  timeZone: 'UTC' | 'Africa/Johannesburg';
  applyCreditFirst: boolean;
  autoSubmit: boolean;
  customers: CustomerSpec[];
}

export type CreditSource = 'payment' | 'creditNote' | 'adjustment';

export type LoopStep =
  /**
   * An invoice of one line that follows its customer's settings (no CollectionMethod of its own), or, `own`, names
   * the customer's card or bank account itself (docs/gateways.md, "From the customer's settings to the money").
   */
  | { kind: 'invoice'; customer: number; own: boolean; amountMinor: number; dueIn: number }
  | { kind: 'advance'; minutes: number }
  /** Money the customer holds unapplied: a payment by EFT, a credit note, a negative adjustment. */
  | { kind: 'credit'; customer: number; source: CreditSource; amountMinor: number }
  | { kind: 'applyCreditFirst'; on: boolean }
  /**
   * A person submits the open batches (late ones are re-dated within their period, or their debits carried:
   * docs/gateways.md, "Batches that go out").
   */
  | { kind: 'submitBatches' }
  /** A card customer adds a new primary card (which retries at once what was tried: docs/gateways.md). */
  | { kind: 'newCard'; customer: number; card: LoopCard };

const cardArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(APPROVE) },
  { weight: 2, arbitrary: fc.constant(SOFT) },
  { weight: 2, arbitrary: fc.constant(HARD) },
  { weight: 2, arbitrary: fc.constant(AUTH) },
  { weight: 1, arbitrary: fc.constant(TECHNICAL) },
);
const bankArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(PAID) },
  { weight: 3, arbitrary: fc.constant(UNPAID_02) },
  { weight: 1, arbitrary: fc.constant(UNPAID_04) },
  { weight: 1, arbitrary: fc.constant(CLOSED_12) },
  { weight: 2, arbitrary: fc.constant(LATE_02) },
);

const customerArb: fc.Arbitrary<CustomerSpec> = fc.oneof(
  fc.record({ kind: fc.constant('card' as const), card: cardArb }),
  fc.record({
    kind: fc.constant('debit' as const),
    bank: bankArb,
    frequency: fc.constantFrom('Monthly' as const, 'AdHoc' as const),
    actionDay: fc.integer({ min: 1, max: 28 }),
  }),
);

export const loopSetupArb: fc.Arbitrary<LoopSetup> = fc.record({
  startDays: fc.integer({ min: 0, max: 60 }),
  timeZone: fc.constantFrom('UTC' as const, 'Africa/Johannesburg' as const),
  applyCreditFirst: fc.boolean(),
  autoSubmit: fc.oneof(
    { weight: 3, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  customers: fc.array(customerArb, { minLength: 1, maxLength: 3 }),
});

// Up to 2 000.00: a debit above the mandate's 1 500.00 maximum is refused by it (a CollectionProblem).
const invoiceArb: fc.Arbitrary<LoopStep> = fc.record({
  kind: fc.constant('invoice' as const),
  customer: fc.nat(),
  own: fc.boolean(),
  amountMinor: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 150_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 150_001, max: 200_000 }) },
  ),
  dueIn: fc.integer({ min: -3, max: 20 }),
});

const stepArb: fc.Arbitrary<LoopStep> = fc.oneof(
  { weight: 3, arbitrary: invoiceArb },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      minutes: fc.oneof(
        fc.integer({ min: 1, max: 36 }).map((h) => h * 60),
        fc.integer({ min: 1, max: 10 }).map((d) => d * 1_440),
        fc.integer({ min: 11, max: 40 }).map((d) => d * 1_440),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      customer: fc.nat(),
      source: fc.constantFrom<CreditSource>('payment', 'creditNote', 'adjustment'),
      amountMinor: fc.integer({ min: 1, max: 120_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('applyCreditFirst' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('submitBatches' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('newCard' as const), customer: fc.nat(), card: cardArb }),
  },
);

export const loopStepsArb = fc
  .tuple(
    fc.array(invoiceArb, { minLength: 1, maxLength: 3 }),
    fc.array(stepArb, { minLength: 1, maxLength: 14 }),
  )
  .map(([first, rest]): LoopStep[] => [...first, ...rest]);

export interface LoopCustomer {
  id: number;
  spec: CustomerSpec;
  /** Its primary payment method (the latest card added, or its bank account). */
  methodId: number;
}

export interface LoopFixture {
  as: TestAccount;
  accountId: number;
  gatewayId: number;
  customers: LoopCustomer[];
}

/** A test account billing in ZAR on its own clock, with the setup's settings and customers. */
export async function setUpLoop(t: TestService, setup: LoopSetup): Promise<LoopFixture> {
  const as = await t.newAccount('Collection loop property', {
    isTest: true,
    timeZone: setup.timeZone,
    currencyCode: 'ZAR',
  });
  await ok(as, 'PUT', '/v1/account', {
    ApplyCreditBeforeCollecting: setup.applyCreditFirst,
    AutoSubmitBatches: setup.autoSubmit,
    StaffEmail: 'staff@example.com',
  });
  const gateways = await ok<any[]>(as, 'GET', '/v1/gateways');
  const gatewayId = gateways.find((g) => g.GatewayType === 'test')?.gatewayID ?? gateways[0].gatewayID;
  const today = (await ok(as, 'GET', '/v1/test-clock')).Today as string;
  const customers: LoopCustomer[] = [];
  for (const [n, spec] of setup.customers.entries()) {
    const customer = await ok(as, 'POST', '/v1/customers', {
      Name: `Customer ${n + 1}`,
      Email: `c${n + 1}@example.com`,
      CurrencyCode: 'ZAR',
      PaymentMethod: spec.kind === 'card' ? 'credit_card' : 'debit_order',
    });
    const id = customer.customerID as number;
    let methodId: number;
    if (spec.kind === 'card') {
      methodId = await addCard(as, id, spec.card);
    } else {
      const token = await signedMandate(
        as,
        mandateBody(today, {
          bank_AccNumber: spec.bank.number,
          debit_Frequency: spec.frequency,
          debit_ActionDay: spec.actionDay,
          debit_Amt: 1_000,
          debit_MaxAmt: 1_500,
          debit_Escalation: 0,
          debit_VariableAmts: true,
        }),
      );
      const method = await ok(
        as,
        'POST',
        '/v1/paymentmethods/bankaccount',
        bankAccountBody(id, token, { AccountNumber: spec.bank.number }),
        200,
      );
      expect(method.isValid, 'a bank account under a signed mandate is valid at once').toBe(true);
      methodId = method.paymentMethodID as number;
    }
    customers.push({ id, spec, methodId });
  }
  return { as, accountId: as.accountId, gatewayId, customers };
}

/** Adds the card to the customer as its primary payment method. */
async function addCard(as: TestAccount, customerId: number, card: LoopCard): Promise<number> {
  const method = await ok(
    as,
    'POST',
    '/v1/paymentmethods/creditcard',
    {
      customerID: customerId,
      isPrimary: true,
      CreditCard: {
        CardType: 'Visa',
        Number: card.number,
        NameOnCard: 'Ada',
        LastNameOnCard: 'Lovelace',
        ExpiryMonth: 12,
        ExpiryYear: 2040,
      },
    },
    200,
  );
  return method.paymentMethodID as number;
}

export interface LoopOutcome {
  res: ApiResponse | null;
  expected?: number;
  /** The step ran the bill run (a test-clock advance). */
  ran?: boolean;
}

export async function runLoopStep(
  fx: LoopFixture,
  world: { now: string; today: string },
  step: LoopStep,
  seq: number,
): Promise<LoopOutcome> {
  const { as } = fx;
  switch (step.kind) {
    case 'invoice': {
      const customer = fx.customers[step.customer % fx.customers.length]!;
      const dueDate = plusDays(world.today, step.dueIn);
      const own = step.own
        ? {
            CollectionMethod: customer.spec.kind === 'card' ? 'credit_card' : 'debit_order',
            gatewayID: fx.gatewayId,
            customerPaymentMethodID: customer.methodId,
          }
        : {};
      const res = await as.request('POST', '/v1/invoices', {
        body: {
          ...own,
          customerID: customer.id,
          InvoiceDate: dueDate < world.today ? dueDate : world.today,
          DueDate: dueDate,
          Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: toWire(step.amountMinor) }],
        },
      });
      if (res.status === 201) expect(toMinor(res.body.Total)).toBe(step.amountMinor);
      return { res, expected: 201 };
    }
    case 'advance': {
      const to = new Date(Date.parse(world.now) + step.minutes * 60_000).toISOString();
      const res = await as.request('POST', '/v1/test-clock/advance', { body: { To: to } });
      return { res, expected: 200, ran: true };
    }
    case 'credit': {
      const customer = fx.customers[step.customer % fx.customers.length]!;
      const amount = toWire(step.amountMinor);
      if (step.source === 'payment') {
        const res = await as.request('POST', '/v1/payments', {
          body: {
            customerID: customer.id,
            Amount: amount,
            CurrencyCode: 'ZAR',
            Date: world.today,
            Method: 'eft',
            Ref: `EFT-${seq}`,
            allocations: [],
          },
        });
        return { res, expected: 201 };
      }
      if (step.source === 'creditNote') {
        const res = await as.request('POST', '/v1/credits', {
          body: {
            customerID: customer.id,
            Date: world.today,
            CurrencyCode: 'ZAR',
            Amount: amount,
            CreditNumber: `CN-${seq}`,
            Allocations: [],
          },
        });
        return { res, expected: 201 };
      }
      const res = await as.request('POST', '/v1/adjustment/add', {
        body: {
          AdjustmentType: 'credit_note',
          customerID: customer.id,
          Type: 'negative',
          Amount: amount,
          Date: world.today,
          Ref: `ADJ-${seq}`,
          Memo: 'Goodwill',
          AutoApply: false,
          Allocations: [],
        },
      });
      return { res, expected: 201 };
    }
    case 'applyCreditFirst': {
      const res = await as.request('PUT', '/v1/account', { body: { ApplyCreditBeforeCollecting: step.on } });
      return { res, expected: 204 };
    }
    case 'submitBatches': {
      const batches = await ok<any[]>(as, 'GET', '/v1/batches');
      const open = batches.filter((b) => b.State === 'open' && b.NumberOfPayments > 0);
      if (open.length === 0) return { res: null };
      const expected = await submitAnswer(fx, open[0].BatchToken, world.today);
      const res = await as.request('PUT', '/v1/batches/submit', { body: { BatchToken: open[0].BatchToken } });
      return { res, expected };
    }
    case 'newCard': {
      const cardCustomers = fx.customers.filter((c) => c.spec.kind === 'card');
      if (cardCustomers.length === 0) return { res: null };
      const customer = cardCustomers[step.customer % cardCustomers.length]!;
      customer.methodId = await addCard(as, customer.id, step.card);
      return { res: null };
    }
  }
}

/**
 * What submitting the batch answers today (docs/gateways.md, "Batches that go out"): 204, unless it is past its last
 * safe day and every line is under a monthly mandate, whose period has no other date: each line is carried ("Months
 * that stay in step"), the emptied batch is cancelled, and the submit answers 409. An ad hoc mandate's line is
 * re-dated and keeps the batch.
 */
async function submitAnswer(fx: LoopFixture, token: string, today: string): Promise<number> {
  const batch = await ok(fx.as, 'GET', `/v1/batches/${token}`);
  if (batch.ActionDate.slice(0, 10) >= earliestActionDate('debit_order', today)) return 204;
  const payments = await Promise.all(
    batch.Payments.map((line: { paymentID: number }) => ok(fx.as, 'GET', `/v1/payments/${line.paymentID}`)),
  );
  const adHoc = payments.some((payment) => {
    const spec = fx.customers.find((customer) => customer.id === payment.customerID)?.spec;
    return spec?.kind === 'debit' && spec.frequency === 'AdHoc';
  });
  return adHoc ? 204 : 409;
}
