import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.ts';
import { addGateway, getGateway, setGatewayEnabled, vaultCard } from '../../src/modules/gateways/index.ts';
import { accountContext } from '../helpers/context.ts';
import {
  addCard,
  cardBody,
  cardNumber,
  clock,
  db,
  FULL_FIELDS,
  fieldsOf,
  MASTERCARD,
  methodCount,
  newCustomer,
  other,
  primaries,
  read,
  t,
  testGatewayId,
  usePaymentMethodsService,
  VISA,
} from './fixtures.ts';
import { STAGING } from '../helpers/service.ts';

usePaymentMethodsService();

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

    // The gateway's vault keeps the number; we keep its token sealed, and a token of our own.
    const row = await db()
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', res.body.paymentMethodID)
      .executeTakeFirstOrThrow();
    expect(row.token).toMatch(/^pm_[0-9a-f]{24}$/);
    expect(t.service.secrets.open(row.vault_token_sealed!)).toMatch(/^tok_test_[0-9a-f]{24}$/);
    expect(JSON.stringify(row)).not.toContain('tok_test_');
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
    const second = await addGateway(ctx, { type: 'test', friendlyName: 'Second simulator' }, STAGING);
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
    const spare = await addGateway(ctx, { type: 'test', friendlyName: 'Spare' }, STAGING);
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
    expect(ctx.secrets.open(tokens[0]!.sealedToken)).not.toBe(ctx.secrets.open(tokens[1]!.sealedToken));
  });
});
