import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import {
  addBank,
  addCard,
  db,
  fieldsOf,
  MASTERCARD,
  newCustomer,
  other,
  primaries,
  read,
  t,
  usePaymentMethodsService,
} from './fixtures.ts';

usePaymentMethodsService();

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
    // A token of our own, never the vault's (docs/spec-decisions.md, "Payment-method tokens").
    expect((await info()).Token).toMatch(/^pm_[0-9a-f]{24}$/);

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
      Token: expect.stringMatching(/^pm_/),
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
