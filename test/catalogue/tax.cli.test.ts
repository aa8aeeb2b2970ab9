import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// `billing tax list|schedule|withdraw` (docs/tax.md, "Rates that change on a date"), a real child process on the
// service's database: an announced VAT change scheduled and withdrawn by the operator, through the API's use cases.

const t = useTestService();
afterEach(() => killTransient());
afterAll(async () => {
  await killAll();
});

describe('billing tax', () => {
  it('schedules a rate, lists it, withdraws it, and refuses what the API refuses', async () => {
    const as = await t.newAccount('CLI VAT vendor', { timeZone: 'Africa/Johannesburg', currencyCode: 'ZAR' });
    const setting = await ok(as, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
    const settingId = String(setting.taxSettingID);
    const ruleId = String(setting.rules[0].taxRuleID);
    const account = ['--account', String(as.accountId)];
    const cli = (args: string[]) => runCli(['tax', ...args, ...account], t.env, 60_000);

    const scheduled = await cli([
      'schedule',
      '--setting',
      settingId,
      '--rule',
      ruleId,
      '--perc',
      '0.155',
      '--from',
      '2099-05-01',
    ]);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const [rate] = (await ok(as, 'GET', `/v1/tax/${settingId}`)).rules[0].ScheduledRates;
    // The API gives the day as the instant it begins in the account's time zone (Johannesburg, UTC+2).
    expect(rate).toMatchObject({ Perc: 0.155, EffectiveFrom: '2099-04-30T22:00:00.000Z' });
    expect(scheduled.stdout).toBe(
      `Scheduled rate ${rate.taxRateID}: rule ${ruleId} at 15.5% from 2099-05-01.\n`,
    );

    const listed = await cli(['list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      `Tax setting ${settingId} VAT\n  rule ${ruleId}: 15% today\n    from 2099-05-01: 15.5% (rate ${rate.taxRateID})\n`,
    );
    const json = await cli(['list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([await ok(as, 'GET', `/v1/tax/${settingId}`)]);

    // A day of today or earlier is the API's 422 naming EffectiveFrom: nothing scheduled.
    const past = await cli([
      'schedule',
      '--setting',
      settingId,
      '--rule',
      ruleId,
      '--perc',
      '0.16',
      '--from',
      '2020-01-01',
    ]);
    expect(past.code).not.toBe(0);
    expect(past.stderr).toContain('EffectiveFrom');
    expect((await ok(as, 'GET', `/v1/tax/${settingId}`)).rules[0].ScheduledRates).toHaveLength(1);

    const withdrawn = await cli(['withdraw', String(rate.taxRateID), '--setting', settingId]);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stdout).toBe(`Withdrew rate ${rate.taxRateID} of tax setting ${settingId}.\n`);
    expect((await ok(as, 'GET', `/v1/tax/${settingId}`)).rules[0].ScheduledRates).toEqual([]);

    // Another account's setting is not found, as over the API.
    const other = await t.newAccount('CLI other account');
    const foreign = await runCli(['tax', 'list', '--account', String(other.accountId)], t.env, 60_000);
    expect(foreign.stdout).toBe('No tax settings.\n');
    const refused = await runCli(
      [
        'tax',
        'withdraw',
        String(rate.taxRateID),
        '--setting',
        settingId,
        '--account',
        String(other.accountId),
      ],
      t.env,
      60_000,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`Tax setting ${settingId}`);
  });
});
