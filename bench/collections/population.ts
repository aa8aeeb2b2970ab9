/**
 * The collection benchmark's population: one account, and per customer a card kept in the test gateway's vault and
 * one card invoice due on RUN_DATE, all made through the API (the service started in this process, requests
 * injected into it: no sockets, every hook, schema and use case of a real request).
 */
import crypto from 'node:crypto';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import { startService } from '../../src/server.ts';
import type { Service } from '../../src/server.ts';
import { BenchError, analyzeSeeded, log } from '../common.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/** The day every invoice is due, and the instants the population is made at and collected at (UTC account). */
export const RUN_DATE = '2026-03-02';
export const SEED_AT = `${RUN_DATE}T08:00:00.000Z`;
export const COLLECT_AT = `${RUN_DATE}T09:00:00.000Z`;
/** Where a soft decline is tried again: the start of the next day (docs/gateways.md, "Retries"). */
export const NEXT_TRY_AT = '2026-03-03T00:00:00.000Z';

export const APPROVING_CARD = '4242424242424242';
/** Declined on each charge: insufficient_funds, a soft decline (retried). */
export const DECLINING_CARD = '4000000000009995';
export const DECLINE_REASON = 'insufficient_funds';

/** Requests in flight at once while seeding (the service's own pool and locks decide how many really overlap). */
const SEED_CONCURRENCY = 8;

export interface SeededInvoice {
  id: number;
  customerId: number;
  paymentMethodId: number;
  totalMinor: number;
  declines: boolean;
}

export interface Seeded {
  accountId: number;
  gatewayId: number;
  invoices: SeededInvoice[];
  declining: number;
  /** An ENCRYPTION_KEY (base64) for the run: the processes that collect use the same. */
  encryptionKey: string;
}

/** Whether the i-th customer's card declines: `percent` of them, spread evenly (not the first or last block). */
export function declines(i: number, percent: number): boolean {
  return Math.floor(((i + 1) * percent) / 100) > Math.floor((i * percent) / 100);
}

/**
 * The i-th invoice's lines: every fourth has two lines, the others one; amounts from 5.00 to about 1 000.00, spread
 * (a deterministic pseudo-random walk, the same in every run).
 */
export function chargesOf(i: number): { Descrip: string; Qty: number; UnitCostEx: number }[] {
  const cents = 500 + ((i * 7919 + 104_729) % 99_500);
  const lines = [{ Descrip: 'Monthly service', Qty: 1, UnitCostEx: cents / 100 }];
  if (i % 4 === 3) lines.push({ Descrip: 'Extra seats', Qty: 1 + (i % 5), UnitCostEx: 4.5 });
  return lines;
}

async function inPool(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

type Body = Record<string, unknown>;

/**
 * The seeding's PostgreSQL connections do not wait for each commit to reach the disk (`synchronous_commit=off`, a
 * per-session setting): the same rows, written in a fraction of the time. The measured processes connect without it.
 */
function unsyncedUrl(url: string): string {
  const parsed = new URL(url);
  const existing = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${existing ? `${existing} ` : ''}-c synchronous_commit=off`);
  return parsed.toString();
}

/**
 * Starts the service on `target` (migrating it; `dataDir` is its DATA_DIR, the run's temporary directory), makes the
 * account and `count` customers, each with a card and a due card invoice, through the API; stops the service.
 * `declinePercent` of the cards decline on each charge.
 */
export async function seed(
  target: DatabaseTarget,
  dataDir: string,
  count: number,
  declinePercent: number,
): Promise<Seeded> {
  const encryptionKey = crypto.randomBytes(32).toString('base64');
  const clock = fixedClock(SEED_AT);
  const config = loadConfig({
    DATABASE_URL: target.dialect === 'sqlite' ? `sqlite:${target.file}` : unsyncedUrl(target.url),
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: encryptionKey,
    LOG_LEVEL: 'warn',
    BILLING_INTERVAL_MS: '0',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const service: Service = await startService(config, { clock });
  try {
    const { account, apiKey } = await createAccount(
      service.storage.db,
      { ports: modulePorts(), clock, wallClock: systemClock },
      {
        name: 'Bench collections',
        timeZone: 'UTC',
        currencyCode: 'USD',
      },
      { testGatewayOnLiveAccounts: true },
    );
    const authorization = `Basic ${Buffer.from(`${account.id}:${apiKey}`).toString('base64')}`;
    const call = async (method: 'GET' | 'POST', url: string, body?: Body): Promise<Body> => {
      const response = await service.app.inject({
        method,
        url,
        headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
        payload: body ? JSON.stringify(body) : undefined,
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new BenchError(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
      }
      return response.json() as Body;
    };
    const gateways = (await call('GET', '/v1/gateways')) as unknown as Body[];
    const gateway = gateways.find((g) => g.GatewayType === 'test') ?? gateways[0];
    const gatewayId = gateway?.gatewayID;
    if (typeof gatewayId !== 'number') throw new BenchError(`no test gateway: ${JSON.stringify(gateways)}`);

    const invoices = new Array<SeededInvoice>(count);
    const started = performance.now();
    let done = 0;
    await inPool(count, SEED_CONCURRENCY, async (i) => {
      const customer = await call('POST', '/v1/customers', {
        Name: `Payer ${i + 1}`,
        LastName: 'Bench',
        Email: `payer${i + 1}@example.com`,
      });
      const customerId = customer.customerID as number;
      const declining = declines(i, declinePercent);
      const method = await call('POST', '/v1/paymentmethods/creditcard', {
        customerID: customerId,
        isPrimary: true,
        CreditCard: {
          CardType: 'Visa',
          Number: declining ? DECLINING_CARD : APPROVING_CARD,
          NameOnCard: 'Payer',
          LastNameOnCard: `Bench ${i + 1}`,
          ExpiryMonth: 1 + (i % 12),
          ExpiryYear: 2028 + (i % 4),
        },
      });
      const paymentMethodId = method.paymentMethodID as number;
      const invoice = await call('POST', '/v1/invoices', {
        customerID: customerId,
        InvoiceDate: RUN_DATE,
        DueDate: RUN_DATE,
        CollectionMethod: 'credit_card',
        gatewayID: gatewayId,
        customerPaymentMethodID: paymentMethodId,
        Charges: chargesOf(i),
      });
      invoices[i] = {
        id: invoice.invoiceID as number,
        customerId,
        paymentMethodId,
        totalMinor: Math.round((invoice.Total as number) * 100),
        declines: declining,
      };
      done += 1;
      if (done % 2000 === 0) {
        const seconds = (performance.now() - started) / 1000;
        log(`  ${done} of ${count} customers seeded (${(done / seconds).toFixed(0)}/s)`);
      }
    });
    await analyzeSeeded(service.storage.db);
    return {
      accountId: account.id,
      gatewayId,
      invoices,
      declining: invoices.filter((invoice) => invoice.declines).length,
      encryptionKey,
    };
  } finally {
    await service.close();
  }
}
