import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { storedText, tableRowsText } from '../helpers/storedText.ts';
import { sessionBody } from '../widgets/fixtures.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  BANK_ACCOUNTS,
  bankBody,
  cardBody,
  cardNumber,
  clock,
  newCustomer,
  testGatewayId,
} from './fixtures.ts';

describe('card, bank account and identity numbers at rest and in logs', () => {
  // Distinctive values that appear nowhere else.
  const CARD = cardNumber('4929', 16);
  const CARD_GROUPED = CARD.replace(/(\d{4})(?=\d)/g, '$1 ');
  const ACCOUNT = '73918264055';
  const ACH_ACCOUNT = '58203917466190';
  const IBAN = 'GB33BUKB20201555555555';
  // A debtor's SA ID number (docs/spec-decisions.md, "The debtor's ID number"): sealed like the account number.
  const ID_NUMBER = '8001015009087';
  const s = useTestService({ clock, env: { LOG_LEVEL: 'trace' } });

  it('are never stored, and never logged, whatever the request', async () => {
    const customerID = await newCustomer(s);
    const idempotent = (key: string) => ({ headers: { 'idempotency-key': key } });
    const post = (url: string, body: unknown, key?: string) =>
      s.request('POST', url, { body, ...(key ? idempotent(key) : {}) });

    const card = await post(
      '/v1/paymentmethods/creditcard',
      cardBody(customerID, { Number: CARD_GROUPED }),
      'card-1',
    );
    expect(card.status, card.text).toBe(200);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD_GROUPED }), 'card-1'))
        .status,
    ).toBe(200);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD, ExpiryYear: 2020 })))
        .status,
    ).toBe(422);
    expect(
      (await post('/v1/paymentmethods/creditcard', cardBody(customerID, { Number: CARD, CardType: 'JCB' })))
        .status,
    ).toBe(422);
    const debit = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'debit_order', { AccountNumber: ACCOUNT, IdNumber: ID_NUMBER }),
      'bank-1',
    );
    expect(debit.status, debit.text).toBe(200);
    const ach = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'ach', { AccountNumber: ACH_ACCOUNT }),
    );
    expect(ach.status, ach.text).toBe(200);
    const sepa = await post(
      '/v1/paymentmethods/bankaccount',
      bankBody(customerID, 'sepa', { IBAN, BIC: 'BUKBGB22' }),
      'bank-2',
    );
    expect(sepa.status, sepa.text).toBe(200);
    expect(
      (await post('/v1/paymentmethods/bankaccount', bankBody(customerID, 'sepa', { IBAN, BranchCode: '1' })))
        .status,
    ).toBe(422);
    expect(
      (
        await post(`/v1/ValidateBankAccount/${await testGatewayId(s)}`, {
          BankAccount: { ...BANK_ACCOUNTS.debit_order, AccountNumber: ACCOUNT },
        })
      ).status,
    ).toBe(204);
    expect((await post('/v1/paymentmethods/creditcard', undefined)).status).toBe(422);
    // Malformed JSON holding a number.
    expect(
      (
        await s.request('POST', '/v1/paymentmethods/creditcard', {
          rawBody: `{"CreditCard":{"Number":"${CARD}"`,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await s.request('PUT', `/v1/paymentmethods/bankaccount/${debit.body.paymentMethodID}`, {
          body: bankBody(customerID, 'debit_order', { AccountNumber: ACCOUNT, IdNumber: ID_NUMBER }),
        })
      ).status,
    ).toBe(204);
    // The reads that return the numbers are not logged either.
    expect(
      (await ok(s, 'GET', `/v1/paymentmethods/${debit.body.paymentMethodID}`)).BankAccount.AccountNumber,
    ).toBe(ACCOUNT);
    expect((await ok(s, 'GET', `/v1/paymentmethods/${sepa.body.paymentMethodID}`)).BankAccount.IBAN).toBe(
      IBAN,
    );

    // A log call handed a body anyway has the numbers redacted.
    s.service.log.info({ req: { body: cardBody(customerID, { Number: CARD }) } }, 'handed a card body');
    s.service.log.info(
      { body: bankBody(customerID, 'sepa', { IBAN, AccountNumber: ACCOUNT }) },
      'handed a bank body',
    );
    s.service.log.info({ accountNumber: ACCOUNT, iban: IBAN, idNumber: ID_NUMBER }, 'handed the fields');
    s.service.log.info(
      { body: bankBody(customerID, 'debit_order', { IdNumber: ID_NUMBER }) },
      'handed an ID',
    );

    // The test gateway's own tables (the simulated provider's side) keep its tokens: proof the scan read the rows.
    const stored = await storedText(s, 'tok_test_');
    const logs = s.logs.join('');
    expect(logs).toContain('handed a card body');
    expect(logs).toContain('/v1/paymentmethods/creditcard');
    const secrets = [
      CARD,
      CARD_GROUPED,
      CARD.slice(0, 12),
      ACCOUNT,
      ACH_ACCOUNT,
      IBAN,
      IBAN.slice(4, 18),
      ID_NUMBER,
    ];
    for (const secret of secrets) {
      expect(stored.includes(secret), `${secret} at rest`).toBe(false);
      expect(logs.includes(secret), `${secret} in the logs`).toBe(false);
    }
    // What is kept in clear: the last four digits; of an identity number, its last three, and never answered.
    expect(card.body.CreditCard.LastFourDigits).toBe(CARD.slice(-4));
    expect(debit.body.BankAccount.IdNumberLastThree).toBe(ID_NUMBER.slice(-3));
    const read = await s.request('GET', `/v1/paymentmethods/${debit.body.paymentMethodID}`);
    expect(read.text).not.toContain(ID_NUMBER);
    expect(sepa.body.BankAccount.LastFourDigits).toBe(IBAN.slice(-4));
  });

  it('a card’s vault token is sealed: in no table of ours, answer, event, audit entry or log line', async () => {
    // docs/gateways.md, "Provider tokens are sealed"; the test gateway's own tables are the provider's side.
    const customerID = await newCustomer(s);
    const added = await s.request('POST', '/v1/paymentmethods/creditcard', {
      body: cardBody(customerID, { Number: cardNumber('4929', 16) }),
    });
    expect(added.status, added.text).toBe(200);
    const session = await ok(s, 'POST', '/v1/widgets/capturepaymethod/create', await sessionBody(s), 200);
    const submitted = await s.request('POST', `/widget/capture/${session.HashToken}/submit`, {
      auth: false,
      body: { number: '4242424242424242', expiry: '12/31', securityCode: '123', name: 'Ada Lovelace' },
    });
    expect(submitted.status, submitted.text).toBe(200);
    await ok(
      s,
      'PUT',
      '/v1/widgets/capturepaymethod/complete',
      { customerID, SessionToken: session.SessionToken },
      204,
    );
    const read = await ok(s, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(read.paymentMethodToken).toMatch(/^pm_[0-9a-f]{24}$/);

    const vault = await s.service.storage.db.selectFrom('test_gateway_vault').select('token').execute();
    const tokens = vault.map((row) => row.token);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const sealed = await s.service.storage.db
      .selectFrom('payment_methods')
      .select('vault_token_sealed')
      .where('customer_id', '=', customerID)
      .where('method_type', '=', 'credit_card')
      .execute();
    // Kept, sealed: each opens to a token the vault handed out.
    expect(sealed.map((row) => tokens.includes(s.service.secrets.open(row.vault_token_sealed!)))).toEqual([
      true,
      true,
    ]);
    const places = {
      'our tables': await tableRowsText(s, /^test_gateway_/),
      'the answers': JSON.stringify([
        added.body,
        read,
        await ok(s, 'GET', `/v1/customers/${customerID}`),
        await ok(s, 'GET', `/v1/customers/${customerID}/paymentmethods`),
      ]),
      'the events': JSON.stringify(await ok(s, 'GET', '/v1/events?page_size=200')),
      'the audit log': JSON.stringify(await ok(s, 'GET', '/v1/auditlog?page_size=200')),
      'the logs': s.logs.join(''),
    };
    expect(places['our tables']).toContain(read.paymentMethodToken);
    for (const [place, text] of Object.entries(places)) {
      for (const token of tokens) expect(text.includes(token), `${token} in ${place}`).toBe(false);
      expect(text, place).not.toContain('tok_test_');
    }
  });
});
