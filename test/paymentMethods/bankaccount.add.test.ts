import { describe, expect, it } from 'vitest';
import { addGateway, setGatewayEnabled } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import {
  addBank,
  BANK_ACCOUNTS,
  BANK_FIELDS,
  bankBody,
  clock,
  db,
  fieldsOf,
  methodCount,
  newCustomer,
  other,
  read,
  t,
  testGatewayId,
  usePaymentMethodsService,
  signedMandateToken,
} from './fixtures.ts';
import type { Method } from './fixtures.ts';

usePaymentMethodsService();

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
        MandateReference: null,
        MandateSignatureDate: null,
        IdType: null,
        IdNumberLastThree: null,
        Verification: null,
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
      MandateReference: null,
      MandateSignatureDate: null,
      IdType: null,
      IdNumberLastThree: null,
      Verification: null,
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
      MandateReference: null,
      MandateSignatureDate: null,
      IdType: null,
      IdNumberLastThree: null,
      Verification: null,
    });
    const row = await db()
      .selectFrom('payment_methods')
      .select(['account_number_sealed', 'iban_sealed'])
      .where('id', '=', added.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.account_number_sealed).toBeNull();
    expect(t.service.secrets.open(row.iban_sealed!)).toBe('DE89370400440532013000');
  });

  it("takes an IBAN written with dashes, and a BIC of a territory sharing the IBAN country's scheme", async () => {
    const customerID = await newCustomer();
    const added = await addBank(customerID, 'sepa', {
      IBAN: 'gb33-bukb-2020-1555-5555-55',
      BIC: 'rbosggsx',
    });
    expect((await read(added.paymentMethodID)).BankAccount).toMatchObject({
      IBAN: 'GB33BUKB20201555555555',
      BIC: 'RBOSGGSX',
      LastFourDigits: '5555',
    });
  });

  it.each([
    [{ IBAN: 'DE89370400440532013001' }, 'BankAccount.IBAN', 'has wrong check digits'],
    [{ IBAN: 'DE8937040044053201300' }, 'BankAccount.IBAN', 'an IBAN of DE has 22 characters, not 21'],
    [{ IBAN: 'US89370400440532013000' }, 'BankAccount.IBAN', 'US is not a country that uses IBANs'],
    [
      { IBAN: 'DE89370400440532013A00' },
      'BankAccount.IBAN',
      'after its check digits an IBAN of DE has 18 digits',
    ],
    [
      { BIC: 'COBAXXFF' },
      'BankAccount.BIC',
      'has XX as its country (5th and 6th characters), which is not a country code',
    ],
    [
      { BIC: 'BNPAFRPPXXX' },
      'BankAccount.BIC',
      "is a BIC of FR (5th and 6th characters) but the IBAN is of DE: the BIC must be that of the IBAN's bank",
    ],
  ])('refuses the sepa account %j with a message saying what is wrong', async (account, field, message) => {
    const customerID = await newCustomer();
    const res = await t.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankBody(customerID, 'sepa', account),
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.fields).toEqual([expect.objectContaining({ field, message })]);
    expect(res.text).not.toContain('370400440532013');
  });

  it('reads Method as people write it, takes blank fields as not given, and keeps the EMandateToken', async () => {
    const customerID = await newCustomer();
    const mandateToken = await signedMandateToken();
    const debit = await addBank(customerID, 'debit_order', {
      Method: 'Debit Order',
      IBAN: '',
      BIC: null,
      RoutingNumber: '  ',
      EMandateToken: mandateToken,
    });
    const sepa = await addBank(customerID, 'sepa', { Method: 'SEPA', BranchCode: '' });
    expect((await read(debit.paymentMethodID)).BankAccount).toMatchObject({
      DebitMethod: 'debit_order',
      EMandateToken: mandateToken,
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
    ['sepa', { BIC: 'DEUTATWW' }, 'BankAccount.BIC'],
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

  it("takes the optional customerID, PaymentMethodType, isPrimary and isValid; the gateway's answer, not isValid, decides the stored method's validity", async () => {
    const gatewayID = await testGatewayId();
    const customerID = await newCustomer();
    const stored = await addBank(customerID);
    const refused = await addBank(customerID, 'debit_order', { AccountNumber: '9800000002' });
    const res = await validate(gatewayID, {
      BankAccount: BANK_ACCOUNTS.debit_order,
      customerID,
      PaymentMethodType: 'bank_account',
      isPrimary: false,
      isValid: false,
    });
    expect(res.status, res.text).toBe(204);
    // A full match at the test gateway (bankaccount.validate.test.ts has the rest).
    expect((await read(stored.paymentMethodID)).isValid).toBe(true);
    const closed = await validate(gatewayID, {
      BankAccount: { ...BANK_ACCOUNTS.debit_order, AccountNumber: '9800000002' },
      customerID,
      isValid: true,
    });
    expect(closed.status, closed.text).toBe(422);
    expect((await read(refused.paymentMethodID)).isValid).toBe(false);
  });

  it.each([
    [{ ...BANK_ACCOUNTS.sepa, IBAN: 'DE89370400440532013001' }, 'BankAccount.IBAN'],
    [{ ...BANK_ACCOUNTS.ach, RoutingNumber: '021000022' }, 'BankAccount.RoutingNumber'],
    [{ ...BANK_ACCOUNTS.debit_order, BranchCode: undefined }, 'BankAccount.BranchCode'],
    [{ ...BANK_ACCOUNTS.debit_order, Method: 'cash' }, 'BankAccount.Method'],
    [{ ...BANK_ACCOUNTS.sepa, BIC: 'NOPE' }, 'BankAccount.BIC'],
    [{ ...BANK_ACCOUNTS.sepa, BIC: 'BKAUATWW' }, 'BankAccount.BIC'],
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
