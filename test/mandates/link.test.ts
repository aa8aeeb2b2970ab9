import { beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import {
  bankAccountBody as bankAccount,
  createMandate,
  createPageMandate,
  mandateAccount,
  mandateBody,
  mandateEvents,
  newCustomer,
  postForm,
  readMandate,
  signedMandate,
  t,
  useMandatesService,
} from './fixtures.ts';

// docs/design/mandates.md, "Lifecycle": a bank account added with an EMandateToken (spec part 2, Payment methods)
// is linked to its signed mandate, whose details it must match; it is then valid for collection.

useMandatesService();

let account: TestAccount;
let start: string;
beforeAll(async () => {
  ({ account, start } = await mandateAccount('Linking'));
});

const signed = (fields: Record<string, unknown> = {}, as: TestAccount = account) =>
  signedMandate(as, mandateBody(start, fields));

async function methodCount(): Promise<number> {
  const row = await t.service.storage.db
    .selectFrom('payment_methods')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function refused(body: unknown, message: RegExp, as: TestAccount = account) {
  const before = await methodCount();
  const res = await as.request('POST', '/v1/paymentmethods/bankaccount', { body });
  expect(res.status, res.text).toBe(422);
  const problem = res.body.fields.find((f: { field: string }) => f.field === 'BankAccount.EMandateToken');
  expect(problem?.message, res.text).toMatch(message);
  expect(await methodCount()).toBe(before);
}

describe('a bank account with an EMandateToken', () => {
  it('is linked to its signed mandate and valid at once', async () => {
    const token = await signed();
    const customerID = await newCustomer(account);
    const res = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(customerID, token, { AccountNumber: '6284 7123 4598 76' }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.isValid).toBe(true);
    expect(res.body.BankAccount.EMandateToken).toBe(token);
    const mandate = await readMandate(account, token);
    expect(mandate.customerPaymentMethodID).toBe(res.body.paymentMethodID);
    const events = await mandateEvents(account, token);
    expect(events.map((e) => e.type)).toEqual(['emandate.created', 'emandate.signed', 'emandate.updated']);
    expect(events[2]!.data.previous).toEqual({ customerPaymentMethodID: null });
    // The mandate keeps the link; the bank account's events show no token (docs/spec-decisions.md, "eMandate
    // tokens at rest"), its reads the token derived again.
    const [added] = await eventsOf(account, 'payment_method', res.body.paymentMethodID);
    expect(added!.data.object.BankAccount.EMandateToken).toBeNull();
    expect(JSON.stringify(added)).not.toContain(token);
    const read = await account.request('GET', `/v1/paymentmethods/${res.body.paymentMethodID}`);
    expect(read.body.BankAccount.EMandateToken).toBe(token);
  });

  it('is refused for an unsigned, an expired, an unknown or another account’s token, storing nothing', async () => {
    const customerID = await newCustomer(account);
    const unsigned = await createMandate(account, mandateBody(start));
    await refused(bankAccount(customerID, unsigned), /not signed yet/);
    await refused(bankAccount(customerID, 'f'.repeat(64)), /does not name an eMandate/);
    const declined = await createPageMandate(account, mandateBody(start));
    expect((await postForm(`/widget/emandate/${declined}/decline`, {})).status).toBe(303);
    await refused(bankAccount(customerID, declined), /the signee declined/);
    const other = await t.newAccount('Other linking');
    const theirs = await signed({}, other);
    await refused(bankAccount(customerID, theirs), /does not name an eMandate/);

    const clocked = await t.newAccount('Linking late', { isTest: true });
    const lapsing = await createMandate(clocked, mandateBody(start));
    const { Expires } = await readMandate(clocked, lapsing);
    expect((await clocked.request('POST', '/v1/test-clock/advance', { body: { To: Expires } })).status).toBe(
      200,
    );
    const theirCustomer = await newCustomer(clocked);
    const res = await clocked.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(theirCustomer, lapsing),
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.fields)).toMatch(/expired unsigned/);
  });

  it('is refused when its details are not the mandate’s', async () => {
    const customerID = await newCustomer(account);
    const token = await signed();
    await refused(
      bankAccount(customerID, token, { AccountNumber: '62847123459877' }),
      /another bank account/,
    );
    await refused(bankAccount(customerID, token, { BranchCode: '250656' }), /another bank account/);
    await refused(
      {
        customerID,
        isPrimary: true,
        BankAccount: {
          Method: 'sepa',
          AccountType: 'Current',
          AccountHolder: 'T Nkosi',
          Bank: 'Commerzbank',
          IBAN: 'DE89370400440532013000',
          BIC: 'COBADEFFXXX',
          EMandateToken: token,
        },
      },
      /debit_order eMandate; this account is sepa/,
    );
  });

  it('is refused when the mandate is for another customer, or linked to another method', async () => {
    const named = await newCustomer(account);
    const token = await signed({ customerID: named });
    const stranger = await newCustomer(account);
    await refused(bankAccount(stranger, token), new RegExp(`for customer ${named}`));
    const first = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(named, token),
    });
    expect(first.status, first.text).toBe(200);
    await refused(
      bankAccount(named, token),
      new RegExp(`already linked to payment method ${first.body.paymentMethodID}`),
    );
  });

  it('links on an edit too, keeping the method valid', async () => {
    const customerID = await newCustomer(account);
    const added = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(customerID, null),
    });
    expect(added.body.isValid).toBe(false);
    const token = await signed();
    const edit = await account.request(
      'PUT',
      `/v1/paymentmethods/bankaccount/${added.body.paymentMethodID}`,
      {
        body: bankAccount(customerID, token),
      },
    );
    expect(edit.status, edit.text).toBe(204);
    const method = await account.request('GET', `/v1/paymentmethods/${added.body.paymentMethodID}`);
    expect(method.body).toMatchObject({ isValid: true, BankAccount: { EMandateToken: token } });
    expect((await readMandate(account, token)).customerPaymentMethodID).toBe(added.body.paymentMethodID);
    // The same edit again changes nothing of the link.
    const again = await account.request(
      'PUT',
      `/v1/paymentmethods/bankaccount/${added.body.paymentMethodID}`,
      {
        body: bankAccount(customerID, token),
      },
    );
    expect(again.status, again.text).toBe(204);
  });

  it('is unlinked when the method is given another token, deleted, or its customer deleted', async () => {
    const customerID = await newCustomer(account);
    const first = await signed();
    const second = await signed();
    const added = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(customerID, first),
    });
    expect(added.status, added.text).toBe(200);
    const methodId = added.body.paymentMethodID as number;
    const edit = await account.request('PUT', `/v1/paymentmethods/bankaccount/${methodId}`, {
      body: bankAccount(customerID, second),
    });
    expect(edit.status, edit.text).toBe(204);
    expect((await readMandate(account, first)).customerPaymentMethodID).toBeNull();
    expect((await readMandate(account, second)).customerPaymentMethodID).toBe(methodId);

    // Another method takes the primary, so the linked one may be deleted; its mandate may then be named again.
    const other = await account.request('POST', '/v1/paymentmethods/bankaccount', {
      body: bankAccount(customerID, null),
    });
    expect(other.status, other.text).toBe(200);
    const deleted = await account.request('DELETE', `/v1/paymentmethods/${methodId}`);
    expect(deleted.status, deleted.text).toBe(204);
    expect((await readMandate(account, second)).customerPaymentMethodID).toBeNull();
    const relinked = await account.request(
      'PUT',
      `/v1/paymentmethods/bankaccount/${other.body.paymentMethodID}`,
      {
        body: bankAccount(customerID, second),
      },
    );
    expect(relinked.status, relinked.text).toBe(204);
    expect((await readMandate(account, second)).customerPaymentMethodID).toBe(other.body.paymentMethodID);

    const gone = await account.request('DELETE', `/v1/customers/${customerID}`);
    expect(gone.status, gone.text).toBe(204);
    expect((await readMandate(account, second)).customerPaymentMethodID).toBeNull();
  });
});
