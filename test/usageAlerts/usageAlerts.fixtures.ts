import { systemClock } from '../../src/clock.ts';
import { checkAllUsageAlerts } from '../../src/billing/usageAlerts.ts';
import type { BillingDeps } from '../../src/billing/billRun.ts';
import { createCustomer, movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { TIERS, meteredComponent, meteredSubscription } from '../subscriptions/meteredBilling.fixtures.ts';
import { useTestService } from '../helpers/testService.ts';
import type { FileService, SmtpReceiver } from '../helpers/testService.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/**
 * The usage alerts tests' shared setup: one service per file with a real SMTP receiver, on a clock that starts on
 * 1 March 2026 (test accounts start their own clocks there). Read the bindings inside tests.
 */
export const clock = movableClock('2026-03-01T10:00:00.000Z');
export let t: FileService;
export let smtp: SmtpReceiver;

export function useUsageAlertService() {
  t = useTestService({ clock, smtp: true });
  smtp = t.smtp;
}

/** What an evaluation in this process works with, as the service's worker has it. */
export function evaluationDeps(): BillingDeps {
  const s = t.service;
  return {
    ports: modulePorts(),
    db: s.storage.db,
    clock,
    wallClock: systemClock,
    log: s.log,
    secrets: s.secrets,
    mailQueued: () => {},
  };
}

/** Every alert of every account evaluated now, in this process, as the worker and the CLI do. */
export function evaluate() {
  return checkAllUsageAlerts(evaluationDeps());
}

/**
 * A test account with "API calls" (`api`, a count) priced 1–10 at 1.00 and 11+ at 0.50, and a customer with an
 * address subscribed to it monthly from 1 March.
 */
export async function shopWithCalls(name: string, email: string) {
  const as = await t.newAccount(name, { isTest: true });
  const calls = await meteredComponent(as, 'api', 'count', { currency: TIERS });
  const [metric] = await ok(as, 'GET', '/v1/billable-metrics');
  await ok(as, 'PUT', `/v1/billable-metrics/${metric.billableMetricID}`, { Name: 'API calls' }, 200);
  // Invoices are not e-mailed: the receiver gets the alerts' mail alone, without waiting behind an invoice's PDF.
  const customerId = await createCustomer(as, {
    Name: 'Ada',
    LastName: 'Lovelace',
    Email: email,
    autoSendInvoice: false,
  });
  return { as, calls, customerId };
}

export async function subscribed(as: TestAccount, componentIds: number[], customerId: number) {
  return meteredSubscription(as, componentIds, customerId);
}

/** The account's events of one type, oldest first. */
export async function eventsOf(as: TestAccount, type: string) {
  const events = await ok(as, 'GET', `/v1/events?type=${type}&page_size=200`, undefined, 200);
  return (events as { type: string; data: { object: Record<string, any> } }[]).reverse();
}

/** The usage alert e-mails the SMTP receiver got for one address, their quoted-printable text decoded. */
export function alertMailsTo(address: string): string[] {
  return smtp.messages
    .filter((m) => m.to.includes(address) && m.raw.includes('Subject: Usage alert'))
    .map((m) =>
      Buffer.from(
        m.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => `%${hex}`),
        'utf8',
      ).toString(),
    )
    .map((text) => decodeURIComponent(text.replace(/%(?![0-9A-F]{2})/g, '%25')));
}
