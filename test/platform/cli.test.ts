import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.ts';
import { createSecretBox, loadEncryptionKey } from '../../src/security/secretBox.ts';
import { openStorage } from '../../src/storage/database.ts';
import type { Storage } from '../../src/storage/database.ts';
import {
  api,
  killAll,
  killTransient,
  postAcrossShutdown,
  runCli,
  startServer,
  waitFor,
} from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { dialect, freshDatabase } from '../helpers/service.ts';

// Every test here runs the real CLI (`node bin/billing.js ...`) as a child process against a database of its own.

interface TestDatabase {
  dataDir: string;
  url: string;
  /** DATABASE_URL and DATA_DIR for the CLI. */
  env: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];

async function newDatabase(): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-cli-'));
  const database = await freshDatabase(dataDir);
  cleanups.push(async () => {
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { dataDir, url: database.url, env: { DATABASE_URL: database.url, DATA_DIR: dataDir } };
}

/** Opens the test database directly, to look at what the CLI left behind. */
async function withDatabase<T>(db: TestDatabase, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = openStorage(parseDatabaseUrl(db.url, db.dataDir));
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

function sqliteFile(db: TestDatabase): string {
  const target = parseDatabaseUrl(db.url, db.dataDir);
  if (target.dialect !== 'sqlite') throw new Error('not an SQLite database');
  return target.file;
}

/** The one line of JSON a `--json` command prints. */
function singleJson(stdout: string): any {
  const lines = stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** Kills every child still running, then drops the databases made so far: one set of them lives at a time. */
async function releaseAll(): Promise<void> {
  await killAll();
  for (const cleanup of cleanups.splice(0)) await cleanup();
}

const EXIT_0 = { code: 0, signal: null };

/**
 * The first account of a server started on an empty database. On SQLite (the embedded default) `serve` makes a demo
 * account and prints its key; on PostgreSQL it prints how to make one instead, and the test makes it with the CLI.
 * Once either is printed, the signal handlers are in place.
 */
async function firstAccount(
  server: RunningServer,
  env: Record<string, string>,
): Promise<{ accountId: number; apiKey: string }> {
  if (dialect === 'postgres') {
    await waitFor(server, 'the no-account hint was printed', () =>
      server.stdout().includes('No accounts yet: create one with `billing account create --name NAME`.')
        ? true
        : undefined,
    );
    expect(server.stdout()).not.toContain('API key');
    const created = await runCli(['account', 'create', '--name', 'First', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { accountID, apiKey } = singleJson(created.stdout);
    return { accountId: accountID, apiKey };
  }
  const match = await waitFor(
    server,
    'the demo account was printed',
    () =>
      /Created a demo account: id (\d+), API key (\S+) \(shown once; keep it\)\./.exec(server.stdout()) ??
      undefined,
  );
  expect(server.stdout()).toContain(`curl -u ${match[1]}:${match[2]} `);
  expect(server.stdout()).toContain(`${server.url}/v1/customers`);
  return { accountId: Number(match[1]), apiKey: match[2]! };
}

afterEach(() => killTransient());
afterAll(releaseAll);

describe('billing migrate', () => {
  afterAll(releaseAll);

  it('applies the schema to an empty database, and a second run says it is up to date', async () => {
    const db = await newDatabase();
    const first = await runCli(['migrate'], db.env);
    expect(first.code, first.stderr).toBe(0);
    const tables = await withDatabase(db, async (storage) =>
      (await storage.db.introspection.getTables()).map((table) => table.name),
    );
    expect(tables).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'customers', 'mail_outbox']));
    expect(first.stdout.trim()).toMatch(/^Applied: 0001_foundation(, \w+)*$/);

    const second = await runCli(['migrate'], db.env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('The schema is up to date.');
  });
});

describe('billing on a database of its own', () => {
  afterAll(releaseAll);

  // On PostgreSQL, databases are told apart by search_path (as freshDatabase does); the migration bookkeeping
  // must stay in the connection's own schema and not be found in another one.
  it('works beside another database that is already migrated', async () => {
    const other = await newDatabase();
    const migrated = await runCli(['migrate'], other.env);
    expect(migrated.code, migrated.stderr).toBe(0);

    const own = await newDatabase();
    const created = await runCli(['account', 'create', '--name', 'Own', '--json'], own.env);
    expect(created.code, created.stderr).toBe(0);
    expect(singleJson(created.stdout).accountID).toBe(1);
  });
});

describe('billing account create', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await newDatabase();
  });
  afterAll(releaseAll);

  it('prints exactly one JSON object with --json', async () => {
    const result = await runCli(['account', 'create', '--name', 'Acme', '--json'], db.env);
    expect(result.code, result.stderr).toBe(0);
    const created = singleJson(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['accountID', 'apiKey', 'isTest']);
    expect(Number.isSafeInteger(created.accountID) && created.accountID > 0).toBe(true);
    expect(created.isTest).toBe(false);
    expect(typeof created.apiKey).toBe('string');
    expect(created.apiKey.length).toBeGreaterThan(20);
    const name = await withDatabase(db, async (storage) =>
      storage.db.selectFrom('accounts').select('name').where('id', '=', created.accountID).executeTakeFirst(),
    );
    expect(name).toEqual({ name: 'Acme' });
  });

  it('prints the id and the key in words without --json', async () => {
    const result = await runCli(['account', 'create', '--name', 'Acme'], db.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Account \d+ created\.\nAPI key \(shown once\): bk_\S+\n$/);
  });
});

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
        .select(['time_zone', 'invoice_due_days', 'invoice_notes', 'invoice_terms'])
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
    });
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
    });
  });

  it.each([
    [['--time-zone', 'Mars/Olympus_Mons'], 'Error: TimeZone: "Mars/Olympus_Mons" is not an IANA time zone'],
    [['--invoice-due-days', '3651'], 'Error: InvoiceDueDays: must be a whole number from 0 to 3650'],
    [['--invoice-due-days', 'ten'], "error: option '--invoice-due-days <n>' argument 'ten' is invalid."],
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

describe('billing gateway', () => {
  let db: TestDatabase;
  let accountId: number;
  let testGatewayId: number;
  beforeAll(async () => {
    db = await newDatabase();
    const created = await runCli(['account', 'create', '--name', 'Gateways', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    accountId = singleJson(created.stdout).accountID;
  });
  afterAll(releaseAll);

  const SECRET = 'sk_live_never_printed_77';
  const list = async () => {
    const result = await runCli(['gateway', 'list', '--account', String(accountId), '--json'], db.env);
    expect(result.code, result.stderr).toBe(0);
    return singleJson(result.stdout) as Array<Record<string, any>>;
  };
  const primaries = async () => (await list()).filter((g) => g.isPrimary).map((g) => g.gatewayID);

  it('gateway list shows the built-in test gateway of a new account', async () => {
    const [testGateway, ...rest] = await list();
    expect(rest).toEqual([]);
    expect(testGateway).toMatchObject({
      GatewayName: 'TestGateway',
      FriendlyName: 'Test gateway',
      GatewayType: 'test',
      isPrimary: true,
      isEnabled: true,
      isTestMode: true,
    });
    testGatewayId = testGateway!.gatewayID;

    const words = await runCli(['gateway', 'list', '--account', String(accountId)], db.env);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toBe(
      `${testGatewayId}\ttest\tTest gateway\tprimary, enabled, test mode, accepts cards and bank debits\n`,
    );
  });

  let manualId: number;
  it('gateway add --json prints the new gateway with the spec fields only', async () => {
    const result = await runCli(
      ['gateway', 'add', '--account', String(accountId), '--type', 'manual', '--name', 'Cash desk', '--json'],
      db.env,
    );
    expect(result.code, result.stderr).toBe(0);
    const added = singleJson(result.stdout);
    expect(Object.keys(added).sort()).toEqual(
      [
        'gatewayID',
        'GatewayToken',
        'GatewayName',
        'FriendlyName',
        'GatewayType',
        'isActive',
        'isTestMode',
        'isAcceptCC',
        'isAcceptBankDD',
        'isEnabled',
        'isPrimary',
        'isManualRecon',
      ].sort(),
    );
    expect(added).toMatchObject({
      GatewayName: 'ManualGateway',
      FriendlyName: 'Cash desk',
      GatewayType: 'manual',
      isTestMode: false,
      isAcceptCC: false,
      isAcceptBankDD: false,
      isPrimary: false,
      isManualRecon: true,
    });
    manualId = added.gatewayID;
    expect(await primaries()).toEqual([testGatewayId]);
  });

  let simulatorId: number;
  it('gateway add --primary --settings seals the settings and makes it the only primary', async () => {
    const result = await runCli(
      [
        'gateway',
        'add',
        '--account',
        String(accountId),
        '--type',
        'test',
        '--name',
        'Simulator',
        '--primary',
        '--settings',
        JSON.stringify({ apiSecret: SECRET }),
      ],
      db.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^Gateway added to account ${accountId}:\\n\\d+\\ttest\\tSimulator\\tprimary, enabled, `),
    );
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    simulatorId = Number(/\n(\d+)\t/.exec(result.stdout)![1]);
    expect(await primaries()).toEqual([simulatorId]);

    const sealed = await withDatabase(db, async (storage) => {
      const row = await storage.db
        .selectFrom('gateways')
        .select('settings_sealed')
        .where('id', '=', simulatorId)
        .executeTakeFirstOrThrow();
      return row.settings_sealed!;
    });
    expect(sealed).not.toContain(SECRET);
    const box = createSecretBox(loadEncryptionKey(undefined, db.dataDir));
    expect(JSON.parse(box.open(sealed))).toEqual({ apiSecret: SECRET });

    const listed = await runCli(['gateway', 'list', '--account', String(accountId), '--json'], db.env);
    expect(listed.stdout).not.toContain(SECRET);
    expect(listed.stdout).not.toContain(sealed);
  });

  it.each([
    [
      ['--type', 'paypal', '--name', 'P'],
      'Error: GatewayType: "paypal" is not a gateway type; known: test, manual',
    ],
    [
      ['--type', 'manual', '--name', 'M', '--settings', '{"a":1}'],
      'Error: Settings: a manual gateway has no settings',
    ],
    [['--type', 'test', '--name', 'T', '--settings', `{${SECRET}`], 'Error: Settings: must be a JSON object'],
    [['--type', 'test', '--name', 'T', '--settings', '[1]'], 'Error: Settings: must be a JSON object'],
    [['--type', 'manual', '--name', '  '], 'Error: FriendlyName: must not be blank'],
  ])('gateway add %j exits non-zero saying why, and adds nothing', async (args, message) => {
    const before = (await list()).length;
    const result = await runCli(['gateway', 'add', '--account', String(accountId), ...args], db.env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(message);
    // Settings may hold credentials: a bad value is not echoed back.
    expect(result.stderr).not.toContain(SECRET);
    expect((await list()).length).toBe(before);
  });

  it('gateway add and list for an account that does not exist exit non-zero', async () => {
    for (const args of [
      ['gateway', 'add', '--account', '999999', '--type', 'manual', '--name', 'M'],
      ['gateway', 'list', '--account', '999999'],
    ]) {
      const result = await runCli(args, db.env);
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim()).toBe('Error: Account 999999 was not found');
    }
  });

  it('gateway disable of the primary is allowed and says the account has no usable primary until enabled', async () => {
    const result = await runCli(['gateway', 'disable', String(simulatorId)], db.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `Gateway ${simulatorId} disabled.\nIt is the primary gateway: the account has no usable primary gateway ` +
        'until it is enabled again or another one is made primary (billing gateway primary ID).\n',
    );
    expect((await list()).find((g) => g.gatewayID === simulatorId)).toMatchObject({
      isEnabled: false,
      isPrimary: true,
    });

    const refused = await runCli(['gateway', 'primary', String(simulatorId)], db.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      `Error: Gateway ${simulatorId} is disabled or inactive: enable it before making it primary`,
    );

    const enabled = await runCli(['gateway', 'enable', String(simulatorId)], db.env);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toBe(`Gateway ${simulatorId} enabled.\n`);
    expect((await list()).find((g) => g.gatewayID === simulatorId)).toMatchObject({
      isEnabled: true,
      isPrimary: true,
    });
  });

  it('gateway primary moves the primary flag to that gateway alone', async () => {
    const result = await runCli(['gateway', 'primary', String(manualId)], db.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`Gateway ${manualId} is now the primary gateway of account ${accountId}.\n`);
    expect(await primaries()).toEqual([manualId]);

    const disabled = await runCli(['gateway', 'disable', String(testGatewayId)], db.env);
    expect(disabled.stdout).toBe(`Gateway ${testGatewayId} disabled.\n`);
  });

  it('gateway enable, disable and primary of a gateway that does not exist exit non-zero', async () => {
    for (const command of ['enable', 'disable', 'primary']) {
      const result = await runCli(['gateway', command, '999999'], db.env);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim()).toBe('Error: Gateway 999999 was not found');
    }
  });
});

describe('billing key, against a running server', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let account: { accountId: number; apiKey: string };

  beforeAll(async () => {
    db = await newDatabase();
    // The account first, so that the server finds one and makes no demo account.
    const created = await runCli(['account', 'create', '--name', 'Keys', '--json'], db.env);
    expect(created.code, created.stderr).toBe(0);
    const parsed = singleJson(created.stdout);
    account = { accountId: parsed.accountID, apiKey: parsed.apiKey };
    server = await startServer({ ...db.env, WORKER_INTERVAL_MS: '100' }, { shared: true });
  });
  afterAll(releaseAll);

  let second: { keyID: number; apiKey: string };

  it('key create --json gives a second key; the old and the new key both authenticate', async () => {
    const result = await runCli(['key', 'create', '--account', String(account.accountId), '--json'], db.env);
    expect(result.code, result.stderr).toBe(0);
    second = singleJson(result.stdout);
    expect(Object.keys(second).sort()).toEqual(['apiKey', 'keyID']);
    expect(Number.isSafeInteger(second.keyID)).toBe(true);
    expect(second.apiKey).not.toBe(account.apiKey);

    const withNew = { accountId: account.accountId, apiKey: second.apiKey };
    expect((await api(server.url, account, 'GET', '/v1/customers')).status).toBe(200);
    expect((await api(server.url, withNew, 'GET', '/v1/customers')).status).toBe(200);
  });

  it('key revoke refuses that key from then on, keeps the other, and fails clearly the second time', async () => {
    const withNew = { accountId: account.accountId, apiKey: second.apiKey };
    const revoked = await runCli(['key', 'revoke', String(second.keyID)], db.env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(`Key ${second.keyID} revoked.`);

    expect((await api(server.url, withNew, 'GET', '/v1/customers')).status).toBe(401);
    expect((await api(server.url, account, 'GET', '/v1/customers')).status).toBe(200);

    const listed = await runCli(['key', 'list', '--account', String(account.accountId)], db.env);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d+\tbk_\S{6}\.\.\.\tcreated \S+Z\tlive$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${second.keyID}\tbk_\\S{6}\\.\\.\\.\tcreated \\S+Z\trevoked \\S+Z$`),
    );
    expect(listed.stdout).not.toContain(second.apiKey);

    const again = await runCli(['key', 'revoke', String(second.keyID)], db.env);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim()).toBe(`Error: API key ${second.keyID} does not exist or is already revoked`);
  });

  it('gateway add is seen by the API at once, without its settings', async () => {
    const secret = 'sk_live_server_side_secret';
    const added = await runCli(
      [
        'gateway',
        'add',
        '--account',
        String(account.accountId),
        '--type',
        'test',
        '--name',
        'Live sim',
        '--settings',
        JSON.stringify({ apiSecret: secret }),
        '--json',
      ],
      db.env,
    );
    expect(added.code, added.stderr).toBe(0);
    const gateway = singleJson(added.stdout);
    const read = await api(server.url, account, 'GET', `/v1/gateways/${gateway.gatewayID}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(gateway);
    const listed = await api(server.url, account, 'GET', '/v1/gateways');
    expect(listed.body.map((g: { FriendlyName: string }) => g.FriendlyName)).toEqual([
      'Test gateway',
      'Live sim',
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('key create for an account that does not exist exits non-zero', async () => {
    const result = await runCli(['key', 'create', '--account', '999999', '--json'], db.env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('Error: Account 999999 was not found');
  });

  it('mail list --json shows queued mail with its decrypted text', async () => {
    const customer = await api(server.url, account, 'POST', '/v1/customers', { Name: 'Hopper Inc' });
    expect(customer.status).toBe(201);
    const contact = await api(server.url, account, 'POST', '/v1/customercontacts', {
      customerID: customer.body.customerID,
      Name: 'Grace',
      LastName: 'Hopper',
      Email: 'grace@example.com',
    });
    expect(contact.status).toBe(201);
    const username: string = contact.body.Username;
    expect(username).toBeTruthy();

    // No SMTP_URL: the mail worker settles the message as skipped, and it stays readable in the outbox.
    const message = await waitFor(server, 'the contact mail was skipped', async () => {
      const result = await runCli(['mail', 'list', '--account', String(account.accountId), '--json'], db.env);
      expect(result.code, result.stderr).toBe(0);
      const messages = JSON.parse(result.stdout) as Array<Record<string, any>>;
      return messages.find((m) => m.to === 'grace@example.com' && m.status === 'skipped');
    });
    expect(message).toMatchObject({ accountId: account.accountId, lastError: 'SMTP_URL is not configured' });
    expect(message.text).toContain(`Username: ${username}`);
    expect(message.text).toMatch(/Password: \S+/);
    expect(message.text).toContain('Hello Grace');
  });
});

describe('billing serve', () => {
  let db: TestDatabase;
  let server: RunningServer | undefined;
  let demo: { accountId: number; apiKey: string };
  let customerID: number;

  beforeAll(async () => {
    db = await newDatabase();
  });
  afterAll(releaseAll);

  it('on an empty database prints a demo account whose key works (SQLite), or how to make one (PostgreSQL)', async () => {
    server = await startServer(db.env, { shared: true });
    const running = server;
    demo = await firstAccount(running, db.env);

    const created = await api(running.url, demo, 'POST', '/v1/customers', {
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.com',
    });
    expect(created.status).toBe(201);
    customerID = created.body.customerID;
    const read = await api(running.url, demo, 'GET', `/v1/customers/${customerID}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      customerID,
      Name: 'Ada',
      LastName: 'Lovelace',
      Email: 'ada@example.com',
    });
  });

  const GRACE = { Name: 'Grace', LastName: 'Hopper', Email: 'grace@example.com' };

  it('on SIGTERM finishes the request in flight, then exits 0 and closes the database cleanly', async () => {
    // The first account was printed, so the signal handlers are in place.
    const answer = await postAcrossShutdown(server!, demo, '/v1/customers', GRACE, false);
    expect(answer.status, answer.text).toBe(201);
    const result = await server!.exit();
    expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);

    if (dialect === 'sqlite') {
      const file = sqliteFile(db);
      expect(fs.existsSync(`${file}-wal`), 'the -wal file is left behind').toBe(false);
    }
    const stored = await withDatabase(db, async (storage) => {
      if (storage.dialect === 'sqlite') {
        const { rows } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(storage.db);
        expect(rows).toEqual([{ integrity_check: 'ok' }]);
      }
      return storage.db
        .selectFrom('customers')
        .select(['name', 'email'])
        .where('account_id', '=', demo.accountId)
        .orderBy('id')
        .execute();
    });
    expect(stored).toEqual([
      { name: 'Ada', email: 'ada@example.com' },
      { name: 'Grace', email: 'grace@example.com' },
    ]);
  });

  it('a second start on the same database creates no other account', async () => {
    server = await startServer(db.env, { shared: true });
    const running = server;
    const read = await api(running.url, demo, 'GET', `/v1/customers/${customerID}`);
    expect(read.status).toBe(200);
    // serve checks for accounts right after it starts listening; give it a moment before the signal.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await running.stop();
    expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);
    expect(result.stdout).not.toContain('demo account');
    expect(result.stdout).not.toContain('No accounts yet');
    const accounts = await withDatabase(db, (storage) =>
      storage.db.selectFrom('accounts').select('id').execute(),
    );
    expect(accounts).toEqual([{ id: demo.accountId }]);
  });
});

describe('billing serve, with a keep-alive client', () => {
  afterAll(releaseAll);

  it('on SIGTERM answers the request in flight and exits promptly, not after the keep-alive timeout', async () => {
    const db = await newDatabase();
    const running = await startServer(db.env);
    const demo = await firstAccount(running, db.env);
    // Most clients (fetch included) keep connections alive. Once shutting down, the server must not leave the
    // connection of the request it just finished open: that holds the exit back for the keep-alive timeout.
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answer = await postAcrossShutdown(
        running,
        demo,
        '/v1/customers',
        { Name: 'Kept', LastName: 'Alive', Email: 'kept@example.com' },
        agent,
      );
      expect(answer.status, answer.text).toBe(201);
      const result = await running.exit(5_000);
      expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual(EXIT_0);
    } finally {
      agent.destroy();
    }
  });
});
