import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli, spawnCli } from '../helpers/cli.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from './cards.ts';

// Card collection from the command line (`billing run`, as cron or a second service process runs it), in two
// processes at once and killed half-way: each invoice is charged once, whatever happens. Invoices that name their
// card, and subscription invoices that follow a card customer's settings (docs/gateways.md, "From the customer's
// settings to the money"), billed and charged by the same runs.

const t = useTestService();
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

/** A live account with `count` card invoices of 10.00 due today, each of its own customer and card. */
async function accountWithCardInvoices(
  count: number,
): Promise<{ account: TestAccount; invoiceIds: number[] }> {
  const account = await t.newAccount('Shop');
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const today = new Date().toISOString().slice(0, 10);
  const invoiceIds: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const customerId = await createCustomer(account, { Name: `Customer ${i}` });
    const paymentMethodID = await addCard(account, customerId, '4242424242424242', {
      lastName: `Customer ${i}`,
    });
    const invoice = await issuedInvoice(account, {
      customerId,
      invoiceDate: today,
      dueDate: today,
      collect: { method: 'credit_card', gatewayId, paymentMethodId: paymentMethodID },
      description: 'Monthly',
      amount: 10,
    });
    invoiceIds.push(invoice.invoiceID as number);
  }
  return { account, invoiceIds };
}

/**
 * A test account (UTC) with `count` customers who pay by credit_card, each with a card and a monthly 10.00
 * subscription started today, whose first invoice is made at once; and the date 40 days on, by which a run bills
 * each subscription's first renewal (and collects both invoices).
 */
async function accountWithCardSubscriptions(
  count: number,
): Promise<{ account: TestAccount; gatewayId: number; renewedBy: string }> {
  const account = await t.newAccount('Subscriptions', { isTest: true, timeZone: 'UTC' });
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const plan = await createPlan(account, { chargePrice: 10 });
  for (let i = 0; i < count; i += 1) {
    const customerId = await createCustomer(account, {
      Name: `Subscriber ${i}`,
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: gatewayId,
    });
    await addCard(account, customerId, '4242424242424242', { lastName: `Subscriber ${i}` });
    await subscribe(account, customerId, plan);
  }
  const today = (await ok(account, 'GET', '/v1/test-clock')).Today as string;
  const renewedBy = new Date(Date.parse(`${today}T00:00:00.000Z`) + 40 * 86_400_000)
    .toISOString()
    .slice(0, 10);
  return { account, gatewayId, renewedBy };
}

/** The account's invoices, by id. */
async function invoiceIdsOf(account: TestAccount): Promise<number[]> {
  const rows = await t.service.storage.db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', account.accountId)
    .orderBy('id')
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Per invoice: the charges the test gateway made, the payments we recorded, and what is still owed. */
async function collected(invoiceIds: number[]) {
  const db = t.service.storage.db;
  const charges = await db
    .selectFrom('test_gateway_charges')
    .select(['idempotency_key', 'outcome'])
    .where(
      'idempotency_key',
      'in',
      invoiceIds.map((id) => `inv_${id}_try_1`),
    )
    .execute();
  const allocations = await db
    .selectFrom('allocations')
    .innerJoin('payments', 'payments.id', 'allocations.source_id')
    .select(['allocations.target_id as invoiceId', 'payments.id as paymentId', 'allocations.amount_minor'])
    .where('allocations.source_type', '=', 'payment')
    .where('allocations.target_type', '=', 'invoice')
    .where('allocations.target_id', 'in', invoiceIds)
    .execute();
  const attempts = await db
    .selectFrom('collection_attempts')
    .select(['invoice_id', 'attempt_no', 'state'])
    .where('invoice_id', 'in', invoiceIds)
    .execute();
  return { charges, allocations, attempts };
}

function expectEachChargedOnce(state: Awaited<ReturnType<typeof collected>>, invoiceIds: number[]) {
  expect(state.charges).toHaveLength(invoiceIds.length);
  expect(state.charges.every((charge) => charge.outcome === 'succeeded')).toBe(true);
  // One payment per invoice, of the whole 10.00.
  expect(state.allocations.map((a) => Number(a.invoiceId)).sort((a, b) => a - b)).toEqual(invoiceIds);
  expect(state.allocations.every((a) => Number(a.amount_minor) === 1000)).toBe(true);
  expect(state.attempts.every((a) => a.attempt_no === 1 && a.state === 'succeeded')).toBe(true);
  expect(state.attempts).toHaveLength(invoiceIds.length);
}

describe('card collection in several processes', () => {
  it('two `billing run` processes at once charge each due invoice once', async () => {
    const { account, invoiceIds } = await accountWithCardInvoices(30);
    const args = ['run', '--account', String(account.accountId), '--json'];
    const [a, b] = await Promise.all([runCli(args, t.env, 120_000), runCli(args, t.env, 120_000)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const runs = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(runs[0].collected + runs[1].collected).toBe(30);
    expectEachChargedOnce(await collected(invoiceIds), invoiceIds);
    for (const id of invoiceIds.slice(0, 3)) {
      expect(await ok(account, 'GET', `/v1/invoices/${id}`)).toMatchObject({ Status: 'Paid', NumTries: 1 });
    }
  });

  it('killed between a charge and its record, the next run records each charge once and charges nothing twice', async () => {
    const env = { ...t.env, COLLECTION_UNANSWERED_AFTER_MS: '0' };
    const db = t.service.storage.db;
    // The kill comes as soon as the gateway shows a charge: most often before its record. When the scheduler lets
    // the record through first, the attempt proves nothing and is made again on a new account.
    for (let attempt = 1; ; attempt += 1) {
      const { account, invoiceIds } = await accountWithCardInvoices(20);
      const args = ['run', '--account', String(account.accountId), '--json'];
      const keys = invoiceIds.map((id) => `inv_${id}_try_1`);
      const charged = async () =>
        (
          await db
            .selectFrom('test_gateway_charges')
            .select('idempotency_key')
            .where('idempotency_key', 'in', keys)
            .execute()
        ).length;
      const run = spawnCli(args, env);
      for (let waited = 0; (await charged()) === 0 && waited < 60_000; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      run.child.kill('SIGKILL');
      const ended = await run.exited;
      const partial = await collected(invoiceIds);
      // Whatever the kill interrupted: no payment without its charge.
      expect(partial.allocations.length).toBeLessThanOrEqual(partial.charges.length);
      if (ended.signal !== 'SIGKILL' || partial.charges.length === partial.allocations.length) {
        expect(attempt, 'each of six kills came after the record').toBeLessThan(6);
        continue;
      }
      // A charge made and not recorded: an attempt left open.
      expect(partial.attempts.some((a) => a.state === 'started')).toBe(true);

      const rest = await runCli(args, env, 120_000);
      expect(rest.code, rest.stderr).toBe(0);
      expectEachChargedOnce(await collected(invoiceIds), invoiceIds);
      return;
    }
  }, 120_000);
});

describe('subscription invoices of card customers in several processes', () => {
  it('two `billing run` processes at once bill each renewal once and charge each invoice once', async () => {
    const { account, renewedBy } = await accountWithCardSubscriptions(12);
    const args = ['run', '--account', String(account.accountId), '--as-of', renewedBy, '--json'];
    const [a, b] = await Promise.all([runCli(args, t.env, 120_000), runCli(args, t.env, 120_000)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const runs = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    // Each subscription's renewal billed by one of them; its first invoice and the renewal charged.
    expect(runs[0].invoices + runs[1].invoices).toBe(12);
    expect(runs[0].collected + runs[1].collected).toBe(24);
    const invoiceIds = await invoiceIdsOf(account);
    expect(invoiceIds).toHaveLength(24);
    expectEachChargedOnce(await collected(invoiceIds), invoiceIds);
    // The last one made is a renewal.
    expect(await ok(account, 'GET', `/v1/invoices/${invoiceIds.at(-1)}`)).toMatchObject({
      Status: 'Paid',
      NumTries: 1,
      CollectionSource: 'customer',
      CollectionMethod: 'credit_card',
    });
  });

  it('killed between a renewal charge and its record, the next run records it once and charges nothing twice', async () => {
    const env = { ...t.env, COLLECTION_UNANSWERED_AFTER_MS: '0' };
    const db = t.service.storage.db;
    // As above: the kill comes as soon as the gateway shows a renewal's charge; one that came after the record is
    // made again.
    for (let attempt = 1; ; attempt += 1) {
      const { account, gatewayId, renewedBy } = await accountWithCardSubscriptions(10);
      // The first invoices collected today, so that the run killed is the one that renews.
      const first = await runCli(['run', '--account', String(account.accountId), '--json'], env, 120_000);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ invoices: 0, collected: 10 });
      const args = ['run', '--account', String(account.accountId), '--as-of', renewedBy, '--json'];
      const charged = async () =>
        (
          await db
            .selectFrom('test_gateway_charges')
            .select('idempotency_key')
            .where('gateway_id', '=', gatewayId)
            .execute()
        ).length;
      const run = spawnCli(args, env);
      for (let waited = 0; (await charged()) === 10 && waited < 60_000; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      run.child.kill('SIGKILL');
      const ended = await run.exited;
      const partial = await collected(await invoiceIdsOf(account));
      expect(partial.allocations.length).toBeLessThanOrEqual(partial.charges.length);
      if (ended.signal !== 'SIGKILL' || partial.charges.length === partial.allocations.length) {
        expect(attempt, 'each of six kills came after the record').toBeLessThan(6);
        continue;
      }
      expect(partial.attempts.some((a) => a.state === 'started')).toBe(true);

      const rest = await runCli(args, env, 120_000);
      expect(rest.code, rest.stderr).toBe(0);
      // The kill came while collecting, after every renewal was billed: 2 invoices a subscription, each charged once.
      const invoiceIds = await invoiceIdsOf(account);
      expect(invoiceIds).toHaveLength(20);
      expectEachChargedOnce(await collected(invoiceIds), invoiceIds);
      return;
    }
  }, 120_000);
});
