/**
 * The reminder benchmark's population: one account (its seller's name and payment instructions set), and per
 * customer one unpaid EFT invoice past due by a day of the account's default reminder schedule (docs/gateways.md,
 * "The collection loop"), all made through the API (the service started in this process, requests injected into
 * it: no sockets, every hook, schema and use case of a real request). Some customers have an EmailCC, some a contact
 * of their own, so that a reminder goes to one recipient or two.
 */
import crypto from 'node:crypto';
import { fixedClock, systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseTarget } from '../../src/config.ts';
import { addDays } from '../../src/core/calendar.ts';
import { createAccount } from '../../src/modules/auth/index.ts';
import { startService } from '../../src/server.ts';
import type { Service } from '../../src/server.ts';
import { BenchError, analyzeSeeded, log } from '../common.ts';
import { REMIND_DATE, SEED_AT, SELLER_NAME, PAYMENT_INSTRUCTIONS } from './shared.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/**
 * How far past due each invoice is: days of the default schedule (−3, 0, 7, 14, 30) after the due date, in turn,
 * so that the pass sends reminders of the three kinds of lateness, and none was sent before (the schedule's
 * earlier days were never run).
 */
export const DAYS_PAST_DUE = [7, 14, 30] as const;

/** Requests in flight at once while seeding (the service's own pool and locks decide how many really overlap). */
const SEED_CONCURRENCY = 8;

export interface SeededInvoice {
  id: number;
  invoiceNum: number;
  customerId: number;
  totalMinor: number;
  /** The reminder's day of the schedule: how many days past due the invoice is on REMIND_DATE. */
  daysPastDue: number;
  dueDate: string;
  /** Who the reminder goes to: the customer's Email (with its EmailCC), then its contact's, if any. */
  recipients: { to: string; cc: string | null }[];
}

export interface Seeded {
  accountId: number;
  invoices: SeededInvoice[];
  /** An ENCRYPTION_KEY (base64) for the run: the measured processes use the same. */
  encryptionKey: string;
}

/** The i-th invoice's lines: amounts from 5.00 to about 1 000.00, spread (the same in every run). */
function chargesOf(i: number): { Descrip: string; Qty: number; UnitCostEx: number }[] {
  const cents = 500 + ((i * 7919 + 104_729) % 99_500);
  const lines = [{ Descrip: 'Monthly service', Qty: 1, UnitCostEx: cents / 100 }];
  if (i % 4 === 3) lines.push({ Descrip: 'Extra seats', Qty: 1 + (i % 5), UnitCostEx: 4.5 });
  return lines;
}

/** Every tenth customer's Email is copied to an EmailCC; every fourth has a contact with an address of its own. */
const hasCc = (i: number) => i % 10 === 5;
const hasContact = (i: number) => i % 4 === 1;

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
 * account and `count` customers, each with one unpaid EFT invoice past due, through the API; stops the service.
 */
export async function seed(target: DatabaseTarget, dataDir: string, count: number): Promise<Seeded> {
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
      { name: 'Bench reminders', timeZone: 'UTC', currencyCode: 'USD' },
      { testGatewayOnLiveAccounts: true },
    );
    const authorization = `Basic ${Buffer.from(`${account.id}:${apiKey}`).toString('base64')}`;
    const call = async (method: 'POST' | 'PUT', url: string, body: Body): Promise<Body> => {
      const response = await service.app.inject({
        method,
        url,
        headers: { authorization, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new BenchError(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
      }
      return (response.body ? response.json() : {}) as Body;
    };
    // The reminders' settings stay the defaults (SendInvoiceReminders on, the default schedule).
    await call('PUT', '/v1/account', {
      LegalName: SELLER_NAME,
      City: 'Cape Town',
      PaymentInstructions: PAYMENT_INSTRUCTIONS,
    });

    const invoices = new Array<SeededInvoice>(count);
    const started = performance.now();
    let done = 0;
    await inPool(count, SEED_CONCURRENCY, async (i) => {
      const email = `payer${i + 1}@example.com`;
      const cc = hasCc(i) ? `accounts${i + 1}@example.com` : null;
      const customer = await call('POST', '/v1/customers', {
        Name: `Payer ${i + 1}`,
        LastName: 'Bench',
        Email: email,
        ...(cc ? { EmailCC: cc } : {}),
      });
      const customerId = customer.customerID as number;
      const recipients = [{ to: email, cc }];
      if (hasContact(i)) {
        const contactEmail = `contact${i + 1}@example.com`;
        await call('POST', '/v1/customercontacts', {
          customerID: customerId,
          Name: 'Grace',
          LastName: `Contact ${i + 1}`,
          Email: contactEmail,
        });
        recipients.push({ to: contactEmail, cc: null });
      }
      const daysPastDue = DAYS_PAST_DUE[i % DAYS_PAST_DUE.length]!;
      const dueDate = addDays(REMIND_DATE, -daysPastDue);
      const invoice = await call('POST', '/v1/invoices', {
        customerID: customerId,
        InvoiceDate: dueDate,
        DueDate: dueDate,
        CollectionMethod: 'eft',
        Charges: chargesOf(i),
      });
      invoices[i] = {
        id: invoice.invoiceID as number,
        invoiceNum: invoice.invoiceNum as number,
        customerId,
        totalMinor: Math.round((invoice.Total as number) * 100),
        daysPastDue,
        dueDate,
        recipients,
      };
      done += 1;
      if (done % 2000 === 0) {
        const seconds = (performance.now() - started) / 1000;
        log(`  ${done} of ${count} customers seeded (${(done / seconds).toFixed(0)}/s)`);
      }
    });
    await analyzeSeeded(service.storage.db);
    return { accountId: account.id, invoices, encryptionKey };
  } finally {
    await service.close();
  }
}
