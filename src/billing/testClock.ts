import { fixedClock } from '../clock.ts';
import { withTransaction } from '../context.ts';
import type { ServiceContext } from '../context.ts';
import { addDays, dateAt, startOfDate } from '../core/calendar.ts';
import { accountRef, setTestClock, testAccountForAdvance } from '../modules/auth/index.ts';
import { emitEvent, snapshotResource } from '../modules/events/index.ts';
import { invoiceProgressiveUsage } from '../modules/subscriptions/index.ts';
import { checkUsageAlerts } from '../modules/usageAlerts/index.ts';
import type { Account } from '../modules/auth/index.ts';
import type { BillingDeps, BillRunSummary } from './billRun.ts';
import { billAccount, billingContext, emptySummary } from './billRun.ts';

/**
 * Time travel for test accounts (beyond the spec; like Stripe's and Kill Bill's test clocks). A test account's
 * clock stands still until moved; moving it runs the real bill run for every calendar day passed, in the
 * account's time zone, so an integrator sees months of invoices in seconds. Two moves at once are safe: the bill
 * run bills each period once whoever runs it, and the clock only moves forward.
 */
export async function advanceTestClock(
  ctx: ServiceContext,
  to: string,
): Promise<{ account: Account; billed: BillRunSummary }> {
  const account = await testAccountForAdvance(ctx.db, ctx.account.id, to);
  const deps: BillingDeps = {
    db: ctx.db,
    clock: ctx.clock,
    wallClock: ctx.wallClock,
    log: ctx.log as unknown as BillingDeps['log'],
    secrets: ctx.secrets,
    mailQueued: ctx.mailQueued,
    ports: ctx.ports,
    ...(ctx.providerFetch ? { providerFetch: ctx.providerFetch } : {}),
    ...(ctx.publicUrl ? { publicUrl: ctx.publicUrl } : {}),
  };
  const billed: BillRunSummary = { ...emptySummary(), accounts: 1 };
  const lastDay = dateAt(to, account.timeZone);
  for (let day = dateAt(account.testClockAt!, account.timeZone); day <= lastDay; day = addDays(day, 1)) {
    // Each day's run at its start, but never before the clock: the first day's run is at the clock's own time
    // (what it does is stamped with it: attempts, payments, events, a retry's back-off).
    const dayStart = startOfDate(day, account.timeZone);
    const at = day === lastDay ? to : dayStart < account.testClockAt! ? account.testClockAt! : dayStart;
    // The days before the last are caught up: their reminders wait for it (only the latest due is sent).
    const dayContext = billingContext(deps, account, at);
    const summary = await billAccount(dayContext, { catchingUpTo: lastDay });
    for (const key of Object.keys(billed) as (keyof BillRunSummary)[]) {
      if (key !== 'accounts') billed[key] += summary[key];
    }
    // Each day's usage alerts too, so that a test account sees a period's firing before its clock leaves it
    // (docs/usage.md, "Alerts").
    await checkUsageAlerts(dayContext, 'all');
    // And its progressive billing, after the bill run closed the day's periods (docs/usage.md, "Progressive
    // billing"): usage that reached a threshold is invoiced on the day it would have been on a live account.
    await invoiceProgressiveUsage(dayContext, 'all');
  }
  if (to !== account.testClockAt) {
    // The event happens at the clock's new time; the account's object shows it as TestClockDate.
    await withTransaction({ ...ctx, clock: fixedClock(to) }, async (tctx) => {
      const before = await snapshotResource(tctx, accountRef(account.id));
      await setTestClock(tctx, account.id, to);
      await emitEvent(tctx, 'test_clock.advanced', accountRef(account.id), { before });
    });
  }
  return { account: { ...account, testClockAt: to }, billed };
}

/** The event types the test clock emits, on the account resource (docs/webhooks.md). */
export const TEST_CLOCK_EVENT_TYPES = ['test_clock.advanced'] as const;
