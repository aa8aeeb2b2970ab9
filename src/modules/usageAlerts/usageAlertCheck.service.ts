import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../storage/database.ts';
import { groupBy } from '../../core/groupBy.ts';
import { metricsByIds } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { emitEvent } from '../events/index.ts';
import { currentBillingPeriod, subscriptionUsage } from '../subscriptions/index.ts';
import type { CurrentUsage } from '../subscriptions/index.ts';
import * as repo from './usageAlert.repository.ts';
import { alertValue, hasReached } from './usageAlert.ts';
import type { UsageAlert, UsageAlertFiring } from './usageAlert.ts';
import { queueFiringMail } from './usageAlertMail.ts';

/** What an evaluation did. */
export interface AlertCheckSummary {
  /** Alerts read. */
  alerts: number;
  /** Alerts that fired (their event emitted). */
  fired: number;
  /** E-mails queued to customers. */
  emails: number;
  /** Subscriptions whose usage could not be read, and accounts whose alerts could not be (logged). */
  failures: number;
}

/** The accounts with usage alerts to evaluate: all those with any, or only those with alerts not checked yet. */
export function accountsWithUsageAlerts(db: Db, only: 'all' | 'unchecked'): Promise<number[]> {
  return repo.listAccountsWithAlerts(db, only === 'unchecked');
}

export const emptyCheckSummary = (): AlertCheckSummary => ({ alerts: 0, fired: 0, emails: 0, failures: 0 });

/**
 * Evaluates usage alerts of the context's account (docs/design/usage.md, "Alerts"): every one, or those of the
 * customers whose events arrived and those not checked since made or edited. Each reads its subscription's usage
 * so far exactly as GET /v1/subscriptions/{id}/usage does; one whose value has reached its threshold fires, once a
 * period: the firing's insert decides, so evaluations run at once by several processes fire it once between them.
 */
export async function checkUsageAlerts(
  ctx: ServiceContext,
  which: { customerIds: readonly number[] } | 'all',
): Promise<AlertCheckSummary> {
  const summary = emptyCheckSummary();
  const alerts = await repo.listAlertsToCheck(
    ctx.db,
    ctx.account.id,
    which === 'all' ? 'all' : which.customerIds,
  );
  summary.alerts = alerts.length;
  for (const [subscriptionId, ofSubscription] of groupBy(alerts, (a) => a.subscriptionId)) {
    try {
      await checkSubscriptionAlerts(ctx, subscriptionId, ofSubscription, summary);
    } catch (error) {
      summary.failures += 1;
      ctx.log.warn({ err: error, subscriptionId }, 'usage alerts of a subscription could not be evaluated');
    }
  }
  // A subscription that failed is read again when its events arrive or at the next full sweep, not every round.
  await repo.markChecked(ctx.db, ctx.account.id, alerts);
  return summary;
}

/** A subscription's alerts, read against its usage so far; those already fired this period are not read. */
async function checkSubscriptionAlerts(
  ctx: ServiceContext,
  subscriptionId: number,
  alerts: readonly UsageAlert[],
  summary: AlertCheckSummary,
): Promise<void> {
  const period = await currentBillingPeriod(ctx, subscriptionId);
  if (period === null) return;
  const fired = await repo.firedIn(
    ctx.db,
    ctx.account.id,
    alerts.map((a) => a.id),
    period.start,
  );
  const waiting = alerts.filter((a) => !fired.has(a.id));
  if (waiting.length === 0) return;
  const usage = await subscriptionUsage(ctx, subscriptionId);
  if (usage.period === null) return;
  const metrics = await metricsByIds(
    ctx.db,
    ctx.account.id,
    waiting.flatMap((a) => (a.metricId === null ? [] : [a.metricId])),
  );
  for (const alert of waiting) {
    const metric = alert.metricId === null ? null : metrics.get(alert.metricId);
    if (metric === undefined) continue;
    const value = alertValue({ kind: alert.threshold.kind, metric, group: alert.group }, usage.lines);
    if (!hasReached(alert.threshold, value)) continue;
    const firing: UsageAlertFiring = {
      alertId: alert.id,
      periodStart: usage.period.start,
      periodEnd: usage.period.end,
      threshold: alert.threshold,
      value,
      firedAt: nowInstant(ctx),
    };
    await fireAlert(ctx, alert, firing, metric, usage, summary);
  }
}

/**
 * Records the firing and, only when this call inserted it, emits `usage.threshold_crossed` and queues the e-mail
 * the account asks for, all in one transaction: a firing is never announced twice, nor recorded unannounced.
 */
async function fireAlert(
  ctx: ServiceContext,
  alert: UsageAlert,
  firing: UsageAlertFiring,
  metric: BillableMetric | null,
  usage: CurrentUsage,
  summary: AlertCheckSummary,
): Promise<void> {
  const outcome = await withTransaction(ctx, async (tctx) => {
    // Deleted since it was listed: nothing to announce.
    if ((await repo.findAlerts(tctx.db, ctx.account.id, [alert.id])).length === 0) return undefined;
    if (!(await repo.insertFiring(tctx.db, ctx.account.id, firing))) return undefined;
    await emitEvent(tctx, 'usage.threshold_crossed', { type: 'usage_alert', id: alert.id });
    if (!ctx.account.usageAlertEmails) return { emailed: false };
    const facts = { alert, firing, metric, currencyCode: usage.currencyCode };
    return { emailed: await queueFiringMail(tctx, facts) };
  });
  if (!outcome) return;
  summary.fired += 1;
  if (outcome.emailed) {
    summary.emails += 1;
    ctx.mailQueued();
  }
}
