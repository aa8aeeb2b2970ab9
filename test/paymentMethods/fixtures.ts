import { movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService } from '../helpers/testService.ts';

// "Now" for every test: 15 Mar 2026 (cards expiring 03/2026 are still good, 02/2026 not).
export const clock = movableClock('2026-03-15T10:00:00.000Z');

/**
 * The test file's service and a second account of it. Live bindings: they hold the file's service from its
 * beforeAll on (see usePaymentMethodsService).
 */
export let t: FileService;
export let other: TestAccount;

/** Starts the file's service on `clock`, with `other` beside the test account, and closes it after the file. */
export function usePaymentMethodsService(): void {
  t = useTestService({ clock, secondAccount: true });
  other = t.other;
}

export const db = () => t.service.storage.db;

/** `body` completed with its Luhn check digit. */
function withCheckDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit++) {
    const candidate = body + digit;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let d = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}
export const cardNumber = (prefix: string, length: number) => withCheckDigit(prefix.padEnd(length - 1, '7'));

export const VISA = '4111111111111111';
export const MASTERCARD = '5555555555554444';

/** Spec, Payment method: the fields of the single-item read. */
export const FULL_FIELDS = [
  'paymentMethodID',
  'customerID',
  'PaymentMethodType',
  'isPrimary',
  'isValid',
  'BankAccount',
  'CreditCard',
].sort();
export const BANK_FIELDS = [
  'DebitMethod',
  'AccountType',
  'AccountHolder',
  'Bank',
  'AccountNumber',
  'BranchCode',
  'IBAN',
  'BIC',
  'RoutingNumber',
  'LastFourDigits',
  'EMandateToken',
  // Beyond the spec: the SEPA mandate the account is collected under.
  'MandateReference',
  'MandateSignatureDate',
  // Beyond the spec: the debtor's identity number (its kind and last three) and the bank's verification.
  'IdType',
  'IdNumberLastThree',
  'Verification',
].sort();
export const CARD_FIELDS = [
  'CardType',
  'NameOnCard',
  'LastNameOnCard',
  'ExpiryMonth',
  'ExpiryYear',
  'LastFourDigits',
].sort();

export const fieldsOf = (body: any): string[] => body.fields.map((f: { field: string }) => f.field);

let customers = 0;
export async function newCustomer(
  account: TestAccount = t,
  body: Record<string, unknown> = {},
): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', { Name: `Customer ${++customers}`, ...body });
  return customer.customerID;
}

export function cardBody(
  customerID: number,
  card: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
) {
  return {
    customerID,
    isPrimary: false,
    CreditCard: {
      CardType: 'Visa',
      Number: VISA,
      NameOnCard: 'Ada',
      LastNameOnCard: 'Lovelace',
      ExpiryMonth: 12,
      ExpiryYear: 2028,
      ...card,
    },
    ...rest,
  };
}

export const BANK_ACCOUNTS = {
  debit_order: {
    Method: 'debit_order',
    AccountType: 'Savings',
    AccountHolder: 'Ada Lovelace',
    Bank: 'Standard Bank',
    AccountNumber: '62001234567',
    BranchCode: '051001',
  },
  ach: {
    Method: 'ach',
    AccountType: 'Checking',
    AccountHolder: 'Ada Lovelace',
    Bank: 'JPMorgan Chase',
    AccountNumber: '123456789012',
    RoutingNumber: '021000021',
  },
  sepa: {
    Method: 'sepa',
    AccountType: 'Current',
    AccountHolder: 'Ada Lovelace',
    Bank: 'Commerzbank',
    IBAN: 'DE89 3704 0044 0532 0130 00',
    BIC: 'COBADEFFXXX',
  },
};
export type Method = keyof typeof BANK_ACCOUNTS;

export function bankBody(
  customerID: number,
  method: Method = 'debit_order',
  account: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
) {
  return { customerID, isPrimary: false, BankAccount: { ...BANK_ACCOUNTS[method], ...account }, ...rest };
}

export async function addCard(
  customerID: number,
  card: Record<string, unknown> = {},
  rest = {},
  as: TestAccount = t,
) {
  return ok(as, 'POST', '/v1/paymentmethods/creditcard', cardBody(customerID, card, rest), 200);
}

export async function addBank(
  customerID: number,
  method: Method = 'debit_order',
  account: Record<string, unknown> = {},
  rest = {},
  as: TestAccount = t,
) {
  return ok(as, 'POST', '/v1/paymentmethods/bankaccount', bankBody(customerID, method, account, rest), 200);
}

export async function read(id: number, as: TestAccount = t) {
  return ok(as, 'GET', `/v1/paymentmethods/${id}`);
}

export async function methodCount(): Promise<number> {
  const row = await db()
    .selectFrom('payment_methods')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The customer's primary method ids, from the table itself. */
export async function primaries(customerID: number): Promise<number[]> {
  const rows = await db()
    .selectFrom('payment_methods')
    .select(['id', 'is_primary'])
    .where('customer_id', '=', customerID)
    .orderBy('id')
    .execute();
  return rows.filter((row) => Boolean(row.is_primary)).map((row) => row.id);
}

export async function testGatewayId(as: TestAccount = t): Promise<number> {
  const gateways = await ok(as, 'GET', '/v1/gateways');
  return gateways.find((g: any) => g.GatewayType === 'test' && g.isPrimary).gatewayID;
}

/**
 * A signed eMandate for the debit-order account of BANK_ACCOUNTS (its number and branch code), signed on the hosted
 * page as a debtor would: what a bank account's EMandateToken names.
 */
export async function signedMandateToken(
  as: TestAccount = t,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const { Token } = await ok(
    as,
    'POST',
    '/widget/emandate',
    {
      Name: 'Ada',
      Lastname: 'Lovelace',
      bank_Name: 'Standard Bank',
      bank_BranchCode: '051001',
      bank_AccHolder: 'Ada Lovelace',
      bank_AccNumber: '62001234567',
      bank_AccountType: 'Savings',
      debit_ActionDay: 1,
      debit_StartDate: '2026-04-01',
      debit_Frequency: 'Monthly',
      debit_Amt: 25,
      debit_NameOnStmt: 'NORTHWIND',
      debit_ContractRef: `PM-${++customers}`,
      ...fields,
    },
    200,
  );
  const signed = await fetch(`${t.url}/widget/emandate/${Token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ Consent: 'yes', TypedName: 'Ada Lovelace' }),
    redirect: 'manual',
  });
  if (signed.status !== 303) throw new Error(`signing answered ${signed.status}`);
  return Token as string;
}
