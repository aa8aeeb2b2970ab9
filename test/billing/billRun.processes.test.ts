import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { killAll, killTransient, runCli, spawnCli } from '../helpers/cli.ts';
import { createCustomer, createPlan, movableClock, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// The bill run from the command line, in several processes at once, and killed half-way.
const clock = movableClock('2026-01-01T10:00:00.000Z');
const t = useTestService({ clock });
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

/** An account with `count` customers, each subscribed from Jan 2 2026 (after the clock: nothing billed yet). */
async function accountWithSubscriptions(count: number, plan: Parameters<typeof createPlan>[1]) {
  const as = await t.newAccount('Shop');
  const chosen = await createPlan(as, plan);
  for (let i = 0; i < count; i += 1) {
    await subscribe(as, await createCustomer(as, { Name: `Customer ${i}` }), chosen, {
      StartDate: '2026-01-02',
    });
  }
  return as;
}

async function ledger(as: TestAccount) {
  const db = t.service.storage.db;
  const invoices = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_num', 'total_minor', 'subscription_id'])
    .where('account_id', '=', as.accountId)
    .orderBy('invoice_num')
    .execute();
  const lines = await db
    .selectFrom('invoice_charges')
    .select(['invoice_id'])
    .where('account_id', '=', as.accountId)
    .execute();
  const periods = await db
    .selectFrom('subscription_periods')
    .select(['subscription_id', 'period_no', 'period_start', 'period_end', 'invoice_id'])
    .where('account_id', '=', as.accountId)
    .orderBy('subscription_id')
    .orderBy('period_no')
    .execute();
  const subscriptions = await db
    .selectFrom('subscriptions')
    .select(['id', 'period_count', 'next_renew_date'])
    .where('account_id', '=', as.accountId)
    .execute();
  return { invoices, lines, periods, subscriptions };
}

/** Whatever state a run leaves: whole invoices, one per period, numbered without gaps, periods tiling time. */
function expectConsistent({ invoices, lines, periods, subscriptions }: Awaited<ReturnType<typeof ledger>>) {
  expect(invoices.map((i) => i.invoice_num)).toEqual(invoices.map((_, k) => k + 1));
  const withLines = new Set(lines.map((l) => l.invoice_id));
  expect(invoices.every((i) => withLines.has(i.id))).toBe(true);
  const invoiceIds = new Set(invoices.map((i) => i.id));
  expect(periods.every((p) => p.invoice_id !== null && invoiceIds.has(p.invoice_id))).toBe(true);
  expect(new Set(periods.map((p) => p.invoice_id)).size).toBe(invoices.length);
  for (const sub of subscriptions) {
    const own = periods.filter((p) => p.subscription_id === sub.id);
    expect(own.map((p) => p.period_no)).toEqual(own.map((_, k) => k + 1));
    expect(sub.period_count).toBe(own.length);
    own.forEach((p, k) => {
      expect(p.period_end > p.period_start).toBe(true);
      if (k > 0) expect(p.period_start).toBe(own[k - 1]!.period_end);
    });
    if (own.length > 0) expect(sub.next_renew_date).toBe(own.at(-1)!.period_end);
  }
}

describe('billing run', () => {
  it('bills what is due as of a date, and a second run bills nothing more', async () => {
    const as = await accountWithSubscriptions(3, { chargePrice: 10 });
    const args = ['run', '--as-of', '2026-04-15', '--account', String(as.accountId), '--json'];
    const first = await runCli(args, t.env, 60_000);
    expect(first.code, first.stderr).toBe(0);
    // Jan 2, Feb 2, Mar 2 and Apr 2 for each of 3 subscriptions.
    expect(JSON.parse(first.stdout)).toMatchObject({ accounts: 1, invoices: 12, parked: 0, failures: 0 });
    const second = await runCli(args, t.env, 60_000);
    expect(JSON.parse(second.stdout)).toMatchObject({ invoices: 0 });
    expectConsistent(await ledger(as));
  });

  it('refuses an unreadable date and an unknown account', async () => {
    const bad = await runCli(['run', '--as-of', 'someday'], t.env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--as-of/);
    const unknown = await runCli(['run', '--account', '987654'], t.env);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/Account 987654 was not found/);
  });

  it('run in two processes at once bills each period once', async () => {
    const as = await accountWithSubscriptions(30, { chargePrice: 3, chargeTerm: 7, chargeTermType: 'days' });
    const args = ['run', '--as-of', '2026-07-02', '--account', String(as.accountId), '--json'];
    const [a, b] = await Promise.all([runCli(args, t.env, 120_000), runCli(args, t.env, 120_000)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    // Weekly from Jan 2 to Jul 2 (181 days): periods starting on days 0, 7, ..., 175: 26 each.
    const made = JSON.parse(a.stdout).invoices + JSON.parse(b.stdout).invoices;
    expect(made).toBe(30 * 26);
    const state = await ledger(as);
    expect(state.invoices).toHaveLength(30 * 26);
    expectConsistent(state);
  });

  it('killed half-way leaves only whole invoices, and the next run completes the work', async () => {
    // Daily from Jan 2 2026 through Jan 2 2029 (365 + 365 + 366 days): 1,097 periods each, 4 × 1,097 = 4,388
    // invoices. A subscription catches up at most 400 periods a pass, so the run commits in three passes (400, 400,
    // 297 each): the kill comes once the first commit shows, before the last. On a loaded machine the scheduler can
    // still let the run finish before this process sends the kill: such an attempt proves nothing and is made
    // again, on a new account.
    const expected = 4 * 1097;
    for (let attempt = 1; ; attempt += 1) {
      const as = await accountWithSubscriptions(4, {
        chargePrice: 1,
        chargeTerm: 1,
        chargeTermType: 'days',
      });
      // 2029 is after today: a live account is billed that far ahead only when asked to.
      const args = ['run', '--as-of', '2029-01-02', '--account', String(as.accountId), '--allow-future'];
      const run = spawnCli(args, t.env);
      const count = async () =>
        Number(
          (
            await sql<{
              n: number | string;
            }>`select count(*) as n from invoices where account_id = ${as.accountId}`.execute(
              t.service.storage.db,
            )
          ).rows[0]!.n,
        );
      for (let waited = 0; (await count()) === 0 && waited < 60_000; waited += 5) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      run.child.kill('SIGKILL');
      const ended = await run.exited;
      const partial = await ledger(as);
      expectConsistent(partial);
      if (ended.signal !== 'SIGKILL' || partial.invoices.length === expected) {
        expect(attempt, 'the run had finished before each of three kills').toBeLessThan(3);
        continue;
      }
      expect(partial.invoices.length).toBeGreaterThan(0);

      const rest = await runCli(args, t.env, 120_000);
      expect(rest.code, rest.stderr).toBe(0);
      const done = await ledger(as);
      expect(done.invoices).toHaveLength(expected);
      expectConsistent(done);
      return;
    }
    // Up to three attempts of two CLI processes and 4,388 invoices each: longer than the default 30 s when loaded.
  }, 400_000);
});
