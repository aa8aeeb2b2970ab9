/**
 * Payments benchmark (bench/README.md): POST /v1/payments with AutoApply on a real server in a child process on
 * 127.0.0.1, autocannon in this one, beside the floor (GET /healthz) measured in the same run.
 *
 *   npm run bench:payments                     SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:payments   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 *   BENCH_WEBHOOK=1 npm run bench:payments     the same with one webhook endpoint subscribed to every event (a local
 *                                               receiver answering 204), to compare with a run without
 *
 * Two loads: payments spread round-robin over BENCH_CUSTOMERS customers, then every payment to one customer (each
 * waits for the customer's lock). After the run the database is checked: one payment per 201, no invoice paid past
 * its total, allocations adding up per payment, invoice and customer. See bench/README.md.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDatabaseUrl } from '../src/config.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import {
  BenchError,
  PG_URL,
  forEachDialect,
  formatTable,
  log,
  round,
  runBenchmark,
  loadAverage,
  printJsonLine,
} from './common.ts';
import type { Dialect } from './common.ts';
import { HOST, figureCells, postgresSetup, sqliteSetup, tableTitle, withService } from './harness.ts';
import type { DialectSetup, LoadSpec, Service } from './harness.ts';
import { apiBalanceReader, balanceSample, checkDatabase, printChecks, settle } from './payments/checks.ts';
import { measure, newLedger, paymentLoad } from './payments/loads.ts';
import { seedPopulation } from './payments/population.ts';
import {
  CONNECTIONS,
  CUSTOMERS,
  INVOICES_PER_CUSTOMER,
  PACED_RATE,
  PAYMENT_MINOR,
  ROUTE_KEYS,
  SECONDS,
  WARMUP_SECONDS,
} from './payments/settings.ts';
import type { DialectResult, RouteKey } from './payments/settings.ts';

// ---------------------------------------------------------------------------------------------------------------
// One dialect

const WITH_WEBHOOK = process.env.BENCH_WEBHOOK === '1';

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  return withService(
    setup,
    tempDir,
    'Bench payments',
    async (service) => {
      const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, service.dataDir));
      const receiver = WITH_WEBHOOK ? await subscribeReceiver(service) : undefined;
      try {
        return await benchService(setup.dialect, service, storage.db);
      } finally {
        if (receiver) {
          log(`${setup.dialect}: the webhook receiver got ${receiver.received()} deliveries`);
          await receiver.close();
        }
        await storage.close().catch(() => {});
      }
    },
    WITH_WEBHOOK ? { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_HOSTS: HOST } : {},
  );
}

/** A local receiver answering 204, and an endpoint of the account subscribed to every event type. */
async function subscribeReceiver(service: Service): Promise<{ received(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`${service.base}/v1/webhookendpoints`, {
    method: 'POST',
    headers: { authorization: service.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ Url: `http://${HOST}:${port}/hook`, EnabledEvents: ['*'] }),
  });
  if (res.status !== 201) throw new BenchError(`could not create the webhook endpoint: ${await res.text()}`);
  return {
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Seeds the population, measures the loads, and checks what the database holds after them. */
async function benchService(dialect: Dialect, service: Service, db: Db): Promise<DialectResult> {
  const { base, credentials, authorization } = service;
  const seedStarted = performance.now();
  const { customerIds, hotCustomerId, spreadCustomerIds, invoices } = await seedPopulation(
    dialect,
    service,
    db,
  );
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(
    `${dialect}: seeded ${customerIds.length} customers and ${invoices} invoices in ${seedSeconds.toFixed(1)} s`,
  );

  const ledger = newLedger();
  const specs: Record<RouteKey, LoadSpec> = {
    floor: { label: 'GET /healthz (floor)', options: { url: `${base}/healthz` } },
    paced: paymentLoad(
      `POST /v1/payments, round-robin at ${PACED_RATE}/s`,
      base,
      authorization,
      spreadCustomerIds,
      'paced',
      ledger,
      PACED_RATE,
    ),
    roundRobin: paymentLoad(
      `POST /v1/payments, ${CUSTOMERS} customers round-robin`,
      base,
      authorization,
      spreadCustomerIds,
      'rr',
      ledger,
    ),
    oneCustomer: paymentLoad(
      'POST /v1/payments, one customer',
      base,
      authorization,
      [hotCustomerId],
      'one',
      ledger,
    ),
  };
  const figures = await measure(specs, service.server.child.pid);
  // autocannon drops its connections at the end of a run, with requests still in flight on the server; let them
  // finish before the database is read.
  await settle(db, credentials.accountID);

  log(`${dialect}: checking the payments, allocations and invoices`);
  const { checks, payments } = await checkDatabase(
    db,
    credentials.accountID,
    ledger,
    ['paced-w', 'paced-m', 'rr-w', 'rr-m', 'one-w', 'one-m'],
    apiBalanceReader(base, authorization),
    balanceSample(hotCustomerId, spreadCustomerIds),
  );
  const httpFailures = ROUTE_KEYS.some((key) => {
    const f = figures[key];
    return f.non2xx + f.errors + f.timeouts + f.warmupNon2xx + f.warmupErrors > 0;
  });
  if (ledger.failureSamples.length > 0)
    log(`non-2xx responses, e.g.:\n  ${ledger.failureSamples.join('\n  ')}`);
  return {
    seedSeconds: round(seedSeconds, 2),
    customers: customerIds.length,
    invoices,
    figures,
    payments,
    checks,
    failed: httpFailures || checks.some((c) => !c.ok),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printResult(dialect: Dialect, result: DialectResult): void {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs floor', 'server CPU ms/req'];
  const rows = ROUTE_KEYS.map((key) => result.figures[key]).map((f) => [
    ...figureCells(f),
    String(f.errors + f.timeouts),
    `${(f.vsFloor * 100).toFixed(1)}%`,
    f.serverCpuMsPerRequest === null ? 'n/a' : f.serverCpuMsPerRequest.toFixed(3),
  ]);
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const title =
    `${tableTitle(dialect)}; ` +
    `${CUSTOMERS} customers with ${INVOICES_PER_CUSTOMER} open invoices each, payments of ${(PAYMENT_MINOR / 100).toFixed(2)}`;
  console.log(formatTable(title, header, rows));
  for (const key of ROUTE_KEYS) {
    const f = result.figures[key];
    if (f.warmupNon2xx + f.warmupErrors > 0) {
      console.log(`warm-up of ${f.route}: ${f.warmupNon2xx} non-2xx, ${f.warmupErrors} errors or timeouts`);
    }
    if (f.non2xx > 0) console.log(`${f.route}: status codes ${JSON.stringify(f.statusCodes)}`);
  }
  printChecks(name, result.checks);
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const results = await forEachDialect({
    tempPrefix: 'billing-bench-payments-',
    sqlite: sqliteSetup,
    postgres: postgresSetup,
    bench: benchDialect,
    print: printResult,
  });

  const failed = Object.values(results).some((r) => r.failed);
  console.log(
    failed
      ? 'FAILED: non-2xx responses, connection errors or a failed check above'
      : 'All responses 2xx; all checks passed',
  );
  printJsonLine('billing-payments', {
    webhookEndpoint: WITH_WEBHOOK,
    loadAverage: loadAverage(),
    seconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    connections: CONNECTIONS,
    customers: CUSTOMERS,
    invoicesPerCustomer: INVOICES_PER_CUSTOMER,
    paymentMinor: PAYMENT_MINOR,
    results,
  });
  return failed ? 1 : 0;
}

// Stop by itself: a run longer than its planned length plus generous slack is aborted.
const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (6 * (SECONDS + WARMUP_SECONDS) + 600 + CUSTOMERS * 0.1) * 1000;
await runBenchmark(main, budgetMs);
