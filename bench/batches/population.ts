/**
 * The batch benchmark's population: one account with a `bankfile` gateway (SEPA creditor details in its settings)
 * and EUR enabled; per customer a sepa bank account, validated, and one invoice per batch to build, collected by
 * debit order through that gateway; then the batches, each of one line per customer (a Pending payment allocated to
 * that batch's invoice of the customer). Everything through the API (the service started in this process, requests
 * injected into it: no sockets, every hook, schema and use case of a real request), except the gateway, which has
 * no route: it is added with `addGateway`, as `billing gateway add` does.
 *
 * The service stays up after the seeding: each batch is submitted through it (`PUT /v1/batches/submit`) just before
 * the process that builds it starts. Its workers are idle (no billing worker, the others polling hourly).
 */
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import type { ServiceContext } from '../../src/context.ts';
import { serviceMemory } from '../../src/context.ts';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { startService } from '../../src/server.ts';
import type { Service } from '../../src/server.ts';
import { BenchError, analyzeSeeded, log } from '../common.ts';
import { CREDITOR, RUN_DATE, SEED_AT, amountMinorOf, debtorIban } from './shared.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/** Every invoice's due date: beyond the run's bundling horizon, so that the run bundles none of them itself. */
export const DUE_DATE = '2026-03-31';
/** The action date every batch is submitted with: the earliest a sepa batch submitted on RUN_DATE may have. */
export const ACTION_DATE = earliestActionDate('sepa', RUN_DATE);

/** Requests in flight at once while seeding customers and invoices (not while adding lines, which is timed). */
const SEED_CONCURRENCY = 8;

type Body = Record<string, unknown>;

export interface SeededCustomer {
  id: number;
  paymentMethodId: number;
}

export interface SeededBatch {
  token: string;
  id: number;
  /** Line by line: the customer's invoice of this batch, and the line's payment (the invoice's total). */
  lines: { customerId: number; invoiceId: number; paymentId: number; amountMinor: number }[];
  totalMinor: number;
  /** Adding the lines one request after the other, as one client does. */
  addSeconds: number;
  addCpuSeconds: number;
  /** Mean milliseconds a line over the first and the last tenth of the lines (does a fuller batch add slower?). */
  addFirstTenthMs: number;
  addLastTenthMs: number;
}

export interface Population {
  service: Service;
  accountId: number;
  apiKey: string;
  gatewayId: number;
  gatewayToken: string;
  customers: SeededCustomer[];
  batches: SeededBatch[];
  encryptionKey: string;
  call(method: 'GET' | 'POST' | 'PUT', url: string, body?: Body, expected?: number): Promise<Body>;
}

const meanOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function inPool(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * Starts the service on `target` (migrating it; `dataDir` is its DATA_DIR), makes the account, its bankfile
 * gateway and `customers` customers with a validated sepa account and `batches` invoices each, then `batches` open
 * batches of one line per customer (the lines of each added one request at a time, timed). Leaves the service up:
 * the caller closes `population.service`.
 */
export async function seed(
  target: DatabaseTarget,
  dataDir: string,
  customerCount: number,
  batchCount: number,
  /** BENCH_STATEMENTS=1: each SQL text the service runs while the first batch's lines are added, with its count. */
  addStatements?: Map<string, number>,
): Promise<Population> {
  let counting = false;
  const onQuery = (text: string) => {
    if (counting) addStatements!.set(text, (addStatements!.get(text) ?? 0) + 1);
  };
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  const clock = fixedClock(SEED_AT);
  const config = loadConfig({
    DATABASE_URL: target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: encryptionKey,
    LOG_LEVEL: 'warn',
    BILLING_INTERVAL_MS: '0',
    // The mail and webhook workers poll hourly: the service is idle while the measured processes run.
    WORKER_INTERVAL_MS: '3600000',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const service: Service = await startService(config, { clock, ...(addStatements ? { onQuery } : {}) });
  try {
    const { account, apiKey } = await createAccount(
      service.storage.db,
      { ports: modulePorts(), clock, wallClock: systemClock },
      {
        name: 'Bench batches',
        timeZone: 'UTC',
        currencyCode: 'EUR',
      },
      { testGatewayOnLiveAccounts: true },
    );
    const authorization = `Basic ${Buffer.from(`${account.id}:${apiKey}`).toString('base64')}`;
    const call = async (
      method: 'GET' | 'POST' | 'PUT',
      url: string,
      body?: Body,
      expected?: number,
    ): Promise<Body> => {
      const response = await service.app.inject({
        method,
        url,
        headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
        payload: body ? JSON.stringify(body) : undefined,
      });
      const ok =
        expected === undefined
          ? response.statusCode >= 200 && response.statusCode <= 299
          : response.statusCode === expected;
      if (!ok) throw new BenchError(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
      return response.body === '' ? {} : (response.json() as Body);
    };

    // The gateway has no route: added as the CLI adds it, with the service's own context.
    const ctx: ServiceContext = {
      ports: modulePorts(),
      account,
      db: service.storage.db,
      clock,
      wallClock: systemClock,
      log: service.log as unknown as FastifyBaseLogger,
      secrets: service.secrets,
      mailQueued: () => {},
      memory: serviceMemory(),
    };
    const gateway = await addGateway(ctx, {
      type: 'bankfile',
      friendlyName: 'SEPA files',
      settings: CREDITOR,
    });
    // EUR is the account's currency, so enabled already (409); the request is the client's way all the same.
    const enabled = await service.app.inject({
      method: 'POST',
      url: '/v1/currencies',
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify({ CurrencyCode: 'EUR' }),
    });
    if (enabled.statusCode !== 201 && enabled.statusCode !== 409) {
      throw new BenchError(`enabling EUR answered ${enabled.statusCode}: ${enabled.body}`);
    }

    const started = performance.now();
    const customers = new Array<SeededCustomer>(customerCount);
    await inPool(customerCount, SEED_CONCURRENCY, async (i) => {
      const customer = await call('POST', '/v1/customers', {
        Name: `Payer ${i + 1}`,
        LastName: 'Bench',
        Email: `payer${i + 1}@example.com`,
        CurrencyCode: 'EUR',
      });
      const customerId = customer.customerID as number;
      const details = {
        Method: 'sepa',
        AccountType: 'Current',
        AccountHolder: `Payer ${i + 1} Bench`,
        Bank: 'Commerzbank',
        IBAN: debtorIban(i),
        BIC: 'COBADEFFXXX',
      };
      const method = await call(
        'POST',
        '/v1/paymentmethods/bankaccount',
        { customerID: customerId, isPrimary: true, BankAccount: details },
        200,
      );
      await call(
        'POST',
        `/v1/ValidateBankAccount/${gateway.id}`,
        { customerID: customerId, BankAccount: details },
        204,
      );
      customers[i] = { id: customerId, paymentMethodId: method.paymentMethodID as number };
    });
    log(
      `  ${customerCount} customers with validated sepa accounts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // invoices[b][i]: customer i's invoice for batch b, and its total in cents.
    const invoices = Array.from(
      { length: batchCount },
      () => new Array<{ id: number; totalMinor: number }>(),
    );
    const invoicesStarted = performance.now();
    await inPool(customerCount * batchCount, SEED_CONCURRENCY, async (k) => {
      const b = Math.floor(k / customerCount);
      const i = k % customerCount;
      const customer = customers[i]!;
      const invoice = await call('POST', '/v1/invoices', {
        customerID: customer.id,
        InvoiceDate: RUN_DATE,
        DueDate: DUE_DATE,
        CollectionMethod: 'debit_order',
        gatewayID: gateway.id,
        customerPaymentMethodID: customer.paymentMethodId,
        Charges: [{ Descrip: 'Monthly service', Qty: 1, UnitCostEx: amountMinorOf(b, i) / 100 }],
      });
      const totalMinor = Math.round((invoice.Total as number) * 100);
      if (totalMinor !== amountMinorOf(b, i)) {
        throw new BenchError(
          `invoice ${String(invoice.invoiceID)} totals ${totalMinor}, not ${amountMinorOf(b, i)}`,
        );
      }
      invoices[b]![i] = { id: invoice.invoiceID as number, totalMinor };
    });
    log(
      `  ${customerCount * batchCount} debit-order invoices in ${((performance.now() - invoicesStarted) / 1000).toFixed(1)} s`,
    );

    // The customers, their bank accounts and invoices are in: analyzed now, as autovacuum would have by the time a
    // client adds a batch's lines (docs/benchmarks.md, "A batch's lines before the statistics").
    await analyzeSeeded(service.storage.db);
    const batches: SeededBatch[] = [];
    for (let b = 0; b < batchCount; b += 1) {
      const batch = await call(
        'POST',
        '/v1/batches',
        {
          CurrencyCode: 'EUR',
          GatewayToken: gateway.token,
          ActionDate: ACTION_DATE,
          Notes: `Bench batch ${b + 1}`,
        },
        201,
      );
      const token = batch.BatchToken as string;
      const lines: SeededBatch['lines'] = [];
      const lineMs: number[] = [];
      // Timed: the lines one request after the other, as a client adds them.
      counting = b === 0;
      const cpuBefore = process.cpuUsage();
      const addStarted = performance.now();
      for (let i = 0; i < customerCount; i += 1) {
        const customer = customers[i]!;
        const invoice = invoices[b]![i]!;
        const amount = invoice.totalMinor / 100;
        const lineStarted = performance.now();
        const payment = await call(
          'POST',
          '/v1/batches/payments',
          {
            BatchToken: token,
            customerID: customer.id,
            Amount: amount,
            paymentMethodID: customer.paymentMethodId,
            Ref: `bench-${b + 1}-${i + 1}`,
            PaymentApplied: [{ invoiceID: invoice.id, amount }],
          },
          201,
        );
        lineMs.push(performance.now() - lineStarted);
        lines.push({
          customerId: customer.id,
          invoiceId: invoice.id,
          paymentId: payment.paymentID as number,
          amountMinor: invoice.totalMinor,
        });
      }
      const addSeconds = (performance.now() - addStarted) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      counting = false;
      batches.push({
        token,
        id: 0,
        lines,
        totalMinor: lines.reduce((sum, line) => sum + line.amountMinor, 0),
        addSeconds,
        addCpuSeconds: (cpu.user + cpu.system) / 1e6,
        addFirstTenthMs: meanOf(lineMs.slice(0, Math.max(1, Math.floor(customerCount / 10)))),
        addLastTenthMs: meanOf(lineMs.slice(-Math.max(1, Math.floor(customerCount / 10)))),
      });
      log(
        `  batch ${b + 1} of ${batchCount}: ${customerCount} lines added in ${addSeconds.toFixed(2)} s (${(customerCount / addSeconds).toFixed(1)} lines/s)`,
      );
    }
    const rows = await service.storage.db
      .selectFrom('batches')
      .select(['id', 'batch_token'])
      .where('account_id', '=', account.id)
      .execute();
    const idOf = new Map(rows.map((row) => [row.batch_token, row.id]));
    for (const batch of batches) batch.id = idOf.get(batch.token)!;

    await analyzeSeeded(service.storage.db);
    return {
      service,
      accountId: account.id,
      apiKey,
      gatewayId: gateway.id,
      gatewayToken: gateway.token,
      customers,
      batches,
      encryptionKey,
      call,
    };
  } catch (error) {
    await service.close();
    throw error;
  }
}
