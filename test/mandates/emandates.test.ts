import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { expectEvents } from '../helpers/resourceEvents.ts';
import {
  ACCOUNT_NUMBER,
  createMandate,
  createPageMandate,
  fieldsOf,
  mandateAccount,
  mandateBody,
  mandateRow,
  tokenDigest,
  newCustomer,
  plusDays,
  readMandate,
  t,
  useMandatesService,
} from './fixtures.ts';

// Spec part 2, "eMandate" and "eMandates": creating a mandate in both flows, reading it back with every field,
// the DebiCheck field rules (docs/design/mandates.md, "Fields"), tenant isolation, secrecy and expiry.

useMandatesService();

let account: TestAccount;
let today: string;
beforeAll(async () => {
  ({ account, today } = await mandateAccount('Mandates', {
    timeZone: 'Africa/Johannesburg',
    seller: {
      LegalName: 'Northwind Software Ltd',
      ContactPhone: '+27 21 555 0199',
      ContactEmail: 'billing@northwind.example',
    },
  }));
});

async function mandateCount(accountId: number): Promise<number> {
  const row = await t.service.storage.db
    .selectFrom('emandates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/emandate', () => {
  it('answers 200 with a Token of at least 128 random bits, and GET answers every field', async () => {
    const body = mandateBody(plusDays(today, 3), { isCompanySignee: true });
    const res = await account.request('POST', '/v1/emandate', { body });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['Token']);
    expect(res.body.Token).toMatch(/^[0-9a-f]{64}$/);

    const mandate = await readMandate(account, res.body.Token);
    expect(mandate).toEqual({
      Token: res.body.Token,
      customerPaymentMethodID: null,
      customerID: null,
      Status: 'pending_signature',
      Name: 'Thandi',
      LastName: 'Nkosi',
      Company: 'Nkosi Trading (Pty) Ltd',
      TradingAs: 'Nkosi Fresh',
      Tel: '+27 21 555 0100',
      Email: 'thandi@nkosi.example',
      Address1: '12 Long Street',
      Address2: 'Unit 4',
      City: 'Cape Town',
      State: 'Western Cape',
      PostalCode: '8001',
      CountryISOCode: 'ZAF',
      bank_DebitMethod: 'debit_order',
      bank_Name: 'First National Bank',
      bank_BranchCode: '250655',
      bank_AccHolder: 'T Nkosi',
      bank_AccNumber: '••••9876',
      bank_AccountType: 'Cheque',
      debit_Frequency: 'Monthly',
      debit_NameOnStmt: 'NORTHWIND',
      debit_ContractRef: body.debit_ContractRef,
      // Johannesburg is UTC+2: the day starts at 22:00 UTC the day before.
      debit_StartDate: `${plusDays(today, 2)}T22:00:00.000Z`,
      debit_ActionDay: 25,
      debit_EndDate: null,
      debit_Amt: 299.99,
      debit_MaxAmt: 449.98,
      debit_Escalation: 5,
      debit_VariableAmts: false,
      CurrencyCode: 'USD',
      isCustomerEditable: true,
      isCompanySignee: true,
      DateCreated: expect.any(String),
      DateSigned: null,
      DateDeclined: null,
      DateCancelled: null,
      Expires: expect.any(String),
      BeneficiaryName: 'Northwind Software Ltd',
      BeneficiaryContactNumber: '+27 21 555 0199',
      BeneficiaryWebPage: null,
      BeneficiaryEmail: 'billing@northwind.example',
      // Not a DebiCheck mandate (docs/spec-decisions.md, "DebiCheck mandates").
      DebiCheckContractType: null,
      DebiCheckTrackingDays: null,
      DebiCheckFirstAmt: null,
      DebiCheckFirstCollectionDate: null,
      DebiCheckIdType: null,
      DebiCheckIdNumber: null,
      DebiCheckStatus: null,
      DebiCheckContractReference: null,
      DebiCheckRequested: null,
      DebiCheckExpires: null,
      DebiCheckAnswered: null,
      DebiCheckReason: null,
    });
    // Spec part 2, eMandates: valid for 24 hours while unsigned (on the account's clock).
    expect(Date.parse(mandate.Expires) - Date.parse(mandate.DateCreated)).toBe(24 * 3_600_000);
  });

  it('shows Company and TradingAs only for a company signee', async () => {
    const token = await createMandate(account, mandateBody(plusDays(today, 3)));
    const mandate = await readMandate(account, token);
    expect([mandate.Company, mandate.TradingAs]).toEqual([null, null]);
  });

  it('takes only the required fields, with defaults for the rest', async () => {
    const full = mandateBody(plusDays(today, 1));
    const required = Object.fromEntries(
      [
        'Name',
        'Lastname',
        'bank_Name',
        'bank_BranchCode',
        'bank_AccHolder',
        'bank_AccNumber',
        'bank_AccountType',
        'debit_ActionDay',
        'debit_StartDate',
        'debit_Frequency',
        'debit_Amt',
        'debit_NameOnStmt',
        'debit_ContractRef',
      ].map((name) => [name, full[name]]),
    );
    const mandate = await readMandate(account, await createMandate(account, required));
    expect(mandate).toMatchObject({
      Tel: null,
      Email: null,
      CountryISOCode: null,
      debit_MaxAmt: 299.99,
      debit_Escalation: null,
      debit_VariableAmts: false,
      isCustomerEditable: false,
      isCompanySignee: false,
    });
  });

  it('refuses a missing required field with a 422 naming it', async () => {
    const { Lastname: _dropped, ...body } = mandateBody(plusDays(today, 1));
    const res = await account.request('POST', '/v1/emandate', { body });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(fieldsOf(res)).toContain('Lastname');
  });

  it.each([
    ['debit_Frequency', { debit_Frequency: 'Daily' }, /DebiCheck has no daily/],
    ['debit_Frequency', { debit_Frequency: 'Hourly' }, /must be one of/],
    ['debit_ActionDay', { debit_Frequency: 'Weekly', debit_ActionDay: 8 }, /1 \(Monday\) to 7/],
    ['debit_ActionDay', { debit_ActionDay: 32 }, /1 to 31, or 99/],
    ['debit_MaxAmt', { debit_Amt: 100, debit_MaxAmt: 150.01 }, /1.5 times/],
    ['debit_MaxAmt', { debit_Amt: 100, debit_MaxAmt: 99.99 }, /at least debit_Amt/],
    ['debit_Amt', { debit_Amt: 10.005 }, /at most 2 decimals/],
    ['debit_Amt', { debit_Amt: 0 }, /greater than 0/],
    ['debit_NameOnStmt', { debit_NameOnStmt: 'NORTHWINDSW' }, /at most 10 characters/],
    ['debit_Escalation', { debit_Escalation: 120 }, /0 to 100/],
    ['debit_StartDate', { debit_StartDate: '2020-01-01' }, /must not be in the past/],
    ['debit_EndDate', { debit_EndDate: '2020-01-01' }, /before debit_StartDate/],
    ['bank_AccNumber', { bank_AccNumber: '12ab' }, /4 to 17 digits/],
    ['bank_AccountType', { bank_AccountType: 'Gold' }, /must be one of/],
    ['bank_BranchCode', { bank_BranchCode: '  ' }, /blank/],
    ['CountryISOCode', { CountryISOCode: 'ZZZ' }, /three-letter/],
    ['Email', { Email: 'not-an-address' }, /e-mail/],
    ['Company', { isCompanySignee: true, Company: null }, /isCompanySignee/],
    ['AuthDomain', { AuthDomain: 'https://*.shop.example' }, /wildcards/],
    ['AuthDomain', { AuthDomain: 'http://shop.example' }, /https/],
    ['AuthDomain', { AuthDomain: 'https://shop.example/path' }, /without a path/],
    ['ReturnUrl', { ReturnUrl: 'javascript:alert(1)' }, /https/],
  ])('refuses a bad %s with a 422 naming it, storing nothing', async (field, fields, message) => {
    const before = await mandateCount(account.accountId);
    const res = await account.request('POST', '/v1/emandate', {
      body: mandateBody(plusDays(today, 1), fields),
    });
    expect(res.status, res.text).toBe(422);
    const problem = (res.body.fields as { field: string; message: string }[]).find((f) => f.field === field);
    expect(problem?.message, res.text).toMatch(message);
    expect(await mandateCount(account.accountId)).toBe(before);
  });

  it('reports every problem of a request at once', async () => {
    const res = await account.request('POST', '/v1/emandate', {
      body: mandateBody(plusDays(today, 1), {
        debit_Frequency: 'Daily',
        debit_NameOnStmt: 'X'.repeat(11),
        debit_Amt: -1,
      }),
    });
    expect(res.status).toBe(422);
    expect(fieldsOf(res).sort()).toEqual(['debit_Amt', 'debit_Frequency', 'debit_NameOnStmt']);
  });

  it('accepts the spec example frequencies but Daily, in any letter case, and 99 for the last day', async () => {
    for (const [frequency, day, stored] of [
      ['monthly', 99, 'Monthly'],
      ['WEEKLY', 7, 'Weekly'],
      ['Yearly', 31, 'Yearly'],
    ] as const) {
      const token = await createMandate(
        account,
        mandateBody(plusDays(today, 1), { debit_Frequency: frequency, debit_ActionDay: day }),
      );
      expect((await readMandate(account, token)).debit_Frequency).toBe(stored);
    }
  });

  it('accepts a maximum of exactly 1.5 times the instalment, in exact cents', async () => {
    // 1.5 × 10.01 = 15.015: 15.01 fits, 15.02 does not.
    const token = await createMandate(
      account,
      mandateBody(plusDays(today, 1), { debit_Amt: 10.01, debit_MaxAmt: 15.01 }),
    );
    expect((await readMandate(account, token)).debit_MaxAmt).toBe(15.01);
    const res = await account.request('POST', '/v1/emandate', {
      body: mandateBody(plusDays(today, 1), { debit_Amt: 10.01, debit_MaxAmt: 15.02 }),
    });
    expect(fieldsOf(res)).toEqual(['debit_MaxAmt']);
  });

  it('answers 409 when the contract reference is taken in the account, and not across accounts', async () => {
    const body = mandateBody(plusDays(today, 1), { debit_ContractRef: 'SHARED-REF-1' });
    await createMandate(account, body);
    const again = await account.request('POST', '/v1/emandate', { body });
    expect(again.status, again.text).toBe(409);
    expect(again.body.code).toBe('contract_ref_taken');
    const other = await t.newAccount('Other merchant');
    await createMandate(other, body);
  });

  it('links the customer named by customerID (an extension), and refuses an unknown one', async () => {
    const customerID = await newCustomer(account);
    const token = await createMandate(account, mandateBody(plusDays(today, 1), { customerID }));
    expect((await readMandate(account, token)).customerID).toBe(customerID);
    const unknown = await account.request('POST', '/v1/emandate', {
      body: mandateBody(plusDays(today, 1), { customerID: 999_999 }),
    });
    expect(unknown.status).toBe(404);
  });

  it('emits emandate.created with the mandate as GET shows it', async () => {
    const token = await createMandate(account, mandateBody(plusDays(today, 1)));
    const row = await mandateRow(token);
    const [created] = await expectEvents(account, 'emandate', row.id, ['emandate.created']);
    // docs/spec-decisions.md, "eMandate tokens at rest": events are stored and sent on; the token is not theirs.
    expect(created!.data.object).toEqual({ ...(await readMandate(account, token)), Token: null });
    expect(created!.data.object.bank_AccNumber).toBe('••••9876');
  });
});

describe('POST /widget/emandate (redirect flow)', () => {
  it('creates a mandate with the API key, as /v1 does', async () => {
    const token = await createPageMandate(account, mandateBody(plusDays(today, 1)));
    expect((await readMandate(account, token)).Status).toBe('pending_signature');
  });

  it('replays the answer to a repeated Idempotency-Key, making one mandate', async () => {
    const body = mandateBody(plusDays(today, 1));
    const headers = { 'idempotency-key': `redirect-${body.debit_ContractRef}` };
    const before = await mandateCount(account.accountId);
    const first = await account.request('POST', '/widget/emandate', { body, headers });
    const again = await account.request('POST', '/widget/emandate', { body, headers });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.Token).toBe(first.body.Token);
    expect(await mandateCount(account.accountId)).toBe(before + 1);
  });

  it('answers 401 without credentials', async () => {
    const res = await account.request('POST', '/widget/emandate', {
      body: mandateBody(plusDays(today, 1)),
      auth: false,
    });
    expect(res.status).toBe(401);
  });
});

describe('a mandate of another account', () => {
  it('is a 404, as an unknown token is', async () => {
    const token = await createMandate(account, mandateBody(plusDays(today, 1)));
    const other = await t.newAccount('Someone else');
    const res = await other.request('GET', `/v1/emandate?Token=${token}`);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('Thandi');
    expect((await account.request('GET', '/v1/emandate?Token=unknown')).status).toBe(404);
  });
});

describe('the bank account number', () => {
  it('is sealed at rest and never written to the logs', async () => {
    const number = '4455667788990011';
    const token = await createMandate(account, mandateBody(plusDays(today, 1), { bank_AccNumber: number }));
    const row = await mandateRow(token);
    expect(JSON.stringify(row)).not.toContain(number);
    expect(row.bank_last_four).toBe('0011');
    expect(t.logs.join('')).not.toContain(number);
    expect(t.logs.join('')).not.toContain(ACCOUNT_NUMBER);
  });
});

describe('the token', () => {
  it('is stored only as its SHA-256, and found by it', async () => {
    const token = await createMandate(account, mandateBody(plusDays(today, 1)));
    const row = await mandateRow(token);
    expect(row.token_sha256).toBe(tokenDigest(token));
    expect(row.token_seed).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(token);
    const stored = await t.service.storage.db
      .selectFrom('events')
      .select('payload')
      .where('resource_type', '=', 'emandate')
      .where('resource_id', '=', String(row.id))
      .execute();
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(token);
    // The digest names nothing: only the token does.
    expect((await account.request('GET', `/v1/emandate?Token=${row.token_sha256}`)).status).toBe(404);
    expect((await readMandate(account, token)).Token).toBe(token);
  });
});

describe('an unsigned mandate', () => {
  it('expires 24 hours after its creation on the account clock, announced once by emandate.expired', async () => {
    const { account: clocked, today: start } = await mandateAccount('Expiring');
    const token = await createMandate(clocked, mandateBody(plusDays(start, 5)));
    const created = await readMandate(clocked, token);
    const justBefore = new Date(Date.parse(created.Expires) - 1000).toISOString();
    const moved = await clocked.request('POST', '/v1/test-clock/advance', { body: { To: justBefore } });
    expect(moved.status, moved.text).toBe(200);
    expect((await readMandate(clocked, token)).Status).toBe('pending_signature');

    const after = await clocked.request('POST', '/v1/test-clock/advance', { body: { To: created.Expires } });
    expect(after.status, after.text).toBe(200);
    expect((await readMandate(clocked, token)).Status).toBe('expired');
    const row = await mandateRow(token);
    expect(row.status).toBe('expired');
    await expectEvents(clocked, 'emandate', row.id, ['emandate.created', 'emandate.expired']);
  });
});
