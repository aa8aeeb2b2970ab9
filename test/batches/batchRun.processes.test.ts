import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli, spawnCli } from '../helpers/cli.ts';
import { ok } from '../helpers/billing.ts';
import { customerWithBankAccount, issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { bankAccount } from './fixtures.ts';

// The batch run from the command line (`billing run`, as cron or a second service process runs it), in two
// processes at once and killed half-way: each due debit order is bundled once, each batch handed to its gateway
// once and its invoices' tries counted once, whatever happens.

const t = useTestService();
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

/** A live account with `count` debit-order invoices of 10.00 due today, each of its own customer and account. */
async function accountWithDebitOrders(
  count: number,
): Promise<{ account: TestAccount; invoiceIds: number[] }> {
  const account = await t.newAccount('Gym');
  await ok(account, 'POST', '/v1/currencies', { CurrencyCode: 'ZAR' });
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const today = new Date().toISOString().slice(0, 10);
  const invoiceIds: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const customer = await customerWithBankAccount(account, {
      customer: { Name: `Member ${i}`, CurrencyCode: 'ZAR' },
      bankAccount: bankAccount('debit_order'),
      validateAt: gatewayId,
    });
    const invoice = await issuedInvoice(account, {
      customerId: customer.customerId,
      invoiceDate: today,
      dueDate: today,
      collect: { method: 'debit_order', gatewayId, paymentMethodId: customer.paymentMethodId },
      description: 'Membership',
      amount: 10,
    });
    invoiceIds.push(invoice.invoiceID as number);
  }
  return { account, invoiceIds };
}

/** Each invoice's lines (pending allocations of batch payments), and its NumTries. */
async function linesOf(account: TestAccount, invoiceIds: number[]) {
  const db = t.service.storage.db;
  const allocations = await db
    .selectFrom('allocations')
    .innerJoin('batch_lines', 'batch_lines.payment_id', 'allocations.source_id')
    .select(['allocations.target_id as invoiceId', 'allocations.amount_minor', 'batch_lines.batch_id'])
    .where('allocations.source_type', '=', 'payment')
    .where('allocations.target_id', 'in', invoiceIds)
    .execute();
  const tries = await Promise.all(
    invoiceIds.map(async (id) => (await ok(account, 'GET', `/v1/invoices/${id}`)).NumTries as number),
  );
  return { allocations, tries };
}

const run = (account: TestAccount) => ['run', '--account', String(account.accountId), '--json'];

/** Submits every open batch of the account on its own action date. */
async function submitAll(account: TestAccount): Promise<string[]> {
  const open = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
  for (const batch of open) {
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: batch.BatchToken,
      ActionDate: batch.ActionDate.slice(0, 10),
    });
  }
  return open.map((batch: any) => batch.BatchToken);
}

/** The simulated provider's batches of these tokens (one per submission key). */
async function providerBatches(tokens: string[]) {
  const rows = await t.service.storage.db
    .selectFrom('test_gateway_batches')
    .select('idempotency_key')
    .execute();
  return rows.filter((row) => tokens.some((token) => row.idempotency_key.startsWith(`batch_${token}_`)));
}

describe('the batch run in several processes', () => {
  it('two `billing run` processes at once bundle each debit order once and build each batch once', async () => {
    const { account, invoiceIds } = await accountWithDebitOrders(30);
    const [a, b] = await Promise.all([
      runCli(run(account), t.env, 120_000),
      runCli(run(account), t.env, 120_000),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).batchLinesBundled + JSON.parse(b.stdout).batchLinesBundled).toBe(30);
    const bundled = await linesOf(account, invoiceIds);
    expect(bundled.allocations.map((line) => Number(line.invoiceId)).sort((x, y) => x - y)).toEqual(
      invoiceIds,
    );
    expect(bundled.allocations.every((line) => Number(line.amount_minor) === 1000)).toBe(true);

    const tokens = await submitAll(account);
    const [c, d] = await Promise.all([
      runCli(run(account), t.env, 120_000),
      runCli(run(account), t.env, 120_000),
    ]);
    expect(c.code, c.stderr).toBe(0);
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(c.stdout).batchesBuilt + JSON.parse(d.stdout).batchesBuilt).toBe(tokens.length);
    for (const token of tokens) {
      expect((await ok(account, 'GET', `/v1/batches/${token}`)).State).toBe('submitted');
    }
    expect(await providerBatches(tokens)).toHaveLength(tokens.length);
    expect((await linesOf(account, invoiceIds)).tries.every((tries) => tries === 1)).toBe(true);
  });

  it('killed between the gateway taking a batch and its record, the next run records it once', async () => {
    const db = t.service.storage.db;
    for (let attempt = 1; ; attempt += 1) {
      const { account, invoiceIds } = await accountWithDebitOrders(5);
      expect((await runCli(run(account), t.env, 120_000)).code).toBe(0);
      const tokens = await submitAll(account);
      const child = spawnCli(run(account), t.env);
      for (let waited = 0; (await providerBatches(tokens)).length === 0 && waited < 60_000; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      child.child.kill('SIGKILL');
      const ended = await child.exited;
      const states = await db
        .selectFrom('batches')
        .select('state')
        .where('batch_token', 'in', tokens)
        .execute();
      if (ended.signal !== 'SIGKILL' || states.every((row) => row.state === 'submitted')) {
        expect(attempt, 'each of three kills came after the record').toBeLessThan(3);
        continue;
      }
      // The provider took it; we never recorded that: still in build.
      expect(states.some((row) => row.state === 'build')).toBe(true);
      const rest = await runCli(run(account), t.env, 120_000);
      expect(rest.code, rest.stderr).toBe(0);
      for (const token of tokens) {
        expect((await ok(account, 'GET', `/v1/batches/${token}`)).State).toBe('submitted');
      }
      // Asked again with the same key: the provider's first acceptance, one batch at the provider.
      expect(await providerBatches(tokens)).toHaveLength(tokens.length);
      expect((await linesOf(account, invoiceIds)).tries.every((tries) => tries === 1)).toBe(true);
      return;
    }
  }, 120_000);
});
