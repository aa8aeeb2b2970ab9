/** The payments benchmark's check, after the load: the database (and the customers' Balance through the API). */
import type { Db } from '../../src/storage/database.ts';
import { BenchError, sleep } from '../common.ts';
import type { Ledger } from './loads.ts';
import { API_BALANCE_SAMPLE, CONNECTIONS, CUSTOMERS, PAYMENT_MINOR } from './settings.ts';
import type { Check, DialectResult } from './settings.ts';

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
export async function settle(db: Db, accountId: number): Promise<void> {
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

export async function checkDatabase(
  db: Db,
  accountId: number,
  ledger: Ledger,
  phases: string[],
  apiBalance: (customerId: number) => Promise<number>,
  sampleCustomers: readonly number[],
  connections = CONNECTIONS,
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
    .filter(({ n }) => n > connections)
    .map(
      ({ n, phase }) => `${phase}: ${n} unanswered payments stored, more than the ${connections} connections`,
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

/** The customers whose Balance is read back through the API: the one customer, and a sample of the others. */
export function balanceSample(hotCustomerId: number, spreadCustomerIds: readonly number[]): number[] {
  return [
    hotCustomerId,
    ...spreadCustomerIds.filter((_, i) => i % Math.max(1, Math.floor(CUSTOMERS / API_BALANCE_SAMPLE)) === 0),
  ].slice(0, API_BALANCE_SAMPLE + 1);
}

/** A customer's Balance, from GET /v1/customers/{id}. */
export function apiBalanceReader(base: string, authorization: string) {
  return async (customerId: number): Promise<number> => {
    const response = await fetch(`${base}/v1/customers/${customerId}`, {
      headers: { authorization },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new BenchError(`GET /v1/customers/${customerId}: ${response.status} ${text}`);
    return (JSON.parse(text) as { Balance: number }).Balance;
  };
}

/** The checks on stdout under `Check (name):`, one line each (and `failures`, checks of the caller's own). */
export function printChecks(name: string, checks: readonly Check[], failures: readonly string[] = []): void {
  console.log(`Check (${name}):`);
  for (const c of checks)
    console.log(`  ${c.ok ? 'ok  ' : 'FAIL'}  ${c.name}${c.detail ? ` — ${c.detail}` : ''}`);
  for (const failure of failures) console.log(`  FAIL  ${failure}`);
  console.log('');
}
