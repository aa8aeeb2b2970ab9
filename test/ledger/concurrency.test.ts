import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dialect, eventually } from '../helpers/service.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { api, killAll, killTransient, startServer } from '../helpers/cli.ts';
import type { RunningServer } from '../helpers/cli.ts';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import { detectFeatures, expectLedgerConsistent, readLedger, toWire } from '../helpers/ledger.ts';
import type { LedgerState } from '../helpers/ledger.ts';
import { plusDays } from '../helpers/clock.ts';
import { useTestService } from '../helpers/testService.ts';

// Money movements of one customer sent at once, as real concurrent HTTP requests: every one of them is made
// whole or not at all, one at a time under the customer's lock (PostgreSQL: a row lock, with up to 10 pooled
// connections per process, see src/storage/database.ts; SQLite: the database's write lock), so no invoice is
// paid twice over, nothing deadlocks and the figures reconcile afterwards.

const clock = movableClock('2026-03-01T10:00:00.000Z');
// Lock waits as long as a test's holder may take on a loaded machine (MONEY_LOCK_TIMEOUT_MS: 5 s by default).
const t = useTestService({ clock, env: { MONEY_LOCK_TIMEOUT_MS: '60000' } });
afterEach(killTransient);
afterAll(async () => {
  await killAll();
});

interface Invoice {
  id: number;
  totalMinor: number;
}

/**
 * `count` issued invoices of varied totals, created out of date order (InvoiceDate goes back and forth), so that
 * AutoApply's order (InvoiceDate, then invoiceNum) is not the order of the ids. Returned in AutoApply's order.
 */
async function openInvoices(as: TestAccount, customerId: number, count: number): Promise<Invoice[]> {
  const made: (Invoice & { date: string; num: number })[] = [];
  for (let i = 0; i < count; i += 1) {
    const totalMinor = 3_000 + ((i * 7_919) % 4_000);
    // Dates: a permutation of Jan 1 + 0..count−1 days, some on one day (ordered there by invoiceNum).
    const date = plusDays('2026-01-01', ((i * 7) % count) - (i % 5 === 0 ? 1 : 0));
    const invoice = await ok(as, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: date,
      DueDate: plusDays(date, 30),
      Charges: [{ Descrip: `Work ${i}`, Qty: 1, UnitCostEx: toWire(totalMinor) }],
    });
    expect(invoice.Total).toBe(totalMinor / 100);
    made.push({ id: invoice.invoiceID, totalMinor, date, num: invoice.invoiceNum });
  }
  made.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.num - b.num));
  return made.map(({ id, totalMinor }) => ({ id, totalMinor }));
}

const paymentBody = (customerId: number, amountMinor: number, ref: string, extra: object = {}) => ({
  customerID: customerId,
  Amount: toWire(amountMinor),
  CurrencyCode: 'USD',
  Date: '2026-03-01',
  Method: 'eft',
  Ref: ref,
  ...extra,
});

const autoPayment = (as: TestAccount, customerId: number, amountMinor: number, ref: string) =>
  as.request('POST', '/v1/payments', {
    body: paymentBody(customerId, amountMinor, ref, { AutoApply: true }),
  });

/** Payment amounts: varied, 15.00 to 39.99. */
const paymentAmount = (k: number) => 1_500 + ((k * 1_319) % 2_500);

function expectAllStatus(responses: ApiResponse[], status: number, what: string) {
  const wrong = responses.filter((r) => r.status !== status);
  expect(
    wrong.map((r) => `${r.status} ${(r as { sent?: string }).sent ?? ''} ${r.text}`),
    `${what}: every request answered ${status}`,
  ).toEqual([]);
}

/**
 * The ledger is what some one-at-a-time order of the AutoApply payments gives: ordered by their first allocation
 * (allocation ids grow in commit order, the payments being made one at a time), each took the earliest open
 * invoices in AutoApply's order up to its amount; those with nothing allocated came when nothing was open.
 */
function expectSerialAutoApply(state: LedgerState, invoices: Invoice[]) {
  const open = new Map(invoices.map((i) => [`invoice:${i.id}`, i.totalMinor]));
  const order = invoices.map((i) => `invoice:${i.id}`);
  const firstAllocation = (p: LedgerState['payments'][number]) =>
    p.allocations.length === 0 ? Infinity : Math.min(...p.allocations.map((a) => a.allocationId));
  const payments = [...state.payments].sort((a, b) => firstAllocation(a) - firstAllocation(b) || a.id - b.id);
  for (const payment of payments) {
    const expected: { target: string; amountMinor: number }[] = [];
    let left = payment.amountMinor;
    for (const key of order) {
      if (left === 0) break;
      const applied = Math.min(left, open.get(key)!);
      if (applied === 0) continue;
      expected.push({ target: key, amountMinor: applied });
      open.set(key, open.get(key)! - applied);
      left -= applied;
    }
    const actual = [...payment.allocations]
      .sort((a, b) => a.allocationId - b.allocationId)
      .map(({ target, amountMinor }) => ({ target, amountMinor }));
    expect(actual, `payment ${payment.id} took the earliest open invoices`).toEqual(expected);
  }
}

/** No invoice holds money while an earlier one (AutoApply's order) is still open. */
function expectFilledEarliestFirst(state: LedgerState, invoices: Invoice[]) {
  const views = invoices.map((i) => state.invoices.find((v) => v.id === i.id)!);
  const firstOpen = views.findIndex((v) => v.balanceMinor > 0);
  if (firstOpen === -1) return;
  for (const later of views.slice(firstOpen + 1)) {
    expect(later.applied, `invoice ${later.id} has money while an earlier one is open`).toEqual([]);
  }
}

const totalOf = (items: readonly { totalMinor: number }[]) => items.reduce((s, i) => s + i.totalMinor, 0);
const allocatedOf = (state: LedgerState) =>
  state.payments.flatMap((p) => p.allocations).reduce((s, a) => s + a.amountMinor, 0);

describe('concurrent payments of one customer', () => {
  it('50 AutoApply payments at once: all recorded, no invoice over-paid, earliest first', async () => {
    const as = await t.newAccount('Concurrent');
    const customerId = await createCustomer(as);
    const invoices = await openInvoices(as, customerId, 20);
    const amounts = Array.from({ length: 50 }, (_, k) => paymentAmount(k));
    const paymentsTotal = amounts.reduce((s, a) => s + a, 0);
    // More money than is owed: some payments end partly or wholly unallocated.
    expect(paymentsTotal).toBeGreaterThan(totalOf(invoices));

    const responses = await Promise.all(amounts.map((a, k) => autoPayment(as, customerId, a, `c-${k}`)));
    expectAllStatus(responses, 201, 'POST /v1/payments');

    const state = await readLedger(as, customerId);
    expect(state.payments).toHaveLength(50);
    expect(state.payments.map((p) => p.amountMinor).sort((a, b) => a - b)).toEqual(
      [...amounts].sort((a, b) => a - b),
    );
    // Each answer is the payment as recorded.
    for (const res of responses) {
      const stored = state.payments.find((p) => p.id === res.body.paymentID)!;
      expect(res.body.Status).toBe(stored.status);
      expect(res.body.Allocations.map((a: any) => a.allocationID)).toEqual(
        stored.allocations.map((a) => a.allocationId),
      );
    }
    expectLedgerConsistent(state);
    expect(allocatedOf(state)).toBe(Math.min(paymentsTotal, totalOf(invoices)));
    // At most one payment was cut short by the invoices running out; those after it found nothing open.
    expect(state.payments.filter((p) => p.status === 'Partial').length).toBeLessThanOrEqual(1);
    expect(state.payments.some((p) => p.status === 'Unallocated')).toBe(true);
    expectFilledEarliestFirst(state, invoices);
    expectSerialAutoApply(state, invoices);
  });

  it('fewer payments than owed: the earliest invoices are paid, the later ones untouched', async () => {
    const as = await t.newAccount('Concurrent short');
    const customerId = await createCustomer(as);
    const invoices = await openInvoices(as, customerId, 20);
    const amounts = Array.from({ length: 30 }, (_, k) => paymentAmount(k) - 1_000);
    const paymentsTotal = amounts.reduce((s, a) => s + a, 0);
    expect(paymentsTotal).toBeLessThan(totalOf(invoices));

    const responses = await Promise.all(amounts.map((a, k) => autoPayment(as, customerId, a, `s-${k}`)));
    expectAllStatus(responses, 201, 'POST /v1/payments');

    const state = await readLedger(as, customerId);
    expect(state.payments).toHaveLength(30);
    expectLedgerConsistent(state);
    expect(allocatedOf(state)).toBe(paymentsTotal);
    expect(state.payments.every((p) => p.status === 'Allocated')).toBe(true);
    expect(state.invoices.some((i) => i.balanceMinor > 0)).toBe(true);
    expectFilledEarliestFirst(state, invoices);
    expectSerialAutoApply(state, invoices);
  });

  it('AutoApply payments at once with edits and deletions of earlier ones keep the ledger consistent', async () => {
    const as = await t.newAccount('Concurrent mixed');
    const customerId = await createCustomer(as);
    const invoices = await openInvoices(as, customerId, 20);
    const last = invoices.at(-1)!;

    // 20 payments first (600.00 or so of about 1,000 owed), made at once too.
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, k) => autoPayment(as, customerId, paymentAmount(k), `m-${k}`)),
    );
    expectAllStatus(first, 201, 'POST /v1/payments');
    const earlier = first.map((r) => r.body);
    const lastEarlierAllocation = Math.max(
      ...earlier.flatMap((p) => p.Allocations.map((a: any) => a.allocationID as number)),
    );

    // Then, all at once: 30 more AutoApply payments; 8 deletions; 4 edits halving each allocation and the amount;
    // 4 edits dropping every allocation; 4 edits asking for 1.00 on the last invoice (refused when it is full);
    // and for 3 payments a deletion racing an edit (the edit finds it or finds it gone).
    const halved = earlier.slice(0, 4);
    const emptied = earlier.slice(4, 8);
    const onLast = earlier.slice(8, 12);
    const deleted = earlier.slice(12, 20);
    const raced = deleted.slice(0, 3);
    const put = (p: any, amountMinor: number, allocations: object[]) =>
      as.request('PUT', `/v1/payments/${p.paymentID}`, {
        body: paymentBody(customerId, amountMinor, p.Ref, { Allocations: allocations }),
      });
    const minorOf = (amount: number) => Math.round(amount * 100);
    const halve = (minor: number) => Math.max(1, Math.floor(minor / 2));
    // The halved allocations never come to more than the new amount (an allocation of 0.01 stays 0.01).
    const halvedAmount = (p: any) =>
      Math.max(
        halve(minorOf(p.Amount)),
        p.Allocations.reduce((s: number, a: any) => s + halve(minorOf(a.amountApplied)), 0),
      );
    const requests = {
      created: Array.from({ length: 30 }, (_, k) =>
        autoPayment(as, customerId, paymentAmount(k + 20), `m-${k + 20}`),
      ),
      halved: halved.map((p) => {
        const allocations = p.Allocations.map((a: any) => ({
          allocationID: a.allocationID,
          invoiceID: a.invoiceID,
          amountApplied: toWire(halve(minorOf(a.amountApplied))),
        }));
        return put(p, halvedAmount(p), allocations);
      }),
      emptied: emptied.map((p) => put(p, minorOf(p.Amount) + 100, [])),
      onLast: onLast.map((p) =>
        put(p, minorOf(p.Amount) + 100, [
          ...p.Allocations.map((a: any) => ({
            allocationID: a.allocationID,
            invoiceID: a.invoiceID,
            amountApplied: a.amountApplied,
          })),
          { invoiceID: last.id, amountApplied: '1.00' },
        ]),
      ),
      deleted: deleted.map((p) => as.request('DELETE', `/v1/payments/${p.paymentID}`)),
      raced: raced.map((p) => put(p, minorOf(p.Amount), [])),
    };
    const settled = Object.fromEntries(
      await Promise.all(
        Object.entries(requests).map(async ([name, list]) => [name, await Promise.all(list)] as const),
      ),
    ) as Record<keyof typeof requests, ApiResponse[]>;

    expectAllStatus(settled.created, 201, 'POST /v1/payments');
    expectAllStatus(settled.halved, 204, 'PUT halving');
    expectAllStatus(settled.emptied, 204, 'PUT emptying');
    expectAllStatus(settled.deleted, 204, 'DELETE');
    for (const res of settled.onLast) expect([204, 422], res.text).toContain(res.status);
    for (const res of settled.raced) expect([204, 404], res.text).toContain(res.status);

    const state = await readLedger(as, customerId);
    expectLedgerConsistent(state);
    expect(state.payments).toHaveLength(20 + 30 - deleted.length);
    const find = (p: any) => state.payments.find((s) => s.id === p.paymentID);
    for (const p of deleted) expect(find(p), `payment ${p.paymentID} deleted`).toBeUndefined();
    for (const p of halved) {
      expect(find(p)!.amountMinor).toBe(halvedAmount(p));
      expect(
        find(p)!.allocations.map(({ allocationId, amountMinor }) => ({ allocationId, amountMinor })),
      ).toEqual(
        p.Allocations.map((a: any) => ({
          allocationId: a.allocationID,
          amountMinor: halve(minorOf(a.amountApplied)),
        })),
      );
    }
    for (const p of emptied) {
      expect(find(p)!.allocations).toEqual([]);
      expect(find(p)!.status).toBe('Unallocated');
    }
    settled.onLast.forEach((res, i) => {
      const p = onLast[i];
      const onLastInvoice = find(p)!.allocations.filter((a) => a.target === `invoice:${last.id}`);
      const kept = find(p)!.allocations.filter((a) => a.allocationId <= lastEarlierAllocation);
      // The allocations it had are kept as they were, whether the edit was refused or not.
      expect(kept.map(({ allocationId, amountMinor }) => ({ allocationId, amountMinor }))).toEqual(
        p.Allocations.map((a: any) => ({
          allocationId: a.allocationID,
          amountMinor: minorOf(a.amountApplied),
        })),
      );
      if (res.status === 422) {
        expect(res.body.code).toBe('invalid_allocations');
        expect(find(p)!.amountMinor, 'a refused edit changes nothing').toBe(minorOf(p.Amount));
        expect(find(p)!.allocations).toHaveLength(p.Allocations.length);
      } else {
        expect(find(p)!.amountMinor).toBe(minorOf(p.Amount) + 100);
        expect(
          onLastInvoice.some((a) => a.amountMinor === 100 && a.allocationId > lastEarlierAllocation),
        ).toBe(true);
      }
    });
    // Every payment of the first 20 not deleted, edited or emptied is untouched.
    for (const p of earlier.filter((e) => ![...halved, ...emptied, ...onLast, ...deleted].includes(e))) {
      expect(find(p)!.allocations.length).toBe(p.allocations.length);
    }
  });
});

describe('concurrent payments of two customers', () => {
  it('25 payments each, interleaved and at once: each customer is served whole and apart', async () => {
    const as = await t.newAccount('Two customers');
    const customers = [await createCustomer(as, { Name: 'Ann' }), await createCustomer(as, { Name: 'Bob' })];
    const invoices = [await openInvoices(as, customers[0]!, 10), await openInvoices(as, customers[1]!, 10)];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, k) => autoPayment(as, customers[k % 2]!, paymentAmount(k), `two-${k}`)),
    );
    expectAllStatus(responses, 201, 'POST /v1/payments');
    for (const [i, customerId] of customers.entries()) {
      const state = await readLedger(as, customerId);
      expect(state.payments).toHaveLength(25);
      expectLedgerConsistent(state, `customer ${customerId}`);
      // Only the customer's own invoices receive its money.
      const own = new Set(invoices[i]!.map((inv) => `invoice:${inv.id}`));
      expect(state.payments.flatMap((p) => p.allocations).every((a) => own.has(a.target))).toBe(true);
      expectFilledEarliestFirst(state, invoices[i]!);
      expectSerialAutoApply(state, invoices[i]!);
    }
  });

  // PostgreSQL only: SQLite has no row locks (one writer holds the whole database), so there is nothing to hold.
  if (dialect === 'postgres') {
    it('a customer held under its lock holds up its own payments only (PostgreSQL row locks)', async () => {
      const as = await t.newAccount('Held');
      const held = await createCustomer(as, { Name: 'Held' });
      const free = await createCustomer(as, { Name: 'Free' });
      await openInvoices(as, held, 3);
      await openInvoices(as, free, 3);

      // Another connection takes the held customer's row lock, as a money movement of it would.
      const client = new pg.Client({ connectionString: t.env.DATABASE_URL });
      const observer = new pg.Client({ connectionString: t.env.DATABASE_URL });
      await client.connect();
      await observer.connect();
      try {
        await client.query('begin');
        await client.query('select id from customers where id = $1 for update', [held]);
        // More than the pool's 10 connections: one at a time takes the customer's turn (src/http/customerQueue.ts)
        // and waits at the lock on a connection, the others wait for their turn holding none, so the free
        // customer's request still finds one.
        const waiting = Array.from({ length: 12 }, (_, k) => autoPayment(as, held, 1_000, `held-${k}`));
        let answered = 0;
        for (const request of waiting) void request.then(() => (answered += 1));
        // One reaches the lock and waits there, behind the holder (seen from a third connection: the holder's own
        // view of pg_stat_activity is a snapshot taken once per transaction).
        const holder = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
        const waitingBehindHolder = async () => {
          // Waiters would queue: the first waits for the holder, the next ones for those before them.
          const { rows } = await observer.query<{ pid: number; blockers: number[] }>(
            'select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity',
          );
          const behind = new Set<number>([holder]);
          for (let grew = true; grew;) {
            grew = false;
            for (const row of rows) {
              if (!behind.has(row.pid) && row.blockers.some((b) => behind.has(b))) {
                behind.add(row.pid);
                grew = true;
              }
            }
          }
          return behind.size - 1;
        };
        await eventually(async () => ((await waitingBehindHolder()) >= 1 ? true : undefined), 30_000);
        const other = await autoPayment(as, free, 1_000, 'free');
        expect(other.status, other.text).toBe(201);
        expect(answered, 'the held customer’s payments wait for its lock').toBe(0);
        expect(await waitingBehindHolder(), 'connections waiting at the held customer’s lock').toBe(1);
        await client.query('commit');
        expectAllStatus(await Promise.all(waiting), 201, 'POST /v1/payments once released');
      } finally {
        await client.end();
        await observer.end();
      }
      expectLedgerConsistent(await readLedger(as, held), 'held');
      expectLedgerConsistent(await readLedger(as, free), 'free');
    });
  }
});

describe('concurrent money movements from two service processes', () => {
  // A second `billing serve` on the same database (SQLite: the same file, each process with its own connection,
  // serialized by the file's write lock with a 5 s busy timeout; PostgreSQL: its own pool, by the row locks).
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(t.env, { shared: true });
  }, 120_000);
  afterAll(() => server?.stop());

  /** Sends through this process or the other, alternately by `k`. */
  const through =
    (as: TestAccount) =>
    (k: number, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      (k % 2 === 0
        ? as.request(method, path, body === undefined ? {} : { body })
        : api(server.url, as, method, path, body).then(
            (r) => ({ ...r, text: JSON.stringify(r.body) }) as ApiResponse,
          )
      ).then((r) =>
        Object.assign(r, { sent: `${method} ${path} (${k % 2 === 0 ? 'this' : 'other'} process)` }),
      );

  it('payments, edits and deletions of one customer through two processes at once are made one at a time', async () => {
    const as = await t.newAccount('Two processes');
    const send = through(as);
    const customerId = await createCustomer(as);
    const invoices = await openInvoices(as, customerId, 20);

    // 50 AutoApply payments, every other one through the other process.
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        send(
          k,
          'POST',
          '/v1/payments',
          paymentBody(customerId, paymentAmount(k), `p-${k}`, { AutoApply: true }),
        ),
      ),
    );
    expectAllStatus(created, 201, 'POST /v1/payments');
    let state = await readLedger(as, customerId);
    expect(state.payments).toHaveLength(50);
    expectLedgerConsistent(state);
    expectFilledEarliestFirst(state, invoices);
    expectSerialAutoApply(state, invoices);

    // Then, at once across both: deletions and edits (each reads the payment, then locks the customer) and new
    // payments.
    const payments = created.map((r) => r.body);
    const [changed, more] = await Promise.all([
      Promise.all([
        ...payments.slice(0, 10).map((p, k) => send(k, 'DELETE', `/v1/payments/${p.paymentID}`)),
        ...payments
          .slice(10, 20)
          .map((p, k) =>
            send(
              k,
              'PUT',
              `/v1/payments/${p.paymentID}`,
              paymentBody(customerId, Math.round(p.Amount * 100), p.Ref, { Allocations: [] }),
            ),
          ),
      ]),
      Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          send(
            k,
            'POST',
            '/v1/payments',
            paymentBody(customerId, paymentAmount(k), `q-${k}`, { AutoApply: true }),
          ),
        ),
      ),
    ]);
    expectAllStatus(changed, 204, 'DELETE and PUT /v1/payments/{id}');
    expectAllStatus(more, 201, 'POST /v1/payments');
    state = await readLedger(as, customerId);
    expect(state.payments).toHaveLength(50);
    expectLedgerConsistent(state);
  }, 120_000);

  it('credit notes and negative adjustments, their edits and deletions, through two processes at once', async () => {
    const as = await t.newAccount('Two processes, credits');
    const features = await detectFeatures(as);
    if (!features.credits || !features.adjustments) return;
    const send = through(as);
    const customerId = await createCustomer(as);
    await openInvoices(as, customerId, 20);
    const creditBody = (k: number, amountMinor: number, extra: object) => ({
      customerID: customerId,
      Date: '2026-03-01',
      CurrencyCode: 'USD',
      Amount: toWire(amountMinor),
      CreditNumber: `CN-${customerId}-${k}`,
      ...extra,
    });
    const negativeBody = (k: number, amountMinor: number, extra: object) => ({
      AdjustmentType: 'credit_note',
      customerID: customerId,
      Type: 'negative',
      Amount: toWire(amountMinor),
      Date: '2026-03-01',
      Ref: `NA-${customerId}-${k}`,
      ...extra,
    });

    const credits = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        send(k, 'POST', '/v1/credits', creditBody(k, paymentAmount(k), { AutoApply: true })),
      ),
    );
    const negatives = await Promise.all(
      Array.from({ length: 20 }, (_, k) =>
        send(k, 'POST', '/v1/adjustment/add', negativeBody(k, paymentAmount(k + 20), { isAutoApply: true })),
      ),
    );
    expectAllStatus([...credits, ...negatives], 201, 'POST credits and negative adjustments');
    expectLedgerConsistent(await readLedger(as, customerId, features));

    // Edits and deletions (each reads its record, then locks the customer) beside new payments, across both.
    const creditId = (k: number) => credits[k]!.body.creditNoteID as number;
    const negativeId = (k: number) => negatives[k]!.body.AdjustmentID as number;
    const paymentsMeanwhile = Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        send(
          k,
          'POST',
          '/v1/payments',
          paymentBody(customerId, paymentAmount(k), `cp-${k}`, { AutoApply: true }),
        ),
      ),
    );
    const mixed = await Promise.all([
      ...[0, 1, 2, 3, 4].map((k) => send(k, 'DELETE', `/v1/credits/${creditId(k)}`)),
      ...[5, 6, 7, 8, 9].map((k) =>
        send(k, 'PUT', `/v1/credits/${creditId(k)}`, creditBody(k, paymentAmount(k), { Allocations: [] })),
      ),
      ...[0, 1, 2, 3, 4].map((k) =>
        send(
          k,
          'DELETE',
          `/v1/adjustment/delete?type=negative&adjustmentID=${negativeId(k)}&customerID=${customerId}`,
        ),
      ),
      ...[5, 6, 7, 8, 9].map((k) =>
        send(
          k,
          'PUT',
          '/v1/adjustment/edit',
          negativeBody(k, paymentAmount(k + 20), {
            AdjustmentID: negativeId(k),
            isAutoApply: k % 2 === 0,
            LinkedAllocations: [],
          }),
        ),
      ),
    ]);
    const payments = await paymentsMeanwhile;
    expectAllStatus(mixed, 204, 'DELETE and PUT of credit notes and negative adjustments');
    expectAllStatus(payments, 201, 'POST /v1/payments');
    const state = await readLedger(as, customerId, features);
    expect(state.credits).toHaveLength(15);
    expect(state.negatives).toHaveLength(15);
    expectLedgerConsistent(state);
  }, 120_000);
});
