import type { Command } from 'commander';
import type { TaxSetting } from '../modules/catalogue/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const catalogue = () => import('../modules/catalogue/index.ts');

/** A rate as a person reads it: "0.155" → "15.5%". */
function percent(perc: string): string {
  return `${Number((Number(perc) * 100).toFixed(6))}%`;
}

/** Each setting, each rule's rate today and its scheduled rates with their ids (to withdraw one). */
function settingsText(settings: readonly TaxSetting[]): string {
  if (settings.length === 0) return 'No tax settings.\n';
  return settings
    .map((setting) => {
      const rules = setting.rules.map((rule) => {
        const scheduled = rule.scheduledRates.map(
          (rate) => `\n    from ${rate.effectiveFrom}: ${percent(rate.perc)} (rate ${rate.id})`,
        );
        return `  rule ${rule.id}: ${percent(rule.perc)} today${scheduled.join('')}`;
      });
      return [`Tax setting ${setting.id} ${setting.name}`, ...rules].join('\n') + '\n';
    })
    .join('');
}

/**
 * `billing tax list|schedule|withdraw`: an announced change of a VAT rate scheduled, read and withdrawn by the
 * operator of an account, as POST and DELETE /v1/tax/{taxSettingID}/rates do (docs/tax.md, "Rates that change on a
 * date"). Dates are the account's calendar dates (YYYY-MM-DD).
 */
export function registerTaxCommands(program: Command, positiveInteger: (value: string) => number): void {
  const tax = program.command('tax').description("an account's tax settings and their dated rates");
  tax
    .command('list')
    .description('each tax setting: its rules, the rate in force today and the rates scheduled')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .option('--json', 'print JSON')
    .action(async (options: { account: number; json?: boolean }) => {
      const { withStorage, accountContext } = await runtime();
      const { listTaxSettings, toTaxSettingDto } = await catalogue();
      const [settings, timeZone] = await withStorage(async (storage) => {
        const ctx = await accountContext(storage, options.account);
        return [await listTaxSettings(ctx), ctx.account.timeZone] as const;
      });
      // The JSON is the API's (GET /v1/tax), scheduled rates included.
      if (options.json) console.log(JSON.stringify(settings.map((s) => toTaxSettingDto(s, timeZone))));
      else process.stdout.write(settingsText(settings));
    });
  tax
    .command('schedule')
    .description("schedule a rule's rate from a later day (a change from today is a PUT of the setting)")
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--setting <id>', 'the tax setting', positiveInteger)
    .requiredOption('--rule <id>', 'the rule of the setting', positiveInteger)
    .requiredOption('--perc <fraction>', 'the rate as a fraction, 0.155 for 15.5 %', Number)
    .requiredOption('--from <date>', 'the first day of the rate, after today')
    .action(
      async (options: { account: number; setting: number; rule: number; perc: number; from: string }) => {
        const { withStorage, accountContext } = await runtime();
        const { scheduleTaxRate } = await catalogue();
        const rate = await withStorage(async (storage) =>
          scheduleTaxRate(
            await accountContext(storage, options.account, 'billing tax schedule'),
            options.setting,
            {
              taxRuleId: options.rule,
              perc: options.perc,
              effectiveFrom: options.from,
            },
          ),
        );
        console.log(
          `Scheduled rate ${rate.id}: rule ${rate.taxRuleId} at ${percent(rate.perc)} from ${rate.effectiveFrom}.`,
        );
      },
    );
  tax
    .command('withdraw')
    .description('withdraw a scheduled rate before its day')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .requiredOption('--setting <id>', 'the tax setting', positiveInteger)
    .argument('<rateId>', 'the scheduled rate (billing tax list shows it)', positiveInteger)
    .action(async (rateId: number, options: { account: number; setting: number }) => {
      const { withStorage, accountContext } = await runtime();
      const { withdrawTaxRate } = await catalogue();
      await withStorage(async (storage) =>
        withdrawTaxRate(
          await accountContext(storage, options.account, 'billing tax withdraw'),
          options.setting,
          rateId,
        ),
      );
      console.log(`Withdrew rate ${rateId} of tax setting ${options.setting}.`);
    });
}
