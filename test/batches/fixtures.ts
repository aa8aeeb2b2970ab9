import { onBusinessDay } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { customerWithBankAccount, issuedInvoice } from '../helpers/invoices.ts';
import type { CustomerWithMethod } from '../helpers/invoices.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { advanceClock, plusDays } from '../helpers/clock.ts';

/** What a debit-order test starts from: a test account on its own clock (UTC) billing in `currency`. */
export interface DebitSetup {
  account: TestAccount;
  today: string;
  gatewayId: number;
  gatewayToken: string;
}

export const DAY = 86_400_000;
export { plusDays };

/**
 * The date, or the next SA business day after it: a batch's ActionDate a person sets must be one
 * (docs/gateways.md, "Action dates a person sets").
 */
export const businessDay = (date: string) => onBusinessDay(date, 'debit_order');

/** The bank details of a test bank account per rail; `number` picks the test gateway's outcome (docs/gateways.md). */
export function bankAccount(rail: 'debit_order' | 'ach' | 'sepa', number?: string): Record<string, unknown> {
  if (rail === 'debit_order') {
    return {
      Method: 'debit_order',
      AccountType: 'Savings',
      AccountHolder: 'Ada Lovelace',
      Bank: 'Standard Bank',
      AccountNumber: number ?? '1000000001',
      BranchCode: '051001',
    };
  }
  if (rail === 'ach') {
    return {
      Method: 'ach',
      AccountType: 'Checking',
      AccountHolder: 'Ada Lovelace',
      Bank: 'Test Bank',
      AccountNumber: number ?? '000123456789',
      RoutingNumber: '110000000',
    };
  }
  return {
    Method: 'sepa',
    AccountType: 'Current',
    AccountHolder: 'Ada Lovelace',
    Bank: 'Commerzbank',
    IBAN: number ?? 'DE89370400440532013000',
    // The BIC must be of the IBAN's country.
    BIC: number?.startsWith('AT') ? 'BKAUATWWXXX' : 'COBADEFFXXX',
  };
}

export const RAIL_CURRENCY = { debit_order: 'ZAR', ach: 'USD', sepa: 'EUR' } as const;

/** A test account in UTC with the currency enabled; its test gateway's id and token. */
export async function debitAccount(t: TestService, currency: string): Promise<DebitSetup> {
  const account = await t.newAccount('Debit orders', { isTest: true, timeZone: 'UTC' });
  const enabled = await account.request('POST', '/v1/currencies', { body: { CurrencyCode: currency } });
  if (enabled.status !== 201 && enabled.status !== 409)
    throw new Error(`enabling ${currency}: ${enabled.text}`);
  // Tomorrow at midnight: the noons the tests advance to are then still ahead of the clock, whenever they run; or
  // the SA business day after, so that a batch may be dated today whatever day the suite runs on.
  const today = businessDay(
    plusDays(((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10), 1),
  );
  await ok(account, 'POST', '/v1/test-clock/advance', { To: `${today}T00:00:00.000Z` }, 200);
  const [gateway] = await ok(account, 'GET', '/v1/gateways');
  return { account, today, gatewayId: gateway.gatewayID, gatewayToken: gateway.GatewayToken };
}

/**
 * How a debit's invoice is collected: by its own CollectionMethod (the default), or `followsCustomer`, naming none,
 * so that the customer's PaymentMethod debit_order and primary bank account collect it (docs/gateways.md, "From the
 * customer's settings to the money").
 */
export interface DebitCollection {
  followsCustomer?: boolean;
}

/** A customer billed in the rail's currency with a validated bank account (its paymentMethodID). */
export async function debitCustomer(
  setup: DebitSetup,
  rail: 'debit_order' | 'ach' | 'sepa',
  number?: string,
  collection: DebitCollection = {},
): Promise<CustomerWithMethod> {
  return customerWithBankAccount(setup.account, {
    customer: {
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.com',
      CurrencyCode: RAIL_CURRENCY[rail],
      ...(collection.followsCustomer ? { PaymentMethod: 'debit_order' } : {}),
    },
    bankAccount: bankAccount(rail, number),
    validateAt: setup.gatewayId,
  });
}

/**
 * An invoice of `amount` (100.00 unless said) collected by debit order from the customer's bank account through
 * `gatewayId` (the account's test gateway unless said), dated today and due `dueIn` days from today; with
 * `followsCustomer`, one that names no collection and follows its customer's.
 */
export async function debitInvoice(
  setup: DebitSetup,
  customer: CustomerWithMethod,
  options: { dueIn: number; amount?: number; gatewayId?: number } & DebitCollection,
): Promise<number> {
  const invoice = await issuedInvoice(setup.account, {
    customerId: customer.customerId,
    invoiceDate: setup.today,
    dueDate: plusDays(setup.today, options.dueIn),
    collect: options.followsCustomer
      ? undefined
      : {
          method: 'debit_order',
          gatewayId: options.gatewayId ?? setup.gatewayId,
          paymentMethodId: customer.paymentMethodId,
        },
    description: 'Subscription',
    amount: options.amount ?? 100,
  });
  return invoice.invoiceID;
}

/** Moves the account's test clock to noon of `date`, running each day's bill run (and batch run). */
export async function advanceTo(account: TestAccount, date: string) {
  return advanceClock(account, `${date}T12:00:00Z`);
}

export interface SubmittedDebit {
  customerId: number;
  paymentMethodId: number;
  invoiceId: number;
  batchToken: string;
  paymentId: number;
  actionDate: string;
  /** The account's clock date once the batch is built (submitted). */
  today: string;
}

/**
 * A customer on `rail` (account `number` chooses the test gateway's answer), an invoice due today bundled by the
 * day's run (collected as `collection` says), the batch submitted on the earliest action date the rail allows and
 * built by the next day's run.
 */
export async function submittedDebit(
  setup: DebitSetup,
  rail: 'debit_order' | 'ach' | 'sepa',
  number?: string,
  collection: DebitCollection = {},
): Promise<SubmittedDebit> {
  const customer = await debitCustomer(setup, rail, number, collection);
  const invoiceId = await debitInvoice(setup, customer, { dueIn: 0, ...collection });
  await advanceTo(setup.account, setup.today);
  const batches: { BatchToken: string; State: string }[] = await ok(setup.account, 'GET', '/v1/batches');
  const open = batches.filter((batch) => batch.State === 'open');
  const batch = await ok(setup.account, 'GET', `/v1/batches/${open.at(-1)!.BatchToken}`);
  const actionDate = batch.ActionDate.slice(0, 10);
  await ok(setup.account, 'PUT', '/v1/batches/submit', {
    BatchToken: batch.BatchToken,
    ActionDate: actionDate,
  });
  const today = plusDays(setup.today, 1);
  await advanceTo(setup.account, today);
  return {
    ...customer,
    invoiceId,
    batchToken: batch.BatchToken,
    paymentId: batch.Payments[0].paymentID,
    actionDate,
    today,
  };
}
