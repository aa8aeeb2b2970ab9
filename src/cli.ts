import { Command, InvalidArgumentError } from 'commander';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, loadConfig } from './config.ts';
import { fixedClock, systemClock } from './clock.ts';
import type { ServiceContext } from './context.ts';
import { DomainError, ValidationError } from './errors.ts';
import {
  countAccounts,
  createAccount,
  createApiKey,
  editAccount,
  getAccount,
  listApiKeys,
  revokeApiKey,
} from './modules/auth/index.ts';
import type { Account } from './modules/auth/index.ts';
import {
  GATEWAY_TYPE_NAMES,
  addGateway,
  getGatewayAccountId,
  listGateways,
  setGatewayEnabled,
  setPrimaryGateway,
  toGatewayDto,
} from './modules/gateways/index.ts';
import type { Gateway } from './modules/gateways/index.ts';
import { listMail } from './modules/mail/index.ts';
import { runBilling } from './billing/billRun.ts';
import type { BillRunOptions } from './billing/billRun.ts';
import { createLogger } from './logger.ts';
import { parseWireCalendarDate } from './core/calendar.ts';
import { parseWireDate } from './core/wireDates.ts';
import { createSecretBox, loadEncryptionKey } from './security/secretBox.ts';
import type { SecretBox } from './security/secretBox.ts';
import { connectModules } from './connectModules.ts';
import { startService } from './server.ts';
import type { Service } from './server.ts';
import { openStorage } from './storage/database.ts';
import type { Storage } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';

function positiveInteger(value: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
}

function wholeNumber(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** Runs a command against the configured database, migrated to the latest schema unless told otherwise. */
async function withStorage<T>(work: (storage: Storage) => Promise<T>, { migrate = true } = {}): Promise<T> {
  const storage = openStorage(loadConfig().database);
  try {
    if (migrate) await migrateToLatest(storage.db);
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/** The encryption key is loaded (and on first use created) only by a command that seals or opens something. */
function lazySecretBox(): SecretBox {
  let box: SecretBox | undefined;
  const open = () => {
    const config = loadConfig();
    return (box ??= createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir)));
  };
  return {
    seal: (plain) => open().seal(plain),
    open: (sealed) => open().open(sealed),
    fingerprint: (text) => open().fingerprint(text),
  };
}

/** What a use case needs to act for one account, as an API request would give it. */
async function accountContext(storage: Storage, accountId: number): Promise<ServiceContext> {
  const account: Account = await getAccount(storage.db, accountId);
  return {
    account,
    db: storage.db,
    // As over the API: a test account lives on its own clock.
    clock: account.isTest && account.testClockAt ? fixedClock(account.testClockAt) : systemClock,
    // Standard output is the command's answer (JSON with --json); logs go to standard error.
    log: createLogger(loadConfig().logLevel, process.stderr) as FastifyBaseLogger,
    secrets: lazySecretBox(),
    // The CLI runs no mail worker; a running server picks queued mail up at its next round.
    mailQueued: () => {},
  };
}

connectModules();

const program = new Command('billing').description('Recurring-billing service').showHelpAfterError();

program
  .command('serve')
  .description('start the HTTP API and the workers')
  .action(async () => {
    const config = loadConfig();
    // Signals are handled from the start: one arriving while the service starts stops it once it is up.
    let service: Service | undefined;
    let stopSignal: string | undefined;
    const stop = (signal: string) => {
      stopSignal ??= signal;
      if (!service) return;
      const running = service;
      service = undefined;
      running.log.info({ signal }, 'shutting down: finishing in-flight requests');
      running.close().then(
        () => process.exit(0),
        (error: unknown) => {
          running.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));

    const started = await startService(config);
    service = started;
    if (stopSignal) return stop(stopSignal);
    if ((await countAccounts(started.storage.db)) > 0) return;
    if (started.storage.dialect === 'postgres') {
      // A live key printed to a production log would be a leak: on PostgreSQL the first account is made by hand.
      console.log('No accounts yet: create one with `billing account create --name NAME`.');
      return;
    }
    const demo = await createAccount(started.storage.db, systemClock, { name: 'Demo' });
    const base = started.url;
    console.log(
      [
        '',
        `Created a demo account: id ${demo.account.id}, API key ${demo.apiKey} (shown once; keep it).`,
        'Try it:',
        `  curl -u ${demo.account.id}:${demo.apiKey} -H 'Content-Type: application/json' \\`,
        `       -d '{"Name":"Ada","LastName":"Lovelace","Email":"ada@example.com"}' ${base}/v1/customers`,
        `  curl -u ${demo.account.id}:${demo.apiKey} ${base}/v1/customers`,
        `API reference: ${base}/docs`,
        '',
      ].join('\n'),
    );
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(async () => {
    const applied = await withStorage((storage) => migrateToLatest(storage.db), { migrate: false });
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The schema is up to date.');
  });

const account = program.command('account').description('manage accounts');
account
  .command('create')
  .description('create an account and its first API key')
  .requiredOption('--name <name>', 'account name')
  .option('--time-zone <zone>', 'IANA time zone for billing dates', 'UTC')
  .option('--currency <code>', 'default currency of new customers', 'USD')
  .option('--test', 'a test account: it bills on its own clock and its gateways never move real money')
  .option('--json', 'print one JSON object')
  .action(
    async (options: { name: string; timeZone: string; currency: string; test?: boolean; json?: boolean }) => {
      const created = await withStorage((storage) =>
        createAccount(storage.db, systemClock, {
          name: options.name,
          timeZone: options.timeZone,
          currencyCode: options.currency,
          isTest: options.test ?? false,
        }),
      );
      const { id, isTest } = created.account;
      if (options.json) console.log(JSON.stringify({ accountID: id, apiKey: created.apiKey, isTest }));
      else {
        console.log(
          `Account ${id} created${isTest ? ' (test account)' : ''}.\nAPI key (shown once): ${created.apiKey}`,
        );
      }
    },
  );
account
  .command('set')
  .description("change an account's settings")
  .argument('<accountId>', 'account id', positiveInteger)
  .option('--time-zone <zone>', 'IANA time zone for billing dates')
  .option('--invoice-due-days <n>', "days from an invoice's date to its due date (0 to 3650)", wholeNumber)
  .option('--invoice-notes <text>', 'default Notes of new invoices ("" clears them)')
  .option('--invoice-terms <text>', 'default Terms of new invoices ("" clears them)')
  .action(
    async (
      accountId: number,
      options: { timeZone?: string; invoiceDueDays?: number; invoiceNotes?: string; invoiceTerms?: string },
      command: Command,
    ) => {
      if (Object.values(options).every((value) => value === undefined)) {
        command.error(
          'error: nothing to change: give --time-zone, --invoice-due-days, --invoice-notes or --invoice-terms',
        );
      }
      const changed = await withStorage(async (storage) =>
        editAccount(await accountContext(storage, accountId), {
          timeZone: options.timeZone,
          invoiceDueDays: options.invoiceDueDays,
          invoiceNotes: options.invoiceNotes,
          invoiceTerms: options.invoiceTerms,
        }),
      );
      console.log(
        [
          `Account ${changed.id} updated.`,
          `Time zone: ${changed.timeZone}`,
          `Invoices due after: ${changed.invoiceDueDays} day(s)`,
          `Invoice notes: ${changed.invoiceNotes ?? '(none)'}`,
          `Invoice terms: ${changed.invoiceTerms ?? '(none)'}`,
        ].join('\n'),
      );
    },
  );

const key = program.command('key').description('manage API keys');
key
  .command('create')
  .description('create a new API key for an account')
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .option('--json', 'print one JSON object')
  .action(async (options: { account: number; json?: boolean }) => {
    const created = await withStorage((storage) => createApiKey(storage.db, systemClock, options.account));
    if (options.json) console.log(JSON.stringify({ keyID: created.keyId, apiKey: created.apiKey }));
    else console.log(`Key ${created.keyId} created.\nAPI key (shown once): ${created.apiKey}`);
  });
key
  .command('list')
  .description("list an account's API keys (the key itself is never shown again)")
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .action(async (options: { account: number }) => {
    const keys = await withStorage((storage) => listApiKeys(storage.db, options.account));
    if (keys.length === 0) console.log('No keys.');
    for (const k of keys) {
      console.log(
        `${k.id}\t${k.key_prefix}...\tcreated ${k.created_at}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'live'}`,
      );
    }
  });
key
  .command('revoke')
  .description('revoke an API key: requests with it are refused from now on')
  .argument('<keyId>', 'key id', positiveInteger)
  .action(async (keyId: number) => {
    await withStorage((storage) => revokeApiKey(storage.db, systemClock, keyId));
    console.log(`Key ${keyId} revoked.`);
  });

/** One line of `gateway list`: id, type, name and state. */
function gatewayLine(gateway: Gateway): string {
  const accepts = [gateway.acceptsCreditCard && 'cards', gateway.acceptsBankAccount && 'bank debits'].filter(
    Boolean,
  );
  const state = [
    gateway.isPrimary && 'primary',
    gateway.isEnabled ? 'enabled' : 'disabled',
    !gateway.isActive && 'inactive',
    gateway.isTestMode && 'test mode',
    gateway.isManualRecon && 'manual reconciliation',
    accepts.length > 0 && `accepts ${accepts.join(' and ')}`,
  ].filter(Boolean);
  return `${gateway.id}\t${gateway.type}\t${gateway.friendlyName}\t${state.join(', ')}`;
}

/** Runs a gateway use case for the account the gateway belongs to (operators name gateways by id alone). */
function withGatewayAccount<T>(gatewayId: number, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  return withStorage(async (storage) =>
    work(await accountContext(storage, await getGatewayAccountId(storage.db, gatewayId))),
  );
}

const gateway = program.command('gateway').description("manage an account's payment gateways");
gateway
  .command('add')
  .description('add a gateway to an account')
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .requiredOption('--type <type>', `gateway type: ${GATEWAY_TYPE_NAMES.join(' or ')}`)
  .requiredOption('--name <friendly>', 'the name the account knows it by (FriendlyName)')
  .option('--test-mode', 'in test mode (always so for test gateways and in test accounts)')
  .option('--primary', 'make it the primary gateway (the others stop being primary)')
  .option(
    '--settings <json>',
    'credentials or simulator settings, a JSON object; sealed at rest, never shown',
  )
  .option('--json', 'print the gateway as one JSON object')
  .action(
    async (options: {
      account: number;
      type: string;
      name: string;
      testMode?: boolean;
      primary?: boolean;
      settings?: string;
      json?: boolean;
    }) => {
      let settings: unknown;
      if (options.settings !== undefined) {
        // The text is not echoed back: it may hold credentials.
        try {
          settings = JSON.parse(options.settings);
        } catch {
          throw ValidationError.field('Settings', 'must be a JSON object');
        }
      }
      const added = await withStorage(async (storage) =>
        addGateway(await accountContext(storage, options.account), {
          type: options.type,
          friendlyName: options.name,
          isTestMode: options.testMode,
          isPrimary: options.primary,
          settings,
        }),
      );
      if (options.json) console.log(JSON.stringify(toGatewayDto(added)));
      else console.log(`Gateway added to account ${options.account}:\n${gatewayLine(added)}`);
    },
  );
gateway
  .command('list')
  .description("list an account's gateways (their settings are never shown)")
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .option('--json', 'print one JSON array')
  .action(async (options: { account: number; json?: boolean }) => {
    const gateways = await withStorage(async (storage) => {
      const ctx = await accountContext(storage, options.account);
      const all: Gateway[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await listGateways(ctx, { limit: 200, offset });
        all.push(...page);
        if (page.length < 200) return all;
      }
    });
    if (options.json) console.log(JSON.stringify(gateways.map(toGatewayDto)));
    else console.log(gateways.length ? gateways.map(gatewayLine).join('\n') : 'No gateways.');
  });
gateway
  .command('enable')
  .description('enable a gateway: it may be used again')
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    await withGatewayAccount(gatewayId, (ctx) => setGatewayEnabled(ctx, gatewayId, true));
    console.log(`Gateway ${gatewayId} enabled.`);
  });
gateway
  .command('disable')
  .description('disable a gateway: it is kept, but nothing new may use it')
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    const disabled = await withGatewayAccount(gatewayId, (ctx) => setGatewayEnabled(ctx, gatewayId, false));
    console.log(`Gateway ${gatewayId} disabled.`);
    if (disabled.isPrimary) {
      console.log(
        'It is the primary gateway: the account has no usable primary gateway until it is enabled again or ' +
          'another one is made primary (billing gateway primary ID).',
      );
    }
  });
gateway
  .command('primary')
  .description("make a gateway its account's primary gateway (the others stop being primary)")
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    const accountId = await withGatewayAccount(gatewayId, async (ctx) => {
      await setPrimaryGateway(ctx, gatewayId);
      return ctx.account.id;
    });
    console.log(`Gateway ${gatewayId} is now the primary gateway of account ${accountId}.`);
  });

program
  .command('run')
  .description('run the bill run now: invoice every subscription and recurring invoice that is due')
  .option(
    '--as-of <date>',
    "bill as of this date (YYYY-MM-DD, read in each account's time zone) or ISO 8601 instant",
  )
  .option('--account <id>', 'only this account', positiveInteger)
  .option('--json', 'print JSON')
  .action(async (options: { asOf?: string; account?: number; json?: boolean }) => {
    let asOf: BillRunOptions['asOf'];
    if (options.asOf !== undefined) {
      const date = parseWireCalendarDate(options.asOf, 'UTC');
      const instant = parseWireDate(options.asOf, 'UTC');
      if (!date || !instant) throw new InvalidArgumentError(`--as-of: "${options.asOf}" is not a date`);
      asOf = /^\d{4}-\d{2}-\d{2}$/.test(options.asOf.trim()) ? { date } : new Date(instant);
    }
    const config = loadConfig();
    const secrets = createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
    const summary = await withStorage(async (storage) => {
      if (options.account !== undefined) await getAccount(storage.db, options.account);
      return runBilling(
        {
          db: storage.db,
          clock: systemClock,
          log: createLogger('warn', process.stderr),
          secrets,
          mailQueued: () => {},
        },
        { asOf, accountId: options.account },
      );
    });
    if (options.json) {
      console.log(JSON.stringify(summary));
      return;
    }
    console.log(
      `Billed ${summary.accounts} account(s): ${summary.invoices} invoice(s) from ${summary.subscriptions} ` +
        `subscription(s) and ${summary.recurringInvoices} recurring invoice(s); ${summary.parked} parked, ` +
        `${summary.failures} failed.`,
    );
    if (summary.failures > 0) process.exitCode = 1;
  });

const mail = program.command('mail').description('read the e-mail outbox');
mail
  .command('list')
  .description('list queued and delivered e-mail, newest first, with their text')
  .option('--account <id>', 'only this account', positiveInteger)
  .option('--limit <n>', 'at most this many', positiveInteger, 20)
  .option('--json', 'print JSON')
  .action(async (options: { account?: number; limit: number; json?: boolean }) => {
    const config = loadConfig();
    const secrets = createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
    const messages = await withStorage((storage) =>
      listMail(storage.db, secrets, { accountId: options.account, limit: options.limit }),
    );
    if (options.json) {
      console.log(JSON.stringify(messages, null, 2));
      return;
    }
    if (messages.length === 0) console.log('The outbox is empty.');
    for (const message of messages) {
      console.log(
        [
          `#${message.id} account ${message.accountId} ${message.status} (${message.attempts} attempts) ${message.createdAt}`,
          `To: ${message.to}`,
          `Subject: ${message.subject}`,
          ...(message.lastError ? [`Last error: ${message.lastError}`] : []),
          '',
          message.text,
          '',
        ].join('\n'),
      );
    }
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof DomainError) {
    console.error(`Error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
