/**
 * Payments benchmark (issue 5, point 8): POST /v1/payments with AutoApply on a real server in a child process on
 * 127.0.0.1, autocannon in this one, beside the floor (GET /healthz) measured in the same run.
 *
 *   npm run bench:payments                     SQLite only (a fresh temporary file)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:payments   SQLite, then PostgreSQL in a fresh, dropped-after schema
 *
 * Two loads: payments spread round-robin over BENCH_CUSTOMERS customers, then every payment to one customer (each
 * waits for the customer's lock). After the run the database is checked: one payment per 201, no invoice paid past
 * its total, allocations adding up per payment, invoice and customer. See bench/README.md.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type autocannon from 'autocannon';
import { fixedClock } from '../src/clock.ts';
import { parseDatabaseUrl } from '../src/config.ts';
import { inTransaction } from '../src/context.ts';
import type { ServiceContext } from '../src/context.ts';
import { getAccount } from '../src/modules/auth/index.ts';
import { insertInvoices } from '../src/modules/invoicing/index.ts';
import type { NewInvoice } from '../src/modules/invoicing/invoice.service.ts';
import { createSecretBox } from '../src/security/secretBox.ts';
import type { Db } from '../src/storage/database.ts';
import { openStorage } from '../src/storage/database.ts';
import {
  BenchError,
  HOST,
  PG_URL,
  active,
  basicAuth,
  createAccount,
  describeFailures,
  describeStatuses,
  fire,
  formatTable,
  freePort,
  hasFailures,
  log,
  percentile,
  postgresSetup,
  processCpuSeconds,
  round,
  runBenchmark,
  serviceEnv,
  setting,
  sleep,
  sqliteSetup,
  startServer,
  stopServer,
  waitForHealth,
} from './harness.ts';
import type { Credentials, Dialect, DialectSetup, LoadSpec, Run } from './harness.ts';

const SECONDS = setting('BENCH_SECONDS', 10, 1, 600);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0, 60);
const CONNECTIONS = Math.round(setting('BENCH_CONNECTIONS', 10, 1, 1000));
const CUSTOMERS = Math.round(setting('BENCH_CUSTOMERS', 1000, 1, 100_000));
const INVOICES_PER_CUSTOMER = Math.round(setting('BENCH_INVOICES_PER_CUSTOMER', 20, 1, 200));

/** Every payment: 30.00 USD by EFT on 2026-01-10, applied to the earliest open invoices. */
const PAYMENT_MINOR = 3000;
const PAYMENT_DATE = '2026-01-10';
/** The spread customers' invoices: 100.00 each, so that a payment pays one invoice or two. */
const INVOICE_MINOR = 10_000;
/**
 * The one customer's invoices: as many, of 100 000.00 each, so that it has the same number of open invoices to read
 * and lock as the others and never runs out of them (20 of them take 66 666 payments of 30.00).
 */
const HOT_INVOICE_MINOR = 10_000_000;
/** Customers whose invoices are written per transaction while seeding. */
const SEED_CUSTOMERS_PER_TRANSACTION = 25;
/** Customers whose Balance is read back through the API after the run (the one customer, and a sample). */
const API_BALANCE_SAMPLE = 20;

type RouteKey = 'floor' | 'roundRobin' | 'oneCustomer';
const ROUTE_KEYS: RouteKey[] = ['floor', 'roundRobin', 'oneCustomer'];

interface Figures {
  route: string;
  requestsPerSecond: number;
  requestsTotal: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Responses by status code, measured seconds only. */
  statusCodes: Record<string, number>;
  /** The same counts in the warm-up (its payments are real and are checked too). */
  warmupStatusCodes: Record<string, number>;
  warmupNon2xx: number;
  warmupErrors: number;
  /** This route's requests per second over the floor's, measured in the same run. */
  vsFloor: number;
  /** The server process's CPU milliseconds per request over the measured seconds (PostgreSQL's own not included). */
  serverCpuMsPerRequest: number | null;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

interface DialectResult {
  seedSeconds: number;
  customers: number;
  invoices: number;
  figures: Record<RouteKey, Figures>;
  payments: {
    inDatabase: number;
    answered201: number;
    /** Requests whose response autocannon did not wait for at the end of a phase, recorded by the server. */
    cutOffRecorded: number;
    cutOffNotRecorded: number;
    notFullyAllocated: number;
  };
  checks: Check[];
  failed: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Seeding

async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** `count` customers through POST /v1/customers, `CONNECTIONS` at a time; their ids in creation order. */
async function createCustomers(base: string, authorization: string, count: number): Promise<number[]> {
  const ids = new Array<number>(count);
  await inPool(
    Array.from({ length: count }, (_, i) => i),
    CONNECTIONS,
    async (i) => {
      const response = await fetch(`${base}/v1/customers`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          Name: `Payer ${i + 1}`,
          LastName: 'Bench',
          Email: `payer${i + 1}@example.com`,
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status !== 201) {
        throw new BenchError(`POST /v1/customers answered ${response.status} (expected 201): ${text}`);
      }
      const id = (JSON.parse(text) as { customerID?: unknown }).customerID;
      if (typeof id !== 'number') throw new BenchError(`POST /v1/customers returned no customerID: ${text}`);
      ids[i] = id;
    },
  );
  return ids;
}

function invoiceDate(k: number): string {
  return new Date(Date.UTC(2025, 11, 1 + k)).toISOString().slice(0, 10);
}

/**
 * Each customer's issued invoices, written with the service's own insertInvoices (the one way invoices are made:
 * POST /v1/invoices and the bill run use it), `SEED_CUSTOMERS_PER_TRANSACTION` customers per transaction. One line
 * each, no tax, dated a day apart from 2025-12-01, so AutoApply's order (InvoiceDate, invoiceNum) is the id order.
 */
async function seedInvoices(
  ctx: ServiceContext,
  customerIds: readonly number[],
  hotCustomerId: number,
): Promise<number> {
  let written = 0;
  for (let at = 0; at < customerIds.length; at += SEED_CUSTOMERS_PER_TRANSACTION) {
    const invoices: NewInvoice[] = customerIds
      .slice(at, at + SEED_CUSTOMERS_PER_TRANSACTION)
      .flatMap((customerId) =>
        Array.from({ length: INVOICES_PER_CUSTOMER }, (_, k) => ({
          customerId,
          currencyCode: 'USD',
          invoiceDate: invoiceDate(k),
          source: 'App' as const,
          isDraft: false,
          charges: [
            {
              descrip: 'Services',
              qty: '1',
              unitCostEx: ((customerId === hotCustomerId ? HOT_INVOICE_MINOR : INVOICE_MINOR) / 100).toFixed(
                2,
              ),
            },
          ],
          taxes: [],
        })),
      );
    await ctx.db.transaction().execute((trx) => insertInvoices(inTransaction(ctx, trx), invoices));
    written += invoices.length;
  }
  return written;
}

// ---------------------------------------------------------------------------------------------------------------
// The loads and what they got back

/** What was sent, and what came back, request by request (each payment carries a unique Ref). */
interface Ledger {
  /** Ref → the customer it was sent for. */
  sent: Map<string, number>;
  /** Ref → HTTP status, for every response autocannon received. */
  answered: Map<string, number>;
  /** Ref → the payment as the 201 response showed it. */
  created: Map<string, { paymentId: number; customerId: number; allocatedMinor: number; status: string }>;
  /** A few non-2xx response bodies, to show what went wrong. */
  failureSamples: string[];
  /** Refs whose response disagreed with the request (wrong Ref or customer, unreadable body). */
  mismatches: string[];
}

function newLedger(): Ledger {
  return { sent: new Map(), answered: new Map(), created: new Map(), failureSamples: [], mismatches: [] };
}

/** The phase under way, part of every Ref: `w` (warm-up) or `m` (measured). */
let phaseTag = 'm';

/** Payments by round-robin over `customers` (or one customer), each with a fresh Ref `<load>-<phase>-<n>`. */
function paymentLoad(
  label: string,
  base: string,
  authorization: string,
  customers: readonly number[],
  refPrefix: string,
  ledger: Ledger,
): LoadSpec {
  let sequence = 0;
  const request: autocannon.Request = {
    setupRequest: (req, context) => {
      const n = sequence++;
      const customerID = customers[n % customers.length]!;
      const ref = `${refPrefix}-${phaseTag}-${n}`;
      (context as { ref?: string }).ref = ref;
      ledger.sent.set(ref, customerID);
      return {
        ...req,
        body: JSON.stringify({
          customerID,
          Amount: PAYMENT_MINOR / 100,
          CurrencyCode: 'USD',
          Date: PAYMENT_DATE,
          Method: 'eft',
          AutoApply: true,
          Ref: ref,
        }),
      };
    },
    // With one request in flight per connection, the context holds the Ref of the request this answers.
    onResponse: (status, body, context) => {
      const ref = (context as { ref?: string }).ref ?? '?';
      ledger.answered.set(ref, status);
      if (status === 201) {
        try {
          const payment = JSON.parse(body) as {
            paymentID: number;
            customerID: number;
            Ref: string | null;
            Status: string;
            allocations: { amountApplied: number }[];
          };
          if (payment.Ref !== ref || payment.customerID !== ledger.sent.get(ref)) ledger.mismatches.push(ref);
          ledger.created.set(ref, {
            paymentId: payment.paymentID,
            customerId: payment.customerID,
            allocatedMinor: payment.allocations.reduce(
              (sum, a) => sum + Math.round(a.amountApplied * 100),
              0,
            ),
            status: payment.Status,
          });
        } catch {
          ledger.mismatches.push(ref);
        }
      } else if (ledger.failureSamples.length < 5) {
        ledger.failureSamples.push(`${status} ${body.slice(0, 300)}`);
      }
    },
  };
  return {
    label,
    options: {
      url: `${base}/v1/payments`,
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      requests: [request],
    },
  };
}

function statusCounts(result: autocannon.Result): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

async function measure(
  specs: Record<RouteKey, LoadSpec>,
  serverPid: number | undefined,
): Promise<Record<RouteKey, Figures>> {
  const raw = new Map<RouteKey, { warmup?: Run; measured: Run; cpuSeconds?: number }>();
  for (const key of ROUTE_KEYS) {
    const spec = specs[key];
    let warmup: Run | undefined;
    if (WARMUP_SECONDS > 0) {
      log(`${spec.label}: warming up ${WARMUP_SECONDS} s`);
      phaseTag = 'w';
      warmup = await fire(spec, {
        seconds: WARMUP_SECONDS,
        connections: CONNECTIONS,
        phase: 'warm-up',
        tolerateFailures: true,
      });
      if (hasFailures(warmup.result)) log(describeFailures(spec.label, 'warm-up', warmup.result));
    }
    log(`${spec.label}: measuring ${SECONDS} s`);
    phaseTag = 'm';
    const cpuBefore = processCpuSeconds(serverPid);
    const measured = await fire(spec, {
      seconds: SECONDS,
      connections: CONNECTIONS,
      phase: 'measured',
      tolerateFailures: true,
    });
    if (hasFailures(measured.result)) log(describeFailures(spec.label, 'measured', measured.result));
    else log(`${spec.label}: ${describeStatuses(measured.result)}`);
    const cpuAfter = processCpuSeconds(serverPid);
    const cpuSeconds = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined;
    raw.set(key, { warmup, measured, cpuSeconds });
  }
  const floorRps = raw.get('floor')!.measured.result.requests.mean;
  const figures = {} as Record<RouteKey, Figures>;
  for (const key of ROUTE_KEYS) {
    const { warmup, measured, cpuSeconds } = raw.get(key)!;
    const { result, latencies } = measured;
    figures[key] = {
      route: specs[key].label,
      requestsPerSecond: round(result.requests.mean, 1),
      requestsTotal: result.requests.total,
      latencyP50Ms: round(percentile(latencies, 50), 3),
      latencyP99Ms: round(percentile(latencies, 99), 3),
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: statusCounts(result),
      warmupStatusCodes: warmup ? statusCounts(warmup.result) : {},
      warmupNon2xx: warmup?.result.non2xx ?? 0,
      warmupErrors: (warmup?.result.errors ?? 0) + (warmup?.result.timeouts ?? 0),
      vsFloor: floorRps > 0 ? round(result.requests.mean / floorRps, 3) : 0,
      serverCpuMsPerRequest:
        cpuSeconds !== undefined && result.requests.total > 0
          ? round((cpuSeconds * 1000) / result.requests.total, 3)
          : null,
    };
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------------------------
// The check, from the database (and the customers' Balance through the API)

const sumBy = <T>(rows: readonly T[], keyOf: (row: T) => number, valueOf: (row: T) => number) => {
  const sums = new Map<number, number>();
  for (const row of rows) sums.set(keyOf(row), (sums.get(keyOf(row)) ?? 0) + valueOf(row));
  return sums;
};

function firstFew<T>(items: readonly T[], describe: (item: T) => string, count = 5): string {
  return items.length === 0
    ? ''
    : `: ${items.slice(0, count).map(describe).join('; ')}${items.length > count ? '; …' : ''}`;
}

/** Waits until the account's payments stop changing (the requests cut off at the end have finished), 30 s at most. */
async function settle(db: Db, accountId: number): Promise<void> {
  const count = async () =>
    Number(
      (
        await db
          .selectFrom('payments')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const deadline = performance.now() + 30_000;
  let last = await count();
  let steady = 0;
  while (steady < 2 && performance.now() < deadline) {
    await sleep(500);
    const now = await count();
    steady = now === last ? steady + 1 : 0;
    last = now;
  }
}

/** The account's payments, allocations and invoices, read in one snapshot. */
function readLedger(db: Db, accountId: number) {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const payments = await trx
        .selectFrom('payments')
        .select(['id', 'customer_id', 'amount_minor', 'allocated_minor', 'ref', 'state'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      const allocations = await trx
        .selectFrom('allocations')
        .select(['id', 'customer_id', 'source_type', 'source_id', 'target_type', 'target_id', 'amount_minor'])
        .where('account_id', '=', accountId)
        .execute();
      const invoices = await trx
        .selectFrom('invoices')
        .select([
          'id',
          'customer_id',
          'invoice_num',
          'invoice_date',
          'total_minor',
          'paid_actual_minor',
          'paid_pending_minor',
          'negative_adjs_minor',
        ])
        .where('account_id', '=', accountId)
        .orderBy('customer_id')
        .orderBy('invoice_date')
        .orderBy('invoice_num')
        .execute();
      return { payments, allocations, invoices };
    });
}

async function checkDatabase(
  db: Db,
  accountId: number,
  ledger: Ledger,
  phases: string[],
  apiBalance: (customerId: number) => Promise<number>,
  sampleCustomers: readonly number[],
): Promise<{ checks: Check[]; payments: DialectResult['payments'] }> {
  const { payments, allocations, invoices } = await readLedger(db, accountId);

  const checks: Check[] = [];
  const check = (name: string, problems: string[], detail = '') =>
    checks.push({
      name,
      ok: problems.length === 0,
      detail: problems.length === 0 ? detail : `${problems.length} problem(s)${firstFew(problems, (p) => p)}`,
    });

  // 1. One payment per 201, none for a refused request; the rest are requests cut off at the end of a phase.
  const byRef = new Map<string, (typeof payments)[number]>();
  const duplicates: string[] = [];
  const unknown: string[] = [];
  for (const p of payments) {
    if (p.ref === null || !ledger.sent.has(p.ref)) unknown.push(`payment ${p.id} (Ref ${String(p.ref)})`);
    else if (byRef.has(p.ref)) duplicates.push(`Ref ${p.ref}`);
    else byRef.set(p.ref, p);
  }
  const missing: string[] = [];
  const wrong: string[] = [];
  let answered201 = 0;
  for (const [ref, created] of ledger.created) {
    answered201 += 1;
    const row = byRef.get(ref);
    if (!row) missing.push(`Ref ${ref} (payment ${created.paymentId}) answered 201 but is not stored`);
    else if (
      row.id !== created.paymentId ||
      row.customer_id !== created.customerId ||
      row.allocated_minor !== created.allocatedMinor
    )
      wrong.push(`Ref ${ref}: stored payment ${row.id} differs from the response's ${created.paymentId}`);
  }
  const refusedButStored: string[] = [];
  for (const [ref, status] of ledger.answered) {
    if (status !== 201 && byRef.has(ref))
      refusedButStored.push(`Ref ${ref} answered ${status} but is stored`);
  }
  const cutOff = [...byRef.keys()].filter((ref) => !ledger.answered.has(ref));
  const unansweredSent = [...ledger.sent.keys()].filter((ref) => !ledger.answered.has(ref));
  const cutOffPerPhase = phases.map((phase) => cutOff.filter((ref) => ref.startsWith(`${phase}-`)).length);
  const tooManyCutOff = cutOffPerPhase
    .map((n, i) => ({ n, phase: phases[i]! }))
    .filter(({ n }) => n > CONNECTIONS)
    .map(
      ({ n, phase }) => `${phase}: ${n} unanswered payments stored, more than the ${CONNECTIONS} connections`,
    );
  check(
    'payments stored = 201 responses + requests cut off in flight at the end of a phase',
    [
      ...unknown.map((u) => `${u} was never sent`),
      ...duplicates.map((d) => `${d} stored twice`),
      ...missing,
      ...wrong,
      ...refusedButStored,
      ...tooManyCutOff,
      ...ledger.mismatches.map((ref) => `Ref ${ref}: the 201 response did not match the request`),
    ],
    `${payments.length} = ${answered201} + ${cutOff.length} (of ${unansweredSent.length} requests left unanswered ` +
      `when autocannon stopped)`,
  );

  // 2. Every allocation belongs to its payment's customer and its invoice's; sums agree per payment.
  const paymentById = new Map(payments.map((p) => [p.id, p]));
  const invoiceById = new Map(invoices.map((i) => [i.id, i]));
  const strayAllocations: string[] = [];
  for (const a of allocations) {
    const source = a.source_type === 'payment' ? paymentById.get(a.source_id) : undefined;
    const target = a.target_type === 'invoice' ? invoiceById.get(a.target_id) : undefined;
    if (!source || !target) strayAllocations.push(`allocation ${a.id}: ${a.source_type} → ${a.target_type}`);
    else if (source.customer_id !== a.customer_id || target.customer_id !== a.customer_id)
      strayAllocations.push(`allocation ${a.id} crosses customers`);
    else if (a.amount_minor <= 0) strayAllocations.push(`allocation ${a.id} of ${a.amount_minor}`);
  }
  check('every allocation: a payment to an invoice of the same customer, positive', strayAllocations);

  const allocatedPerPayment = sumBy(
    allocations.filter((a) => a.source_type === 'payment'),
    (a) => a.source_id,
    (a) => a.amount_minor,
  );
  const badPayments = payments
    .filter(
      (p) =>
        p.allocated_minor !== (allocatedPerPayment.get(p.id) ?? 0) ||
        p.allocated_minor > p.amount_minor ||
        p.amount_minor !== PAYMENT_MINOR ||
        p.state !== 'settled',
    )
    .map(
      (p) => `payment ${p.id}: amount ${p.amount_minor}, allocated ${p.allocated_minor}, state ${p.state}`,
    );
  check("each payment's allocated amount = the sum of its allocations ≤ its amount", badPayments);

  // 3. No invoice paid past its total (Balance ≥ 0), and its paid figure = its allocations.
  const allocatedPerInvoice = sumBy(
    allocations.filter((a) => a.target_type === 'invoice'),
    (a) => a.target_id,
    (a) => a.amount_minor,
  );
  const negative = invoices
    .filter((i) => i.paid_actual_minor + i.paid_pending_minor + i.negative_adjs_minor > i.total_minor)
    .map((i) => `invoice ${i.id}: total ${i.total_minor}, paid ${i.paid_actual_minor}`);
  check('no invoice with Balance < 0 (allocated ≤ total)', negative, `${invoices.length} invoices`);
  const invoiceMismatch = invoices
    .filter(
      (i) =>
        i.paid_actual_minor !== (allocatedPerInvoice.get(i.id) ?? 0) ||
        i.paid_pending_minor !== 0 ||
        i.negative_adjs_minor !== 0,
    )
    .map(
      (i) =>
        `invoice ${i.id}: paid ${i.paid_actual_minor}, allocations ${allocatedPerInvoice.get(i.id) ?? 0}`,
    );
  check("each invoice's paid figure = the sum of its allocations", invoiceMismatch);

  // 4. Per customer: allocations = its payments' allocated amounts = its invoices' paid figures.
  const allocationsPerCustomer = sumBy(
    allocations,
    (a) => a.customer_id,
    (a) => a.amount_minor,
  );
  const paymentsAllocatedPerCustomer = sumBy(
    payments,
    (p) => p.customer_id,
    (p) => p.allocated_minor,
  );
  const invoicesPaidPerCustomer = sumBy(
    invoices,
    (i) => i.customer_id,
    (i) => i.paid_actual_minor,
  );
  const customerIds = new Set([...paymentsAllocatedPerCustomer.keys(), ...invoicesPaidPerCustomer.keys()]);
  const customerMismatch = [...customerIds]
    .filter((c) => {
      const a = allocationsPerCustomer.get(c) ?? 0;
      return a !== (paymentsAllocatedPerCustomer.get(c) ?? 0) || a !== (invoicesPaidPerCustomer.get(c) ?? 0);
    })
    .map(
      (c) =>
        `customer ${c}: allocations ${allocationsPerCustomer.get(c) ?? 0}, payments allocated ` +
        `${paymentsAllocatedPerCustomer.get(c) ?? 0}, invoices paid ${invoicesPaidPerCustomer.get(c) ?? 0}`,
    );
  check(
    "each customer: sum of allocations = its payments' allocated amounts = its invoices' paid",
    customerMismatch,
    `${customerIds.size} customers`,
  );

  // 5. AutoApply's order: per customer, paid invoices, then at most one part-paid, then unpaid ones; and a payment
  //    left partly unallocated only when its customer has nothing open.
  const invoicesOf = new Map<number, typeof invoices>();
  for (const i of invoices) invoicesOf.set(i.customer_id, [...(invoicesOf.get(i.customer_id) ?? []), i]);
  const outOfOrder: string[] = [];
  const openPerCustomer = new Map<number, number>();
  for (const [customerId, list] of invoicesOf) {
    let stage = 0; // 0: paid in full, 1: after the part-paid one, 2: unpaid
    for (const i of list) {
      const paid = i.paid_actual_minor;
      const here = paid === i.total_minor ? 0 : paid > 0 ? 1 : 2;
      if (here < stage || (here === 1 && stage === 1)) {
        outOfOrder.push(
          `customer ${customerId}: invoice ${i.id} (paid ${paid} of ${i.total_minor}) out of order`,
        );
        break;
      }
      stage = Math.max(stage, here);
    }
    openPerCustomer.set(
      customerId,
      list.reduce((sum, i) => sum + i.total_minor - i.paid_actual_minor, 0),
    );
  }
  const notFullyAllocated = payments.filter((p) => p.allocated_minor < p.amount_minor);
  const shortWhileOpen = notFullyAllocated
    .filter((p) => (openPerCustomer.get(p.customer_id) ?? 0) > 0)
    .map(
      (p) => `payment ${p.id}: allocated ${p.allocated_minor} of ${p.amount_minor} while its customer owes`,
    );
  check(
    'AutoApply: earliest invoices paid first; a payment is short only when nothing is open',
    [...outOfOrder, ...shortWhileOpen],
    `${notFullyAllocated.length} payment(s) not fully allocated`,
  );

  // 6. The customers' Balance through the API: what is open on their invoices less unallocated payments.
  const unallocatedPerCustomer = sumBy(
    payments,
    (p) => p.customer_id,
    (p) => p.amount_minor - p.allocated_minor,
  );
  const balanceProblems: string[] = [];
  for (const customerId of sampleCustomers) {
    const expected = (openPerCustomer.get(customerId) ?? 0) - (unallocatedPerCustomer.get(customerId) ?? 0);
    const actual = await apiBalance(customerId);
    if (Math.round(actual * 100) !== expected)
      balanceProblems.push(`customer ${customerId}: Balance ${actual}, expected ${expected / 100}`);
  }
  check(
    'GET /v1/customers/{id} Balance = open invoices − unallocated payments',
    balanceProblems,
    `${sampleCustomers.length} customers`,
  );

  return {
    checks,
    payments: {
      inDatabase: payments.length,
      answered201,
      cutOffRecorded: cutOff.length,
      cutOffNotRecorded: unansweredSent.length - cutOff.length,
      notFullyAllocated: notFullyAllocated.length,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One dialect

async function benchDialect(setup: DialectSetup, tempDir: string): Promise<DialectResult> {
  const dataDir = path.join(tempDir, `data-${setup.dialect}`);
  await fs.mkdir(dataDir, { recursive: true });
  const port = await freePort();
  const env = serviceEnv(setup.databaseUrl, dataDir, port);
  const base = `http://${HOST}:${port}`;

  log(`${setup.dialect}: creating the account`);
  const credentials: Credentials = await createAccount(env, 'Bench payments');
  log(`${setup.dialect}: starting the server on ${base}`);
  const server = startServer(env);
  active.server = server;
  const storage = openStorage(parseDatabaseUrl(setup.databaseUrl, dataDir));
  try {
    await waitForHealth(base, server);
    const authorization = basicAuth(credentials);

    const seedStarted = performance.now();
    log(`${setup.dialect}: creating ${CUSTOMERS} + 1 customers through the API`);
    const customerIds = await createCustomers(base, authorization, CUSTOMERS + 1);
    const hotCustomerId = customerIds.at(-1)!;
    const spreadCustomerIds = customerIds.slice(0, CUSTOMERS);
    log(`${setup.dialect}: writing ${INVOICES_PER_CUSTOMER} invoices per customer (insertInvoices)`);
    const ctx: ServiceContext = {
      account: await getAccount(storage.db, credentials.accountID),
      db: storage.db,
      clock: fixedClock('2026-01-05T09:00:00.000Z'),
      log: pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger,
      secrets: createSecretBox(crypto.randomBytes(32)),
      mailQueued: () => {},
    };
    const invoices = await seedInvoices(ctx, customerIds, hotCustomerId);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    log(
      `${setup.dialect}: seeded ${customerIds.length} customers and ${invoices} invoices in ${seedSeconds.toFixed(1)} s`,
    );

    const ledger = newLedger();
    const specs: Record<RouteKey, LoadSpec> = {
      floor: { label: 'GET /healthz (floor)', options: { url: `${base}/healthz` } },
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
    const figures = await measure(specs, server.child.pid);
    // autocannon drops its connections at the end of a run, with requests still in flight on the server; let them
    // finish before the database is read.
    await settle(storage.db, credentials.accountID);

    log(`${setup.dialect}: checking the payments, allocations and invoices`);
    const sample = [
      hotCustomerId,
      ...spreadCustomerIds.filter(
        (_, i) => i % Math.max(1, Math.floor(CUSTOMERS / API_BALANCE_SAMPLE)) === 0,
      ),
    ].slice(0, API_BALANCE_SAMPLE + 1);
    const apiBalance = async (customerId: number) => {
      const response = await fetch(`${base}/v1/customers/${customerId}`, {
        headers: { authorization },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new BenchError(`GET /v1/customers/${customerId}: ${response.status} ${text}`);
      return (JSON.parse(text) as { Balance: number }).Balance;
    };
    const { checks, payments } = await checkDatabase(
      storage.db,
      credentials.accountID,
      ledger,
      ['rr-w', 'rr-m', 'one-w', 'one-m'],
      apiBalance,
      sample,
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
  } catch (error) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      log(`the server had exited (code ${String(server.child.exitCode)}); its output:\n${server.output()}`);
    }
    throw error;
  } finally {
    await storage.close().catch(() => {});
    await stopServer(server);
    active.server = undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function printResult(dialect: Dialect, result: DialectResult): void {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'vs floor', 'server CPU ms/req'];
  const rows = ROUTE_KEYS.map((key) => result.figures[key]).map((f) => [
    f.route,
    f.requestsPerSecond.toFixed(1),
    f.latencyP50Ms.toFixed(2),
    f.latencyP99Ms.toFixed(2),
    String(f.non2xx),
    String(f.errors + f.timeouts),
    `${(f.vsFloor * 100).toFixed(1)}%`,
    f.serverCpuMsPerRequest === null ? 'n/a' : f.serverCpuMsPerRequest.toFixed(3),
  ]);
  const name = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const title =
    `${name}: ${SECONDS} s per route after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections; ` +
    `${CUSTOMERS} customers with ${INVOICES_PER_CUSTOMER} open invoices each, payments of ${(PAYMENT_MINOR / 100).toFixed(2)}`;
  console.log(formatTable(title, header, rows));
  for (const key of ROUTE_KEYS) {
    const f = result.figures[key];
    if (f.warmupNon2xx + f.warmupErrors > 0) {
      console.log(`warm-up of ${f.route}: ${f.warmupNon2xx} non-2xx, ${f.warmupErrors} errors or timeouts`);
    }
    if (f.non2xx > 0) console.log(`${f.route}: status codes ${JSON.stringify(f.statusCodes)}`);
  }
  console.log(`Check (${name}):`);
  for (const c of result.checks)
    console.log(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}${c.detail ? ` — ${c.detail}` : ''}`);
  console.log('');
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'billing-bench-payments-'));
  active.tempDir = tempDir;
  const results: Partial<Record<Dialect, DialectResult>> = {};
  try {
    const dialects: Array<() => Promise<DialectSetup>> = [() => sqliteSetup(tempDir)];
    const pgUrl = PG_URL;
    if (pgUrl) dialects.push(() => postgresSetup(pgUrl));
    else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL to include it');
    for (const prepare of dialects) {
      const setup = await prepare();
      try {
        results[setup.dialect] = await benchDialect(setup, tempDir);
      } finally {
        await setup.cleanup();
      }
      printResult(setup.dialect, results[setup.dialect]!);
    }
  } finally {
    await fs.rm(tempDir, { recursive: true, force: true });
    active.tempDir = undefined;
  }

  const failed = Object.values(results).some((r) => r.failed);
  console.log(
    failed
      ? 'FAILED: non-2xx responses, connection errors or a failed check above'
      : 'All responses 2xx; all checks passed',
  );
  console.log(
    JSON.stringify({
      benchmark: 'billing-payments',
      node: process.version,
      cpus: os.cpus().length,
      loadAverage: os.loadavg().map((l) => round(l, 2)),
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      connections: CONNECTIONS,
      customers: CUSTOMERS,
      invoicesPerCustomer: INVOICES_PER_CUSTOMER,
      paymentMinor: PAYMENT_MINOR,
      results,
    }),
  );
  return failed ? 1 : 0;
}

// Stop by itself: a run longer than its planned length plus generous slack is aborted.
const dialectCount = PG_URL ? 2 : 1;
const budgetMs = dialectCount * (5 * (SECONDS + WARMUP_SECONDS) + 600 + CUSTOMERS * 0.1) * 1000;
await runBenchmark(main, budgetMs);
