import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli, spawnCli } from '../helpers/cli.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { addCard } from './cards.ts';

// Card collection from the command line (`billing run`, as cron or a second service process runs it), in two
// processes at once and killed half-way: each invoice is charged once, whatever happens.

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterEach(killTransient);
afterAll(async () => {
  await killAll();
  await t.close();
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
    const invoice = await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: today,
      DueDate: today,
      CollectionMethod: 'credit_card',
      gatewayID: gatewayId,
      customerPaymentMethodID: paymentMethodID,
      Charges: [{ Descrip: 'Monthly', Qty: 1, UnitCostEx: 10 }],
    });
    invoiceIds.push(invoice.invoiceID as number);
  }
  return { account, invoiceIds };
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
        expect(attempt, 'each of three kills came after the record').toBeLessThan(3);
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
