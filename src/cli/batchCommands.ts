import type { Command } from 'commander';
import type { Batch } from '../modules/batches/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const batches = () => import('../modules/batches/index.ts');
const money = () => import('../core/money.ts');
const bankingDays = () => import('../core/bankingDays.ts');

/** The states in which a batch still has something ahead of it: `batch list` shows these. */
const UNDER_WAY = new Set(['open', 'build', 'submitted', 'processing']);

/**
 * `billing batch …`: an account's payment batches as its finance staff handle them (docs/gateways.md, "Batches
 * that go out"): the ones under way, and submitting one, the command the staff's e-mail names.
 */
export function registerBatchCommands(program: Command, positiveInteger: (value: string) => number): void {
  const batch = program.command('batch').description("an account's payment batches (debit orders)");
  batch
    .command('list')
    .description("list an account's batches under way: open, being built, submitted or processing")
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .option('--json', 'print one JSON array')
    .action(async (options: { account: number; json?: boolean }) => {
      const { withStorage, accountContext } = await runtime();
      const { listBatches, toBatchDto } = await batches();
      const { isRail, lastSubmitDate } = await bankingDays();
      const { minorToDecimalText } = await money();
      const { found, timeZone } = await withStorage(async (storage) => {
        const ctx = await accountContext(storage, options.account);
        const all: Batch[] = [];
        for (let offset = 0; ; offset += 200) {
          const page = await listBatches(ctx, { limit: 200, offset });
          all.push(...page.filter((one) => UNDER_WAY.has(one.state)));
          if (page.length < 200) return { found: all, timeZone: ctx.account.timeZone };
        }
      });
      if (options.json) {
        console.log(JSON.stringify(found.map((one) => toBatchDto(one, timeZone))));
        return;
      }
      if (found.length === 0) console.log(`Account ${options.account} has no batch under way.`);
      for (const one of found) {
        const lastSafe =
          one.state === 'open' && one.rail !== null && isRail(one.rail)
            ? lastSubmitDate(one.rail, one.actionDate)
            : undefined;
        const submitBy = lastSafe ? `, submit by ${lastSafe}` : '';
        console.log(
          `${one.token}\t${one.state}\taction date ${one.actionDate}${submitBy}\t${one.lines} payment(s)\t` +
            `${one.currencyCode} ${minorToDecimalText(one.totalMinor, one.currencyCode)}`,
        );
      }
    });
  batch
    .command('submit')
    .description(
      'submit an open batch for its action date, as PUT /v1/batches/submit does; one submitted after its last ' +
        "safe day is re-dated within its mandates' periods, its other debit orders carried to their next dates",
    )
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .argument('<batchToken>', 'the batch, by its BatchToken')
    .action(async (token: string, options: { account: number }) => {
      const { withStorage, accountContext } = await runtime();
      const { getBatch, submitBatchAsked } = await batches();
      const { minorToDecimalText } = await money();
      const submitted = await withStorage(async (storage) => {
        const ctx = await accountContext(storage, options.account, 'billing batch submit');
        await submitBatchAsked(ctx, token, {});
        return getBatch(ctx, token);
      });
      console.log(
        `Batch ${submitted.token} submitted: ${submitted.lines} payment(s) for ${submitted.currencyCode} ` +
          `${minorToDecimalText(submitted.totalMinor, submitted.currencyCode)}, action date ${submitted.actionDate}. ` +
          'The next run builds it.',
      );
    });
}
