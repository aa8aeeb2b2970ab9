import { describe, expect, it } from 'vitest';
import { eventsOf } from '../helpers/resourceEvents.ts';
import {
  addBank,
  bankBody,
  db,
  newCustomer,
  other,
  read,
  t,
  testGatewayId,
  usePaymentMethodsService,
} from './fixtures.ts';

// POST /v1/ValidateBankAccount/{gatewayID} asks the gateway after the offline checks (docs/design/collections.md,
// "Bank-account validation"). The test gateway answers SA accounts by number, as a bank's AVS would
// (docs/gateways.md).

usePaymentMethodsService();

const validate = async (body: Record<string, unknown>, gatewayID?: number) =>
  t.request('POST', `/v1/ValidateBankAccount/${gatewayID ?? (await testGatewayId())}`, { body });

describe('POST /v1/ValidateBankAccount/{gatewayID} at the gateway', () => {
  it("makes the customer's stored account with these details valid on a full match (204), with its event", async () => {
    const customerID = await newCustomer();
    const method = await addBank(customerID, 'debit_order', { AccountNumber: '1000000001' });
    expect((await read(method.paymentMethodID)).isValid).toBe(false);
    const res = await validate(bankBody(customerID, 'debit_order', { AccountNumber: '1000 000 001' }));
    expect(res.status, res.text).toBe(204);
    expect((await read(method.paymentMethodID)).isValid).toBe(true);
    const types = (await eventsOf(t, 'payment_method', method.paymentMethodID)).map((event) => event.type);
    expect(types).toEqual(['payment_method.created', 'payment_method.updated']);
    // The call is on record, masked to its last four digits.
    const call = await db()
      .selectFrom('gateway_calls')
      .select(['operation', 'outcome', 'request'])
      .where('operation', '=', 'validate_bank_account')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(call.outcome).toBe('ok');
    expect(call.request).toContain('"lastFour":"0001"');
    expect(call.request).not.toContain('1000000001');
  });

  it.each([
    ['9800000001', 'invalid_account', 'does not exist'],
    ['9800000002', 'account_closed', 'closed'],
    ['9800000003', 'account_holder_mismatch', 'partial match'],
    ['9800000004', 'debits_not_allowed', 'does not accept debits'],
    ['9800000090', 'invalid_account', 'check digit'],
  ])(
    'refuses SA account %s (%s) with 422 naming the account number, and marks the stored one invalid',
    async (number, reason, words) => {
      const customerID = await newCustomer();
      const method = await addBank(customerID, 'debit_order', { AccountNumber: number });
      // Made valid first by hand (a mandate, say): the refusal takes it back.
      await db()
        .updateTable('payment_methods')
        .set({ is_valid: true })
        .where('id', '=', method.paymentMethodID)
        .execute();
      const res = await validate(bankBody(customerID, 'debit_order', { AccountNumber: number }));
      expect(res.status, res.text).toBe(422);
      expect(res.body.fields).toEqual([
        { field: 'BankAccount.AccountNumber', message: expect.stringContaining(reason) },
      ]);
      expect(res.text).toContain(words);
      expect(res.text).not.toContain(number);
      expect((await read(method.paymentMethodID)).isValid).toBe(false);
    },
  );

  it('answers 204 and changes nothing while the bank has not answered (9700000001)', async () => {
    const customerID = await newCustomer();
    const method = await addBank(customerID, 'debit_order', { AccountNumber: '9700000001' });
    const res = await validate(bankBody(customerID, 'debit_order', { AccountNumber: '9700000001' }));
    expect(res.status, res.text).toBe(204);
    expect((await read(method.paymentMethodID)).isValid).toBe(false);
  });

  it('passes ACH and SEPA accounts that pass the offline checks, and leaves accounts with other details alone', async () => {
    const customerID = await newCustomer();
    const ach = await addBank(customerID, 'ach');
    const sepa = await addBank(customerID, 'sepa');
    const otherAccount = await addBank(customerID, 'debit_order');
    expect((await validate(bankBody(customerID, 'ach'))).status).toBe(204);
    expect((await validate(bankBody(customerID, 'sepa'))).status).toBe(204);
    expect((await read(ach.paymentMethodID)).isValid).toBe(true);
    expect((await read(sepa.paymentMethodID)).isValid).toBe(true);
    expect((await read(otherAccount.paymentMethodID)).isValid).toBe(false);
  });

  it('validates without a customer: the answer only, nothing stored changes', async () => {
    // Stored accounts with the very details asked about: one not yet valid, one made valid by hand.
    const customerID = await newCustomer();
    const pending = await addBank(customerID, 'debit_order', { AccountNumber: '1000000001' });
    const closed = await addBank(customerID, 'debit_order', { AccountNumber: '9800000002' });
    await db()
      .updateTable('payment_methods')
      .set({ is_valid: true })
      .where('id', '=', closed.paymentMethodID)
      .execute();
    const before = [await read(pending.paymentMethodID), await read(closed.paymentMethodID)];
    const eventsBefore = [
      await eventsOf(t, 'payment_method', pending.paymentMethodID),
      await eventsOf(t, 'payment_method', closed.paymentMethodID),
    ];

    for (const [number, status] of [
      ['1000000001', 204],
      ['9800000002', 422],
    ] as const) {
      const body = bankBody(0, 'debit_order', { AccountNumber: number });
      delete (body as { customerID?: number }).customerID;
      const res = await validate(body);
      expect(res.status, res.text).toBe(status);
    }
    expect([await read(pending.paymentMethodID), await read(closed.paymentMethodID)]).toEqual(before);
    expect([
      await eventsOf(t, 'payment_method', pending.paymentMethodID),
      await eventsOf(t, 'payment_method', closed.paymentMethodID),
    ]).toEqual(eventsBefore);
  });

  it('says in its reference what it stores, with customerID and without', async () => {
    const res = await t.request('GET', '/openapi.json', { auth: false });
    const operation = res.body.paths['/v1/ValidateBankAccount/{gatewayID}'].post;
    expect(operation.operationId).toBe('validateBankAccount');
    const description: string = operation.description;
    expect(description).not.toContain('Stores and changes nothing');
    expect(description).toContain('without `customerID`, nothing');
    expect(description).toMatch(
      /With `customerID`.*`isValid` true when the details pass, false when the gateway refuses/s,
    );
    expect(description).toContain('`payment_method.updated`');
    expect(description).toContain('An answer still pending changes nothing');
  });

  it("cannot touch another account's customer: 404", async () => {
    const customerID = await newCustomer();
    const res = await other.request('POST', `/v1/ValidateBankAccount/${await testGatewayId(other)}`, {
      body: bankBody(customerID, 'debit_order', { AccountNumber: '1000000001' }),
    });
    expect(res.status).toBe(404);
  });
});
