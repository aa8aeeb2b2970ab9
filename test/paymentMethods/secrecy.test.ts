import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { dialect, startTestService } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
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
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService({ clock, env: { LOG_LEVEL: 'trace' } });
  });
  afterAll(() => s?.close());

  /** Every table's rows as text (PostgreSQL), or the database files' bytes (SQLite). */
  async function storedText(): Promise<string> {
    if (dialect === 'postgres') {
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(s.service.storage.db);
      const parts: string[] = [];
      for (const { name } of tables.rows) {
        const rows = await sql<{
          row: string;
        }>`select row_to_json(x)::text as row from ${sql.table(name)} x`.execute(s.service.storage.db);
        parts.push(...rows.rows.map((r) => r.row));
      }
      expect(parts.join('\n')).toContain('tok_test_');
      return parts.join('\n');
    }
    const files = fs.readdirSync(s.dataDir).filter((f) => f.startsWith('test.sqlite'));
    expect(files).toContain('test.sqlite');
    const text = files.map((f) => fs.readFileSync(path.join(s.dataDir, f)).toString('latin1')).join('\n');
    expect(text).toContain('tok_test_');
    return text;
  }

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

    const stored = await storedText();
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
});
