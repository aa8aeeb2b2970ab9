import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  addBank,
  addCard,
  bankBody,
  db,
  fieldsOf,
  newCustomer,
  other,
  primaries,
  read,
  t,
  usePaymentMethodsService,
} from './fixtures.ts';

usePaymentMethodsService();

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
      bankBody(customerID, 'sepa'),
    );
    const changed = await read(added.paymentMethodID);
    expect(changed).toMatchObject({ isValid: false, isPrimary: true });
    expect(changed.BankAccount).toMatchObject({
      DebitMethod: 'sepa',
      AccountNumber: null,
      BranchCode: null,
      IBAN: 'DE89370400440532013000',
      LastFourDigits: '3000',
      EMandateToken: null,
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
