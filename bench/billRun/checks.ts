/** The bill-run benchmark's check of what the run made, before any figure is printed. */
import type { BillRunSummary } from '../../src/billing/billRun.ts';
import type { Db } from '../../src/storage/database.ts';
import { problemList } from '../common.ts';
import { AS_OF } from './population.ts';
import type { Seeded } from './population.ts';
import { countOf, countWhere, loose } from './rows.ts';

export async function verify(db: Db, seeded: Seeded, summary: BillRunSummary): Promise<void> {
  const { expect, failIfAny } = problemList();
  expect('summary.invoices', summary.invoices, seeded.expectedInvoices);
  expect('summary.subscriptions', summary.subscriptions, seeded.subscriptions);
  expect('summary.parked', summary.parked, 0);
  expect('summary.failures', summary.failures, 0);
  const nums = (await loose(db)
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.countAll().as('n'),
      eb.fn.count('invoice_num').distinct().as('distinct_nums'),
      eb.fn.min('invoice_num').as('min_num'),
      eb.fn.max('invoice_num').as('max_num'),
    ])
    .where('account_id', '=', seeded.accountId)
    .executeTakeFirstOrThrow()) as Record<string, number | string | null>;
  const n = seeded.expectedInvoices;
  expect('invoices', Number(nums.n), n);
  expect('distinct invoice numbers', Number(nums.distinct_nums), n);
  expect('lowest invoice number', Number(nums.min_num), 1);
  expect('highest invoice number', Number(nums.max_num), n);
  expect('invoice lines', await countOf(db, 'invoice_charges', seeded.accountId), seeded.expectedLines);
  expect('invoice taxes (one VAT per invoice)', await countOf(db, 'invoice_taxes', seeded.accountId), n);
  expect('e-mails queued', await countOf(db, 'mail_outbox', seeded.accountId), seeded.expectedMails);
  expect(
    `subscriptions still due on ${AS_OF}`,
    await countOf(db, 'subscriptions', seeded.accountId, ['next_inv_date', '<=', AS_OF]),
    0,
  );
  expect(
    'usage rows left unbilled',
    await countOf(db, 'subscription_usage', seeded.accountId, ['invoice_id', 'is', null]),
    0,
  );
  expect(
    'periods recorded by the run',
    await countWhere(db, 'subscription_periods', ['id', '>', seeded.before.periodId]),
    seeded.subscriptions,
  );
  // Every subscription starts its term or its trial on AS_OF: one time-driven event each (the candidates are read a
  // page at a time, so a page lost or read twice shows here), beside one event per invoice and per e-mail.
  const eventsOfRun = (type: string) =>
    countOf(db, 'events', seeded.accountId, ['id', '>', seeded.before.eventId], ['type', '=', type]);
  expect(
    'subscription.activated and .trial_started events',
    (await eventsOfRun('subscription.activated')) + (await eventsOfRun('subscription.trial_started')),
    seeded.subscriptions,
  );
  expect('invoice.created events', await eventsOfRun('invoice.created'), n);
  expect('invoice.sent events', await eventsOfRun('invoice.sent'), seeded.expectedMails);
  failIfAny('the bill run billed wrong');
}
