import { sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { api, basicAuth, killAll, killTransient, runCli, startServer, waitFor } from '../helpers/cli.ts';
import { createCustomer, createPlan, movableClock, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// Long billing work in a real server process: other requests are answered while it runs (it lets the event loop
// turn between short transactions: docs/architecture.md, "Storage"), and SIGTERM stops it between two commits.
const clock = movableClock('2026-01-01T10:00:00.000Z');
const t = useTestService({ clock });
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

/**
 * `count` customers, each subscribed from `startDate` (after the file's clock) to a plan renewing every `days` days:
 * by the real today (or a test clock moved months on), a dozen terms or more each are due.
 */
async function accountWithSubscriptions(
  count: number,
  days: number,
  options: { isTest?: boolean; startDate: string },
) {
  const as = await t.newAccount('Renewing', { isTest: options.isTest ?? false });
  const plan = await createPlan(as, { chargePrice: 1, chargeTerm: days, chargeTermType: 'days' });
  for (let i = 0; i < count; i += 1) {
    await subscribe(as, await createCustomer(as, { Name: `Customer ${i}` }), plan, {
      StartDate: options.startDate,
    });
  }
  return as;
}

/** The real today less `weeks` weeks: the server process bills by the real clock. */
const weeksBeforeToday = (weeks: number) =>
  new Date(Date.now() - weeks * 7 * 86_400_000).toISOString().slice(0, 10);

async function invoiceCount(as: TestAccount): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from invoices
    where account_id = ${as.accountId}`.execute(t.service.storage.db);
  return Number(rows[0]!.n);
}

/** Every invoice whole (its lines, its period) and no period billed twice. */
async function expectWhole(as: TestAccount) {
  const db = t.service.storage.db;
  const invoices = await db
    .selectFrom('invoices')
    .select(['id', 'invoice_num'])
    .where('account_id', '=', as.accountId)
    .orderBy('invoice_num')
    .execute();
  const withLines = new Set(
    (
      await db
        .selectFrom('invoice_charges')
        .select('invoice_id')
        .where('account_id', '=', as.accountId)
        .execute()
    ).map((line) => line.invoice_id),
  );
  const periods = await db
    .selectFrom('subscription_periods')
    .select(['subscription_id', 'period_no', 'invoice_id'])
    .where('account_id', '=', as.accountId)
    .execute();
  expect(invoices.map((i) => i.invoice_num)).toEqual(invoices.map((_, k) => k + 1));
  expect(invoices.every((i) => withLines.has(i.id))).toBe(true);
  // One period per invoice, and no (subscription, period) twice.
  expect(new Set(periods.map((p) => p.invoice_id)).size).toBe(invoices.length);
  expect(new Set(periods.map((p) => `${p.subscription_id}/${p.period_no}`)).size).toBe(periods.length);
  const subscriptions = await db
    .selectFrom('subscriptions')
    .select(['id', 'period_count'])
    .where('account_id', '=', as.accountId)
    .execute();
  for (const sub of subscriptions) {
    expect(sub.period_count).toBe(periods.filter((p) => p.subscription_id === sub.id).length);
  }
}

describe('a long bill run in the server', () => {
  it('answers another account while it runs, and SIGTERM stops it between commits with status 0', async () => {
    const reader = await t.newAccount('Reader');
    const customer = await createCustomer(reader, { Name: 'Ada' });
    // On a loaded machine the run may end before this process has asked or signalled: such an attempt proves
    // nothing and is made again, on a new account.
    for (let attempt = 1; ; attempt += 1) {
      // Weekly from 16 weeks ago, whatever today is: 17 terms each. Six accounts, so that PostgreSQL, which bills 250
      // subscriptions to a transaction, commits several times too (SQLite's transactions are short anyway).
      const accounts: TestAccount[] = [];
      for (let i = 0; i < 6; i += 1) {
        accounts.push(await accountWithSubscriptions(15, 7, { startDate: weeksBeforeToday(16) }));
      }
      const billedOf = async () => {
        let total = 0;
        for (const as of accounts) total += await invoiceCount(as);
        return total;
      };
      const server = await startServer({ ...t.env, BILLING_INTERVAL_MS: '3600000' });
      await waitFor(
        server,
        'the first invoices',
        async () => ((await billedOf()) > 0 ? true : undefined),
        60_000,
      );

      const answer = await api(server.url, reader, 'GET', `/v1/customers/${customer}`);
      const billedWhenAnswered = await billedOf();
      const stopped = await server.stop('SIGTERM', 60_000);
      const billedWhenStopped = await billedOf();

      const rest = await runCli(['run', '--json'], t.env, 300_000);
      expect(rest.code, rest.stderr).toBe(0);
      const billed = await billedOf();
      if (billedWhenStopped === billed) {
        expect(attempt, 'the run had finished before each of three signals').toBeLessThan(3);
        continue;
      }
      expect(answer.status).toBe(200);
      expect(answer.body.Name).toBe('Ada');
      // Answered while the run still had work: the GET did not wait for its end.
      expect(billedWhenAnswered).toBeLessThan(billed);
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.signal).toBeNull();
      expect(JSON.parse(rest.stdout).invoices).toBe(billed - billedWhenStopped);
      for (const as of accounts) await expectWhole(as);
      // Nothing left due: a third run bills nothing.
      const third = await runCli(['run', '--json'], t.env, 120_000);
      expect(JSON.parse(third.stdout).invoices).toBe(0);
      return;
    }
  }, 600_000);
});

describe('a long test-clock advance in the server', () => {
  it("answers another account's request before the advance is answered", async () => {
    const reader = await t.newAccount('Reader');
    const customer = await createCustomer(reader, { Name: 'Grace' });
    const server = await startServer(t.env);
    try {
      for (let attempt = 1; ; attempt += 1) {
        const as = await accountWithSubscriptions(10, 1, { isTest: true, startDate: '2026-01-02' });
        const order: string[] = [];
        // Through the server process (no client timeout: the advance takes as long as it takes).
        const advance = fetch(`${server.url}/v1/test-clock/advance`, {
          method: 'POST',
          headers: { authorization: basicAuth(as.accountId, as.apiKey), 'content-type': 'application/json' },
          body: JSON.stringify({ To: '2026-05-01' }),
        }).then(async (response) => {
          order.push('advance');
          return { status: response.status, body: await response.text() };
        });
        // Once the advance has billed something, while it still has months of days to go.
        await waitFor(
          server,
          'the first invoices',
          async () => ((await invoiceCount(as)) > 0 ? true : undefined),
          60_000,
        );
        const answer = await api(server.url, reader, 'GET', `/v1/customers/${customer}`);
        order.push('get');
        const advanced = await advance;
        expect(advanced.status, advanced.body).toBe(200);
        expect(answer.status).toBe(200);
        if (order[0] === 'advance') {
          expect(attempt, 'the advance was answered first in each of three attempts').toBeLessThan(3);
          continue;
        }
        expect(order).toEqual(['get', 'advance']);
        await expectWhole(as);
        return;
      }
    } finally {
      await server.stop();
    }
  }, 600_000);
});
