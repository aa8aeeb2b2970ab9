import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseDatabaseUrl } from '../../src/config.ts';
import { openStorage } from '../../src/storage/database.ts';
import { createCustomer, ok } from '../helpers/billing.ts';
import { holdStatement, insertInto } from '../helpers/heldStatement.ts';
import { dialect, eventually, startAnotherInstance } from '../helpers/service.ts';
import type { ApiResponse, TestAccount } from '../helpers/service.ts';
import { startFresh, useTestService } from '../helpers/testService.ts';

// One customer's money movements take turns in a process, in a line of bounded length (docs/operations.md,
// "Fairness under load"): beyond it a request is refused with 503 and Retry-After, having written nothing, and the
// same request sent again with its Idempotency-Key runs once. A lock held elsewhere, or a pool with no connection
// to give, is a 503 too, never a hang or a 500.

const t = useTestService({
  // The workers stay idle: on SQLite a worker's poll is a write, which waits (synchronously, holding this whole
  // process) for the write lock a held transaction of the test keeps.
  env: { MONEY_QUEUE_PER_CUSTOMER: '2', MONEY_LOCK_TIMEOUT_MS: '100', WORKER_INTERVAL_MS: '3600000' },
});

/** A customer owing one invoice of 1 000.00, dated 2026-01-01. */
async function customerOwing(as: TestAccount): Promise<number> {
  const customerId = await createCustomer(as);
  await ok(as, 'POST', '/v1/invoices', {
    customerID: customerId,
    InvoiceDate: '2026-01-01',
    DueDate: '2026-01-31',
    Charges: [{ Descrip: 'Work', Qty: 1, UnitCostEx: 1000 }],
  });
  return customerId;
}

const payment = (customerId: number, ref: string) => ({
  customerID: customerId,
  Amount: 10,
  CurrencyCode: 'USD',
  Date: '2026-01-10',
  Method: 'eft',
  AutoApply: true,
  Ref: ref,
});

async function paymentsOf(as: TestAccount, customerId: number): Promise<{ Ref: string; Amount: number }[]> {
  return ok(as, 'GET', `/v1/customers/${customerId}/payments`);
}

function expectBusy(response: ApiResponse, code: string) {
  expect(response.status, response.text).toBe(503);
  expect(response.headers.get('retry-after')).toBe('1');
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.body).toMatchObject({ status: 503, code, type: `/problems/${code}` });
}

describe("a customer's line of money movements", () => {
  it('refuses what does not fit with 503 and Retry-After, and writes nothing for it', async () => {
    const customerId = await customerOwing(t);
    // An instance of its own whose first payment stops right after its insert, holding the customer's turn (and
    // its transaction) until the test lets it go. (No Idempotency-Key here: on SQLite, reserving one is a write,
    // which would wait for that transaction; the key's release on a 503 is the lock test's below.)
    const held = holdStatement(insertInto('payments'));
    const instance = await startAnotherInstance(t, { queryPlugins: [held.plugin] });
    try {
      const send = (ref: string) =>
        instance.request('POST', '/v1/payments', { body: payment(customerId, ref) });
      const first = send('p0');
      await held.reached;

      // Six more: two wait in line (MONEY_QUEUE_PER_CUSTOMER=2), four are refused at once.
      const answered: { ref: string; response: ApiResponse }[] = [];
      const refs = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
      const later = refs.map((ref) =>
        send(ref).then((response) => {
          answered.push({ ref, response });
          return response;
        }),
      );
      await eventually(() => (answered.length >= 4 ? true : undefined));
      expect(answered).toHaveLength(4);
      for (const { response } of answered) expectBusy(response, 'customer_busy');
      const refused = answered.map((a) => a.ref);

      held.release();
      expect((await first).status).toBe(201);
      const waited = refs.filter((ref) => !refused.includes(ref));
      expect(await Promise.all(waited.map((ref) => later[refs.indexOf(ref)]!.then((r) => r.status)))).toEqual(
        [201, 201],
      );

      // The refused ones wrote nothing: only the first and the two that waited are there.
      expect((await paymentsOf(t, customerId)).map((p) => p.Ref).sort()).toEqual(['p0', ...waited].sort());
      // Sent again, once the line has room, each runs.
      for (const ref of refused) expect((await send(ref)).status).toBe(201);
      expect((await paymentsOf(t, customerId)).map((p) => p.Ref).sort()).toEqual(['p0', ...refs].sort());
      const customer = await ok(t, 'GET', `/v1/customers/${customerId}`);
      expect(customer.Balance).toBe(1000 - 7 * 10);
    } finally {
      held.release();
      await instance.close();
    }
  });

  it("keeps its line to itself: another account's read goes through while it is full", async () => {
    const customerId = await customerOwing(t);
    const other = await t.newAccount('Reader');
    const otherCustomerId = await createCustomer(other);
    const held = holdStatement(insertInto('payments'));
    const instance = await startAnotherInstance(t, { queryPlugins: [held.plugin] });
    try {
      const send = (ref: string) =>
        instance.request('POST', '/v1/payments', { body: payment(customerId, ref) });
      const first = send('r0');
      await held.reached;
      // Three more: whichever arrives last finds the line full (two places) and is refused.
      const answered: ApiResponse[] = [];
      const more = ['r1', 'r2', 'r3'].map((ref) =>
        send(ref).then((response) => {
          answered.push(response);
          return response;
        }),
      );
      await eventually(() => (answered.length >= 1 ? true : undefined));
      expect(answered).toHaveLength(1);
      expectBusy(answered[0]!, 'customer_busy');

      // The line is full and its first payment holds its transaction open: another account reads through the
      // same process (PostgreSQL: on a connection the line left free; SQLite: reads outside transactions have a
      // connection of their own, docs/architecture.md, "Storage").
      const read = await instance.request('GET', `/v1/customers/${otherCustomerId}`, {
        auth: { accountId: other.accountId, apiKey: other.apiKey },
      });
      expect(read.status, read.text).toBe(200);
      expect(read.body.customerID).toBe(otherCustomerId);

      held.release();
      expect((await first).status).toBe(201);
      expect((await Promise.all(more)).map((r) => r.status).sort()).toEqual([201, 201, 503]);
    } finally {
      held.release();
      await instance.close();
    }
  });
});

describe('a lock held elsewhere', () => {
  it('is answered 503 with Retry-After, nothing written, and the retry with the same key runs once', async () => {
    const customerId = await customerOwing(t);
    const target = parseDatabaseUrl(t.env.DATABASE_URL, t.dataDir);
    const send = () =>
      t.request('POST', '/v1/payments', {
        body: payment(customerId, 'locked'),
        headers: { 'Idempotency-Key': 'locked' },
      });
    if (target.dialect === 'postgres') {
      // Another process's transaction holds the customer's row: the payment waits MONEY_LOCK_TIMEOUT_MS (100 ms).
      const other = openStorage(target);
      let releaseLock!: () => void;
      const lockReleased = new Promise<void>((resolve) => (releaseLock = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holder = other.db.transaction().execute(async (trx) => {
        await sql`select id from customers where id = ${customerId} for update`.execute(trx);
        locked();
        await lockReleased;
      });
      try {
        await lockTaken;
        expectBusy(await send(), 'lock_timeout');
      } finally {
        releaseLock();
        await holder;
        await other.close();
      }
    } else {
      // SQLite: another process holds the database's write lock; the payment waits the busy timeout (5 s).
      const other = new BetterSqlite3(target.file);
      other.exec('begin immediate');
      try {
        expectBusy(await send(), 'try_again');
      } finally {
        other.exec('rollback');
        other.close();
      }
    }
    expect(await paymentsOf(t, customerId)).toEqual([]);
    expect((await send()).status).toBe(201);
    expect((await paymentsOf(t, customerId)).map((p) => p.Ref)).toEqual(['locked']);
  });
});

describe('the connection pool', () => {
  it('answers 503 with Retry-After when no connection comes free in time, and serves again once one does', async () => {
    const env = { DATABASE_POOL_SIZE: '2', DATABASE_POOL_TIMEOUT_MS: '100' };
    if (dialect === 'sqlite') {
      // SQLite has one writer and no pool: the settings are read and left aside.
      expect(loadConfig({ ...t.env, ...env }).database).toEqual({
        dialect: 'sqlite',
        file: expect.any(String),
      });
      expect(() => loadConfig({ ...t.env, DATABASE_POOL_SIZE: '0' })).toThrow(/DATABASE_POOL_SIZE/);
      return;
    }
    const small = await startFresh({ env });
    const customerId = await createCustomer(small);
    // Both connections held by transactions the test ends.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = 0;
    const holders = [1, 2].map(() =>
      small.service.storage.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        holding += 1;
        await released;
      }),
    );
    await eventually(() => (holding === 2 ? true : undefined));
    try {
      expectBusy(await small.request('GET', `/v1/customers/${customerId}`), 'database_busy');
    } finally {
      release();
      await Promise.all(holders);
    }
    expect((await small.request('GET', `/v1/customers/${customerId}`)).status).toBe(200);
  });
});
