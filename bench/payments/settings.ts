/** The payments benchmark's settings and constants, and the shapes of what it reports. */
import { setting } from '../common.ts';
import type { HttpFigures } from '../harness.ts';

// BENCH_SECONDS, BENCH_WARMUP_SECONDS and BENCH_CONNECTIONS are every HTTP benchmark's (read first, in harness.ts).
export { CONNECTIONS, SECONDS, WARMUP_SECONDS } from '../harness.ts';

export const CUSTOMERS = Math.round(setting('BENCH_CUSTOMERS', 1000, 1, 100_000));
export const INVOICES_PER_CUSTOMER = Math.round(setting('BENCH_INVOICES_PER_CUSTOMER', 20, 1, 200));
/**
 * Payments per second of the paced load: a steady rate below what either database reaches (about half of
 * PostgreSQL's on a 2-core machine), at which the response time shows what a client waits, not a queue.
 */
export const PACED_RATE = Math.round(setting('BENCH_PACED_RATE', 100, 1, 10_000));

/** Every payment: 30.00 USD by EFT on 2026-01-10, applied to the earliest open invoices. */
export const PAYMENT_MINOR = 3000;
export const PAYMENT_DATE = '2026-01-10';
/** The spread customers' invoices: 100.00 each, so that a payment pays one invoice or two. */
export const INVOICE_MINOR = 10_000;
/**
 * The one customer's invoices: as many, of 100 000.00 each, so that it has the same number of open invoices to read
 * and lock as the others and never runs out of them (20 of them take 66 666 payments of 30.00).
 */
export const HOT_INVOICE_MINOR = 10_000_000;
/** Customers whose invoices are written per transaction while seeding. */
export const SEED_CUSTOMERS_PER_TRANSACTION = 25;
/** Customers whose Balance is read back through the API after the run (the one customer, and a sample). */
export const API_BALANCE_SAMPLE = 20;

// The paced load runs before the saturating ones, so that no backlog of theirs (webhook deliveries) is left in it.
export type RouteKey = 'floor' | 'paced' | 'roundRobin' | 'oneCustomer';
export const ROUTE_KEYS: RouteKey[] = ['floor', 'paced', 'roundRobin', 'oneCustomer'];

export interface Figures extends HttpFigures {
  /** Responses by status code, measured seconds only. */
  statusCodes: Record<string, number>;
  /** The same counts in the warm-up (its payments are real and are checked too). */
  warmupStatusCodes: Record<string, number>;
  warmupNon2xx: number;
  warmupErrors: number;
  /** The server process's CPU milliseconds per request over the measured seconds (PostgreSQL's own not included). */
  serverCpuMsPerRequest: number | null;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DialectResult {
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
