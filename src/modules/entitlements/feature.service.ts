import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Page } from '../../core/paging.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { metricsByCodes, metricsByIds } from '../catalogue/index.ts';
import type { BillableMetric } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './feature.repository.ts';
import { countValuesOfFeature } from './featureValue.repository.ts';
import type { Feature, FeatureType } from './feature.ts';

/** A feature with the code of its metric, as the API shows it. */
export interface FeatureView extends Feature {
  metricCode: string | null;
}

/** What a feature is made or replaced with, in wire terms already read. */
export interface FeatureInput {
  code: string;
  name: string;
  descrip: string | null;
  type: FeatureType;
  metricCode: string | null;
}

/** A 409 that names the field at fault, as a 422 would. */
export class FieldConflictError extends ConflictError {
  readonly fields: FieldProblem[];
  constructor(code: string, field: string, message: string) {
    super(code, `${field}: ${message}`);
    this.fields = [{ field, message }];
  }
}

const featureRef = (id: number) => ({ type: 'feature', id });

/**
 * The metric aggregations whose used amount grows by exactly what a check-and-record consumes: a `count` event adds
 * one, a `sum` event adds its value. The others (max, latest, unique_count, weighted_sum) could not tell whether a
 * quantity fits before it is recorded.
 */
const LIMITABLE = new Set(['count', 'sum']);

export async function featuresByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, FeatureView>> {
  const found = await withMetricCodes(ctx, await repo.findFeatures(ctx.db, ctx.account.id, ids));
  return new Map(found.map((feature) => [feature.id, feature]));
}

export async function getFeature(ctx: ServiceContext, featureId: number): Promise<FeatureView> {
  const feature = (await featuresByIds(ctx, [featureId])).get(featureId);
  if (!feature) throw new NotFoundError('Feature', featureId);
  return feature;
}

/** The feature with this code; a 404 naming the code when the account has none. */
export async function getFeatureByCode(ctx: ServiceContext, code: string): Promise<Feature> {
  const feature = await repo.findFeatureByCode(ctx.db, ctx.account.id, code);
  if (!feature) throw new NotFoundError('Feature', code);
  return feature;
}

export async function listFeatures(ctx: ServiceContext, page: Page): Promise<FeatureView[]> {
  return withMetricCodes(ctx, await repo.listFeatures(ctx.db, ctx.account.id, page));
}

export async function createFeature(ctx: ServiceContext, input: FeatureInput): Promise<FeatureView> {
  const fields = await checkedFields(ctx, input);
  const id = await withTransaction(ctx, async (tctx) => {
    const featureId = await codeTakenAs409(input.code, () =>
      repo.insertFeature(tctx.db, ctx.account.id, fields, nowInstant(ctx)),
    );
    await emitEvent(tctx, 'feature.created', featureRef(featureId));
    return featureId;
  });
  return getFeature(ctx, id);
}

/** Replaces a feature's fields; its Type is fixed once made (its values were given in that type's terms). */
export async function updateFeature(
  ctx: ServiceContext,
  featureId: number,
  input: FeatureInput,
): Promise<void> {
  const current = await getFeature(ctx, featureId);
  if (input.type !== current.type) {
    throw ValidationError.field(
      'Type',
      `a feature's type cannot change (it is ${current.type})`,
      'feature_type_fixed',
    );
  }
  const fields = await checkedFields(ctx, input);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, featureRef(featureId));
    const updated = await codeTakenAs409(input.code, () =>
      repo.updateFeature(tctx.db, ctx.account.id, featureId, fields, nowInstant(ctx)),
    );
    if (!updated) throw new NotFoundError('Feature', featureId);
    await emitEvent(tctx, 'feature.updated', featureRef(featureId), { before });
  });
}

/** A feature that packages or subscriptions still give cannot be deleted (409): remove their values first. */
export async function deleteFeature(ctx: ServiceContext, featureId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const given = await countValuesOfFeature(trx, ctx.account.id, featureId);
    if (given > 0) {
      throw new ConflictError(
        'feature_in_use',
        `Feature ${featureId} is given by ${given} package(s) or subscription(s)`,
      );
    }
    const before = await snapshotResource(tctx, featureRef(featureId));
    if (!(await repo.deleteFeature(trx, ctx.account.id, featureId)))
      throw new NotFoundError('Feature', featureId);
    await emitEvent(tctx, 'feature.deleted', featureRef(featureId), { before });
  });
}

async function checkedFields(ctx: ServiceContext, input: FeatureInput): Promise<repo.FeatureFields> {
  const name = input.name.trim();
  if (name === '') throw ValidationError.field('Name', 'must not be blank');
  const metric = await checkedMetric(ctx, input);
  return { code: input.code, name, descrip: input.descrip, type: input.type, metricId: metric?.id ?? null };
}

/** A limit feature names an active metric it can limit; the other types name none. */
async function checkedMetric(ctx: ServiceContext, input: FeatureInput): Promise<BillableMetric | undefined> {
  if (input.type !== 'limit') {
    if (input.metricCode !== null)
      throw ValidationError.field('MetricCode', `only a limit feature names a metric`);
    return undefined;
  }
  if (input.metricCode === null)
    throw ValidationError.field('MetricCode', 'a limit feature must name a metric');
  const metric = (await metricsByCodes(ctx.db, ctx.account.id, [input.metricCode])).get(input.metricCode);
  if (!metric || metric.archivedAt !== null) {
    throw ValidationError.field(
      'MetricCode',
      `no active metric has code ${input.metricCode}`,
      'metric_not_found',
    );
  }
  if (!LIMITABLE.has(metric.aggregation)) {
    throw ValidationError.field(
      'MetricCode',
      `a limit needs a count or sum metric; ${metric.code} aggregates by ${metric.aggregation}`,
    );
  }
  return metric;
}

async function codeTakenAs409<T>(code: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new FieldConflictError('feature_code_taken', 'Code', `another feature has code ${code}`);
    }
    throw error;
  }
}

async function withMetricCodes(ctx: ServiceContext, features: Feature[]): Promise<FeatureView[]> {
  const ids = features.flatMap((f) => (f.metricId === null ? [] : [f.metricId]));
  const metrics = await metricsByIds(ctx.db, ctx.account.id, ids);
  return features.map((f) => ({
    ...f,
    metricCode: f.metricId === null ? null : (metrics.get(f.metricId)?.code ?? null),
  }));
}
