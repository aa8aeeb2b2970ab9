import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * A body field the operation does not define is a 422 naming it, with the field it most likely meant, and
 * changes nothing; the spellings a body declares and the fields of the resource as returned stay accepted
 * (docs/spec-decisions.md, "Request bodies").
 */

type Json = Record<string, any>;

/** A test account: test clocks and simulations answer 403 to any other before they read a body. */
let account: TestAccount;
let customerID: number;
let gatewayID: number;
const t = useTestService();
beforeAll(async () => {
  account = await t.newAccount('Fields', { isTest: true });
  customerID = (await account.request('POST', '/v1/customers', { body: { Name: 'Ada' } })).body.customerID;
  gatewayID = (await account.request('GET', '/v1/gateways')).body[0].gatewayID;
});

const problemsOf = (res: ApiResponse): { field: string; message: string }[] => res.body?.fields ?? [];

function expectUnknown(res: ApiResponse, field: string, message = 'unknown field'): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.code).toBe('invalid_fields');
  expect(problemsOf(res)).toContainEqual({ field, message });
  expect(res.body.Errors).toContainEqual({ Message: `${field}: ${message}` });
}

/** Everything an account can read that a write would change: its events and its audit log. */
async function history(as: TestAccount): Promise<unknown> {
  const events = await as.request('GET', '/v1/events?page_size=200');
  const audit = await as.request('GET', '/v1/auditlog?page_size=200');
  expect(events.status).toBe(200);
  expect(audit.status).toBe(200);
  return { events: events.body, audit: audit.body };
}

describe('every operation with a JSON body', () => {
  it('refuses a made-up field with a 422 naming it, and changes nothing', async () => {
    const doc = (await t.request('GET', '/openapi.json', { auth: false })).body as Json;
    const before = await history(account);
    const walked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, operation] of Object.entries(item as Json)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
        if (!operation.requestBody?.content?.['application/json']) continue;
        const parameters = (operation.parameters ?? []) as Json[];
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = parameters.find((p) => p.in === 'path' && p.name === name);
          return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.examples?.[0] ?? 1));
        });
        const res = await account.request(method.toUpperCase(), url, { body: { madeUpField: 1 } });
        const name = `${method.toUpperCase()} ${path}`;
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(422);
        expect(problemsOf(res), name).toContainEqual({ field: 'madeUpField', message: 'unknown field' });
        walked.push(name);
      }
    expect(walked.length).toBeGreaterThan(50);
    expect(walked).toContain('POST /v1/customers');
    expect(walked).toContain('PUT /v1/account');
    expect(walked).toContain('POST /v1/test/simulate');
    expect(await history(account)).toEqual(before);
  });
});

describe('an unknown field', () => {
  it('is named with the field it most likely meant, and nothing is created', async () => {
    const before = (await account.request('GET', '/v1/customers')).body;
    const res = await account.request('POST', '/v1/customers', {
      body: { Name: 'Grace', Emial: 'grace@example.com' },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual([{ field: 'Emial', message: 'unknown field; did you mean Email?' }]);
    expect(res.body.Errors).toEqual([{ Message: 'Emial: unknown field; did you mean Email?' }]);
    expect((await account.request('GET', '/v1/customers')).body).toEqual(before);
  });

  it('in another letter case is pointed to the declared spelling; a name far from any gets no guess', async () => {
    const res = await account.request('POST', '/v1/customers', {
      body: { Name: 'Grace', email: 'grace@example.com', Nickname: 'Amazing' },
    });
    expectUnknown(res, 'email', 'unknown field; did you mean Email?');
    expectUnknown(res, 'Nickname');
  });

  it('leaves an edit undone, the valid fields sent with it included', async () => {
    const before = (await account.request('GET', `/v1/customers/${customerID}`)).body;
    const res = await account.request('PUT', `/v1/customers/${customerID}`, {
      body: { City: 'London', Adress1: '12 St James’s Square' },
    });
    expectUnknown(res, 'Adress1', 'unknown field; did you mean Address1?');
    expect((await account.request('GET', `/v1/customers/${customerID}`)).body).toEqual(before);
  });

  it('named after what every object inherits is refused like any other, at any depth', async () => {
    const customers = (await account.request('GET', '/v1/customers')).body;
    const invoices = (await account.request('GET', '/v1/invoices')).body;
    for (const [rawBody, field] of [
      ['{"Name":"Grace","constructor":"x"}', 'constructor'],
      ['{"Name":"Grace","toString":1,"hasOwnProperty":null}', 'toString'],
      ['{"Name":"Grace","__proto__":{"isAdmin":true}}', '__proto__'],
      ['{"Name":"Grace","constructor":{"prototype":{"isAdmin":true}}}', 'constructor'],
    ] as const)
      expectUnknown(await account.request('POST', '/v1/customers', { rawBody }), field);
    const charges =
      '[{"Descrip":"A","Qty":1,"UnitCostEx":5},{"Descrip":"B","Qty":1,"UnitCostEx":5,"__proto__":{}}]';
    const invoice = await account.request('POST', '/v1/invoices', {
      rawBody: `{"customerID":${customerID},"Charges":${charges}}`,
    });
    expectUnknown(invoice, 'Charges[1].__proto__');
    expect((await account.request('GET', '/v1/customers')).body).toEqual(customers);
    expect((await account.request('GET', '/v1/invoices')).body).toEqual(invoices);
  });

  it('inside a list item or a nested object is named by its path', async () => {
    const invoices = (await account.request('GET', '/v1/invoices')).body;
    const invoice = await account.request('POST', '/v1/invoices', {
      body: {
        customerID,
        Charges: [
          { Descrip: 'Consulting', Qty: 1, UnitCostEx: 50 },
          { Descrip: 'Travel', Qyt: 2, UnitCostEx: 9 },
        ],
      },
    });
    expectUnknown(invoice, 'Charges[1].Qyt', 'unknown field; did you mean Qty?');
    expect((await account.request('GET', '/v1/invoices')).body).toEqual(invoices);

    const bank = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: {
        customerID,
        isPrimary: false,
        BankAccount: { ...DEBIT_ORDER_ACCOUNT, AccountNo: '62001234567' },
      },
    });
    expectUnknown(bank, 'BankAccount.AccountNo');
    const card = await account.request('POST', '/v1/paymentmethods/creditcard', {
      body: { customerID, isPrimary: false, CreditCard: { ...CARD, ExpiryMonht: 12 } },
    });
    expectUnknown(card, 'CreditCard.ExpiryMonht', 'unknown field; did you mean ExpiryMonth?');
    expect((await account.request('GET', `/v1/customers/${customerID}/paymentmethods`)).body).toEqual([]);

    const group = (await account.request('POST', '/v1/packagegroups', { body: { GroupName: 'Plans' } })).body;
    const pkg = await account.request('POST', '/v1/packages', {
      body: {
        packageGroupID: group.packageGroupID,
        packageCode: 'GOLD',
        Name: 'Gold',
        Descrip: 'The gold plan',
        isActive: true,
        PackageVersion: { ...VERSION, VersionNo: 9, packageVersionRates: [{ ...RATE, SetupFees: 10 }] },
      },
    });
    expectUnknown(pkg, 'PackageVersion.VersionNo');
    expectUnknown(
      pkg,
      'PackageVersion.packageVersionRates[0].SetupFees',
      'unknown field; did you mean SetupFee?',
    );
    expect((await account.request('GET', '/v1/packages')).body).toEqual([]);
  });
});

describe('one answer for every problem of a body', () => {
  it('lists an unknown field, a bound, an enum and a disabled currency together, with synonyms', async () => {
    const before = await history(account);
    const res = await account.request('POST', '/v1/customers', {
      body: {
        Name: 'Grace',
        Surname: 'Hopper',
        PostalCode: '10001',
        ZipCode: '1'.repeat(30),
        isSuspended: 'maybe',
        CurrencyCode: 'JPY',
      },
    });
    expectUnknown(res, 'Surname', 'unknown field; did you mean LastName?');
    expectUnknown(res, 'PostalCode', 'unknown field; did you mean ZipCode?');
    expect(problemsOf(res)).toContainEqual({ field: 'ZipCode', message: 'must be at most 20 characters' });
    expect(problemsOf(res)).toContainEqual({
      field: 'isSuspended',
      message: 'must be one of true, false, 0, 1',
    });
    expect(problemsOf(res)).toContainEqual({
      field: 'CurrencyCode',
      message: 'JPY is not enabled for this account (POST /v1/currencies enables it)',
    });

    const edit = await account.request('PUT', `/v1/customers/${customerID}`, {
      body: { Fullname: 'Grace Hopper', CurrencyCode: 'jpy' },
    });
    expectUnknown(edit, 'Fullname', 'unknown field; did you mean Name?');
    expect(problemsOf(edit).map((p) => p.field)).toEqual(['Fullname', 'CurrencyCode']);

    const invoice = await account.request('POST', '/v1/invoices', {
      body: { customerID, Currency: 'JPY', CurrencyCode: 'JPY', poNumber: 'P'.repeat(101) },
    });
    expectUnknown(invoice, 'Currency', 'unknown field; did you mean CurrencyCode?');
    expect(
      problemsOf(invoice)
        .map((p) => p.field)
        .sort(),
    ).toEqual(['Currency', 'CurrencyCode', 'poNumber']);
    expect(await history(account)).toEqual(before);
  });

  it('gathers a use case’s own problems with the currency’s, once the schema accepts the body', async () => {
    const res = await account.request('POST', '/v1/customers', {
      body: { Name: 'Grace', PaymentMethod: 'barter', CurrencyCode: 'JPY' },
    });
    expect(res.status).toBe(422);
    expect(problemsOf(res).map((p) => p.field)).toEqual(['PaymentMethod', 'CurrencyCode']);
  });
});

const DEBIT_ORDER_ACCOUNT = {
  Method: 'debit_order',
  AccountType: 'Savings',
  AccountHolder: 'Ada Lovelace',
  Bank: 'Standard Bank',
  AccountNumber: '62001234567',
  BranchCode: '051001',
};
const CARD = {
  CardType: 'Visa',
  Number: '4242424242424242',
  NameOnCard: 'Ada',
  LastNameOnCard: 'Lovelace',
  ExpiryMonth: 12,
  ExpiryYear: 2040,
};
const RATE = {
  CurrencyCode: 'USD',
  SetupFee: 10,
  TrialFee: 0,
  TrialPeriod: 0,
  TrialPeriodType: 'days',
  PackageRateTerms: [{ ChargePrice: 25, ChargeTerm: 1, ChargeTermType: 'months' }],
};
const VERSION = { VersionName: 'Standard', isActive: true, isDefault: true, packageVersionRates: [RATE] };

describe('what clients of the original service send stays accepted', () => {
  it('a whole object read back, its read-only fields ignored', async () => {
    const read = (await account.request('GET', `/v1/customers/${customerID}`)).body;
    expect(read).toHaveProperty('Balance');
    const edited = await account.request('PUT', `/v1/customers/${customerID}`, {
      body: { ...read, City: 'London', Balance: 1_000_000, comp_status: 'Archived' },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(204);
    const after = (await account.request('GET', `/v1/customers/${customerID}`)).body;
    expect(after).toEqual({ ...read, City: 'London' });

    const copy = await account.request('POST', '/v1/customers', {
      body: { ...read, Reference: null, Name: 'Ada again' },
    });
    expect(copy.status, JSON.stringify(copy.body)).toBe(201);
    expect(copy.body.customerID).not.toBe(customerID);
  });

  it('the spellings a body declares: allocations or Allocations, AutoApply or isAutoApply', async () => {
    const payment = (body: Json) =>
      account.request('POST', '/v1/payments', {
        body: { customerID, Amount: 5, CurrencyCode: 'USD', Date: '2026-03-05', Method: 'cash', ...body },
      });
    for (const body of [
      { allocations: [] },
      { Allocations: [] },
      { AutoApply: false, allocations: [] },
      { isAutoApply: true },
    ]) {
      const res = await payment(body);
      expect(res.status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    const created = (await payment({ allocations: [] })).body;
    const edit = await account.request('PUT', `/v1/payments/${created.paymentID}`, {
      body: { ...created, Date: '2026-03-05', allocations: [], AutoApply: true, isAutoApply: true },
    });
    expect(edit.status, edit.text).toBe(204);
    const typo = await payment({ allocation: [] });
    expectUnknown(typo, 'allocation', 'unknown field; did you mean allocations?');
  });

  it('fields accepted and ignored: isPrimary and isValid when validating a bank account', async () => {
    const res = await account.request('POST', `/v1/ValidateBankAccount/${gatewayID}`, {
      body: {
        BankAccount: DEBIT_ORDER_ACCOUNT,
        PaymentMethodType: 'bank_account',
        isPrimary: true,
        isValid: true,
      },
    });
    expect(res.status, res.text).toBe(204);
  });

  it('query parameters are not body fields: a name a query does not know is left alone', async () => {
    const res = await account.request('GET', '/v1/customers?madeUpField=1');
    expect(res.status).toBe(200);
  });
});
