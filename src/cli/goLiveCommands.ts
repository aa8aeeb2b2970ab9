import type { Command } from 'commander';
import { systemClock } from '../clock.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');

/**
 * `billing account go-live`: the way from a tested set-up to a live one (docs/going-live.md).
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
    .action(async (testAccountId: number, options: { name?: string; json?: boolean }) => {
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
      const { copied } = made;
      console.log(
        [
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
        ].join('\n'),
      );
    });
}
