import fs from 'node:fs';
import { Command, Help, InvalidArgumentError } from 'commander';
import { MAX_WORKERS, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import { ValidationError } from './errors.ts';
import type { ServiceContext } from './context.ts';
import type { Gateway } from './modules/gateways/index.ts';
import type { BillRunOptions, BilledAhead } from './billing/billRun.ts';
import { UsageError, exitWithFailure } from './cli/failures.ts';
import type { SellerOptions } from './cliAccountSettings.ts';

// What a command needs is imported when it runs: `billing --help` and `--version` load no service, no Fastify and
// no database driver, and each command only its own part.
const runtime = () => import('./cli/runtime.ts');
const auth = () => import('./modules/auth/index.ts');
const gateways = () => import('./modules/gateways/index.ts');

/** The version in package.json, next to src/ and dist/ alike. */
function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

function positiveInteger(value: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
}

function yesOrNo(value: string): boolean {
  if (value !== 'yes' && value !== 'no') throw new InvalidArgumentError('must be yes or no');
  return value === 'yes';
}

/** docs/portal.md, "What customers may change": "" lists none. */
function packageIdList(value: string): number[] {
  if (value.trim() === '') return [];
  return value.split(',').map((id) => positiveInteger(id.trim()));
}

function wholeNumber(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

const program = new Command('billing')
  .description('Recurring-billing service')
  .version(packageVersion(), '-v, --version', 'print the version')
  // Commander's errors end the process through exitWithFailure (exit status 2), as the commands' own do.
  .exitOverride()
  .configureHelp({
    optionDescription(this: Help, option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `${text} (required)` : text;
    },
  });

/** `--workers`: 1 to MAX_WORKERS, as WORKERS. */
function workerCount(value: string): number {
  const count = positiveInteger(value);
  if (count > MAX_WORKERS) throw new InvalidArgumentError(`must be at most ${MAX_WORKERS}`);
  return count;
}

program
  .command('serve')
  .description('start the HTTP API and the workers')
  .option(
    '--workers <n>',
    'processes serving the port, each with the workers (default: WORKERS, else one per core)',
    workerCount,
  )
  .action(async (options: { workers?: number }) => {
    const config = loadConfig();
    const { default: cluster } = await import('node:cluster');
    const { serveCluster, serveInThisProcess, workersToStart } = await import('./cli/serve.ts');
    // A worker of the cluster runs this command again (node:cluster forks the same command line).
    if (cluster.isWorker) return serveInThisProcess(config, { clusterWorker: true });
    const workers = await workersToStart(config, options.workers);
    // One process needs no primary beside it: it serves as `billing serve` always did.
    if (workers === 1) return serveInThisProcess(config, { clusterWorker: false });
    return serveCluster(config, workers);
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .action(async () => {
    const { withStorage } = await runtime();
    const { migrateToLatest } = await import('./storage/migrate.ts');
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
      const { withStorage, cliActor } = await runtime();
      const { createAccount } = await auth();
      const created = await withStorage((storage) =>
        createAccount(
          storage.db,
          { clock: systemClock, wallClock: systemClock },
          {
            name: options.name,
            timeZone: options.timeZone,
            currencyCode: options.currency,
            isTest: options.test ?? false,
          },
          cliActor('billing account create'),
        ),
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
const accountSet = account
  .command('set')
  .description("change an account's settings and the seller details printed on its invoices")
  .argument('<accountId>', 'account id', positiveInteger)
  .option('--time-zone <zone>', 'IANA time zone for billing dates')
  .option('--invoice-due-days <n>', "days from an invoice's date to its due date (0 to 3650)", wholeNumber)
  .option('--invoice-notes <text>', 'default Notes of new invoices ("" clears them)')
  .option('--invoice-terms <text>', 'default Terms of new invoices ("" clears them)')
  .option('--portal-allow-cancel <yes|no>', 'whether portal customers may cancel at period end', yesOrNo)
  .option('--tax-inclusive <yes|no>', "whether the account's prices include tax (isTaxInclusive)", yesOrNo)
  .option(
    '--portal-switch-packages <ids>',
    'package ids portal customers may switch to, comma-separated ("" for none)',
    packageIdList,
  )
  .option(
    '--statement-period <period>',
    'how often automatic statements go out: monthly, quarterly or yearly (StatementPeriod)',
  );
// The seller-details options are described with the auth module's limits: they are added only to a command line
// that may name `account set` (to run it or show its help), so that the others do not load that module.
if (process.argv.slice(2).includes('set')) {
  const settingsOptions = await import('./cliAccountSettings.ts');
  settingsOptions.addSellerOptions(accountSet);
  settingsOptions.addBillCycleDayOption(accountSet);
}
accountSet.action(
  async (
    accountId: number,
    options: {
      timeZone?: string;
      invoiceDueDays?: number;
      invoiceNotes?: string;
      invoiceTerms?: string;
      portalAllowCancel?: boolean;
      portalSwitchPackages?: number[];
      statementPeriod?: string;
      taxInclusive?: boolean;
      billCycleDay?: number;
    } & SellerOptions,
    command: Command,
  ) => {
    const { hasSellerOptions, sellerInputFromOptions, sellerLines } = await import('./cliAccountSettings.ts');
    const {
      timeZone,
      invoiceDueDays,
      invoiceNotes,
      invoiceTerms,
      statementPeriod,
      portalAllowCancel,
      portalSwitchPackages,
      taxInclusive,
      billCycleDay,
      ...sellerOptions
    } = options;
    const settings = [
      timeZone,
      invoiceDueDays,
      invoiceNotes,
      invoiceTerms,
      statementPeriod,
      portalAllowCancel,
      portalSwitchPackages,
      taxInclusive,
      billCycleDay,
    ];
    if (!hasSellerOptions(sellerOptions) && settings.every((v) => v === undefined)) {
      command.error('error: nothing to change: give at least one option (see --help)');
    }
    const seller = sellerInputFromOptions(sellerOptions);
    const { withStorage, accountContext } = await runtime();
    const { editAccount, getSellerDetails } = await auth();
    const { changed, details } = await withStorage(async (storage) => {
      const ctx = await accountContext(storage, accountId, 'billing account set');
      const edited = await editAccount(ctx, {
        timeZone,
        invoiceDueDays,
        invoiceNotes,
        invoiceTerms,
        statementPeriod,
        portalAllowCancel,
        portalSwitchPackageIds: portalSwitchPackages,
        isTaxInclusive: taxInclusive,
        billCycleDay: billCycleDay === 0 ? null : billCycleDay,
        seller,
      });
      return { changed: edited, details: await getSellerDetails(ctx) };
    });
    console.log(
      [
        `Account ${changed.id} updated.`,
        `Time zone: ${changed.timeZone}`,
        `Invoices due after: ${changed.invoiceDueDays} day(s)`,
        `Invoice notes: ${changed.invoiceNotes ?? '(none)'}`,
        `Invoice terms: ${changed.invoiceTerms ?? '(none)'}`,
        `Statement period: ${changed.statementPeriod}`,
        `Portal cancellations: ${changed.portalSelfService.allowCancel ? 'allowed' : 'not allowed'}`,
        `Portal package switches: ${changed.portalSelfService.switchPackageIds.join(', ') || '(none)'}`,
        // Shown when asked about or on, so that the output of the other settings reads as it did.
        ...(taxInclusive !== undefined || changed.isTaxInclusive
          ? [`Prices include tax: ${changed.isTaxInclusive ? 'yes' : 'no'}`]
          : []),
        ...(changed.billCycleDay === null ? [] : [`Bill-cycle day: ${changed.billCycleDay}`]),
        ...sellerLines(details),
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
    const { withStorage, accountContext } = await runtime();
    const { createApiKey } = await auth();
    const created = await withStorage(async (storage) =>
      createApiKey(await accountContext(storage, options.account, 'billing key create')),
    );
    if (options.json) console.log(JSON.stringify({ keyID: created.keyId, apiKey: created.apiKey }));
    else console.log(`Key ${created.keyId} created.\nAPI key (shown once): ${created.apiKey}`);
  });
key
  .command('list')
  .description("list an account's API keys (the key itself is never shown again)")
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .action(async (options: { account: number }) => {
    const { withStorage } = await runtime();
    const { getAccount, listApiKeys } = await auth();
    const keys = await withStorage(async (storage) => {
      await getAccount(storage.db, options.account); // an unknown account is an error, not an empty list
      return listApiKeys(storage.db, options.account);
    });
    if (keys.length === 0) console.log('No keys.');
    for (const k of keys) {
      console.log(
        `${k.id}\t${k.keyPrefix}...\tcreated ${k.createdAt}\t${k.revokedAt ? `revoked ${k.revokedAt}` : 'live'}`,
      );
    }
  });
key
  .command('revoke')
  .description('revoke an API key: requests with it are refused from now on')
  .argument('<keyId>', 'key id', positiveInteger)
  .action(async (keyId: number) => {
    const { withStorage, accountContext } = await runtime();
    const { getApiKeyAccountId, revokeApiKey } = await auth();
    await withStorage(async (storage) => {
      const accountId = await getApiKeyAccountId(storage.db, keyId);
      await revokeApiKey(await accountContext(storage, accountId, 'billing key revoke'), keyId);
    });
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
async function withGatewayAccount<T>(
  gatewayId: number,
  operation: string,
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  const { withStorage, accountContext } = await runtime();
  const { getGatewayAccountId } = await gateways();
  return withStorage(async (storage) =>
    work(await accountContext(storage, await getGatewayAccountId(storage.db, gatewayId), operation)),
  );
}

const gateway = program.command('gateway').description("manage an account's payment gateways");
gateway
  .command('add')
  .description('add a gateway to an account')
  .requiredOption('--account <id>', 'account id', positiveInteger)
  // The types are listed by the refusal of an unknown one; naming them here would load the gateway module for --help.
  .requiredOption('--type <type>', 'gateway type: test, manual, bankfile, paystack, stripe or netcash')
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
      const { withStorage, accountContext } = await runtime();
      const { addGateway, checkGatewaySettings, toGatewayDto } = await gateways();
      const { added, check } = await withStorage(async (storage) => {
        const ctx = await accountContext(storage, options.account, 'billing gateway add');
        const added = await addGateway(ctx, {
          type: options.type,
          friendlyName: options.name,
          isTestMode: options.testMode,
          isPrimary: options.primary,
          settings,
        });
        return { added, check: await checkGatewaySettings(ctx, added) };
      });
      if (options.json) console.log(JSON.stringify(toGatewayDto(added)));
      else console.log(`Gateway added to account ${options.account}:\n${gatewayLine(added)}`);
      reportSettingsCheck(added.id, check);
    },
  );
gateway
  .command('check')
  .description("try a gateway's settings (its keys) with its provider, and say in words what is wrong")
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    const { checkGatewaySettings, getGateway } = await gateways();
    const check = await withGatewayAccount(gatewayId, 'billing gateway check', async (ctx) =>
      checkGatewaySettings(ctx, await getGateway(ctx, gatewayId)),
    );
    if (check === undefined) console.log(`Gateway ${gatewayId} has no provider to try its settings with.`);
    reportSettingsCheck(gatewayId, check);
  });
gateway
  .command('settings')
  .description("replace a gateway's settings (new keys), then try them with its provider")
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .requiredOption('--settings <json>', 'the new settings, a JSON object; sealed at rest, never shown')
  .action(async (gatewayId: number, options: { settings: string }) => {
    let settings: unknown;
    try {
      settings = JSON.parse(options.settings);
    } catch {
      throw ValidationError.field('Settings', 'must be a JSON object');
    }
    const { checkGatewaySettings, setGatewaySettings } = await gateways();
    const check = await withGatewayAccount(gatewayId, 'billing gateway settings', async (ctx) =>
      checkGatewaySettings(ctx, await setGatewaySettings(ctx, gatewayId, settings)),
    );
    console.log(`Gateway ${gatewayId}'s settings replaced.`);
    reportSettingsCheck(gatewayId, check);
  });

/**
 * What the provider said of a gateway's keys, on standard error: a refusal sets the exit code (the gateway is kept:
 * `billing gateway settings` replaces its keys, `billing gateway check` tries them again).
 */
function reportSettingsCheck(
  gatewayId: number,
  check: { outcome: 'ok'; detail: string } | { outcome: 'refused'; message: string } | undefined,
): void {
  if (check === undefined) return;
  if (check.outcome === 'ok') {
    console.error(`Gateway ${gatewayId}'s settings work: ${check.detail}.`);
    return;
  }
  console.error(
    `Gateway ${gatewayId}'s provider refused its settings: ${check.message}. ` +
      `Replace them with: billing gateway settings ${gatewayId} --settings '<json>'`,
  );
  process.exitCode = 1;
}
gateway
  .command('list')
  .description("list an account's gateways (their settings are never shown)")
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .option('--json', 'print one JSON array')
  .action(async (options: { account: number; json?: boolean }) => {
    const { withStorage, accountContext } = await runtime();
    const { listGateways, toGatewayDto } = await gateways();
    const found = await withStorage(async (storage) => {
      const ctx = await accountContext(storage, options.account);
      const all: Gateway[] = [];
      for (let offset = 0; ; offset += 200) {
        const page = await listGateways(ctx, { limit: 200, offset });
        all.push(...page);
        if (page.length < 200) return all;
      }
    });
    if (options.json) console.log(JSON.stringify(found.map(toGatewayDto)));
    else console.log(found.length ? found.map(gatewayLine).join('\n') : 'No gateways.');
  });
gateway
  .command('enable')
  .description('enable a gateway: it may be used again')
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    const { setGatewayEnabled } = await gateways();
    await withGatewayAccount(gatewayId, 'billing gateway enable', (ctx) =>
      setGatewayEnabled(ctx, gatewayId, true),
    );
    console.log(`Gateway ${gatewayId} enabled.`);
  });
gateway
  .command('disable')
  .description('disable a gateway: it is kept, but nothing new may use it')
  .argument('<gatewayId>', 'gateway id', positiveInteger)
  .action(async (gatewayId: number) => {
    const { setGatewayEnabled } = await gateways();
    const disabled = await withGatewayAccount(gatewayId, 'billing gateway disable', (ctx) =>
      setGatewayEnabled(ctx, gatewayId, false),
    );
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
    const { setPrimaryGateway } = await gateways();
    const accountId = await withGatewayAccount(gatewayId, 'billing gateway primary', async (ctx) => {
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
  .option(
    '--allow-future',
    'allow an --as-of after today for live accounts (it issues real invoices and e-mail, and charges cards, ahead of time)',
  )
  .option('--json', 'print JSON')
  .action(async (options: { asOf?: string; account?: number; allowFuture?: boolean; json?: boolean }) => {
    const { boundHeapForBillRun, keepYoungGenerationSmall } = await import('./billing/billRunHeap.ts');
    keepYoungGenerationSmall();
    const { withStorage, secretBox, commandLogger } = await runtime();
    const { liveAccountsBilledAhead, runBilling } = await import('./billing/billRun.ts');
    const asOf = options.asOf === undefined ? undefined : await parseAsOf(options.asOf);
    const secrets = secretBox();
    // SIGTERM or Ctrl-C stops the run after its transaction in progress; the next run bills the rest.
    const stopping = new AbortController();
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stopping.abort());
    const summary = await withStorage(async (storage) => {
      boundHeapForBillRun(storage.db);
      if (options.account !== undefined) await (await auth()).getAccount(storage.db, options.account);
      if (asOf !== undefined && !options.allowFuture) {
        const ahead = await liveAccountsBilledAhead(storage.db, systemClock, {
          asOf,
          accountId: options.account,
        });
        if (ahead.length > 0) throw new UsageError(billedAheadMessage(options.asOf!, ahead));
      }
      return runBilling(
        {
          db: storage.db,
          clock: systemClock,
          wallClock: systemClock,
          log: commandLogger('warn'),
          secrets,
          mailQueued: () => {},
          collectionUnansweredAfterMs: loadConfig().collectionUnansweredAfterMs,
          signal: stopping.signal,
        },
        { asOf, accountId: options.account },
      );
    });
    if (stopping.signal.aborted) {
      console.error('Stopped by a signal after a whole transaction: run it again to bill the rest.');
    }
    if (options.json) {
      console.log(JSON.stringify(summary));
      return;
    }
    console.log(
      `Billed ${summary.accounts} account(s): ${summary.invoices} invoice(s) from ${summary.subscriptions} ` +
        `subscription(s) and ${summary.recurringInvoices} recurring invoice(s); ${summary.parked} parked, ` +
        `${summary.collected} of ${summary.collectionAttempts} card charge(s) collected, ` +
        `${summary.batchLinesBundled} debit order(s) put in batches, ${summary.batchesBuilt} batch(es) built; ` +
        `${summary.failures} failed.`,
    );
    if (summary.failures > 0) process.exitCode = 1;
  });

/** `--as-of`: a bare date is read in each account's time zone; anything else is an instant. */
async function parseAsOf(text: string): Promise<NonNullable<BillRunOptions['asOf']>> {
  const { parseWireCalendarDate } = await import('./core/calendar.ts');
  const { parseWireDate } = await import('./core/wireDates.ts');
  const date = parseWireCalendarDate(text, 'UTC');
  const instant = parseWireDate(text, 'UTC');
  if (!date || !instant) {
    throw new UsageError(
      `option '--as-of <date>': "${text}" is not a date (YYYY-MM-DD, or an ISO 8601 date and time)`,
    );
  }
  return /^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? { date } : new Date(instant);
}

function billedAheadMessage(asOf: string, ahead: BilledAhead[]): string {
  const shown = ahead
    .slice(0, 3)
    .map(({ account, today }) => `${account.id} (today ${today} in ${account.timeZone})`)
    .join(', ');
  const more = ahead.length > 3 ? ` and ${ahead.length - 3} more` : '';
  return (
    `--as-of ${asOf} is after today for live account${ahead.length > 1 ? 's' : ''} ${shown}${more}: ` +
    'billing them now would issue real invoices and e-mail, and charge cards, ahead of time; add --allow-future to do it anyway'
  );
}

const mail = program.command('mail').description('read the e-mail outbox');
mail
  .command('list')
  .description('list queued and delivered e-mail, newest first, with their text')
  .option('--account <id>', 'only this account', positiveInteger)
  .option('--limit <n>', 'at most this many', positiveInteger, 20)
  .option('--json', 'print JSON')
  .action(async (options: { account?: number; limit: number; json?: boolean }) => {
    const { withStorage, secretBox } = await runtime();
    const { listMail } = await import('./modules/mail/index.ts');
    const secrets = secretBox();
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
  exitWithFailure(error);
}
