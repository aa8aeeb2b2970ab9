import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../src/errors.ts';
import { addGateway, getGateway, setGatewayEnabled, vaultCard } from '../src/modules/gateways/index.ts';
import { movableClock, ok } from './helpers/billing.ts';
import { accountContext } from './helpers/context.ts';
import { dialect, startTestService } from './helpers/service.ts';
import type { TestAccount, TestService } from './helpers/service.ts';

// "Now" for every test: 15 Mar 2026 (cards expiring 03/2026 are still good, 02/2026 not).
const clock = movableClock('2026-03-15T10:00:00.000Z');
let t: TestService;
let other: TestAccount;
beforeAll(async () => {
  t = await startTestService({ clock });
  other = await t.newAccount();
});
afterAll(() => t.close());

const db = () => t.service.storage.db;

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
const cardNumber = (prefix: string, length: number) => withCheckDigit(prefix.padEnd(length - 1, '7'));

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';

/** Spec, Payment method: the fields of the single-item read. */
const FULL_FIELDS = [
  'paymentMethodID',
  'customerID',
  'PaymentMethodType',
  'isPrimary',
  'isValid',
  'BankAccount',
  'CreditCard',
].sort();
const BANK_FIELDS = [
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
].sort();
const CARD_FIELDS = [
  'CardType',
  'NameOnCard',
  'LastNameOnCard',
  'ExpiryMonth',
  'ExpiryYear',
  'LastFourDigits',
].sort();

const fieldsOf = (body: any): string[] => body.fields.map((f: { field: string }) => f.field);

let customers = 0;
async function newCustomer(account: TestAccount = t, body: Record<string, unknown> = {}): Promise<number> {
  const customer = await ok(account, 'POST', '/v1/customers', { Name: `Customer ${++customers}`, ...body });
  return customer.customerID;
}

function cardBody(
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

const BANK_ACCOUNTS = {
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
type Method = keyof typeof BANK_ACCOUNTS;

function bankBody(
  customerID: number,
  method: Method = 'debit_order',
  account: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
) {
  return { customerID, isPrimary: false, BankAccount: { ...BANK_ACCOUNTS[method], ...account }, ...rest };
}

async function addCard(
  customerID: number,
  card: Record<string, unknown> = {},
  rest = {},
  as: TestAccount = t,
) {
  return ok(as, 'POST', '/v1/paymentmethods/creditcard', cardBody(customerID, card, rest), 200);
}

async function addBank(
  customerID: number,
  method: Method = 'debit_order',
  account: Record<string, unknown> = {},
  rest = {},
  as: TestAccount = t,
) {
  return ok(as, 'POST', '/v1/paymentmethods/bankaccount', bankBody(customerID, method, account, rest), 200);
}

async function read(id: number, as: TestAccount = t) {
  return ok(as, 'GET', `/v1/paymentmethods/${id}`);
}

async function methodCount(): Promise<number> {
  const row = await db()
    .selectFrom('payment_methods')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The customer's primary method ids, from the table itself. */
async function primaries(customerID: number): Promise<number[]> {
  const rows = await db()
    .selectFrom('payment_methods')
    .select(['id', 'is_primary'])
    .where('customer_id', '=', customerID)
    .orderBy('id')
    .execute();
  return rows.filter((row) => Boolean(row.is_primary)).map((row) => row.id);
}

async function testGatewayId(as: TestAccount = t): Promise<number> {
  const gateways = await ok(as, 'GET', '/v1/gateways');
  return gateways.find((g: any) => g.GatewayType === 'test' && g.isPrimary).gatewayID;
}

describe('POST /v1/paymentmethods/creditcard', () => {
  it('adds a card: 200 with the full payment method, isValid true, never the number', async () => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: cardBody(customerID, { Number: '4111 1111 1111 1111' }),
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(FULL_FIELDS);
    expect(res.body).toEqual({
      paymentMethodID: expect.any(Number),
      customerID,
      PaymentMethodType: 'credit_card',
      isPrimary: true,
      isValid: true,
      BankAccount: null,
      CreditCard: {
        CardType: 'Visa',
        NameOnCard: 'Ada',
        LastNameOnCard: 'Lovelace',
        ExpiryMonth: 12,
        ExpiryYear: 2028,
        LastFourDigits: '1111',
      },
    });
    expect(res.text).not.toContain(VISA);
    expect(await read(res.body.paymentMethodID)).toEqual(res.body);

    // The gateway's vault keeps the number; we keep its token.
    const row = await db()
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', res.body.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.token).toMatch(/^tok_test_[0-9a-f]{24}$/);
    expect(row.gateway_id).toBe(await testGatewayId());
    expect(row.last_four).toBe('1111');
    expect(JSON.stringify(row)).not.toContain(VISA.slice(0, 12));
  });

  it.each([
    ['Visa', '4222222222222'],
    ['Visa', VISA],
    ['Mastercard', MASTERCARD],
    ['Mastercard', '2223003122003222'],
    ['American Express', '378282246310005'],
    ['Diners Club', '30569309025904'],
    ['Discover', '6011111111111117'],
    ['JCB', '3530111333300000'],
    ['Dankort', cardNumber('5019', 16)],
    ['Maestro', '6759649826438453'],
    ['Forbrugsforeningen', cardNumber('600722', 16)],
    ['Unknown', cardNumber('9', 16)],
    ['Unknown', VISA],
  ])('takes a %s card numbered %s', async (CardType, Number) => {
    const customerID = await newCustomer();
    const added = await addCard(customerID, { CardType, Number });
    expect(added.CreditCard).toMatchObject({ CardType, LastFourDigits: Number.slice(-4) });
  });

  it('reads CardType in any letter case and the number grouped with dashes', async () => {
    const customerID = await newCustomer();
    const added = await addCard(customerID, { CardType: 'american express', Number: '3782-822463-10005' });
    expect(added.CreditCard).toMatchObject({ CardType: 'American Express', LastFourDigits: '0005' });
  });

  it('takes a card expiring this month, in the account time zone', async () => {
    const customerID = await newCustomer();
    expect((await addCard(customerID, { ExpiryMonth: 3, ExpiryYear: 2026 })).CreditCard.ExpiryMonth).toBe(3);

    // 31 Mar 20:00 UTC is already 1 April in Auckland: a card expiring 03/2026 has expired there, not in UTC.
    const auckland = await t.newAccount('Auckland', { timeZone: 'Pacific/Auckland' });
    const theirCustomer = await newCustomer(auckland);
    clock.set('2026-03-31T20:00:00.000Z');
    try {
      const body = cardBody(theirCustomer, { ExpiryMonth: 3, ExpiryYear: 2026 });
      const refused = await auckland.request('POST', '/v1/paymentmethods/creditcard', { body });
      expect(refused.status).toBe(422);
      expect(refused.body.fields).toEqual([
        { field: 'CreditCard.ExpiryMonth', message: 'the card has expired' },
      ]);
      expect(
        (
          await t.request('POST', '/v1/paymentmethods/creditcard', {
            body: cardBody(customerID, { ExpiryMonth: 3, ExpiryYear: 2026 }),
          })
        ).status,
      ).toBe(200);
    } finally {
      clock.set('2026-03-15T10:00:00.000Z');
    }
  });

  it.each([
    [{ Number: '4111111111111112' }, 'CreditCard.Number'],
    [{ Number: '4111x11111111111' }, 'CreditCard.Number'],
    [{ Number: '4242' }, 'CreditCard.Number'],
    [{ Number: '' }, 'CreditCard.Number'],
    [{ Number: cardNumber('4', 20) }, 'CreditCard.Number'],
    [{ Number: MASTERCARD }, 'CreditCard.Number'],
    [{ CardType: 'Mastercard', Number: VISA }, 'CreditCard.Number'],
    [{ CardType: 'Amex', Number: '378282246310005' }, 'CreditCard.CardType'],
    [{ CardType: '' }, 'CreditCard.CardType'],
    [{ ExpiryMonth: 0 }, 'CreditCard.ExpiryMonth'],
    [{ ExpiryMonth: 13 }, 'CreditCard.ExpiryMonth'],
    [{ ExpiryMonth: '12' }, 'CreditCard.ExpiryMonth'],
    [{ ExpiryMonth: 1.5 }, 'CreditCard.ExpiryMonth'],
    [{ ExpiryYear: 2025 }, 'CreditCard.ExpiryYear'],
    [{ ExpiryMonth: 2, ExpiryYear: 2026 }, 'CreditCard.ExpiryMonth'],
    [{ ExpiryYear: 28 }, 'CreditCard.ExpiryYear'],
    [{ ExpiryYear: 2047 }, 'CreditCard.ExpiryYear'],
    [{ NameOnCard: '   ' }, 'CreditCard.NameOnCard'],
    [{ LastNameOnCard: undefined }, 'CreditCard.LastNameOnCard'],
    [{ Number: undefined }, 'CreditCard.Number'],
    [{ Number: 4111111111111111 }, 'CreditCard.Number'],
    [{ NameOnCard: 'x'.repeat(256) }, 'CreditCard.NameOnCard'],
  ])('refuses %j with 422 naming %s, adding nothing and quoting no number', async (card, field) => {
    const customerID = await newCustomer();
    const before = await methodCount();
    const res = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: cardBody(customerID, card),
    });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(res.body)).toEqual([field]);
    expect(res.text).not.toMatch(/\d{12,}/);
    expect(await methodCount()).toBe(before);
  });

  it.each([
    [{ isPrimary: undefined }, 'isPrimary'],
    [{ isPrimary: 'yes' }, 'isPrimary'],
    [{ CreditCard: undefined }, 'CreditCard'],
    [{ CreditCard: 'card' }, 'CreditCard'],
    [{ customerID: 'abc' }, 'customerID'],
    [{ customerID: undefined }, 'customerID'],
  ])('refuses the body %j with 422 naming %s', async (rest, field) => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: cardBody(customerID, {}, rest),
    });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toContain(field);
  });

  it('reports every bad field at once', async () => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/creditcard', {
      body: cardBody(customerID, { CardType: 'Diners', Number: '123', ExpiryMonth: 14, NameOnCard: ' ' }),
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body).sort()).toEqual([
      'CreditCard.CardType',
      'CreditCard.ExpiryMonth',
      'CreditCard.NameOnCard',
      'CreditCard.Number',
    ]);
  });

  it("answers 404 for a customer that does not exist or is another account's", async () => {
    const theirs = await newCustomer(other);
    const before = await methodCount();
    for (const customerID of [987654321, theirs]) {
      const res = await t.request('POST', '/v1/paymentmethods/creditcard', { body: cardBody(customerID) });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    expect(await methodCount()).toBe(before);
  });
});

describe('which gateway keeps a card', () => {
  it("is the customer's PrimaryGatewayID when set, else the account's primary gateway", async () => {
    const account = await t.newAccount('Gateways');
    const ctx = await accountContext(t, account.accountId, clock);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' });
    const plain = await newCustomer(account);
    const assigned = await newCustomer(account, { PrimaryGatewayID: second.id });
    const gatewayOf = async (id: number) =>
      (
        await db()
          .selectFrom('payment_methods')
          .select('gateway_id')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).gateway_id;
    expect(await gatewayOf((await addCard(plain, {}, {}, account)).paymentMethodID)).toBe(
      await testGatewayId(account),
    );
    expect(await gatewayOf((await addCard(assigned, {}, {}, account)).paymentMethodID)).toBe(second.id);
  });

  it('refuses the card (422 naming CreditCard) when that gateway takes no cards, is disabled, or there is none', async () => {
    const account = await t.newAccount('No card gateway');
    const ctx = await accountContext(t, account.accountId, clock);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'Cash desk' });
    const spare = await addGateway(ctx, { type: 'test', friendlyName: 'Spare' });
    const onManual = await newCustomer(account, { PrimaryGatewayID: manual.id });
    const onSpare = await newCustomer(account, { PrimaryGatewayID: spare.id });
    const plain = await newCustomer(account);
    const attempt = async (customerID: number) => {
      const res = await account.request('POST', '/v1/paymentmethods/creditcard', {
        body: cardBody(customerID),
      });
      expect(res.status, res.text).toBe(422);
      expect(fieldsOf(res.body)).toEqual(['CreditCard']);
      return res.body.code;
    };
    expect(await attempt(onManual)).toBe('gateway_refuses_cards');
    await setGatewayEnabled(ctx, spare.id, false);
    expect(await attempt(onSpare)).toBe('gateway_not_usable');
    await setGatewayEnabled(ctx, await testGatewayId(account), false);
    expect(await attempt(plain)).toBe('no_card_gateway');
    expect(await primaries(plain)).toEqual([]);
  });

  it('vaultCard refuses a gateway whose type has no vault, naming the field given', async () => {
    const ctx = await accountContext(t, t.accountId, clock);
    const manual = await getGateway(ctx, (await addGateway(ctx, { type: 'manual', friendlyName: 'EFT' })).id);
    const card = {
      number: VISA,
      cardType: 'Visa',
      nameOnCard: 'Ada',
      lastNameOnCard: 'Lovelace',
      expiryMonth: 1,
      expiryYear: 2030,
    };
    const error = await vaultCard(ctx, manual, card, 'CreditCard').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'gateway_cannot_vault', fields: [{ field: 'CreditCard' }] });
    expect((error as Error).message).not.toContain(VISA);
    const simulator = await getGateway(ctx, await testGatewayId());
    const tokens = await Promise.all([1, 2].map(() => vaultCard(ctx, simulator, card, 'CreditCard')));
    expect(tokens[0]!.token).not.toBe(tokens[1]!.token);
  });
});

describe('POST /v1/paymentmethods/bankaccount', () => {
  it('adds a debit order account: 200, isValid false, the number sealed at rest and left out of the answer', async () => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankBody(customerID, 'debit_order', { AccountType: 'savings', AccountNumber: '6200 123 4567' }),
    });
    expect(res.status, res.text).toBe(200);
    const expected = {
      paymentMethodID: expect.any(Number),
      customerID,
      PaymentMethodType: 'bank_account',
      isPrimary: true,
      isValid: false,
      CreditCard: null,
      BankAccount: {
        DebitMethod: 'debit_order',
        AccountType: 'Savings',
        AccountHolder: 'Ada Lovelace',
        Bank: 'Standard Bank',
        AccountNumber: null,
        BranchCode: '051001',
        IBAN: null,
        BIC: null,
        RoutingNumber: null,
        LastFourDigits: '4567',
        EMandateToken: null,
      },
    };
    expect(res.body).toEqual(expected);
    expect(res.text).not.toContain('62001234567');
    expect(Object.keys(res.body.BankAccount).sort()).toEqual(BANK_FIELDS);

    // Spec: the single-item read returns the full set.
    const full = await read(res.body.paymentMethodID);
    expect(full).toEqual({
      ...expected,
      BankAccount: { ...expected.BankAccount, AccountNumber: '62001234567' },
    });

    const row = await db()
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', res.body.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.token).toMatch(/^pm_[0-9a-f]{24}$/);
    expect(row.gateway_id).toBeNull();
    expect(row.account_number_sealed).not.toContain('62001234567');
    expect(t.service.secrets.open(row.account_number_sealed!)).toBe('62001234567');
    expect(row.iban_sealed).toBeNull();
  });

  it('adds an ach account with its routing number', async () => {
    const customerID = await newCustomer();
    const added = await addBank(customerID, 'ach');
    expect((await read(added.paymentMethodID)).BankAccount).toEqual({
      DebitMethod: 'ach',
      AccountType: 'Checking',
      AccountHolder: 'Ada Lovelace',
      Bank: 'JPMorgan Chase',
      AccountNumber: '123456789012',
      BranchCode: null,
      IBAN: null,
      BIC: null,
      RoutingNumber: '021000021',
      LastFourDigits: '9012',
      EMandateToken: null,
    });
  });

  it('adds a sepa account: IBAN and BIC in their electronic form, never an AccountNumber', async () => {
    const customerID = await newCustomer();
    const added = await addBank(customerID, 'sepa', { AccountNumber: '0532013000', BIC: 'cobadeffxxx' });
    const full = await read(added.paymentMethodID);
    expect(full.BankAccount).toEqual({
      DebitMethod: 'sepa',
      AccountType: 'Current',
      AccountHolder: 'Ada Lovelace',
      Bank: 'Commerzbank',
      AccountNumber: null,
      BranchCode: null,
      IBAN: 'DE89370400440532013000',
      BIC: 'COBADEFFXXX',
      RoutingNumber: null,
      LastFourDigits: '3000',
      EMandateToken: null,
    });
    const row = await db()
      .selectFrom('payment_methods')
      .select(['account_number_sealed', 'iban_sealed'])
      .where('id', '=', added.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.account_number_sealed).toBeNull();
    expect(t.service.secrets.open(row.iban_sealed!)).toBe('DE89370400440532013000');
  });

  it('reads Method as people write it, takes blank fields as not given, and keeps the EMandateToken', async () => {
    const customerID = await newCustomer();
    const debit = await addBank(customerID, 'debit_order', {
      Method: 'Debit Order',
      IBAN: '',
      BIC: null,
      RoutingNumber: '  ',
      EMandateToken: 'em_123',
    });
    const sepa = await addBank(customerID, 'sepa', { Method: 'SEPA', BranchCode: '' });
    expect((await read(debit.paymentMethodID)).BankAccount).toMatchObject({
      DebitMethod: 'debit_order',
      EMandateToken: 'em_123',
    });
    expect((await read(sepa.paymentMethodID)).BankAccount.DebitMethod).toBe('sepa');
  });

  it.each([
    ['debit_order', { Method: 'eft' }, 'BankAccount.Method'],
    ['debit_order', { AccountType: 'Bond' }, 'BankAccount.AccountType'],
    ['debit_order', { AccountType: '' }, 'BankAccount.AccountType'],
    ['debit_order', { AccountHolder: ' ' }, 'BankAccount.AccountHolder'],
    ['debit_order', { Bank: undefined }, 'BankAccount.Bank'],
    ['debit_order', { AccountNumber: undefined }, 'BankAccount.AccountNumber'],
    ['debit_order', { AccountNumber: '6200x1234' }, 'BankAccount.AccountNumber'],
    ['debit_order', { AccountNumber: '123' }, 'BankAccount.AccountNumber'],
    ['debit_order', { AccountNumber: 62001234567 }, 'BankAccount.AccountNumber'],
    ['debit_order', { BranchCode: null }, 'BankAccount.BranchCode'],
    ['debit_order', { BranchCode: '05!001' }, 'BankAccount.BranchCode'],
    ['debit_order', { RoutingNumber: '021000021' }, 'BankAccount.RoutingNumber'],
    ['debit_order', { IBAN: 'DE89370400440532013000' }, 'BankAccount.IBAN'],
    ['debit_order', { BIC: 'COBADEFFXXX' }, 'BankAccount.BIC'],
    ['ach', { RoutingNumber: undefined }, 'BankAccount.RoutingNumber'],
    ['ach', { RoutingNumber: '021000022' }, 'BankAccount.RoutingNumber'],
    ['ach', { AccountNumber: '' }, 'BankAccount.AccountNumber'],
    ['ach', { BranchCode: '051001' }, 'BankAccount.BranchCode'],
    ['ach', { IBAN: 'DE89370400440532013000' }, 'BankAccount.IBAN'],
    ['sepa', { IBAN: undefined }, 'BankAccount.IBAN'],
    ['sepa', { IBAN: 'DE89370400440532013001' }, 'BankAccount.IBAN'],
    ['sepa', { IBAN: 'DE8937040044053201300' }, 'BankAccount.IBAN'],
    ['sepa', { IBAN: 'US89370400440532013000' }, 'BankAccount.IBAN'],
    ['sepa', { BIC: undefined }, 'BankAccount.BIC'],
    ['sepa', { BIC: 'COBA DE' }, 'BankAccount.BIC'],
    ['sepa', { BranchCode: '051001' }, 'BankAccount.BranchCode'],
    ['sepa', { RoutingNumber: '021000021' }, 'BankAccount.RoutingNumber'],
    ['sepa', { EMandateToken: 5 }, 'BankAccount.EMandateToken'],
  ] as [Method, Record<string, unknown>, string][])(
    'refuses a %s account with %j: 422 naming %s, adding nothing',
    async (method, account, field) => {
      const customerID = await newCustomer();
      const before = await methodCount();
      const res = await t.request('POST', '/v1/paymentmethods/bankaccount', {
        body: bankBody(customerID, method, account),
      });
      expect(res.status, res.text).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(fieldsOf(res.body)).toEqual([field]);
      expect(await methodCount()).toBe(before);
    },
  );

  it.each([
    [{ isPrimary: undefined }, 'isPrimary'],
    [{ BankAccount: undefined }, 'BankAccount'],
    [{ BankAccount: [] }, 'BankAccount'],
    [{ customerID: 0 }, 'customerID'],
  ])('refuses the body %j with 422 naming %s', async (rest, field) => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankBody(customerID, 'debit_order', {}, rest),
    });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toContain(field);
  });

  it('reports every bad field at once', async () => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankBody(customerID, 'sepa', {
        AccountType: 'x',
        IBAN: 'DE00370400440532013000',
        BIC: '1',
        BranchCode: '1234',
        RoutingNumber: '021000021',
      }),
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body).sort()).toEqual([
      'BankAccount.AccountType',
      'BankAccount.BIC',
      'BankAccount.BranchCode',
      'BankAccount.IBAN',
      'BankAccount.RoutingNumber',
    ]);
  });

  it("answers 404 for a customer that does not exist or is another account's", async () => {
    const theirs = await newCustomer(other);
    for (const customerID of [987654321, theirs]) {
      const res = await t.request('POST', '/v1/paymentmethods/bankaccount', { body: bankBody(customerID) });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
  });
});

describe('the primary payment method', () => {
  it("is the customer's first whatever isPrimary says, moves with isPrimary true and setprimary, and shows on the customer", async () => {
    const customerID = await newCustomer();
    const info = async () => (await ok(t, 'GET', `/v1/customers/${customerID}`)).PrimaryPaymentMethodInfo;
    expect(await info()).toBeNull();

    const first = await addBank(customerID, 'debit_order', {}, { isPrimary: false });
    expect(first.isPrimary).toBe(true);
    const token = async (id: number) =>
      (
        await db()
          .selectFrom('payment_methods')
          .select('token')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).token;
    expect(await info()).toEqual({
      paymentMethodID: first.paymentMethodID,
      Token: await token(first.paymentMethodID),
    });

    const second = await addCard(customerID);
    expect(second.isPrimary).toBe(false);
    expect(await primaries(customerID)).toEqual([first.paymentMethodID]);

    const third = await addCard(
      customerID,
      { Number: MASTERCARD, CardType: 'Mastercard' },
      { isPrimary: true },
    );
    expect(third.isPrimary).toBe(true);
    expect(await primaries(customerID)).toEqual([third.paymentMethodID]);
    expect((await read(first.paymentMethodID)).isPrimary).toBe(false);
    expect(await info()).toEqual({
      paymentMethodID: third.paymentMethodID,
      Token: await token(third.paymentMethodID),
    });
    expect((await info()).Token).toMatch(/^tok_test_/);

    await ok(t, 'PUT', `/v1/paymentmethods/${second.paymentMethodID}/setprimary`);
    expect(await primaries(customerID)).toEqual([second.paymentMethodID]);
    expect((await info()).paymentMethodID).toBe(second.paymentMethodID);
    // Making the primary primary again changes nothing.
    await ok(t, 'PUT', `/v1/paymentmethods/${second.paymentMethodID}/setprimary`);
    expect(await primaries(customerID)).toEqual([second.paymentMethodID]);

    const list = await ok(t, 'GET', `/v1/customers/${customerID}/paymentmethods`);
    expect(list.map((m: any) => m.isPrimary)).toEqual([false, true, false]);
  });

  it('shows each customer its own primary in the customer lists, with one statement for the page', async () => {
    const account = await t.newAccount('Customer lists');
    const a = await newCustomer(account);
    const b = await newCustomer(account);
    const c = await newCustomer(account);
    const ofA = await addCard(a, {}, {}, account);
    const ofB = await addBank(b, 'sepa', {}, {}, account);
    await addBank(b, 'ach', {}, { isPrimary: false }, account);
    t.queries.length = 0;
    const listed = await ok(account, 'GET', '/v1/customers');
    expect(t.queries.filter((q) => q.includes('"payment_methods"'))).toHaveLength(1);
    const infos = new Map(
      listed.map((customer: any) => [customer.customerID, customer.PrimaryPaymentMethodInfo]),
    );
    expect(infos.get(a)).toMatchObject({
      paymentMethodID: ofA.paymentMethodID,
      Token: expect.stringMatching(/^tok_test_/),
    });
    expect(infos.get(b)).toMatchObject({
      paymentMethodID: ofB.paymentMethodID,
      Token: expect.stringMatching(/^pm_/),
    });
    expect(infos.get(c)).toBeNull();
    const byIds = await ok(account, 'POST', '/v1/by_customer_ids', { ids: [a, c] }, 200);
    expect(byIds.map((customer: any) => customer.PrimaryPaymentMethod)).toEqual([true, false]);
  });

  it('stays one per customer when changes race', async () => {
    const customerID = await newCustomer();
    // Several first methods at once: only one may become primary.
    const firsts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 ? addCard(customerID) : addBank(customerID, 'ach', {}, { isPrimary: i === 2 }),
      ),
    );
    expect(await primaries(customerID)).toHaveLength(1);
    const ids = firsts.map((m) => m.paymentMethodID);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? addCard(customerID, {}, { isPrimary: true })
          : t.request('PUT', `/v1/paymentmethods/${ids[i % ids.length]}/setprimary`).then((res) => {
              expect(res.status).toBe(204);
            }),
      ),
    );
    expect(await primaries(customerID)).toHaveLength(1);
  });

  it("setprimary answers 404 for a method that does not exist or is another account's, changing nothing", async () => {
    const theirCustomer = await newCustomer(other);
    const theirs = await addCard(theirCustomer, {}, {}, other);
    const theirSecond = await addCard(theirCustomer, {}, {}, other);
    for (const id of [987654321, theirSecond.paymentMethodID]) {
      const res = await t.request('PUT', `/v1/paymentmethods/${id}/setprimary`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('payment_method_not_found');
    }
    expect(await primaries(theirCustomer)).toEqual([theirs.paymentMethodID]);
    const res = await t.request('PUT', '/v1/paymentmethods/abc/setprimary');
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['paymentMethodID']);
  });
});

describe('GET payment method lists', () => {
  let account: TestAccount;
  let first: number;
  let second: number;
  let ids: number[];
  beforeAll(async () => {
    account = await t.newAccount('Lists');
    first = await newCustomer(account);
    second = await newCustomer(account);
    ids = [
      (await addCard(first, {}, {}, account)).paymentMethodID,
      (await addBank(second, 'debit_order', { EMandateToken: 'em_list' }, {}, account)).paymentMethodID,
      (await addBank(first, 'sepa', {}, {}, account)).paymentMethodID,
      (await addCard(second, { NameOnCard: 'Grace' }, {}, account)).paymentMethodID,
    ];
  });

  const HEAD = ['paymentMethodID', 'customerID', 'PaymentMethodType', 'isPrimary', 'isValid'];

  it("lists a customer's methods in the order added, with only AccountHolder/NameOnCard and LastFourDigits", async () => {
    const list = await ok(account, 'GET', `/v1/customers/${first}/paymentmethods`);
    expect(list).toEqual([
      {
        paymentMethodID: ids[0],
        customerID: first,
        PaymentMethodType: 'credit_card',
        isPrimary: true,
        isValid: true,
        BankAccount: null,
        CreditCard: { NameOnCard: 'Ada', LastFourDigits: '1111' },
      },
      {
        paymentMethodID: ids[2],
        customerID: first,
        PaymentMethodType: 'bank_account',
        isPrimary: false,
        isValid: false,
        BankAccount: { AccountHolder: 'Ada Lovelace', LastFourDigits: '3000' },
        CreditCard: null,
      },
    ]);
    for (const item of list)
      expect(Object.keys(item).sort()).toEqual([...HEAD, 'BankAccount', 'CreditCard'].sort());
  });

  it("lists the account's methods with the EMandateToken of bank accounts", async () => {
    const list = await ok(account, 'GET', '/v1/paymentmethods');
    expect(list.map((m: any) => m.paymentMethodID)).toEqual(ids);
    expect(list[1]).toEqual({
      paymentMethodID: ids[1],
      customerID: second,
      PaymentMethodType: 'bank_account',
      isPrimary: true,
      isValid: false,
      BankAccount: { AccountHolder: 'Ada Lovelace', LastFourDigits: '4567', EMandateToken: 'em_list' },
      CreditCard: null,
    });
    expect(list[2].BankAccount).toEqual({
      AccountHolder: 'Ada Lovelace',
      LastFourDigits: '3000',
      EMandateToken: null,
    });
    expect(list[3].CreditCard).toEqual({ NameOnCard: 'Grace', LastFourDigits: '1111' });
    const text = JSON.stringify(list);
    for (const secret of ['62001234567', 'DE89370400440532013000', 'LastNameOnCard'])
      expect(text).not.toContain(secret);
  });

  it('pages with page and page_size', async () => {
    expect(
      (await ok(account, 'GET', '/v1/paymentmethods?page_size=3')).map((m: any) => m.paymentMethodID),
    ).toEqual(ids.slice(0, 3));
    expect(
      (await ok(account, 'GET', '/v1/paymentmethods?page=2&page_size=3')).map((m: any) => m.paymentMethodID),
    ).toEqual(ids.slice(3));
    expect(
      (await ok(account, 'GET', `/v1/customers/${second}/paymentmethods?page=2&page_size=1`)).map(
        (m: any) => m.paymentMethodID,
      ),
    ).toEqual([ids[3]]);
    expect(await ok(account, 'GET', '/v1/paymentmethods?page=3&page_size=3')).toEqual([]);
  });

  it.each([
    ['?page_size=0', 'page_size'],
    ['?page_size=201', 'page_size'],
    ['?page=0', 'page'],
    ['?page=x', 'page'],
  ])('answers 422 naming the parameter for %s', async (query, field) => {
    for (const url of ['/v1/paymentmethods', `/v1/customers/${first}/paymentmethods`]) {
      const res = await account.request('GET', `${url}${query}`);
      expect(res.status).toBe(422);
      expect(fieldsOf(res.body)).toEqual([field]);
    }
  });

  it("answers 404 for the methods of a customer that does not exist or is another account's", async () => {
    for (const customerID of [987654321, first]) {
      const res = await other.request('GET', `/v1/customers/${customerID}/paymentmethods`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    const res = await account.request('GET', '/v1/customers/abc/paymentmethods');
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['customerID']);
  });
});

describe('GET /v1/paymentmethods/{paymentMethodID}', () => {
  it('returns the full set for a card and a bank account', async () => {
    const customerID = await newCustomer();
    const card = await read((await addCard(customerID)).paymentMethodID);
    const bank = await read((await addBank(customerID, 'ach')).paymentMethodID);
    expect(Object.keys(card).sort()).toEqual(FULL_FIELDS);
    expect(Object.keys(card.CreditCard).sort()).toEqual(CARD_FIELDS);
    expect(card.BankAccount).toBeNull();
    expect(Object.keys(bank.BankAccount).sort()).toEqual(BANK_FIELDS);
    expect(bank.CreditCard).toBeNull();
  });

  it("answers 404 for a method that does not exist or is another account's, 422 for a malformed id", async () => {
    const theirs = await addCard(await newCustomer(other), {}, {}, other);
    for (const id of [987654321, theirs.paymentMethodID]) {
      const res = await t.request('GET', `/v1/paymentmethods/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({
        code: 'payment_method_not_found',
        detail: `Payment method ${id} was not found`,
      });
    }
    for (const id of ['abc', '0', '1.5']) {
      const res = await t.request('GET', `/v1/paymentmethods/${id}`);
      expect(res.status).toBe(422);
      expect(fieldsOf(res.body)).toEqual(['paymentMethodID']);
    }
  });
});

describe('PUT /v1/paymentmethods/bankaccount/{paymentMethodID}', () => {
  it('replaces the bank details, keeps the token and makes the account unproven again', async () => {
    const customerID = await newCustomer();
    const added = await addBank(customerID, 'debit_order');
    await db()
      .updateTable('payment_methods')
      .set({ is_valid: true })
      .where('id', '=', added.paymentMethodID)
      .execute();
    const tokenOf = async () =>
      (
        await db()
          .selectFrom('payment_methods')
          .select('token')
          .where('id', '=', added.paymentMethodID)
          .executeTakeFirstOrThrow()
      ).token;
    const token = await tokenOf();
    await ok(
      t,
      'PUT',
      `/v1/paymentmethods/bankaccount/${added.paymentMethodID}`,
      bankBody(customerID, 'sepa', { EMandateToken: 'em_9' }),
    );
    const changed = await read(added.paymentMethodID);
    expect(changed).toMatchObject({ isValid: false, isPrimary: true });
    expect(changed.BankAccount).toMatchObject({
      DebitMethod: 'sepa',
      AccountNumber: null,
      BranchCode: null,
      IBAN: 'DE89370400440532013000',
      LastFourDigits: '3000',
      EMandateToken: 'em_9',
    });
    expect(await tokenOf()).toBe(token);
    const row = await db()
      .selectFrom('payment_methods')
      .select(['account_number_sealed'])
      .where('id', '=', added.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.account_number_sealed).toBeNull();

    await ok(
      t,
      'PUT',
      `/v1/paymentmethods/bankaccount/${added.paymentMethodID}`,
      bankBody(customerID, 'ach'),
    );
    expect((await read(added.paymentMethodID)).BankAccount).toMatchObject({
      DebitMethod: 'ach',
      AccountNumber: '123456789012',
      RoutingNumber: '021000021',
      IBAN: null,
      BIC: null,
      EMandateToken: null,
    });
  });

  it('isPrimary true makes it primary; false leaves the primary as it is', async () => {
    const customerID = await newCustomer();
    const card = await addCard(customerID);
    const bank = await addBank(customerID);
    await ok(
      t,
      'PUT',
      `/v1/paymentmethods/bankaccount/${bank.paymentMethodID}`,
      bankBody(customerID, 'debit_order', {}, { isPrimary: true }),
    );
    expect(await primaries(customerID)).toEqual([bank.paymentMethodID]);
    await ok(
      t,
      'PUT',
      `/v1/paymentmethods/bankaccount/${bank.paymentMethodID}`,
      bankBody(customerID, 'debit_order', {}, { isPrimary: false }),
    );
    expect(await primaries(customerID)).toEqual([bank.paymentMethodID]);
    expect((await read(card.paymentMethodID)).isPrimary).toBe(false);
  });

  it('refuses bad details (422 naming the field), another customer (422) and a card (422), changing nothing', async () => {
    const customerID = await newCustomer();
    const otherCustomer = await newCustomer();
    const bank = await addBank(customerID, 'debit_order');
    const card = await addCard(customerID);
    const before = await read(bank.paymentMethodID);
    const attempt = async (id: number, body: unknown) => {
      const res = await t.request('PUT', `/v1/paymentmethods/bankaccount/${id}`, { body });
      expect(res.status, res.text).toBe(422);
      return fieldsOf(res.body);
    };
    expect(
      await attempt(bank.paymentMethodID, bankBody(customerID, 'ach', { RoutingNumber: '123' })),
    ).toEqual(['BankAccount.RoutingNumber']);
    expect(await attempt(bank.paymentMethodID, bankBody(customerID, 'sepa', { IBAN: undefined }))).toEqual([
      'BankAccount.IBAN',
    ]);
    expect(await attempt(bank.paymentMethodID, bankBody(otherCustomer, 'debit_order'))).toEqual([
      'customerID',
    ]);
    expect(await attempt(card.paymentMethodID, bankBody(customerID, 'debit_order'))).toEqual([
      'paymentMethodID',
    ]);
    expect(await read(bank.paymentMethodID)).toEqual(before);
  });

  it("answers 404 for a method or customer that does not exist or is another account's", async () => {
    const customerID = await newCustomer();
    const bank = await addBank(customerID);
    const theirCustomer = await newCustomer(other);
    const theirs = await addBank(theirCustomer, 'debit_order', {}, {}, other);
    for (const id of [987654321, theirs.paymentMethodID]) {
      const res = await t.request('PUT', `/v1/paymentmethods/bankaccount/${id}`, {
        body: bankBody(customerID),
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('payment_method_not_found');
    }
    for (const id of [987654321, theirCustomer]) {
      const res = await t.request('PUT', `/v1/paymentmethods/bankaccount/${bank.paymentMethodID}`, {
        body: bankBody(id),
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('customer_not_found');
    }
    expect((await read(theirs.paymentMethodID, other)).BankAccount.AccountNumber).toBe('62001234567');
  });
});

describe('DELETE /v1/paymentmethods/{paymentMethodID}', () => {
  it('deletes a method that is not primary', async () => {
    const customerID = await newCustomer();
    const primary = await addCard(customerID);
    const spare = await addBank(customerID);
    await ok(t, 'DELETE', `/v1/paymentmethods/${spare.paymentMethodID}`);
    expect((await t.request('GET', `/v1/paymentmethods/${spare.paymentMethodID}`)).status).toBe(404);
    const list = await ok(t, 'GET', `/v1/customers/${customerID}/paymentmethods`);
    expect(list.map((m: any) => m.paymentMethodID)).toEqual([primary.paymentMethodID]);
    expect((await t.request('DELETE', `/v1/paymentmethods/${spare.paymentMethodID}`)).status).toBe(404);
  });

  it('refuses the primary (409) until another one is made primary', async () => {
    const customerID = await newCustomer();
    const primary = await addCard(customerID);
    const res = await t.request('DELETE', `/v1/paymentmethods/${primary.paymentMethodID}`);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body.code).toBe('payment_method_is_primary');
    expect((await read(primary.paymentMethodID)).isPrimary).toBe(true);

    const next = await addBank(customerID);
    await ok(t, 'PUT', `/v1/paymentmethods/${next.paymentMethodID}/setprimary`);
    await ok(t, 'DELETE', `/v1/paymentmethods/${primary.paymentMethodID}`);
    expect(await primaries(customerID)).toEqual([next.paymentMethodID]);
  });

  it('refuses (409) a method an invoice, a recurring invoice or a payment refers to', async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    await addCard(customerID);
    const byInvoice = await addCard(customerID);
    const byRecurring = await addBank(customerID);
    const byPayment = await addBank(customerID);
    await ok(t, 'POST', '/v1/invoices', {
      customerID,
      Charges: [{ Descrip: 'Consulting', Qty: 1, UnitCostEx: 10 }],
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: byInvoice.paymentMethodID,
    });
    await ok(t, 'POST', '/v1/recurring-invoices', {
      customerID,
      StartDate: '2026-04-01',
      RecurInvoiceCharges: [{ Descrip: 'Hosting', Qty: 1, UnitCostEx: 10 }],
      CollectionMethod: 'debit_order',
      gatewayID,
      customerPaymentMethodID: byRecurring.paymentMethodID,
    });
    // Payments have no endpoint in this file's scope: one is recorded directly, as the ledger will.
    const now = '2026-03-15T10:00:00.000Z';
    await db()
      .insertInto('payments')
      .values({
        account_id: t.accountId,
        customer_id: customerID,
        currency_code: 'USD',
        amount_minor: 1000,
        payment_date: '2026-03-15',
        method: 'debit_order',
        state: 'settled',
        payment_method_id: byPayment.paymentMethodID,
        created_at: now,
        updated_at: now,
      })
      .execute();
    for (const [id, what] of [
      [byInvoice.paymentMethodID, 'invoice'],
      [byRecurring.paymentMethodID, 'recurring invoice'],
      [byPayment.paymentMethodID, 'payments'],
    ] as const) {
      const res = await t.request('DELETE', `/v1/paymentmethods/${id}`);
      expect(res.status, res.text).toBe(409);
      expect(res.body.code).toBe('payment_method_in_use');
      expect(res.body.detail).toContain(what);
      expect((await read(id)).paymentMethodID).toBe(id);
    }
  });

  it("answers 404 for a method that does not exist or is another account's, leaving theirs", async () => {
    const theirCustomer = await newCustomer(other);
    await addCard(theirCustomer, {}, {}, other);
    const theirs = await addCard(theirCustomer, {}, {}, other);
    for (const id of [987654321, theirs.paymentMethodID]) {
      const res = await t.request('DELETE', `/v1/paymentmethods/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('payment_method_not_found');
    }
    expect((await read(theirs.paymentMethodID, other)).paymentMethodID).toBe(theirs.paymentMethodID);
  });

  it('go with their customer when the customer is deleted, the primary too', async () => {
    const customerID = await newCustomer();
    const a = await addCard(customerID);
    const b = await addBank(customerID);
    await ok(t, 'DELETE', `/v1/customers/${customerID}`);
    for (const m of [a, b])
      expect((await t.request('GET', `/v1/paymentmethods/${m.paymentMethodID}`)).status).toBe(404);
  });
});

describe('POST /v1/ValidateBankAccount/{gatewayID}', () => {
  const validate = (gatewayID: number | string, body: unknown, as: TestAccount = t) =>
    as.request('POST', `/v1/ValidateBankAccount/${gatewayID}`, { body });

  it.each(['debit_order', 'ach', 'sepa'] as Method[])(
    'answers 204 for a good %s account, storing nothing',
    async (method) => {
      const gatewayID = await testGatewayId();
      const before = await methodCount();
      const res = await validate(gatewayID, { BankAccount: BANK_ACCOUNTS[method] });
      expect(res.status, res.text).toBe(204);
      expect(res.text).toBe('');
      expect(await methodCount()).toBe(before);
    },
  );

  it('takes the optional customerID, PaymentMethodType, isPrimary and isValid, and changes no stored method', async () => {
    const gatewayID = await testGatewayId();
    const customerID = await newCustomer();
    const stored = await addBank(customerID);
    const res = await validate(gatewayID, {
      BankAccount: BANK_ACCOUNTS.debit_order,
      customerID,
      PaymentMethodType: 'bank_account',
      isPrimary: true,
      isValid: true,
    });
    expect(res.status, res.text).toBe(204);
    expect((await read(stored.paymentMethodID)).isValid).toBe(false);
  });

  it.each([
    [{ ...BANK_ACCOUNTS.sepa, IBAN: 'DE89370400440532013001' }, 'BankAccount.IBAN'],
    [{ ...BANK_ACCOUNTS.ach, RoutingNumber: '021000022' }, 'BankAccount.RoutingNumber'],
    [{ ...BANK_ACCOUNTS.debit_order, BranchCode: undefined }, 'BankAccount.BranchCode'],
    [{ ...BANK_ACCOUNTS.debit_order, Method: 'cash' }, 'BankAccount.Method'],
    [{ ...BANK_ACCOUNTS.sepa, BIC: 'NOPE' }, 'BankAccount.BIC'],
    [undefined, 'BankAccount'],
  ])('answers 422 naming the bad field for %j', async (account, field) => {
    const res = await validate(await testGatewayId(), { BankAccount: account });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toEqual([field]);
  });

  it('refuses a PaymentMethodType other than bank_account, and a customer it cannot see (404)', async () => {
    const gatewayID = await testGatewayId();
    const typed = await validate(gatewayID, {
      BankAccount: BANK_ACCOUNTS.ach,
      PaymentMethodType: 'credit_card',
    });
    expect(typed.status).toBe(422);
    expect(fieldsOf(typed.body)).toEqual(['PaymentMethodType']);
    const theirs = await newCustomer(other);
    const res = await validate(gatewayID, { BankAccount: BANK_ACCOUNTS.ach, customerID: theirs });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('customer_not_found');
  });

  it("answers 404 for a gateway that does not exist or is another account's, 422 for one that takes no bank accounts", async () => {
    for (const id of [987654321, await testGatewayId(other)]) {
      const res = await validate(id, { BankAccount: BANK_ACCOUNTS.ach });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('gateway_not_found');
    }
    const account = await t.newAccount('Validate');
    const ctx = await accountContext(t, account.accountId, clock);
    const manual = await addGateway(ctx, { type: 'manual', friendlyName: 'Cash desk' });
    const refused = await validate(manual.id, { BankAccount: BANK_ACCOUNTS.ach }, account);
    expect(refused.status).toBe(422);
    expect(refused.body.fields).toEqual([
      { field: 'gatewayID', message: `gateway ${manual.id} does not take bank accounts` },
    ]);
    const simulator = await testGatewayId(account);
    await setGatewayEnabled(ctx, simulator, false);
    const disabled = await validate(simulator, { BankAccount: BANK_ACCOUNTS.ach }, account);
    expect(disabled.status).toBe(422);
    expect(fieldsOf(disabled.body)).toEqual(['gatewayID']);
    const malformed = await validate('abc', { BankAccount: BANK_ACCOUNTS.ach });
    expect(malformed.status).toBe(422);
    expect(fieldsOf(malformed.body)).toEqual(['gatewayID']);
  });
});

describe("an invoice's customerPaymentMethodID", () => {
  const CHARGE = { Descrip: 'Consulting', Qty: 1, UnitCostEx: 10 };
  const invoice = (body: Record<string, unknown>, as: TestAccount = t) =>
    as.request('POST', '/v1/invoices', { body: { Charges: [CHARGE], ...body } });
  const recurring = (body: Record<string, unknown>) =>
    t.request('POST', '/v1/recurring-invoices', {
      body: { StartDate: '2026-04-01', RecurInvoiceCharges: [CHARGE], ...body },
    });

  it("is accepted when it is the customer's and suits the collection method and gateway", async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    const card = await addCard(customerID);
    const bank = await addBank(customerID);
    const byCard = await invoice({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(byCard.status, byCard.text).toBe(201);
    expect(byCard.body.customerPaymentMethodID).toBe(card.paymentMethodID);
    const byDebit = await invoice({
      customerID,
      CollectionMethod: 'debit_order',
      gatewayID,
      customerPaymentMethodID: bank.paymentMethodID,
    });
    expect(byDebit.status, byDebit.text).toBe(201);
    const repeating = await recurring({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(repeating.status, repeating.text).toBe(201);
    expect(repeating.body.customerPaymentMethodID).toBe(card.paymentMethodID);
  });

  it("is refused (422) when it is another customer's or account's, of the wrong kind, or kept by another gateway", async () => {
    const account = await t.newAccount('Invoice methods');
    const ctx = await accountContext(t, account.accountId, clock);
    const gatewayID = await testGatewayId(account);
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' });
    const customerID = await newCustomer(account);
    const neighbour = await newCustomer(account);
    const onSecond = await newCustomer(account, { PrimaryGatewayID: second.id });
    const card = await addCard(customerID, {}, {}, account);
    const bank = await addBank(customerID, 'debit_order', {}, {}, account);
    const neighbours = await addCard(neighbour, {}, {}, account);
    const secondsCard = await addCard(onSecond, {}, {}, account);
    const theirs = await addCard(await newCustomer(), {}, {}, t);

    const attempt = async (customer: number, CollectionMethod: string, methodId: number) => {
      const res = await invoice(
        { customerID: customer, CollectionMethod, gatewayID, customerPaymentMethodID: methodId },
        account,
      );
      expect(res.status, res.text).toBe(422);
      expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
      return res.body.fields[0].message;
    };
    expect(await attempt(customerID, 'credit_card', neighbours.paymentMethodID)).toBe(
      `customer ${customerID} has no payment method ${neighbours.paymentMethodID}`,
    );
    expect(await attempt(customerID, 'credit_card', theirs.paymentMethodID)).toBe(
      `customer ${customerID} has no payment method ${theirs.paymentMethodID}`,
    );
    expect(await attempt(customerID, 'credit_card', bank.paymentMethodID)).toContain('is a bank account');
    expect(await attempt(customerID, 'debit_order', card.paymentMethodID)).toContain('is a credit card');
    expect(await attempt(onSecond, 'credit_card', secondsCard.paymentMethodID)).toBe(
      `payment method ${secondsCard.paymentMethodID} is kept by gateway ${second.id} and cannot be charged through gateway ${gatewayID}`,
    );
    const res = await account.request('POST', '/v1/recurring-invoices', {
      body: {
        customerID,
        StartDate: '2026-04-01',
        RecurInvoiceCharges: [CHARGE],
        CollectionMethod: 'debit_order',
        gatewayID,
        customerPaymentMethodID: neighbours.paymentMethodID,
      },
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
  });

  it('is checked again when a recurring invoice changes its collection method but keeps the method', async () => {
    const customerID = await newCustomer();
    const gatewayID = await testGatewayId();
    const card = await addCard(customerID);
    const created = await recurring({
      customerID,
      CollectionMethod: 'credit_card',
      gatewayID,
      customerPaymentMethodID: card.paymentMethodID,
    });
    expect(created.status, created.text).toBe(201);
    const res = await t.request('PUT', `/v1/recurring-invoices/${created.body.recurInvoiceID}`, {
      body: { CollectionMethod: 'debit_order' },
    });
    expect(res.status, res.text).toBe(422);
    expect(fieldsOf(res.body)).toEqual(['customerPaymentMethodID']);
  });
});

describe('card and bank account numbers at rest and in logs', () => {
  // Distinctive values that appear nowhere else.
  const CARD = cardNumber('4929', 16);
  const CARD_GROUPED = CARD.replace(/(\d{4})(?=\d)/g, '$1 ');
  const ACCOUNT = '73918264055';
  const ACH_ACCOUNT = '58203917466190';
  const IBAN = 'GB33BUKB20201555555555';
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ clock, env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(() => s?.close());

  /** Every table's rows as text (PostgreSQL), or the database files' bytes (SQLite). */
  async function storedText(): Promise<string> {
    if (dialect === 'postgres') {
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(s.service.storage.db);
      const parts: string[] = [];
      for (const { name } of tables.rows) {
        const rows = await sql<{
          row: string;
        }>`select row_to_json(x)::text as row from ${sql.table(name)} x`.execute(s.service.storage.db);
        parts.push(...rows.rows.map((r) => r.row));
      }
      expect(parts.join('\n')).toContain('tok_test_');
      return parts.join('\n');
    }
    const files = fs.readdirSync(s.dataDir).filter((f) => f.startsWith('test.sqlite'));
    expect(files).toContain('test.sqlite');
    const text = files.map((f) => fs.readFileSync(path.join(s.dataDir, f)).toString('latin1')).join('\n');
    expect(text).toContain('tok_test_');
    return text;
  }

  it('are never stored, and never logged, whatever the request', async () => {
    const customerID = await newCustomer(s);
    const idempotent = (key: string) => ({ headers: { 'idempotency-key': key } });
    const post = (url: string, body: unknown, key?: string) =>
      s.request('POST', url, { body, ...(key ? idempotent(key) : {}) });

    const card = await post(
      '/v1/paymentmethods/creditcard',
      cardBody(customerID, { Number: CARD_GROUPED }),
      'card-1',
    );
    expect(card.status, card.text).toBe(200);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD_GROUPED }), 'card-1'))
        .status,
    ).toBe(200);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD, ExpiryYear: 2020 })))
        .status,
    ).toBe(422);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD, CardType: 'JCB' })))
        .status,
    ).toBe(422);
    const debit = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'debit_order', { AccountNumber: ACCOUNT }),
      'bank-1',
    );
    expect(debit.status, debit.text).toBe(200);
    const ach = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'ach', { AccountNumber: ACH_ACCOUNT }),
    );
    expect(ach.status, ach.text).toBe(200);
    const sepa = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'sepa', { IBAN, BIC: 'BUKBGB22' }),
      'bank-2',
    );
    expect(sepa.status, sepa.text).toBe(200);
    expect(
      (await post('/v1/paymentmethods/bankaccount', bankBody(customerID, 'sepa', { IBAN, BranchCode: '1' })))
        .status,
    ).toBe(422);
    expect(
      (
        await post(`/v1/ValidateBankAccount/${await testGatewayId(s)}`, {
          BankAccount: { ...BANK_ACCOUNTS.debit_order, AccountNumber: ACCOUNT },
        })
      ).status,
    ).toBe(204);
    expect((await post('/v1/paymentmethods/creditcard', undefined)).status).toBe(422);
    // Malformed JSON holding a number.
    expect(
      (
        await s.request('POST', '/v1/paymentmethods/creditcard', {
          rawBody: `{"CreditCard":{"Number":"${CARD}"`,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await s.request('PUT', `/v1/paymentmethods/bankaccount/${debit.body.paymentMethodID}`, {
          body: bankBody(customerID, 'debit_order', { AccountNumber: ACCOUNT }),
        })
      ).status,
    ).toBe(204);
    // The reads that return the numbers are not logged either.
    expect(
      (await ok(s, 'GET', `/v1/paymentmethods/${debit.body.paymentMethodID}`)).BankAccount.AccountNumber,
    ).toBe(ACCOUNT);
    expect((await ok(s, 'GET', `/v1/paymentmethods/${sepa.body.paymentMethodID}`)).BankAccount.IBAN).toBe(
      IBAN,
    );

    // A log call handed a body anyway has the numbers redacted.
    s.service.log.info({ req: { body: cardBody(customerID, { Number: CARD }) } }, 'handed a card body');
    s.service.log.info(
      { body: bankBody(customerID, 'sepa', { IBAN, AccountNumber: ACCOUNT }) },
      'handed a bank body',
    );
    s.service.log.info({ accountNumber: ACCOUNT, iban: IBAN }, 'handed the fields');

    const stored = await storedText();
    const logs = s.logs.join('');
    expect(logs).toContain('handed a card body');
    expect(logs).toContain('/v1/paymentmethods/creditcard');
    const secrets = [CARD, CARD_GROUPED, CARD.slice(0, 12), ACCOUNT, ACH_ACCOUNT, IBAN, IBAN.slice(4, 18)];
    for (const secret of secrets) {
      expect(stored.includes(secret), `${secret} at rest`).toBe(false);
      expect(logs.includes(secret), `${secret} in the logs`).toBe(false);
    }
    // What is kept in clear: the last four digits.
    expect(card.body.CreditCard.LastFourDigits).toBe(CARD.slice(-4));
    expect(sepa.body.BankAccount.LastFourDigits).toBe(IBAN.slice(-4));
  });
});

describe('tenant isolation', () => {
  it("another account's methods can be neither seen nor changed", async () => {
    const theirCustomer = await newCustomer(other);
    const theirPrimary = await addBank(theirCustomer, 'ach', {}, {}, other);
    const theirSpare = await addCard(theirCustomer, {}, {}, other);
    const mine = new Set(
      (await ok(t, 'GET', '/v1/paymentmethods?page_size=200')).map((m: any) => m.paymentMethodID),
    );
    expect(mine.has(theirPrimary.paymentMethodID)).toBe(false);
    expect(mine.has(theirSpare.paymentMethodID)).toBe(false);
    const customerID = await newCustomer();
    const attempts = [
      t.request('GET', `/v1/paymentmethods/${theirSpare.paymentMethodID}`),
      t.request('PUT', `/v1/paymentmethods/${theirSpare.paymentMethodID}/setprimary`),
      t.request('PUT', `/v1/paymentmethods/bankaccount/${theirPrimary.paymentMethodID}`, {
        body: bankBody(customerID),
      }),
      t.request('DELETE', `/v1/paymentmethods/${theirSpare.paymentMethodID}`),
      t.request('GET', `/v1/customers/${theirCustomer}/paymentmethods`),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(404);
    expect((await read(theirPrimary.paymentMethodID, other)).isPrimary).toBe(true);
    expect((await read(theirSpare.paymentMethodID, other)).paymentMethodID).toBe(theirSpare.paymentMethodID);
  });
});
