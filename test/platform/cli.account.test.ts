import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killTransient, runCli } from '../helpers/cli.ts';
import { newDatabase, releaseAll, singleJson, withDatabase } from './cli.fixtures.ts';
import type { TestDatabase } from './cli.fixtures.ts';

// `billing account create --test` and `billing account set`, run as real child processes.

afterEach(() => killTransient());
afterAll(releaseAll);

describe('billing account create --test and account set', () => {
  let db: TestDatabase;
  let accountId: number;
  beforeAll(async () => {
    db = await newDatabase();
    const created = await runCli(['account', 'create', '--name', 'Settings', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    accountId = singleJson(created.stdout).accountID;
  });
  afterAll(releaseAll);

  const settingsOf = (id: number) =>
    withDatabase(db, (storage) =>
      storage.db
        .selectFrom('accounts')
        .select(['time_zone', 'invoice_due_days', 'invoice_notes', 'invoice_terms', 'statement_period'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    );

  it('--test makes a test account, on its own clock from its creation', async () => {
    const json = await runCli(['account', 'create', '--name', 'Sandbox', '--test', '--json'], db.env);
    expect(json.code, json.stderr).toBe(0);
    const created = singleJson(json.stdout);
    expect(created.isTest).toBe(true);
    const row = await withDatabase(db, (storage) =>
      storage.db
        .selectFrom('accounts')
        .select(['is_test', 'test_clock_at', 'created_at'])
        .where('id', '=', created.accountID)
        .executeTakeFirstOrThrow(),
    );
    expect(Boolean(row.is_test)).toBe(true);
    expect(row.test_clock_at).toBe(row.created_at);

    const words = await runCli(['account', 'create', '--name', 'Sandbox 2', '--test'], db.env);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(
      /^Account \d+ created \(test account\)\.\nAPI key \(shown once\): bk_\S+\n$/,
    );
  });

  it('account set changes the settings given and prints them', async () => {
    const result = await runCli(
      [
        'account',
        'set',
        String(accountId),
        '--time-zone',
        'Africa/Johannesburg',
        '--invoice-due-days',
        '30',
        '--invoice-notes',
        'Thank you for your business.',
        '--invoice-terms',
        'Net 30',
        '--statement-period',
        'quarterly',
      ],
      db.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        `Account ${accountId} updated.`,
        'Time zone: Africa/Johannesburg',
        'Invoices due after: 30 day(s)',
        'Invoice notes: Thank you for your business.',
        'Invoice terms: Net 30',
        'Statement period: quarterly',
        'Portal cancellations: allowed',
        'Portal package switches: (none)',
        // The seller details (test/auth/account.seller.test.ts sets them), none given here.
        'Legal name: (none)',
        'Address: (none)',
        'Tax number: (none)',
        'Company number: (none)',
        'Contact: (none)',
        'Payment instructions: (none)',
        'Logo: (none)',
        '',
      ].join('\n'),
    );
    expect(await settingsOf(accountId)).toEqual({
      time_zone: 'Africa/Johannesburg',
      invoice_due_days: 30,
      invoice_notes: 'Thank you for your business.',
      invoice_terms: 'Net 30',
      statement_period: 'quarterly',
    });
  });

  it('account set changes what portal customers may change', async () => {
    // A package of the account, written directly: the CLI has no catalogue commands.
    const packageId = await withDatabase(db, async (storage) => {
      const now = '2026-03-01T00:00:00.000Z';
      const group = await storage.db
        .insertInto('package_groups')
        .values({ account_id: accountId, group_name: 'Plans', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const pkg = await storage.db
        .insertInto('packages')
        .values({
          account_id: accountId,
          package_group_id: group.id,
          package_code: 'PRO',
          name: 'Pro',
          descrip: null,
          is_active: true,
          last_version_no: 0,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(pkg.id);
    });
    const result = await runCli(
      [
        'account',
        'set',
        String(accountId),
        '--portal-allow-cancel',
        'no',
        '--portal-allow-top-ups',
        'no',
        '--portal-switch-packages',
        String(packageId),
      ],
      db.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Portal cancellations: not allowed\n');
    expect(result.stdout).toContain(`Portal package switches: ${packageId}\n`);
    expect(result.stdout).toContain('Portal credit purchases: not allowed\n');
    const refused = await runCli(
      ['account', 'set', String(accountId), '--portal-switch-packages', '99999999'],
      db.env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('PortalSwitchPackageIDs: names packages that do not exist: 99999999');
    const back = await runCli(
      [
        'account',
        'set',
        String(accountId),
        '--portal-allow-cancel',
        'yes',
        '--portal-allow-top-ups',
        'yes',
        '--portal-switch-packages',
        '',
      ],
      db.env,
    );
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain(
      'Portal cancellations: allowed\nPortal package switches: (none)\nPortal credit purchases: allowed\n',
    );
  });

  it('account set --portal-top-up-limits sets the portal’s bounds per currency, and "" clears them', async () => {
    const set = await runCli(
      ['account', 'set', String(accountId), '--portal-top-up-limits', 'jpy:1000-1000000,USD:5-500'],
      db.env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Portal credit purchase limits: JPY 1000–1000000, USD 5.00–500.00\n');
    // A bound the service refuses is named as PUT /v1/account names it; one the CLI cannot read, by the option.
    const refused = await runCli(
      ['account', 'set', String(accountId), '--portal-top-up-limits', 'USD:50-20'],
      db.env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('PortalTopUpLimits[0].Max: must be at least Min');
    const unreadable = await runCli(
      ['account', 'set', String(accountId), '--portal-top-up-limits', 'yen'],
      db.env,
    );
    expect(unreadable.code).not.toBe(0);
    expect(unreadable.stderr).toContain('"yen" is not CURRENCY:MIN-MAX');
    const cleared = await runCli(['account', 'set', String(accountId), '--portal-top-up-limits', ''], db.env);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toContain('Portal credit purchase limits: (the defaults)\n');
  });

  it('account set --portal-pause and its limits let portal customers pause, within bounds it checks', async () => {
    const set = await runCli(
      [
        'account',
        'set',
        String(accountId),
        '--portal-pause',
        'yes',
        '--portal-max-pause-days',
        '60',
        '--portal-max-pauses-per-year',
        '2',
      ],
      db.env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Portal pauses: allowed, at most 60 day(s) long, 2 in 365 days\n');
    // The bounds PUT /v1/account's schema sets are the service's too, named as the API names them.
    const refused = await runCli(
      [
        'account',
        'set',
        String(accountId),
        '--portal-max-pause-days',
        '366',
        '--portal-max-pauses-per-year',
        '0',
      ],
      db.env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('MaxPauseDays: must be a whole number from 1 to 365');
    expect(refused.stderr).toContain('MaxPausesPerYear: must be a whole number from 1 to 12');
    const off = await runCli(['account', 'set', String(accountId), '--portal-pause', 'no'], db.env);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('Portal pauses: not allowed, at most 60 day(s) long, 2 in 365 days\n');
  });

  it('account set with empty text clears notes and terms and keeps the rest', async () => {
    const result = await runCli(
      ['account', 'set', String(accountId), '--invoice-notes', '', '--invoice-terms', ''],
      db.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await settingsOf(accountId)).toEqual({
      time_zone: 'Africa/Johannesburg',
      invoice_due_days: 30,
      invoice_notes: null,
      invoice_terms: null,
      statement_period: 'quarterly',
    });
  });

  it.each([
    [['--time-zone', 'Mars/Olympus_Mons'], 'Error: TimeZone: "Mars/Olympus_Mons" is not an IANA time zone'],
    [['--invoice-due-days', '3651'], 'Error: InvoiceDueDays: must be a whole number from 0 to 3650'],
    [['--invoice-due-days', 'ten'], "error: option '--invoice-due-days <n>' argument 'ten' is invalid."],
    [['--statement-period', 'weekly'], 'Error: StatementPeriod: must be one of monthly, quarterly, yearly'],
  ])('account set %j exits non-zero saying why, and changes nothing', async (args, message) => {
    const before = await settingsOf(accountId);
    const result = await runCli(
      ['account', 'set', String(accountId), '--invoice-notes', 'x', ...args],
      db.env,
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(await settingsOf(accountId)).toEqual(before);
  });

  it('account set without any setting exits non-zero', async () => {
    const result = await runCli(['account', 'set', String(accountId)], db.env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: nothing to change');
  });

  it('account set for an account that does not exist exits non-zero', async () => {
    const result = await runCli(['account', 'set', '999999', '--invoice-due-days', '5'], db.env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('Error: Account 999999 was not found');
  });
});
