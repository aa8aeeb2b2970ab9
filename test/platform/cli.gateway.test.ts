import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, loadEncryptionKey } from '../../src/security/secretBox.ts';
import { ROOT, api, killTransient, runCli, startServer, waitFor } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { newDatabase, releaseAll, singleJson, withDatabase } from './cli.fixtures.ts';
import type { TestDatabase } from './cli.fixtures.ts';

// `billing gateway`, `billing key` and `billing mail`, run as real child processes (the key commands beside a
// running server, whose API must see their effect at once).

afterEach(() => killTransient());
afterAll(releaseAll);

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
  /** A staging deployment, whose live accounts may use the test gateway (docs/gateways.md, "Live means live"). */
  const staging = () => ({ ...db.env, TEST_GATEWAY_ON_LIVE_ACCOUNTS: 'true' });

  it("gateway list shows a new live account's built-in test gateway disabled and not primary", async () => {
    const [testGateway, ...rest] = await list();
    expect(rest).toEqual([]);
    expect(testGateway).toMatchObject({
      GatewayName: 'TestGateway',
      FriendlyName: 'Test gateway',
      GatewayType: 'test',
      isPrimary: false,
      isEnabled: false,
      isTestMode: true,
    });
    testGatewayId = testGateway!.gatewayID;

    const words = await runCli(['gateway', 'list', '--account', String(accountId)], db.env);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toBe(
      `${testGatewayId}\ttest\tTest gateway\tdisabled, test mode, accepts cards and bank debits\n`,
    );
  });

  it("a live account's test gateway cannot be enabled, made primary or added again, and says what to do", async () => {
    const words =
      `the built-in test gateway, which moves no money: a live account collects through a live gateway (add ` +
      'one: billing gateway add; docs/going-live.md), or try things out on a test account';
    for (const command of ['enable', 'primary']) {
      const refused = await runCli(['gateway', command, String(testGatewayId)], db.env);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim()).toBe(`Error: Gateway ${testGatewayId} is ${words}`);
    }
    const added = await runCli(
      ['gateway', 'add', '--account', String(accountId), '--type', 'test', '--name', 'Sim'],
      db.env,
    );
    expect(added.code).not.toBe(0);
    expect(added.stderr.trim()).toBe(
      'Error: GatewayType: a test gateway moves no money: a live account collects through a live gateway ' +
        '(docs/going-live.md)',
    );
    expect(await list()).toMatchObject([{ gatewayID: testGatewayId, isEnabled: false, isPrimary: false }]);

    const created = await runCli(['account', 'create', '--name', 'Second live'], db.env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(
      'It is a live account: its built-in test gateway moves no money and stays disabled. Add a live gateway ' +
        'before it bills (billing gateway add --account ',
    );
    const test = await runCli(['account', 'create', '--name', 'Sandbox', '--test'], db.env);
    expect(test.stdout).not.toContain('live account');
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
      // The account had no primary: its live test gateway is not one.
      isPrimary: true,
      isManualRecon: true,
    });
    manualId = added.gatewayID;
    expect(await primaries()).toEqual([manualId]);
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
      staging(),
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

  it('gateway settings replaces the keys from a file, and gateway check says when there is no provider to ask', async () => {
    const file = path.join(db.dataDir, 'new-settings.json');
    fs.writeFileSync(file, JSON.stringify({ apiSecret: `${SECRET}_2` }));
    const replaced = await runCli(
      ['gateway', 'settings', String(simulatorId), '--settings-file', file],
      db.env,
    );
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout.trim()).toBe(`Gateway ${simulatorId}'s settings replaced.`);
    expect(replaced.stdout + replaced.stderr).not.toContain(SECRET);
    const sealed = await withDatabase(db, (storage) =>
      storage.db
        .selectFrom('gateways')
        .select('settings_sealed')
        .where('id', '=', simulatorId)
        .executeTakeFirstOrThrow(),
    );
    const box = createSecretBox(loadEncryptionKey(undefined, db.dataDir));
    expect(JSON.parse(box.open(sealed.settings_sealed!))).toEqual({ apiSecret: `${SECRET}_2` });

    const both = await runCli(
      ['gateway', 'settings', String(simulatorId), '--settings', '{}', '--settings-file', file],
      db.env,
    );
    expect(both.code).not.toBe(0);
    expect(both.stderr.trim()).toBe('Error: Settings: give --settings or --settings-file, not both');
    const checked = await runCli(['gateway', 'check', String(simulatorId)], db.env);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout.trim()).toBe(`Gateway ${simulatorId} has no provider to try its settings with.`);
  });

  it.each([
    [
      ['--type', 'paypal', '--name', 'P'],
      'Error: GatewayType: "paypal" is not a gateway type; known: test, manual, bankfile, netcash, stripe, paystack',
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
    const result = await runCli(['gateway', 'add', '--account', String(accountId), ...args], staging());
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

    const refused = await runCli(['gateway', 'primary', String(simulatorId)], staging());
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      `Error: Gateway ${simulatorId} is disabled or inactive: enable it before making it primary`,
    );

    const enabled = await runCli(['gateway', 'enable', String(simulatorId)], staging());
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

  it('gateway add --primary of a Paystack gateway it cannot reach adds it disabled, and a retry no second one', async () => {
    const offline = {
      ...db.env,
      NODE_OPTIONS: `--import=${path.join(ROOT, 'test/platform/fixtures/providersOffline.mjs')}`,
    };
    const keys = JSON.stringify({ secretKey: 'sk_live_unreached_1', publicKey: 'pk_live_unreached_1' });
    const add = () =>
      runCli(
        [
          'gateway',
          'add',
          '--account',
          String(accountId),
          '--type',
          'paystack',
          '--name',
          'Cards',
          '--primary',
          '--settings',
          keys,
        ],
        offline,
      );
    const before = await primaries();
    const first = await add();
    expect(first.code).toBe(1);
    const id = Number(/\n(\d+)\tpaystack\tCards\t/.exec(first.stdout)![1]);
    expect(first.stdout).toBe(
      `Gateway added to account ${accountId}:\n${id}\tpaystack\tCards\tdisabled, accepts cards\n`,
    );
    expect(first.stderr.trim()).toBe(
      `Gateway ${id} was added disabled, and is not used for anything: the provider could not be reached (the ` +
        'gateway did not answer check_settings in time). Run the same command again once that is fixed (it tries ' +
        'this gateway again, and adds no second one), or replace its keys with: billing gateway settings ' +
        `${id} --settings '<json>', then billing gateway enable ${id}`,
    );
    expect(first.stdout + first.stderr).not.toContain('sk_live_unreached_1');
    // Before: it was added enabled and primary, and the retry added a second one.
    expect(await primaries()).toEqual(before);

    const retry = await add();
    expect(retry.code).toBe(1);
    expect(retry.stdout).toBe(
      `Gateway tried again to account ${accountId}:\n${id}\tpaystack\tCards\tdisabled, accepts cards\n`,
    );
    expect(
      (await list()).filter((g) => g.GatewayType === 'paystack').map((g) => [g.gatewayID, g.isEnabled]),
    ).toEqual([[id, false]]);
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
      { ...db.env, TEST_GATEWAY_ON_LIVE_ACCOUNTS: 'true' },
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
