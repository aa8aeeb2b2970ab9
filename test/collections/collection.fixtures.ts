import fc from 'fast-check';
import { ok } from '../helpers/billing.ts';
import { toMinor } from '../helpers/ledger.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';

// What the collection property (collection.property.test.ts) needs around it: the test gateway's cards by the
// class of outcome they give (docs/gateways.md), random approving Visa numbers, customers' random payment settings,
// and the world of one test account read back whole: through the API (invoices, payments, credit notes, customers'
// balances and settings, the clock) and, where the API does not show it, through the database (collection
// attempts, the test gateway's charges, the invoice.collection_blocked events and the e-mails asking for a method).

/** What a card does on each charge. */
export type CardClass = 'approve' | 'soft' | 'technical' | 'auth' | 'unanswered';

export interface CardSpec {
  number: string;
  cls: CardClass;
  /** The FailureReason of a payment this card fails (soft and auth cards). */
  reason: string | null;
}

/** The numbers the test gateway gives a meaning to (docs/gateways.md): never produced as "any other number". */
const MAGIC = new Set([
  '4242424242424242',
  '5555555555554444',
  '4000000000000002',
  '4000000000000069',
  '4000000000009987',
  '4000000000009979',
  '4000000000009995',
  '4000000000000341',
  '4000000000000119',
  '4000000000000408',
  '4000002500003155',
  '4000002760003184',
]);

/** The payload with its Luhn check digit appended. */
export function withLuhnDigit(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i += 1) {
    // From the right: the digit next to the check digit is doubled.
    let digit = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return payload + String((10 - (sum % 10)) % 10);
}

/** A 16-digit Visa number that passes Luhn and means nothing to the test gateway: approved. */
const otherVisaArb: fc.Arbitrary<string> = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 14, maxLength: 14 })
  .map((digits) => withLuhnDigit(`4${digits.join('')}`))
  .filter((number) => !MAGIC.has(number));

const card = (cls: CardClass, reason: string | null) => (number: string) => ({ number, cls, reason });

export const cardArb: fc.Arbitrary<CardSpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.oneof(fc.constant('4242424242424242'), otherVisaArb).map(card('approve', null)),
  },
  { weight: 2, arbitrary: fc.constant('4000000000009995').map(card('soft', 'insufficient_funds')) },
  { weight: 2, arbitrary: fc.constant('4000000000000341').map(card('soft', 'card_declined')) },
  { weight: 1, arbitrary: fc.constant('4000000000000119').map(card('technical', null)) },
  { weight: 1, arbitrary: fc.constant('4000002500003155').map(card('auth', 'authentication_required')) },
  { weight: 2, arbitrary: fc.constant('4000000000000408').map(card('unanswered', null)) },
);

/**
 * The customer's PaymentMethod: `credit_card` collects the invoices that follow it from its primary card; `eft` and
 * none leave them to the customer (docs/gateways.md, "From the customer's settings to the money").
 */
export type CustomerPaymentMethod = 'credit_card' | 'eft' | null;

/** A customer's payment settings and cards (the first one primary); a customer may have no card at all. */
export interface CustomerSpec {
  paymentMethod: CustomerPaymentMethod;
  /** PrimaryGatewayID set to the test gateway, or left out (then the gateway that keeps the primary card). */
  primaryGateway: boolean;
  cards: CardSpec[];
}

export const paymentMethodArb: fc.Arbitrary<CustomerPaymentMethod> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('credit_card' as const) },
  { weight: 1, arbitrary: fc.constant('eft' as const) },
  { weight: 1, arbitrary: fc.constant(null) },
);

export const customerSpecArb: fc.Arbitrary<CustomerSpec> = fc.record({
  paymentMethod: paymentMethodArb,
  primaryGateway: fc.boolean(),
  // One customer in five has no card at all: its invoices that follow a credit_card setting cannot be collected.
  cards: fc.oneof(
    { weight: 1, arbitrary: fc.constant<CardSpec[]>([]) },
    { weight: 4, arbitrary: fc.array(cardArb, { minLength: 1, maxLength: 2 }) },
  ),
});

/** A test account with its test gateway, customers and their cards (each remembered with its class). */
export interface Fixture {
  as: TestAccount;
  accountId: number;
  gatewayId: number;
  timeZone: string;
  customers: { id: number; cards: { paymentMethodId: number; card: CardSpec }[] }[];
}

/** Adds a card to the customer (primary or not) at the test gateway; its paymentMethodID. */
export async function addCard(
  as: TestAccount,
  customerId: number,
  spec: CardSpec,
  isPrimary: boolean,
): Promise<number> {
  const method = await ok(
    as,
    'POST',
    '/v1/paymentmethods/creditcard',
    {
      customerID: customerId,
      isPrimary,
      CreditCard: {
        CardType: 'Visa',
        Number: spec.number,
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

export async function setUpAccount(
  t: TestService,
  timeZone: string,
  customers: readonly CustomerSpec[],
): Promise<Fixture> {
  const as = await t.newAccount('Collections property', { isTest: true, timeZone });
  const gateways = await ok<any[]>(as, 'GET', '/v1/gateways');
  const gatewayId = gateways.find((g) => g.GatewayType === 'test')?.gatewayID ?? gateways[0].gatewayID;
  const fixture: Fixture = { as, accountId: as.accountId, gatewayId, timeZone, customers: [] };
  for (const [n, spec] of customers.entries()) {
    const customer = await ok(as, 'POST', '/v1/customers', {
      Name: `Customer ${n + 1}`,
      Email: `c${n + 1}@example.com`,
      PaymentMethod: spec.paymentMethod,
      ...(spec.primaryGateway ? { PrimaryGatewayID: gatewayId } : {}),
    });
    const made: Fixture['customers'][number] = { id: customer.customerID as number, cards: [] };
    for (const [i, card] of spec.cards.entries()) {
      made.cards.push({ paymentMethodId: await addCard(as, made.id, card, i === 0), card });
    }
    fixture.customers.push(made);
  }
  return fixture;
}

export interface AttemptView {
  invoiceId: number;
  paymentMethodId: number;
  attemptNo: number;
  key: string;
  state: string;
  reason: string | null;
  amountMinor: number;
  paymentId: number | null;
  startedAt: string;
}

export interface ChargeView {
  key: string;
  chargeId: string;
  amountMinor: number;
  outcome: string;
  reason: string | null;
}

export interface CustomerView {
  id: number;
  balanceMinor: number;
  /** Its payment settings as they stand: PaymentMethod, and the primary payment method (null: none). */
  paymentMethod: string | null;
  primaryMethodId: number | null;
  invoices: any[];
  payments: any[];
  credits: any[];
}

/** One account's world, read back whole after a step. */
export interface World {
  /** The account's clock (an instant) and its calendar date in the account's time zone. */
  now: string;
  today: string;
  customers: CustomerView[];
  attempts: AttemptView[];
  charges: ChargeView[];
  /** Per invoice, its invoice.collection_blocked events. */
  blockedEvents: Map<number, number>;
  /** Per invoice number, the e-mails asking its customer for a payment method. */
  askingMails: Map<number, number>;
}

/** The subject of the e-mail that asks a customer for a payment method (blockedCollection.service.ts). */
const ASKING_SUBJECT = /^Invoice (\d+) from .*: we need a payment method$/;

const countBy = <K>(keys: readonly K[]) => {
  const counts = new Map<K, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
};

const all = (as: TestAccount, path: string) => ok<any[]>(as, 'GET', `${path}?page_size=200`);

export async function readWorld(t: TestService, fx: Fixture): Promise<World> {
  const db = t.service.storage.db;
  const [clock, customers, attempts, charges, blocked, mails] = await Promise.all([
    ok(fx.as, 'GET', '/v1/test-clock'),
    Promise.all(
      fx.customers.map(async ({ id }) => {
        const [customer, invoices, payments, credits] = await Promise.all([
          ok(fx.as, 'GET', `/v1/customers/${id}`),
          all(fx.as, `/v1/customers/${id}/invoices`),
          all(fx.as, `/v1/customers/${id}/payments`),
          all(fx.as, `/v1/customers/${id}/credits`),
        ]);
        return {
          id,
          balanceMinor: toMinor(customer.Balance),
          paymentMethod: customer.PaymentMethod,
          primaryMethodId: customer.PrimaryPaymentMethodInfo?.paymentMethodID ?? null,
          invoices,
          payments,
          credits,
        };
      }),
    ),
    db
      .selectFrom('collection_attempts')
      .select([
        'invoice_id',
        'payment_method_id',
        'attempt_no',
        'idempotency_key',
        'state',
        'reason',
        'amount_minor',
        'payment_id',
        'started_at',
      ])
      .where('account_id', '=', fx.accountId)
      .orderBy('invoice_id')
      .orderBy('attempt_no')
      .execute(),
    db
      .selectFrom('test_gateway_charges')
      .select(['idempotency_key', 'charge_id', 'amount_minor', 'outcome', 'reason'])
      .where('gateway_id', '=', fx.gatewayId)
      .orderBy('idempotency_key')
      .execute(),
    db
      .selectFrom('events')
      .select('resource_id')
      .where('account_id', '=', fx.accountId)
      .where('type', '=', 'invoice.collection_blocked')
      .execute(),
    db.selectFrom('mail_outbox').select('subject').where('account_id', '=', fx.accountId).execute(),
  ]);
  return {
    now: new Date(clock.Now).toISOString(),
    today: clock.Today,
    customers,
    attempts: attempts.map((a) => ({
      invoiceId: Number(a.invoice_id),
      paymentMethodId: Number(a.payment_method_id),
      attemptNo: Number(a.attempt_no),
      key: a.idempotency_key,
      state: a.state,
      reason: a.reason,
      amountMinor: Number(a.amount_minor),
      paymentId: a.payment_id === null ? null : Number(a.payment_id),
      startedAt: new Date(a.started_at).toISOString(),
    })),
    charges: charges.map((c) => ({
      key: c.idempotency_key,
      chargeId: c.charge_id,
      amountMinor: Number(c.amount_minor),
      outcome: c.outcome,
      reason: c.reason,
    })),
    blockedEvents: countBy(blocked.map((e) => Number(e.resource_id))),
    askingMails: countBy(
      mails.flatMap((m) => {
        const number = ASKING_SUBJECT.exec(m.subject)?.[1];
        return number === undefined ? [] : [Number(number)];
      }),
    ),
  };
}

/** Every invoice of the world, with its customer. */
export const invoicesOf = (world: World) =>
  world.customers.flatMap((c) => c.invoices.map((invoice) => ({ customerId: c.id, invoice })));

/** Every payment of the world. */
export const paymentsOf = (world: World) => world.customers.flatMap((c) => c.payments);
