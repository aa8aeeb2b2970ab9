import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { metricsByIds } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { currentBillingPeriod, findMeteredSubscription, lockSubscription } from '../subscriptions/index.ts';
import type { MeteredSubscription, UsagePeriod } from '../subscriptions/index.ts';
import * as repo from './usageAlert.repository.ts';
import { combinationOf, readQuantityThreshold } from './usageAlert.ts';
import type { Measure, UsageAlert, UsageAlertFiring, UsageAlertKind } from './usageAlert.ts';

/** An alert as the API shows it: with its metric's code, its subscription's currency and its current period. */
export interface UsageAlertView extends UsageAlert {
  metricCode: string | null;
  currencyCode: string;
  /** The subscription's current usage period; null once its billing has stopped. */
  period: UsagePeriod | null;
  /** Whether it has fired in the current period. */
  firedThisPeriod: boolean;
  lastFiring: UsageAlertFiring | null;
}

/** What an alert is made or replaced with, in wire terms already read by the schema. */
export interface UsageAlertInput {
  name: string;
  kind: UsageAlertKind;
  metricCode: string | null;
  group: string | null;
  threshold: number | string;
}

/**
 * Alerts one subscription may have: each is read at every evaluation of the subscription, and a handful (a few
 * steps of spend, a quantity or two) is what a business sets (docs/usage.md, "Alerts").
 */
export const MAX_ALERTS_PER_SUBSCRIPTION = 25;

const alertRef = (id: number) => ({ type: 'usage_alert', id });

async function meteredSubscriptionOrThrow(
  ctx: ServiceContext,
  subscriptionId: number,
): Promise<MeteredSubscription> {
  const subscription = await findMeteredSubscription(ctx, subscriptionId);
  if (!subscription) throw new NotFoundError('Subscription', subscriptionId);
  return subscription;
}

/** The views of alerts by id, each as its GET answers it; ids of no live alert of the account left out. */
export async function usageAlertsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, UsageAlertView>> {
  const alerts = await repo.findAlerts(ctx.db, ctx.account.id, ids);
  return new Map((await viewsOf(ctx, alerts)).map((view) => [view.id, view]));
}

/** One alert of the subscription; a 404 when it is another's, or another account's. */
export async function getUsageAlert(
  ctx: ServiceContext,
  subscriptionId: number,
  alertId: number,
): Promise<UsageAlertView> {
  const view = (await usageAlertsByIds(ctx, [alertId])).get(alertId);
  if (!view || view.subscriptionId !== subscriptionId) throw new NotFoundError('Usage alert', alertId);
  return view;
}

export async function listUsageAlerts(
  ctx: ServiceContext,
  subscriptionId: number,
  page: Page,
): Promise<UsageAlertView[]> {
  await meteredSubscriptionOrThrow(ctx, subscriptionId);
  return viewsOf(ctx, await repo.listAlertsOfSubscription(ctx.db, ctx.account.id, subscriptionId, page));
}

/** A new alert; it is checked at the next evaluation, and fires then if its threshold is already reached. */
export async function createUsageAlert(
  ctx: ServiceContext,
  subscriptionId: number,
  input: UsageAlertInput,
): Promise<UsageAlertView> {
  const subscription = await meteredSubscriptionOrThrow(ctx, subscriptionId);
  const fields = checkedFields(subscription, input);
  const id = await withTransaction(ctx, async (tctx) => {
    // Held while counting: two creations at once on PostgreSQL (READ COMMITTED) would each count 24 and both insert.
    await lockSubscription(tctx, subscriptionId);
    const count = await repo.countAlertsOfSubscription(tctx.db, ctx.account.id, subscriptionId);
    if (count >= MAX_ALERTS_PER_SUBSCRIPTION) {
      throw new ConflictError(
        'usage_alert_limit_reached',
        `Subscription ${subscriptionId} has ${count} usage alerts, the most one may have`,
      );
    }
    const owner = { subscriptionId, customerId: subscription.customerId };
    const alertId = await repo.insertAlert(tctx.db, ctx.account.id, owner, fields, nowInstant(ctx));
    await emitEvent(tctx, 'usage_alert.created', alertRef(alertId));
    return alertId;
  });
  return getUsageAlert(ctx, subscriptionId, id);
}

/**
 * Replaces an alert's name, metric, group, kind and threshold. A firing of this period stays: the alert fired in
 * it, and fires again in the next (docs/spec-decisions.md, "Usage alerts").
 */
export async function updateUsageAlert(
  ctx: ServiceContext,
  subscriptionId: number,
  alertId: number,
  input: UsageAlertInput,
): Promise<UsageAlertView> {
  await getUsageAlert(ctx, subscriptionId, alertId);
  const subscription = await meteredSubscriptionOrThrow(ctx, subscriptionId);
  const fields = checkedFields(subscription, input);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, alertRef(alertId));
    if (!(await repo.updateAlert(tctx.db, ctx.account.id, alertId, fields, nowInstant(ctx))))
      throw new NotFoundError('Usage alert', alertId);
    await emitEvent(tctx, 'usage_alert.updated', alertRef(alertId), { before });
  });
  return getUsageAlert(ctx, subscriptionId, alertId);
}

export async function deleteUsageAlert(
  ctx: ServiceContext,
  subscriptionId: number,
  alertId: number,
): Promise<void> {
  await getUsageAlert(ctx, subscriptionId, alertId);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, alertRef(alertId));
    if (!(await repo.deleteAlert(tctx.db, ctx.account.id, alertId, nowInstant(ctx))))
      throw new NotFoundError('Usage alert', alertId);
    await emitEvent(tctx, 'usage_alert.deleted', alertRef(alertId), { before });
  });
}

/** The alert's fields, or a 422 naming every field at fault. */
function checkedFields(subscription: MeteredSubscription, input: UsageAlertInput): repo.AlertFields {
  const problems: FieldProblem[] = [];
  const name = input.name.trim();
  if (name === '') problems.push({ field: 'Name', message: 'must not be blank' });
  const metric = checkedMetric(subscription, input, problems);
  checkGroup(metric, input, problems);
  const threshold = checkedThreshold(subscription, input, problems);
  if (problems.length > 0 || !threshold) throw new ValidationError(problems);
  return { name, metricId: metric?.id ?? null, group: input.group, threshold };
}

/** A quantity alert names a metric; any alert's metric is one the subscription's usage components link. */
function checkedMetric(
  subscription: MeteredSubscription,
  input: UsageAlertInput,
  problems: FieldProblem[],
): BillableMetric | undefined {
  if (input.metricCode === null) {
    if (input.kind === 'quantity')
      problems.push({ field: 'MetricCode', message: 'a quantity alert must name a metric' });
    return undefined;
  }
  const metric = subscription.metrics.find((m) => m.code === input.metricCode);
  if (!metric) {
    problems.push({
      field: 'MetricCode',
      message: `no usage component of subscription ${subscription.id} is linked to a metric with code ${input.metricCode}`,
    });
  }
  return metric;
}

/**
 * A group only of a metric with a GroupBy. A quantity alert on a grouped metric without one reads the groups
 * together, which a count, sum, weighted_sum or max can be and a unique_count or latest cannot (combinationOf).
 */
function checkGroup(
  metric: BillableMetric | undefined,
  input: UsageAlertInput,
  problems: FieldProblem[],
): void {
  if (input.group !== null) {
    if (input.metricCode === null)
      problems.push({ field: 'UsageGroup', message: 'only an alert on a metric names a group' });
    else if (metric && metric.groupBy === null)
      problems.push({ field: 'UsageGroup', message: `metric ${metric.code} has no GroupBy` });
    return;
  }
  if (input.kind === 'quantity' && metric?.groupBy && combinationOf(metric.aggregation) === undefined) {
    problems.push({
      field: 'UsageGroup',
      message:
        `is required: the ${metric.aggregation} of ${metric.code} is per ${metric.groupBy} and its groups ` +
        'do not add up to one quantity',
    });
  }
}

/** A quantity's threshold as the usage module counts; an amount's in the subscription's currency, exact. */
function checkedThreshold(
  subscription: MeteredSubscription,
  input: UsageAlertInput,
  problems: FieldProblem[],
): Measure | undefined {
  if (input.kind === 'quantity') {
    const read = readQuantityThreshold(input.threshold);
    if ('message' in read) problems.push({ field: 'Threshold', message: read.message });
    else return { kind: 'quantity', quantity: read.quantity };
    return undefined;
  }
  const read = wireAmountToMinor(input.threshold, subscription.currencyCode);
  if ('message' in read) problems.push({ field: 'Threshold', message: read.message });
  else return { kind: 'amount', amountMinor: read.minor };
  return undefined;
}

/** Views of alerts: metric codes in one read, each subscription's currency and current period once. */
async function viewsOf(ctx: ServiceContext, alerts: readonly UsageAlert[]): Promise<UsageAlertView[]> {
  if (alerts.length === 0) return [];
  const metricIds = alerts.flatMap((a) => (a.metricId === null ? [] : [a.metricId]));
  const metrics = await metricsByIds(ctx.db, ctx.account.id, metricIds);
  const latest = await repo.latestFirings(
    ctx.db,
    ctx.account.id,
    alerts.map((a) => a.id),
  );
  const subscriptions = new Map<number, { currencyCode: string; period: UsagePeriod | null }>();
  for (const subscriptionId of new Set(alerts.map((a) => a.subscriptionId))) {
    const subscription = await meteredSubscriptionOrThrow(ctx, subscriptionId);
    const period = await currentBillingPeriod(ctx, subscriptionId);
    subscriptions.set(subscriptionId, { currencyCode: subscription.currencyCode, period });
  }
  return alerts.map((alert) => {
    const { currencyCode, period } = subscriptions.get(alert.subscriptionId)!;
    const lastFiring = latest.get(alert.id) ?? null;
    return {
      ...alert,
      metricCode: alert.metricId === null ? null : (metrics.get(alert.metricId)?.code ?? null),
      currencyCode,
      period,
      firedThisPeriod: period !== null && lastFiring?.periodStart === period.start,
      lastFiring,
    };
  });
}
