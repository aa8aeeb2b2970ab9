import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';
import type { CliResult } from '../helpers/cli.ts';
import { createCustomer, createPlan, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// `billing run --as-of` after today on a live account bills real invoices and e-mail early: it is refused unless
// --allow-future is given. The CLI runs on the real clock, so "today" here is the real date in each time zone.

const t = useTestService();
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

/** The calendar date in `timeZone`, `days` from now. */
function dateIn(timeZone: string, days = 0): string {
  const at = new Date(Date.now() + days * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** An account with one monthly subscription starting in 3 days: billed by a run as of 10 days from now. */
async function accountBilledSoon(options: { isTest?: boolean; timeZone: string }): Promise<TestAccount> {
  const as = await t.newAccount(options.isTest ? 'Sandbox' : 'Shop', options);
  const plan = await createPlan(as, { chargePrice: 25 });
  await subscribe(as, await createCustomer(as), plan, { StartDate: dateIn(options.timeZone, 3) });
  return as;
}

async function invoiceCount(as: TestAccount): Promise<number> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from invoices where account_id = ${as.accountId}`.execute(t.service.storage.db);
  return Number(rows[0]!.n);
}

function expectRefused(result: CliResult, line: string): void {
  expect({ code: result.code, signal: result.signal }, result.stdout + result.stderr).toEqual({
    code: 2,
    signal: null,
  });
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`${line}\n`);
}

const refusal = (asOf: string, accounts: string) =>
  `error: --as-of ${asOf} is after today for ${accounts}: billing them now would issue real invoices and ` +
  'e-mail, and charge cards, ahead of time; add --allow-future to do it anyway';

describe('billing run --as-of after today', () => {
  it('is refused for a live account and bills nothing; --allow-future bills it', async () => {
    const shop = await accountBilledSoon({ timeZone: 'Europe/Paris' });
    const asOf = dateIn('Europe/Paris', 10);
    const args = ['run', '--as-of', asOf, '--account', String(shop.accountId), '--json'];

    const refused = await runCli(args, t.env);
    expectRefused(
      refused,
      refusal(asOf, `live account ${shop.accountId} (today ${dateIn('Europe/Paris')} in Europe/Paris)`),
    );
    expect(await invoiceCount(shop)).toBe(0);

    const allowed = await runCli([...args, '--allow-future'], t.env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ accounts: 1, invoices: 1, failures: 0 });
    expect(await invoiceCount(shop)).toBe(1);
  });

  it('is refused for an instant on a later day, and allowed for today and the past', async () => {
    const shop = await accountBilledSoon({ timeZone: 'UTC' });
    const account = ['--account', String(shop.accountId)];
    const instant = `${dateIn('UTC', 1)}T00:30:00Z`;
    expectRefused(
      await runCli(['run', '--as-of', instant, ...account], t.env),
      refusal(instant, `live account ${shop.accountId} (today ${dateIn('UTC')} in UTC)`),
    );
    for (const asOf of [dateIn('UTC'), dateIn('UTC', -40)]) {
      const result = await runCli(['run', '--as-of', asOf, ...account, '--json'], t.env);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ accounts: 1, invoices: 0 });
    }
    expect(await invoiceCount(shop)).toBe(0);
  });

  it("reads 'today' in the account's time zone", async () => {
    // Kiritimati (UTC+14) is always one or two calendar days ahead of Pago Pago (UTC-11).
    const ahead = await accountBilledSoon({ timeZone: 'Pacific/Kiritimati' });
    const behind = await accountBilledSoon({ timeZone: 'Pacific/Pago_Pago' });
    const asOf = dateIn('Pacific/Kiritimati');

    const onTime = await runCli(['run', '--as-of', asOf, '--account', String(ahead.accountId)], t.env);
    expect(onTime.code, onTime.stderr).toBe(0);

    const early = await runCli(['run', '--as-of', asOf, '--account', String(behind.accountId)], t.env);
    expectRefused(
      early,
      refusal(
        asOf,
        `live account ${behind.accountId} (today ${dateIn('Pacific/Pago_Pago')} in Pacific/Pago_Pago)`,
      ),
    );
  });

  it('is allowed for a test account, which bills on its own clock', async () => {
    const sandbox = await accountBilledSoon({ isTest: true, timeZone: 'UTC' });
    const result = await runCli(
      ['run', '--as-of', dateIn('UTC', 10), '--account', String(sandbox.accountId), '--json'],
      t.env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ accounts: 1, invoices: 1 });
    expect(await invoiceCount(sandbox)).toBe(1);
  });

  it('without --account, is refused when any live account would be billed ahead, naming them', async () => {
    const asOf = dateIn('UTC', 400);
    // The main account and four more live ones, whatever else this file made: three are named, then a count.
    const others = [];
    for (let i = 0; i < 4; i += 1) others.push(await accountBilledSoon({ timeZone: 'UTC' }));
    const before = await Promise.all([t, ...others].map(invoiceCount));
    const result = await runCli(['run', '--as-of', asOf], t.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: --as-of ${asOf} is after today for live accounts ${t.accountId} \\(today \\S+ in \\S+\\), `,
      ),
    );
    expect(result.stderr).toMatch(/ and \d+ more: billing them now would issue real invoices/);
    expect(result.stderr.split('\n')).toHaveLength(2);
    // Nothing was billed, in any account.
    expect(await Promise.all([t, ...others].map(invoiceCount))).toEqual(before);
  });
});
