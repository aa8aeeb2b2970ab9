/**
 * The payments benchmark's population: customers made through the API, and their open invoices written with the
 * service's own insertInvoices.
 */
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { inTransaction, serviceMemory } from '../../src/context.ts';
import type { ServiceContext } from '../../src/context.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { insertInvoices } from '../../src/modules/invoicing/index.ts';
import type { NewInvoice } from '../../src/modules/invoicing/index.ts';
import { createSecretBox } from '../../src/security/secretBox.ts';
import type { Db } from '../../src/storage/database.ts';
import { BenchError, log } from '../common.ts';
import type { Dialect } from '../common.ts';
import type { Service } from '../harness.ts';
import {
  CONNECTIONS,
  CUSTOMERS,
  HOT_INVOICE_MINOR,
  INVOICES_PER_CUSTOMER,
  INVOICE_MINOR,
  SEED_CUSTOMERS_PER_TRANSACTION,
} from './settings.ts';
import { modulePorts } from '../../src/modulePorts.ts';

async function inPool<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** `count` customers through POST /v1/customers, `CONNECTIONS` at a time; their ids in creation order. */
export async function createCustomers(base: string, authorization: string, count: number): Promise<number[]> {
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
export async function seedInvoices(
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

/** The account's context for seeding, on the seeding day (2026-01-05). */
export async function seedingContext(db: Db, accountId: number): Promise<ServiceContext> {
  return {
    ports: modulePorts(),
    account: await getAccount(db, accountId),
    db,
    clock: fixedClock('2026-01-05T09:00:00.000Z'),
    wallClock: systemClock,
    log: pino({ level: 'warn' }, pino.destination(2)) as unknown as FastifyBaseLogger,
    secrets: createSecretBox(crypto.randomBytes(32)),
    mailQueued: () => {},
    memory: serviceMemory(),
  };
}

/**
 * BENCH_CUSTOMERS + 1 customers through the API (the last is the one customer of the one-customer load, the others
 * are spread over), and their open invoices.
 */
export async function seedPopulation(
  dialect: Dialect,
  { base, authorization, credentials }: Service,
  db: Db,
) {
  log(`${dialect}: creating ${CUSTOMERS} + 1 customers through the API`);
  const customerIds = await createCustomers(base, authorization, CUSTOMERS + 1);
  const hotCustomerId = customerIds.at(-1)!;
  const spreadCustomerIds = customerIds.slice(0, CUSTOMERS);
  log(`${dialect}: writing ${INVOICES_PER_CUSTOMER} invoices per customer (insertInvoices)`);
  const ctx = await seedingContext(db, credentials.accountID);
  const invoices = await seedInvoices(ctx, customerIds, hotCustomerId);
  return { customerIds, hotCustomerId, spreadCustomerIds, invoices };
}
