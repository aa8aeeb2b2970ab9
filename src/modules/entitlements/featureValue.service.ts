import Big from 'big.js';
import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { canonicalDecimal, decimalPlaces, readWireDecimal } from '../../core/wireDecimal.ts';
import { getPackage } from '../catalogue/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { getSubscription } from '../subscriptions/index.ts';
import { VALUE_DECIMALS } from '../usage/index.ts';
import { featuresByIds, getFeatureByCode } from './feature.service.ts';
import type { FeatureView } from './feature.service.ts';
import * as repo from './featureValue.repository.ts';
import type { Feature, FeatureValue, FeatureValueOwner, Grant } from './feature.ts';

/** A value with its feature, as the API shows it. */
export interface FeatureValueView extends FeatureValue {
  feature: FeatureView;
}

/** A value as sent: each field only when present; `limit` null means unlimited. */
export interface GrantInput {
  enabled?: boolean;
  limit?: number | string | null;
  value?: string;
}

const valueRef = (id: number) => ({ type: 'feature_value', id });

export async function featureValuesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, FeatureValueView>> {
  return new Map(
    (await withFeatures(ctx, await repo.findValuesByIds(ctx.db, ctx.account.id, ids))).map((v) => [v.id, v]),
  );
}

/** The values a package gives, or the overrides set on a subscription (404 when the owner is not the account's). */
export async function listFeatureValues(
  ctx: ServiceContext,
  owner: FeatureValueOwner,
): Promise<FeatureValueView[]> {
  await assertOwnerExists(ctx, owner);
  return withFeatures(ctx, await repo.listValuesOf(ctx.db, ctx.account.id, owner));
}

/** Gives the feature to a package, or overrides it on a subscription, replacing any value it had. */
export async function setFeatureValue(
  ctx: ServiceContext,
  owner: FeatureValueOwner,
  featureCode: string,
  input: GrantInput,
): Promise<FeatureValueView> {
  await assertOwnerExists(ctx, owner);
  const feature = await getFeatureByCode(ctx, featureCode);
  const grant = checkedGrant(feature, input);
  const id = await withTransaction(ctx, async (tctx) => {
    const existing = await repo.findValue(tctx.db, ctx.account.id, owner, feature.id);
    const before = existing ? await snapshotResource(tctx, valueRef(existing.id)) : undefined;
    const valueId = await repo.upsertValue(
      tctx.db,
      ctx.account.id,
      owner,
      feature.id,
      grant,
      nowInstant(ctx),
    );
    await emitEvent(tctx, 'feature_value.set', valueRef(valueId), before ? { before } : {});
    return valueId;
  });
  return (await featureValuesByIds(ctx, [id])).get(id)!;
}

export async function removeFeatureValue(
  ctx: ServiceContext,
  owner: FeatureValueOwner,
  featureCode: string,
): Promise<void> {
  await assertOwnerExists(ctx, owner);
  const feature = await getFeatureByCode(ctx, featureCode);
  await withTransaction(ctx, async (tctx) => {
    const existing = await repo.findValue(tctx.db, ctx.account.id, owner, feature.id);
    if (!existing) throw new NotFoundError('Feature value', featureCode);
    const before = await snapshotResource(tctx, valueRef(existing.id));
    await repo.deleteValue(tctx.db, ctx.account.id, existing.id);
    await emitEvent(tctx, 'feature_value.removed', valueRef(existing.id), { before });
  });
}

async function assertOwnerExists(ctx: ServiceContext, owner: FeatureValueOwner): Promise<void> {
  if (owner.type === 'package') await getPackage(ctx, owner.id);
  else await getSubscription(ctx, owner.id);
}

/**
 * The grant a value gives, in the feature type's terms: a boolean feature is on or off (`Enabled`), a limit
 * feature has a `Limit` per billing period (null: unlimited), a config feature a `Value`; a field of another type
 * is refused, naming it. `Enabled` false withholds any type (an override turning a package's feature off).
 */
export function checkedGrant(feature: Feature, input: GrantInput): Grant {
  const problems: FieldProblem[] = [];
  const foreign = (field: string) =>
    problems.push({ field, message: `not a field of a ${feature.type} feature` });
  if (feature.type === 'boolean' && input.enabled === undefined) {
    problems.push({ field: 'Enabled', message: 'is required for a boolean feature' });
  }
  if (feature.type !== 'limit' && input.limit !== undefined) foreign('Limit');
  if (feature.type !== 'config' && input.value !== undefined) foreign('Value');
  if (feature.type === 'limit' && input.limit === undefined) {
    problems.push({ field: 'Limit', message: 'is required for a limit feature (null: unlimited)' });
  }
  if (feature.type === 'config' && input.value === undefined) {
    problems.push({ field: 'Value', message: 'is required for a config feature' });
  }
  const limit = feature.type === 'limit' ? checkedLimit(input.limit, problems) : null;
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    enabled: input.enabled ?? true,
    limit,
    value: feature.type === 'config' ? (input.value ?? null) : null,
  };
}

/** A quantity per period: zero or more, with at most the places usage is counted in (NumUnits' precision). */
function checkedLimit(limit: number | string | null | undefined, problems: FieldProblem[]): string | null {
  if (limit === undefined || limit === null) return null;
  const read = readWireDecimal(limit);
  if ('problem' in read) {
    problems.push({ field: 'Limit', message: 'must be a decimal number' });
    return null;
  }
  if (read.value.lt(0)) problems.push({ field: 'Limit', message: 'must not be negative' });
  if (decimalPlaces(read.value) > VALUE_DECIMALS) {
    problems.push({ field: 'Limit', message: `must have at most ${VALUE_DECIMALS} decimal places` });
  }
  if (read.value.gt(new Big('1e15'))) problems.push({ field: 'Limit', message: 'must be at most 10^15' });
  return canonicalDecimal(read.value);
}

async function withFeatures(ctx: ServiceContext, values: FeatureValue[]): Promise<FeatureValueView[]> {
  const features = await featuresByIds(
    ctx,
    values.map((v) => v.featureId),
  );
  return values.flatMap((v) => {
    const feature = features.get(v.featureId);
    return feature ? [{ ...v, feature }] : [];
  });
}
