import type { Command } from 'commander';
import { Option } from 'commander';
import type { Subscription } from '../modules/subscriptions/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const subscriptions = () => import('../modules/subscriptions/index.ts');

/** "paused from 2026-02-01 until 2026-03-15", as the subscription now reads. */
function pauseText(s: Subscription): string {
  if (s.pauseDate === null) return `Subscription ${s.id} is not paused (${s.status}).`;
  const until = s.resumeDate === null ? 'until resumed' : `until ${s.resumeDate}`;
  const anchor = s.resumeDate === null ? '' : ` (${s.resumeBillingAnchor ?? 'resume_day'})`;
  // docs/subscriptions.md, "Resuming when paid".
  const waits =
    s.resumePayBy === null || s.resumePaidOn !== null ? '' : `, when its invoice is paid by ${s.resumePayBy}`;
  return `Subscription ${s.id} is ${s.status}: paused from ${s.pauseDate} ${until}${anchor}${waits}.`;
}

/**
 * `billing subscription pause|resume ID`: what support staff do for a customer on the telephone, as
 * PUT /v1/subscriptions/{id}/pause and .../resume do (docs/subscriptions.md, "Pause and resume"), for the account
 * named. Dates are the account's calendar dates (YYYY-MM-DD).
 */
export function registerSubscriptionCommands(
  program: Command,
  positiveInteger: (value: string) => number,
): void {
  const subscription = program.command('subscription').description("an account's subscriptions, by hand");
  const anchor = new Option('--billing-anchor <anchor>', 'resume_day (default) or unchanged').choices([
    'resume_day',
    'unchanged',
  ]);
  subscription
    .command('pause')
    .description('pause a subscription: no invoice is made while paused')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .argument('<subscriptionId>', 'the subscription', positiveInteger)
    .option('--pause-date <date>', 'default today; under --credit none the billed period is served first')
    .option('--resume-date <date>', 'the day billing resumes; left out: until resumed')
    .addOption(new Option('--credit <credit>', 'none (default) or prorata').choices(['none', 'prorata']))
    .addOption(anchor)
    .action(
      async (
        id: number,
        options: {
          account: number;
          pauseDate?: string;
          resumeDate?: string;
          credit?: 'none' | 'prorata';
          billingAnchor?: 'resume_day' | 'unchanged';
        },
      ) => {
        const { withStorage, accountContext } = await runtime();
        const { pauseSubscription, getSubscription } = await subscriptions();
        const paused = await withStorage(async (storage) => {
          const ctx = await accountContext(storage, options.account, 'billing subscription pause');
          await pauseSubscription(ctx, id, {
            pauseDate: options.pauseDate,
            resumeDate: options.resumeDate,
            credit: options.credit,
            billingAnchor: options.billingAnchor,
          });
          return getSubscription(ctx, id);
        });
        console.log(pauseText(paused));
      },
    );
  subscription
    .command('resume')
    .description('resume a paused subscription, today or on a date')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .argument('<subscriptionId>', 'the subscription', positiveInteger)
    .option('--resume-date <date>', 'default today')
    .addOption(anchor)
    .option('--wait-for-payment', 'stay paused until the resumption invoice is paid')
    .action(
      async (
        id: number,
        options: {
          account: number;
          resumeDate?: string;
          billingAnchor?: 'resume_day' | 'unchanged';
          waitForPayment?: boolean;
        },
      ) => {
        const { withStorage, accountContext } = await runtime();
        const { resumeSubscription, getSubscription } = await subscriptions();
        const resumed = await withStorage(async (storage) => {
          const ctx = await accountContext(storage, options.account, 'billing subscription resume');
          await resumeSubscription(ctx, id, {
            resumeDate: options.resumeDate,
            billingAnchor: options.billingAnchor,
            waitForPayment: options.waitForPayment === true,
          });
          return getSubscription(ctx, id);
        });
        console.log(pauseText(resumed));
      },
    );
}
