import { getAccount } from '../modules/auth/index.ts';
import { accountsWithProgressiveBilling, invoiceProgressiveUsage } from '../modules/subscriptions/index.ts';
import { lastUsageEventId, usageArrivalsAfter } from '../modules/usage/index.ts';
import {
  accountsWithUsageAlerts,
  checkUsageAlerts,
  emptyCheckSummary,
} from '../modules/usageAlerts/index.ts';
import type { AlertCheckSummary } from '../modules/usageAlerts/index.ts';
import type { BillingDeps } from './billRun.ts';
import { billingContext } from './billRun.ts';

/**
 * Evaluating usage alerts outside requests (docs/design/usage.md, "Alerts"): never inside an event's insert, so
 * that sending usage costs nothing more. The service's worker runs `nextRound` every USAGE_ALERT_INTERVAL_MS; the
 * CLI's `check-usage-alerts` and a test account's clock run a full sweep.
 */

function add(summary: AlertCheckSummary, more: AlertCheckSummary): void {
  for (const key of Object.keys(summary) as (keyof AlertCheckSummary)[]) summary[key] += more[key];
}

/** Each account's alerts read as of its own now: a test account's clock, the wall clock otherwise. */
async function checkAccount(
  deps: BillingDeps,
  accountId: number,
  which: Parameters<typeof checkUsageAlerts>[1],
): Promise<AlertCheckSummary> {
  const account = await getAccount(deps.db, accountId);
  const at = account.isTest && account.testClockAt ? account.testClockAt : deps.clock.now();
  return checkUsageAlerts(billingContext(deps, account, at), which);
}

/**
 * One account's evaluation, added to the summary; its failure (a lost connection, an account that cannot be read) is
 * logged and counted, and the other accounts are still evaluated. Its alerts not checked yet stay flagged for the
 * next round; the others are read again when their customers' events arrive, or at the next full sweep.
 */
async function checkAccountInto(
  summary: AlertCheckSummary,
  deps: BillingDeps,
  accountId: number,
  which: Parameters<typeof checkUsageAlerts>[1],
): Promise<void> {
  try {
    add(summary, await checkAccount(deps, accountId, which));
  } catch (error) {
    summary.failures += 1;
    deps.log.error({ err: error, accountId }, 'usage alerts of an account could not be evaluated');
  }
}

/** What a full check did: the alerts', and the progressive invoices it issued. */
export interface UsageCheckSummary extends AlertCheckSummary {
  progressiveInvoices: number;
}

/**
 * Every alert of every account (or of one), read now, then every subscription with a progressive billing threshold:
 * `billing check-usage-alerts` and the worker's sweeps.
 */
export async function checkAllUsageAlerts(
  deps: BillingDeps,
  options: { accountId?: number } = {},
): Promise<UsageCheckSummary> {
  const summary = emptyCheckSummary();
  const accountIds =
    options.accountId !== undefined ? [options.accountId] : await accountsWithUsageAlerts(deps.db, 'all');
  for (const accountId of accountIds) {
    if (deps.signal?.aborted) break;
    await checkAccountInto(summary, deps, accountId, 'all');
  }
  const progressiveInvoices = await checkProgressiveBilling(deps, summary, 'all', options.accountId);
  return { ...summary, progressiveInvoices };
}

/** Rounds of the worker between two full sweeps: an hour at the default interval. */
export const ROUNDS_PER_SWEEP = 60;

/**
 * The worker's rounds. Most read only the alerts of customers whose events arrived since (usage event ids
 * increase with each insert: a range of the primary key) and alerts made or edited since; every ROUNDS_PER_SWEEP-th,
 * and the first, reads every alert, for what no event announces (a changed price, a missed arrival).
 * NOTE: on PostgreSQL an event's id is taken before its transaction commits, so a round reads from where the round
 * before the last one stopped, a sweep included: an event committed up to a round late is still seen.
 * A round that fails leaves where the next reads from as it was, and a sweep that fails is tried again next round.
 */
export function usageAlertRounds(deps: BillingDeps): { nextRound(): Promise<AlertCheckSummary> } {
  let cursor: { round: number; from: number; lagging: number } | undefined;
  return {
    async nextRound() {
      // Started at the latest event: a first sweep that fails must not leave the next round reading every event.
      if (!cursor) {
        const top = await lastUsageEventId(deps.db);
        cursor = { round: 0, from: top, lagging: top };
      }
      const { round, from, lagging } = cursor;
      const sweep = round % ROUNDS_PER_SWEEP === 0;
      const { summary, lastId } = sweep ? await sweepRound(deps) : await arrivalsRound(deps, from);
      cursor = { round: round + 1, from: lagging, lagging: lastId };
      return summary;
    },
  };
}

/** Every alert of every account; the last event id is read first: what arrives meanwhile is the next round's. */
async function sweepRound(deps: BillingDeps): Promise<{ summary: AlertCheckSummary; lastId: number }> {
  const lastId = await lastUsageEventId(deps.db);
  const summary = await checkAllUsageAlerts(deps);
  return { summary, lastId };
}

/**
 * Progressive billing rides the alerts' rounds (docs/usage.md, "Progressive billing"): a sweep checks every
 * subscription with a threshold, a round those of the customers whose events arrived. An account's failure is
 * logged and counted with the alerts' failures; the other accounts are still checked.
 */
async function checkProgressiveBilling(
  deps: BillingDeps,
  summary: AlertCheckSummary,
  customersOf: ReadonlyMap<number, readonly number[]> | 'all',
  onlyAccountId?: number,
): Promise<number> {
  let invoices = 0;
  for (const accountId of await accountsWithProgressiveBilling(deps.db)) {
    if (deps.signal?.aborted) break;
    if (onlyAccountId !== undefined && accountId !== onlyAccountId) continue;
    const customerIds = customersOf === 'all' ? 'all' : customersOf.get(accountId);
    if (customerIds === undefined || (customerIds !== 'all' && customerIds.length === 0)) continue;
    try {
      const account = await getAccount(deps.db, accountId);
      const at = account.isTest && account.testClockAt ? account.testClockAt : deps.clock.now();
      const which = customerIds === 'all' ? 'all' : { customerIds };
      const checked = await invoiceProgressiveUsage(billingContext(deps, account, at), which);
      summary.failures += checked.failures;
      invoices += checked.invoices;
      if (checked.invoices > 0)
        deps.log.info({ accountId, invoices: checked.invoices }, 'progressive invoices');
    } catch (error) {
      summary.failures += 1;
      deps.log.error({ err: error, accountId }, 'progressive billing of an account could not be checked');
    }
  }
  return invoices;
}

/**
 * The alerts of the customers whose events arrived after `from`, by account, and those not checked yet. Only
 * accounts with alerts are kept; of their customers, the alerts' reads keep those with alerts.
 */
async function arrivalsRound(
  deps: BillingDeps,
  from: number,
): Promise<{ summary: AlertCheckSummary; lastId: number }> {
  const arrivals = await usageArrivalsAfter(deps.db, from);
  const arrived = new Map<number, number[]>();
  for (const { accountId, customerId } of arrivals.customers) {
    arrived.set(accountId, [...(arrived.get(accountId) ?? []), customerId]);
  }
  const withAlerts = new Set(await accountsWithUsageAlerts(deps.db, 'all'));
  const customersOf = new Map<number, number[]>();
  for (const { accountId, customerId } of arrivals.customers) {
    if (!withAlerts.has(accountId)) continue;
    const customers = customersOf.get(accountId);
    if (customers) customers.push(customerId);
    else customersOf.set(accountId, [customerId]);
  }
  for (const accountId of await accountsWithUsageAlerts(deps.db, 'unchecked')) {
    if (!customersOf.has(accountId)) customersOf.set(accountId, []);
  }
  const summary = emptyCheckSummary();
  for (const [accountId, customerIds] of customersOf) {
    if (deps.signal?.aborted) break;
    await checkAccountInto(summary, deps, accountId, { customerIds });
  }
  await checkProgressiveBilling(deps, summary, arrived);
  return { summary, lastId: arrivals.lastId };
}

export interface UsageAlertWorker {
  /** Stops the schedule and the round in progress after its account; settles once it has. */
  stop(): Promise<void>;
}

/** Runs the rounds every `intervalMs` inside the service, never two at once in one process. */
export function startUsageAlertWorker(deps: BillingDeps, intervalMs: number): UsageAlertWorker {
  const stopping = new AbortController();
  const rounds = usageAlertRounds({ ...deps, signal: stopping.signal });
  let running: Promise<void> | undefined;
  const tick = (): void => {
    if (stopping.signal.aborted || running) return;
    running = (async () => {
      try {
        const summary = await rounds.nextRound();
        if (summary.fired > 0 || summary.failures > 0) deps.log.info({ ...summary }, 'usage alerts');
      } catch (error) {
        deps.log.error({ err: error }, 'usage alert round failed');
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await running;
    },
  };
}
