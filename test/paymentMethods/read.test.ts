import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  addBank,
  addCard,
  BANK_FIELDS,
  bankBody,
  CARD_FIELDS,
  FULL_FIELDS,
  fieldsOf,
  newCustomer,
  other,
  read,
  signedMandateToken,
  t,
  usePaymentMethodsService,
} from './fixtures.ts';

usePaymentMethodsService();

describe('GET payment method lists', () => {
  let account: TestAccount;
  let first: number;
  let second: number;
  let ids: number[];
  let mandateToken: string;
  beforeAll(async () => {
    account = await t.newAccount('Lists');
    first = await newCustomer(account);
    second = await newCustomer(account);
    mandateToken = await signedMandateToken(account);
    ids = [
      (await addCard(first, {}, {}, account)).paymentMethodID,
      (await addBank(second, 'debit_order', { EMandateToken: mandateToken }, {}, account)).paymentMethodID,
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
      // Under a signed eMandate (docs/spec-decisions.md, "eMandates").
      isValid: true,
      BankAccount: { AccountHolder: 'Ada Lovelace', LastFourDigits: '4567', EMandateToken: mandateToken },
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
