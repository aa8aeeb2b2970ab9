import fs from 'node:fs';
import { Command, Help, InvalidArgumentError } from 'commander';
import { MAX_WORKERS, loadConfig } from './config.ts';
import { systemClock } from './clock.ts';
import type { BillRunOptions, BilledAhead } from './billing/billRun.ts';
import { UsageError, exitWithFailure } from './cli/failures.ts';
import { registerBatchCommands } from './cli/batchCommands.ts';
import { registerGatewayCommands } from './cli/gatewayCommands.ts';
import { registerGoLiveCommands } from './cli/goLiveCommands.ts';
import { registerUsageCommands } from './cli/usageCommands.ts';
import { registerSubscriptionCommands } from './cli/subscriptionCommands.ts';
import { registerTaxCommands } from './cli/taxCommands.ts';
import type { SellerOptions } from './cliAccountSettings.ts';

// What a command needs is imported when it runs: `billing --help` and `--version` load no service, no Fastify and
// no database driver, and each command only its own part.
const runtime = () => import('./cli/runtime.ts');
const auth = () => import('./modules/auth/index.ts');

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

/** "JPY:1000-1000000,USD:5-500" → the limits as PUT /v1/account's PortalTopUpLimits takes them; "" → none. */
function topUpLimitList(value: string): { currencyCode: string; min: string; max: string }[] {
  if (value.trim() === '') return [];
  return value.split(',').map((item) => {
    const match = /^\s*([A-Za-z]{3}):(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)\s*$/.exec(item);
    if (!match) throw new InvalidArgumentError(`"${item}" is not CURRENCY:MIN-MAX, such as JPY:1000-1000000`);
    return { currencyCode: match[1]!, min: match[2]!, max: match[3]! };
  });
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
    const { lazySecretBox, withStorage } = await runtime();
    const { migrateToLatest } = await import('./storage/migrate.ts');
    const applied = await withStorage((storage) => migrateToLatest(storage.db, { sealer: lazySecretBox }), {
      migrate: false,
    });
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
      const { withStorage, cliActor, testGatewayPolicy, modulePorts } = await runtime();
      const { createAccount } = await auth();
      const created = await withStorage((storage) =>
        createAccount(
          storage.db,
          { clock: systemClock, wallClock: systemClock, ports: modulePorts() },
          {
            name: options.name,
            timeZone: options.timeZone,
            currencyCode: options.currency,
            isTest: options.test ?? false,
          },
          testGatewayPolicy(),
          cliActor('billing account create'),
        ),
      );
      const { id, isTest } = created.account;
      if (options.json) console.log(JSON.stringify({ accountID: id, apiKey: created.apiKey, isTest }));
      else {
        console.log(
          `Account ${id} created${isTest ? ' (test account)' : ''}.\nAPI key (shown once): ${created.apiKey}`,
        );
        if (!isTest && !testGatewayPolicy().testGatewayOnLiveAccounts) {
          console.log(
            'It is a live account: its built-in test gateway moves no money and stays disabled. Add a live ' +
              `gateway before it bills (billing gateway add --account ${id} --type …; docs/going-live.md).`,
          );
        }
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
  .option('--portal-allow-top-ups <yes|no>', 'whether portal customers may buy prepaid credit', yesOrNo)
  .option(
    '--portal-top-up-limits <list>',
    'per currency, the least and the most credit bought at once in the portal, such as JPY:1000-1000000,USD:5-500 ' +
      '("" clears them)',
    topUpLimitList,
  )
  .option('--tax-inclusive <yes|no>', "whether the account's prices include tax (isTaxInclusive)", yesOrNo)
  .option(
    '--portal-switch-packages <ids>',
    'package ids portal customers may switch to, comma-separated ("" for none)',
    packageIdList,
  )
  .option(
    '--statement-period <period>',
    'how often automatic statements go out: monthly, quarterly or yearly (StatementPeriod)',
  )
  .option(
    '--portal-pause <yes|no>',
    'whether portal customers may pause a subscription (PortalPause)',
    yesOrNo,
  )
  .option(
    '--portal-max-pause-days <n>',
    'the longest pause a portal customer may choose (MaxPauseDays)',
    wholeNumber,
  )
  .option(
    '--portal-max-pauses-per-year <n>',
    'how many pauses of one subscription customers may make in 365 days (MaxPausesPerYear)',
    wholeNumber,
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
      portalAllowTopUps?: boolean;
      portalTopUpLimits?: { currencyCode: string; min: string; max: string }[];
      portalSwitchPackages?: number[];
      portalPause?: boolean;
      portalMaxPauseDays?: number;
      portalMaxPausesPerYear?: number;
      statementPeriod?: string;
      taxInclusive?: boolean;
      billCycleDay?: number;
    } & SellerOptions,
    command: Command,
  ) => {
    const { accountSetLines, sellerInputFromOptions } = await import('./cliAccountSettings.ts');
    const {
      timeZone,
      invoiceDueDays,
      invoiceNotes,
      invoiceTerms,
      statementPeriod,
      portalAllowCancel,
      portalAllowTopUps,
      portalTopUpLimits,
      portalSwitchPackages,
      portalPause,
      portalMaxPauseDays,
      portalMaxPausesPerYear,
      taxInclusive,
      billCycleDay,
      ...sellerOptions
    } = options;
    // Any option given is a change to make: none has a default.
    if (Object.values(options).every((value) => value === undefined)) {
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
        portalAllowTopUps,
        portalTopUpLimits,
        portalSwitchPackageIds: portalSwitchPackages,
        portalPause,
        maxPauseDays: portalMaxPauseDays,
        maxPausesPerYear: portalMaxPausesPerYear,
        isTaxInclusive: taxInclusive,
        billCycleDay: billCycleDay === 0 ? null : billCycleDay,
        seller,
      });
      return { changed: edited, details: await getSellerDetails(ctx) };
    });
    console.log(
      accountSetLines(changed, details, {
        topUps: portalAllowTopUps !== undefined,
        topUpLimits: portalTopUpLimits !== undefined,
        pause: [portalPause, portalMaxPauseDays, portalMaxPausesPerYear].some((v) => v !== undefined),
        taxInclusive: taxInclusive !== undefined,
      }).join('\n'),
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

registerGatewayCommands(program, positiveInteger);
registerBatchCommands(program, positiveInteger);
registerGoLiveCommands(program, account, positiveInteger);
registerUsageCommands(program, positiveInteger);
registerSubscriptionCommands(program, positiveInteger);
registerTaxCommands(program, positiveInteger);

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
    const { withStorage, secretBox, commandLogger, modulePorts } = await runtime();
    const { liveAccountsBilledAhead, runBilling } = await import('./billing/billRun.ts');
    const asOf = options.asOf === undefined ? undefined : await parseAsOf(options.asOf);
    const secrets = secretBox();
    const config = loadConfig();
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
      if (!config.publicUrl) {
        console.error(
          'warning: PUBLIC_URL is not set: e-mails asking customers to pay go without a link to the pay page; ' +
            'set it where this command runs (docs/portal.md, "PUBLIC_URL and links")',
        );
      }
      return runBilling(
        {
          db: storage.db,
          clock: systemClock,
          wallClock: systemClock,
          log: commandLogger('warn'),
          secrets,
          mailQueued: () => {},
          ports: modulePorts(),
          // The run's e-mails link to the pages they name, as the server's do (docs/portal.md, "PUBLIC_URL and links").
          ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
          collectionUnansweredAfterMs: config.collectionUnansweredAfterMs,
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

program
  .command('check-usage-alerts')
  .description(
    "evaluate usage alerts now: each alert that has reached its threshold in its subscription's current period " +
      'fires (its event, and its e-mail when the account wants one), once a period whoever evaluates; then ' +
      'issues the progressive invoices of subscriptions whose usage reached their threshold',
  )
  .option('--account <id>', 'only this account', positiveInteger)
  .option('--json', 'print JSON')
  .action(async (options: { account?: number; json?: boolean }) => {
    const { withStorage, secretBox, commandLogger, modulePorts } = await runtime();
    const { checkAllUsageAlerts } = await import('./billing/usageAlerts.ts');
    const secrets = secretBox();
    const summary = await withStorage(async (storage) => {
      if (options.account !== undefined) await (await auth()).getAccount(storage.db, options.account);
      return checkAllUsageAlerts(
        {
          db: storage.db,
          clock: systemClock,
          wallClock: systemClock,
          log: commandLogger('warn'),
          secrets,
          // A running service's mail worker sends what this queues at its next round.
          mailQueued: () => {},
          ports: modulePorts(),
        },
        { accountId: options.account },
      );
    });
    if (options.json) {
      console.log(JSON.stringify(summary));
    } else {
      console.log(
        `Checked ${summary.alerts} usage alert(s): ${summary.fired} fired, ${summary.emails} e-mail(s) queued; ` +
          `${summary.progressiveInvoices} progressive invoice(s) issued; ` +
          `${summary.failures} subscription(s) or account(s) failed.`,
      );
    }
    if (summary.failures > 0) process.exitCode = 1;
  });

program
  .command('reconcile-usage')
  .description(
    'recompute usage rollups from the raw events and report each hour that differs (exit status 1 when one does, ' +
      'unless --fix wrote them anew)',
  )
  .option('--account <id>', 'only this account', positiveInteger)
  .option('--fix', "write each differing account's rollups anew from its events")
  .option('--json', 'print JSON')
  .action(async (options: { account?: number; fix?: boolean; json?: boolean }) => {
    const { withStorage } = await runtime();
    const { reconcileUsage } = await import('./modules/usage/index.ts');
    const report = await withStorage(async (storage) => {
      if (options.account !== undefined) await (await auth()).getAccount(storage.db, options.account);
      return reconcileUsage(storage.db, { accountId: options.account, fix: options.fix === true });
    });
    if (options.json) {
      console.log(JSON.stringify(report));
    } else {
      for (const d of report.differences) {
        console.log(
          `account ${d.accountId} customer ${d.customerId} subscription ${d.subscriptionId} metric ${d.metricId} ` +
            `group "${d.group}" hour ${d.hour}: stored ${d.stored ?? 'nothing'}; events give ${d.expected ?? 'nothing'}`,
        );
      }
      console.log(
        `Checked ${report.events} event(s) of ${report.accounts} account(s): ${report.differences.length} ` +
          `difference(s)${report.fixed ? ', fixed' : ''}.`,
      );
    }
    if (report.differences.length > 0 && !report.fixed) process.exitCode = 1;
  });

function vatBasis(value: string): 'invoice' | 'payments' {
  if (value !== 'invoice' && value !== 'payments')
    throw new InvalidArgumentError('must be invoice or payments');
  return value;
}

const report = program.command('report').description("an account's reports");
report
  .command('vat')
  .description(
    'the VAT report of a tax period (docs/tax.md, "The VAT report"): the sales boxes of the VAT201 return per ' +
      'currency, from the documents of the period',
  )
  .requiredOption('--account <id>', 'account id', positiveInteger)
  .requiredOption('--from <date>', "the first day of the period (YYYY-MM-DD, in the account's time zone)")
  .requiredOption('--to <date>', 'the last day of the period')
  .option('--basis <basis>', "invoice or payments (the account's VatBasis when left out)", vatBasis)
  .option('--csv', 'print every document and the totals as CSV')
  .option('--json', 'print JSON, as GET /v1/reports/vat answers')
  .action(
    async (options: {
      account: number;
      from: string;
      to: string;
      basis?: 'invoice' | 'payments';
      csv?: boolean;
      json?: boolean;
    }) => {
      const { withStorage, accountContext } = await runtime();
      const reports = await import('./modules/reports/index.ts');
      const { vatReport, timeZone } = await withStorage(async (storage) => {
        const ctx = await accountContext(storage, options.account);
        const vatReport = await reports.vatReportFromWire(ctx, {
          from: options.from,
          to: options.to,
          ...(options.basis ? { basis: options.basis } : {}),
        });
        return { vatReport, timeZone: ctx.account.timeZone };
      });
      if (options.csv) process.stdout.write(reports.vatReportCsv(vatReport));
      else if (options.json)
        console.log(JSON.stringify(reports.toVatReportDto(vatReport, timeZone), null, 2));
      else console.log(reports.vatReportText(vatReport));
    },
  );

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
