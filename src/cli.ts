import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { DomainError } from './errors.ts';
import {
  countAccounts,
  createAccount,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from './modules/auth/index.ts';
import { listMail } from './modules/mail/index.ts';
import { createSecretBox, loadEncryptionKey } from './security/secretBox.ts';
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
  .option('--json', 'print one JSON object')
  .action(async (options: { name: string; timeZone: string; currency: string; json?: boolean }) => {
    const created = await withStorage((storage) =>
      createAccount(storage.db, systemClock, {
        name: options.name,
        timeZone: options.timeZone,
        currencyCode: options.currency,
      }),
    );
    if (options.json) console.log(JSON.stringify({ accountID: created.account.id, apiKey: created.apiKey }));
    else console.log(`Account ${created.account.id} created.\nAPI key (shown once): ${created.apiKey}`);
  });

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
