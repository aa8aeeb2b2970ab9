import type { Command } from 'commander';
import type { FastifyBaseLogger } from 'fastify';
import { systemClock } from '../clock.ts';
import type { WentLive } from '../modules/goLive/index.ts';
import type { DoctorReport } from './doctor.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');

/**
 * `billing account go-live` and `billing doctor`: the way from a tested set-up to a live one, and what a live
 * deployment still lacks (docs/going-live.md).
 */
export function registerGoLiveCommands(
  program: Command,
  account: Command,
  positiveInteger: (value: string) => number,
): void {
  account
    .command('go-live')
    .description(
      'make the live account of a test account: its settings, seller details, logo, taxes, currencies, catalogue, ' +
        'features, coupons and webhook endpoints (disabled until confirmed); no customers, payment methods or ' +
        'invoices. Prints what is left to do by hand',
    )
    .argument('<testAccountId>', 'the test account', positiveInteger)
    .option('--name <name>', "the live account's name (default: the test account's)")
    .option('--json', 'print one JSON object, as POST /v1/account/golive answers')
    .action(goLiveAccount);

  program
    .command('doctor')
    .description(
      'check what a live deployment needs and say each missing item: PUBLIC_URL (https), SMTP_URL and MAIL_FROM, ' +
        "the encryption key kept apart, the bill run's schedule, and for each live account a live primary gateway " +
        "whose keys its provider takes, its webhook's signing and URL, and a staff address. Exits 1 when something " +
        'is missing',
    )
    .option('--account <id>', 'only this live account', positiveInteger)
    .option('--billed-by-cron', 'cron runs billing run (BILLING_INTERVAL_MS=0): the schedule is not missing')
    .option('--json', 'print one JSON object')
    .action(checkLiveDeployment);
}

/** `account go-live`: the live account made from the test account, and what was copied and is left to do. */
async function goLiveAccount(
  testAccountId: number,
  options: { name?: string; json?: boolean },
): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { goLive, toWentLiveDto } = await import('../modules/goLive/index.ts');
  const made = await withStorage(async (storage) =>
    goLive(
      await accountContext(storage, testAccountId, 'billing account go-live'),
      { name: options.name },
      systemClock,
    ),
  );
  if (options.json) {
    console.log(JSON.stringify(toWentLiveDto(made)));
    return;
  }
  console.log(wentLiveText(made));
}

/** What `account go-live` prints: the live account and its key, what was copied, what is left to do by hand. */
function wentLiveText(made: WentLive): string {
  const { copied } = made;
  return [
    `Live account ${made.liveAccount.id} made from test account ${made.testAccountId}.`,
    `API key (shown once): ${made.apiKey}`,
    `Copied: ${copied.currencies} currencies, ${copied.taxSettings} tax settings, ` +
      `${copied.billableMetrics} billable metrics, ${copied.packageGroups} package groups, ` +
      `${copied.packages} packages, ${copied.components} components, ${copied.features} features, ` +
      `${copied.coupons} coupons, ${made.webhookEndpoints.length} webhook endpoints (disabled).`,
    ...made.webhookEndpoints.map(
      ({ endpoint, secret }) =>
        `Webhook endpoint ${endpoint.id} ${endpoint.url}: signing secret (shown once) ${secret}`,
    ),
    '',
    'Left to do by hand:',
    ...made.stepsLeft.map((step, i) => `${i + 1}. ${step}`),
  ].join('\n');
}

/** `doctor`: what the deployment and its live accounts lack, each on a line; exit code 1 when something is missing. */
async function checkLiveDeployment(options: {
  account?: number;
  billedByCron?: boolean;
  json?: boolean;
}): Promise<void> {
  const { withStorage, lazySecretBox, commandLogger, modulePorts } = await runtime();
  const { loadConfig } = await import('../config.ts');
  const { checkDeployment } = await import('./doctor.ts');
  const config = loadConfig();
  const report = await withStorage((storage) =>
    checkDeployment(
      {
        db: storage.db,
        config,
        clock: systemClock,
        wallClock: systemClock,
        secrets: lazySecretBox(),
        log: commandLogger('warn') as unknown as FastifyBaseLogger,
        ports: modulePorts(),
      },
      { accountId: options.account, billedByCron: options.billedByCron },
    ),
  );
  printDoctorReport(report, options.json);
  if (report.missing.length > 0) process.exitCode = 1;
}

/** The doctor's report: one JSON object, or each item missing on a line (or that nothing is). */
function printDoctorReport(report: DoctorReport, json: boolean | undefined): void {
  if (json) console.log(JSON.stringify(report));
  else if (report.missing.length === 0) {
    console.log(
      `Nothing missing: live account(s) ${report.accounts.join(', ')} and this deployment are ready.`,
    );
  } else {
    console.log(
      [`${report.missing.length} item(s) missing:`, ...report.missing.map((m) => `- ${m}`)].join('\n'),
    );
  }
}
