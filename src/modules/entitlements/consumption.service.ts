import Big from 'big.js';
import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { canonicalDecimal, decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import { metricsByIds } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { withLockedCustomers } from '../ledger/index.ts';
import { MAX_VALUE, VALUE_DECIMALS, readEvent, recordUsageEvents, storageCapOf } from '../usage/index.ts';
import * as repo from './consumption.repository.ts';
import type { Consumption } from './consumption.repository.ts';
import { addQuantities, fitsLimit, remainingOf } from './entitlements.ts';
import { checkEntitlement } from './entitlement.service.ts';
import type { EntitlementCheck } from './entitlement.service.ts';
import { FieldConflictError, getFeatureByCode } from './feature.service.ts';
import type { Feature } from './feature.ts';

/** A check-and-record as sent. */
export interface ConsumeInput {
  customerId: number;
  featureCode: string;
  quantity: number | string;
  transactionId: string;
  properties: Readonly<Record<string, unknown>>;
}

/** What an accepted check-and-record answers, the first time and on every retry of its transaction_id. */
export interface ConsumptionAnswer extends Consumption {
  featureCode: string;
  remaining: string | null;
}

/**
 * The atomic check-and-record (docs/usage.md, "Entitlements"): under the customer's lock (the one the project
 * takes for a customer, so that consumers of one customer run one at a time across processes), read what the
 * governing subscription's period has used of the limit's metric, refuse (409 naming Quantity and what remains)
 * when the quantity would pass the limit, else record the usage event in the same transaction. A transaction_id
 * already accepted answers its first result without a new check.
 */
export async function consumeEntitlement(
  ctx: ServiceContext,
  input: ConsumeInput,
): Promise<ConsumptionAnswer> {
  const feature = await getFeatureByCode(ctx, input.featureCode);
  const metric = await limitMetricOf(ctx, feature);
  const quantity = checkedQuantity(input.quantity, metric);
  const properties = eventProperties(input.properties, metric, quantity);
  return withLockedCustomers(ctx, [input.customerId], async (tctx) => {
    const prior = await repo.findConsumption(tctx.db, ctx.account.id, input.transactionId);
    if (prior) return answerAgain(prior, input, feature, quantity);
    const check = await checkEntitlement(tctx, input.customerId, input.featureCode);
    const consumption = decide(check, input, quantity);
    await recordEvent(tctx, input, metric, consumption.subscriptionId, properties);
    await repo.insertConsumption(tctx.db, ctx.account.id, consumption, nowInstant(ctx));
    return {
      ...consumption,
      featureCode: feature.code,
      remaining: remainingOf(consumption.limit, consumption.usedAfter),
    };
  });
}

async function limitMetricOf(ctx: ServiceContext, feature: Feature): Promise<BillableMetric> {
  const metric =
    feature.metricId === null
      ? undefined
      : (await metricsByIds(ctx.db, ctx.account.id, [feature.metricId])).get(feature.metricId);
  if (feature.type !== 'limit' || metric === undefined) {
    throw new ConflictError(
      'feature_not_limit',
      `Feature ${feature.code} is a ${feature.type} feature: only a limit feature's usage is recorded`,
    );
  }
  // An archived metric refuses new events (design/usage.md): its limit can still be checked, no longer consumed.
  if (metric.archivedAt !== null) {
    throw new ConflictError(
      'feature_metric_archived',
      `Feature ${feature.code} limits metric ${metric.code}, which is archived and takes no more events`,
    );
  }
  return metric;
}

/** More than zero, with at most the places usage is counted in; one for a count metric (each event counts one). */
function checkedQuantity(value: number | string, metric: BillableMetric): string {
  const read = readWireDecimal(value);
  if ('problem' in read) throw ValidationError.field('Quantity', 'must be a decimal number');
  if (read.value.lte(0)) throw ValidationError.field('Quantity', 'must be more than 0');
  if (decimalPlaces(read.value) > VALUE_DECIMALS) {
    throw ValidationError.field('Quantity', `must have at most ${VALUE_DECIMALS} decimal places`);
  }
  if (read.value.gt(new Big(MAX_VALUE.toString()))) {
    throw ValidationError.field('Quantity', `must be at most ${MAX_VALUE}`);
  }
  if (metric.aggregation === 'count' && !read.value.eq(1)) {
    throw ValidationError.field('Quantity', `must be 1: metric ${metric.code} counts events, one per call`);
  }
  return canonicalDecimal(read.value);
}

/**
 * The event's properties: the caller's, with the quantity as the sum metric's property. The event must count for
 * the metric (its filters hold), or it would be recorded and never used: refused, naming the property.
 */
function eventProperties(
  given: Readonly<Record<string, unknown>>,
  metric: BillableMetric,
  quantity: string,
): Record<string, unknown> {
  if (metric.property !== null && Object.hasOwn(given, metric.property)) {
    throw ValidationError.field(`properties.${metric.property}`, 'is set by Quantity');
  }
  const properties = metric.property === null ? { ...given } : { ...given, [metric.property]: quantity };
  const reading = readEvent(metric, properties);
  if ('problem' in reading) throw ValidationError.field(reading.field, reading.problem);
  if (!reading.counts) {
    const filter = metric.filters[0]?.property ?? 'properties';
    throw ValidationError.field(
      `properties.${filter}`,
      `must pass metric ${metric.code}'s filters, or the usage would count for nothing`,
    );
  }
  return properties;
}

/** The first answer again, for the same request; a transaction_id reused for another one is a 409. */
function answerAgain(
  prior: Consumption,
  input: ConsumeInput,
  feature: Feature,
  quantity: string,
): ConsumptionAnswer {
  if (
    prior.customerId !== input.customerId ||
    prior.featureId !== feature.id ||
    !new Big(prior.quantity).eq(quantity)
  ) {
    throw new FieldConflictError(
      'transaction_id_reused',
      'transaction_id',
      'was already used by another check-and-record (another customer, feature or quantity)',
    );
  }
  return { ...prior, featureCode: feature.code, remaining: remainingOf(prior.limit, prior.usedAfter) };
}

/** Accepts the quantity when the feature is allowed and the limit holds it, else the 409 that says why. */
function decide(check: EntitlementCheck, input: ConsumeInput, quantity: string): Consumption {
  const governing = check.governing;
  if (governing === undefined || check.period === null) {
    throw new ConflictError(
      'feature_not_allowed',
      `Customer ${input.customerId} has no live subscription giving feature ${check.feature.code}`,
    );
  }
  const used = check.used ?? '0';
  const limit = governing.grant.limit;
  if (!fitsLimit(limit, used, quantity)) {
    throw new FieldConflictError(
      'limit_exceeded',
      'Quantity',
      `${quantity} would pass the limit of ${limit} for this period: ${remainingOf(limit, used)} remaining`,
    );
  }
  return {
    transactionId: input.transactionId,
    customerId: input.customerId,
    featureId: check.feature.id,
    subscriptionId: governing.subscriptionId,
    quantity,
    limit,
    usedAfter: addQuantities(used, quantity),
    periodStart: check.period.start,
    periodEnd: check.period.end,
  };
}

/** The usage event, in the lock's transaction, naming the governing subscription. */
async function recordEvent(
  ctx: ServiceContext,
  input: ConsumeInput,
  metric: BillableMetric,
  subscriptionId: number,
  properties: Record<string, unknown>,
): Promise<void> {
  const [outcome] = await recordUsageEvents(
    ctx.db,
    ctx.account,
    nowInstant(ctx),
    [
      {
        transactionId: input.transactionId,
        customerId: input.customerId,
        subscriptionId,
        code: metric.code,
        timestamp: nowInstant(ctx),
        properties,
      },
    ],
    // The governing subscription is one of the customer's, found by the check under the same lock.
    new Map([[subscriptionId, input.customerId]]),
    storageCapOf(ctx),
    ctx.memory,
  );
  if (outcome?.status === 'duplicate') {
    throw new FieldConflictError(
      'transaction_id_reused',
      'transaction_id',
      'was already used by a usage event sent to /v1/usage-events',
    );
  }
  if (outcome?.status === 'refused') throw ValidationError.field(outcome.field, outcome.detail);
}
