import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { bankBody, fieldsOf, newCustomer, read, t, usePaymentMethodsService } from './fixtures.ts';

// Beyond the spec (docs/spec-decisions.md, "Bank accounts"): the SEPA mandate a bank account is collected under,
// its reference and signature day, set through the bank-account add and edit until eMandates exist.

usePaymentMethodsService();

// Berlin: the signature day is a calendar day of the account, answered as its midnight (CET, UTC+1 in winter).
let account: TestAccount;
beforeAll(async () => {
  account = await t.newAccount('Berlin', { timeZone: 'Europe/Berlin' });
});

const MANDATE = { MandateReference: 'ACME-2026/0042', MandateSignatureDate: '2026-01-10' };

async function addSepa(fields: Record<string, unknown> = MANDATE) {
  const customerID = await newCustomer(account);
  const added = await ok(
    account,
    'POST',
    '/v1/paymentmethods/bankaccount',
    bankBody(customerID, 'sepa', fields),
    200,
  );
  return { customerID, id: added.paymentMethodID as number, added };
}

describe('the mandate of a sepa bank account', () => {
  it('is kept with the account, answered by the add and the read', async () => {
    const { id, added } = await addSepa();
    const expected = { MandateReference: 'ACME-2026/0042', MandateSignatureDate: '2026-01-09T23:00:00.000Z' };
    expect(added.BankAccount).toMatchObject(expected);
    expect((await read(id, account)).BankAccount).toMatchObject(expected);
  });

  it('is refused, naming the field, when it could not go into a pain.008 or is not a past day', async () => {
    const customerID = await newCustomer(account);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...MANDATE, MandateReference: 'M'.repeat(36) }, 'MandateReference', /at most 35 characters/],
      [{ ...MANDATE, MandateReference: 'ACME#42' }, 'MandateReference', /must use only/],
      [{ ...MANDATE, MandateReference: 'ACME//42' }, 'MandateReference', /\/\//],
      [{ ...MANDATE, MandateReference: 'Müller-1' }, 'MandateReference', /must use only/],
      // 10:00 UTC on 15 Mar 2026 is 15 Mar in Berlin: the 16th has not come yet.
      [
        { ...MANDATE, MandateSignatureDate: '2026-03-16' },
        'MandateSignatureDate',
        /must not be in the future/,
      ],
      [{ ...MANDATE, MandateSignatureDate: 'yesterday' }, 'MandateSignatureDate', /date/],
      [{ MandateReference: 'ACME-1' }, 'MandateSignatureDate', /is required with a MandateReference/],
      [{ MandateSignatureDate: '2026-01-10' }, 'MandateReference', /is required with a MandateSignatureDate/],
    ];
    for (const [fields, field, message] of cases) {
      const res = await account.request('POST', '/v1/paymentmethods/bankaccount', {
        body: bankBody(customerID, 'sepa', fields),
      });
      expect(res.status, `${JSON.stringify(fields)}: ${res.text}`).toBe(422);
      expect(fieldsOf(res.body)).toEqual([`BankAccount.${field}`]);
      expect(res.body.fields[0].message).toMatch(message);
    }
    // Today itself is a signature day.
    const signedToday = await addSepa({ ...MANDATE, MandateSignatureDate: '2026-03-15' });
    expect(signedToday.added.BankAccount.MandateSignatureDate).toBe('2026-03-14T23:00:00.000Z');
    expect(await ok(account, 'GET', `/v1/customers/${customerID}/paymentmethods`)).toEqual([]);
  });

  it('belongs to sepa only', async () => {
    const customerID = await newCustomer(account);
    for (const method of ['debit_order', 'ach'] as const) {
      const res = await account.request('POST', '/v1/paymentmethods/bankaccount', {
        body: bankBody(customerID, method, MANDATE),
      });
      expect(res.status, res.text).toBe(422);
      expect(fieldsOf(res.body)).toEqual([
        'BankAccount.MandateReference',
        'BankAccount.MandateSignatureDate',
      ]);
      expect(res.body.fields[0].message).toBe(`is only for sepa, not ${method}`);
    }
  });

  it('stays through an edit that leaves it out, changes with one that sends it, goes with null', async () => {
    const { customerID, id } = await addSepa();
    const edit = (fields: Record<string, unknown>) =>
      ok(account, 'PUT', `/v1/paymentmethods/bankaccount/${id}`, bankBody(customerID, 'sepa', fields), 204);
    // A client that knows nothing of mandates edits the holder's name: the mandate is not lost.
    await edit({ AccountHolder: 'Ada King' });
    expect((await read(id, account)).BankAccount).toMatchObject({
      AccountHolder: 'Ada King',
      MandateReference: 'ACME-2026/0042',
      MandateSignatureDate: '2026-01-09T23:00:00.000Z',
    });
    await edit({ MandateReference: 'ACME-2026/0043', MandateSignatureDate: '2026-02-01' });
    expect((await read(id, account)).BankAccount).toMatchObject({
      MandateReference: 'ACME-2026/0043',
      MandateSignatureDate: '2026-01-31T23:00:00.000Z',
    });
    // One of the two alone cannot be cleared.
    const half = await account.request('PUT', `/v1/paymentmethods/bankaccount/${id}`, {
      body: bankBody(customerID, 'sepa', { MandateReference: null }),
    });
    expect(half.status, half.text).toBe(422);
    expect(fieldsOf(half.body)).toEqual(['BankAccount.MandateReference']);
    await edit({ MandateReference: null, MandateSignatureDate: null });
    expect((await read(id, account)).BankAccount).toMatchObject({
      MandateReference: null,
      MandateSignatureDate: null,
    });
  });

  it('goes when the account is no longer sepa', async () => {
    const { customerID, id } = await addSepa();
    await ok(
      account,
      'PUT',
      `/v1/paymentmethods/bankaccount/${id}`,
      bankBody(customerID, 'debit_order'),
      204,
    );
    expect((await read(id, account)).BankAccount).toMatchObject({
      DebitMethod: 'debit_order',
      MandateReference: null,
      MandateSignatureDate: null,
    });
  });
});
