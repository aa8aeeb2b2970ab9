import { inTransaction, nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import type { PackagePrice } from './packagePricing.ts';
import type { Bracket, Scheme } from './pricing.ts';
import { requiredText } from '../../core/text.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import * as repo from './component.repository.ts';
import {
  COMPONENTS,
  componentVersionRef,
  findComponentOrThrow,
  nestVersions,
  pricesByVersion,
} from './component.service.ts';
import type { ComponentVersion, ComponentVersionRecord } from './component.ts';
import { assertCurrenciesEnabled, checkedPrices, pricesForScheme, throwIfAny } from './componentInput.ts';
import type { VersionInput } from './componentInput.ts';
import { takeNextVersionNo } from './versioning.repository.ts';
import {
  changeVersions,
  defaultMoveSnapshots,
  deleteVersionOf,
  updatedEvents,
} from './versioning.service.ts';
import { assertEditKeepsDefault, assertVersionDeletable, newVersionIsDefault } from './versionRules.ts';
import type { VersionConflicts } from './versionRules.ts';

const VERSION_PRICES = 'ComponentVersionCurrencies';

const CONFLICTS: VersionConflicts = {
  inactiveDefault: (versionNo) =>
    new ConflictError(
      'default_version_inactive',
      `the default version${versionNo === undefined ? '' : ` (${versionNo})`} must be active while the ` +
        'component has other versions',
    ),
  defaultRequired: (versionNo, change) =>
    new ConflictError(
      'default_version_required',
      change === 'deleted'
        ? `version ${versionNo} is the default; make another version the default before deleting it`
        : `version ${versionNo} is the default; a component always has one, so make another version the ` +
            'default (isDefault true on it) instead',
    ),
  lastVersion: (versionNo) =>
    new ConflictError(
      'last_component_version',
      `version ${versionNo} is the component's last version and cannot be deleted (delete the component instead)`,
    ),
};

export async function listComponentVersions(
  ctx: ServiceContext,
  componentId: number,
  page: Page,
): Promise<ComponentVersion[]> {
  await findComponentOrThrow(ctx, componentId);
  const versions = await repo.listVersionsOfComponent(ctx.db, ctx.account.id, componentId, page);
  return nestVersions(ctx.db, ctx.account.id, versions, {
    versionIds: versions.map((version) => version.id),
  });
}

export async function getComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
): Promise<ComponentVersion> {
  await findComponentOrThrow(ctx, componentId);
  const version = await repo.findVersionByNo(ctx.db, ctx.account.id, componentId, versionNo);
  if (!version) throw new NotFoundError('Component version', versionNo);
  return (await nestVersions(ctx.db, ctx.account.id, [version], { versionIds: [version.id] }))[0]!;
}

/**
 * New prices are checked against the component's Scheme before the lock; a Scheme changed since (its edit checks
 * the stored prices under the same lock) would leave prices that do not fit it, which the bill run could not
 * price. Such a race is refused rather than stored.
 */
async function assertSchemeStill(ctx: ServiceContext, componentId: number, scheme: string): Promise<void> {
  const locked = await findComponentOrThrow(ctx, componentId);
  if (locked.scheme !== scheme) {
    throw new ConflictError(
      'component_scheme_changed',
      `Component ${componentId}'s Scheme changed from ${scheme} to ${locked.scheme} while the prices were ` +
        'checked; send them again',
    );
  }
}

function versionIn(versions: ComponentVersionRecord[], versionNo: number): ComponentVersionRecord {
  const version = versions.find((v) => v.versionNo === versionNo);
  if (!version) throw new NotFoundError('Component version', versionNo);
  return version;
}

/**
 * Spec, Component versions POST: the next VersionNo (never reused). Version rules: a component has exactly one
 * default version; isDefault true moves the default here; while a component has more than one version its
 * default is active.
 */
export async function createComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  input: VersionInput & { isActive: boolean; isDefault: boolean },
): Promise<ComponentVersion> {
  const problems: FieldProblem[] = [];
  const versionName = requiredText(input.versionName, 'VersionName', problems);
  const checked = checkedPrices(VERSION_PRICES, input.currencies ?? [], problems);
  throwIfAny(problems);
  const component = await findComponentOrThrow(ctx, componentId);
  const prices = pricesForScheme(component.scheme as Scheme, VERSION_PRICES, checked, problems);
  throwIfAny(problems);
  await assertCurrenciesEnabled(ctx, VERSION_PRICES, prices);

  const versionNo = await changeVersions(ctx, COMPONENTS, componentId, async (trx, versions) => {
    const tctx = inTransaction(ctx, trx);
    await assertSchemeStill(tctx, componentId, component.scheme);
    const isDefault = newVersionIsDefault(versions, input, CONFLICTS);
    // The new version's id is not known yet: any id but the former default's moves the default.
    const moved = isDefault ? await defaultMoveSnapshots(tctx, COMPONENTS, componentId, versions, 0) : [];
    const no = await takeNextVersionNo(trx, 'components', ctx.account.id, componentId);
    const versionId = await repo.insertVersion(trx, {
      accountId: ctx.account.id,
      componentId,
      versionNo: no,
      versionName,
      isDefault: false,
      isActive: input.isActive,
      createdAt: nowInstant(ctx),
    });
    if (isDefault) await repo.setDefaultVersion(trx, ctx.account.id, componentId, versionId);
    await repo.insertVersionCurrencies(trx, ctx.account.id, versionId, prices);
    await emitEvents(tctx, [
      { type: 'component_version.created', ref: componentVersionRef(versionId) },
      ...updatedEvents(moved),
    ]);
    return no;
  });
  return getComponentVersion(ctx, componentId, versionNo);
}

/**
 * Spec, Component versions PUT: name and isActive as sent; isDefault left out keeps the version's role; prices,
 * when sent, replace the version's (new identifiers), and left out stay.
 */
export async function editComponentVersion(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
  input: VersionInput & { isActive: boolean },
): Promise<void> {
  const problems: FieldProblem[] = [];
  const versionName = requiredText(input.versionName, 'VersionName', problems);
  const checked =
    input.currencies === undefined ? undefined : checkedPrices(VERSION_PRICES, input.currencies, problems);
  throwIfAny(problems);
  const component = await findComponentOrThrow(ctx, componentId);
  const prices = checked && pricesForScheme(component.scheme as Scheme, VERSION_PRICES, checked, problems);
  throwIfAny(problems);
  if (prices) await assertCurrenciesEnabled(ctx, VERSION_PRICES, prices);

  await changeVersions(ctx, COMPONENTS, componentId, async (trx, versions) => {
    const tctx = inTransaction(ctx, trx);
    if (prices) await assertSchemeStill(tctx, componentId, component.scheme);
    const target = versionIn(versions, versionNo);
    const wasDefault = target.isDefault;
    const isDefault = input.isDefault ?? wasDefault;
    assertEditKeepsDefault(target, { isDefault, isActive: input.isActive }, versions.length, CONFLICTS);
    const before = await snapshotResource(tctx, componentVersionRef(target.id));
    const moved =
      isDefault && !wasDefault
        ? await defaultMoveSnapshots(tctx, COMPONENTS, componentId, versions, target.id)
        : [];
    await repo.updateVersion(trx, ctx.account.id, target.id, { versionName, isActive: input.isActive });
    if (isDefault && !wasDefault) await repo.setDefaultVersion(trx, ctx.account.id, componentId, target.id);
    if (prices) await repo.replaceVersionCurrencies(trx, ctx.account.id, target.id, prices);
    await emitEvents(tctx, [
      { type: 'component_version.updated', ref: componentVersionRef(target.id), before },
      ...updatedEvents(moved),
    ]);
  });
}

/**
 * Spec, Limits: the last version of a component cannot be deleted. Nor can the default while others exist:
 * move the default first. Nor a version that subscriptions carry (409 `component_version_in_use`):
 * `subscriptionsByVersion`, counted per version by the flow that deletes it in the same transaction
 * (src/flows/componentChanges.ts).
 */
export async function deleteComponentVersionRecord(
  ctx: ServiceContext,
  componentId: number,
  versionNo: number,
  subscriptionsByVersion: ReadonlyMap<number, number>,
): Promise<void> {
  await changeVersions(ctx, COMPONENTS, componentId, async (trx, versions) => {
    const target = versionIn(versions, versionNo);
    assertVersionDeletable(target, versions.length, CONFLICTS);
    const subscriptions = subscriptionsByVersion.get(target.id) ?? 0;
    if (subscriptions > 0) {
      throw new ConflictError(
        'component_version_in_use',
        `version ${versionNo} is on ${subscriptions} subscription(s)`,
      );
    }
    await deleteVersionOf(ctx, trx, COMPONENTS, target.id);
  });
}

/** How usage of one component version is priced, for billing: its names, scheme and brackets per currency. */
export interface UsagePricing {
  componentId: number;
  componentVersionId: number;
  versionNo: number;
  name: string;
  unitName: string;
  scheme: Scheme;
  /** The billable metric its quantity is read from (docs/usage.md, "Billing usage"); null: recorded per period. */
  metricId: number | null;
  bracketsByCurrency: Map<string, Bracket[]>;
  /** The blocks per currency under the package scheme (its brackets are empty). */
  packByCurrency: Map<string, PackagePrice>;
  /** Per currency: whether its prices include tax; null follows the account's isTaxInclusive. */
  taxInclusiveByCurrency: Map<string, boolean | null>;
}

/** The pricing of the given component versions of the account (unknown ids are left out), in three statements. */
export async function usagePricing(
  ctx: ServiceContext,
  versionIds: number[],
): Promise<Map<number, UsagePricing>> {
  const unique = [...new Set(versionIds)];
  if (unique.length === 0) return new Map();
  const versions = await repo.findVersionsWithComponents(ctx.db, ctx.account.id, unique);
  const pricesOf = await pricesByVersion(ctx.db, ctx.account.id, { versionIds: unique });
  return new Map(
    versions.map((v) => [
      v.id,
      {
        componentId: v.componentId,
        componentVersionId: v.id,
        versionNo: v.versionNo,
        name: v.name,
        unitName: v.unitName,
        scheme: v.scheme as Scheme,
        metricId: v.metricId,
        bracketsByCurrency: new Map(
          pricesOf(v.id).map((c) => [
            c.currencyCode,
            c.brackets.map((b) => ({
              qtyFrom: b.qtyFrom,
              qtyTill: b.qtyTill,
              price: b.price,
              flatPrice: b.flatPrice,
            })),
          ]),
        ),
        packByCurrency: new Map(
          pricesOf(v.id).flatMap((c) => (c.pack ? [[c.currencyCode, c.pack] as const] : [])),
        ),
        taxInclusiveByCurrency: new Map(pricesOf(v.id).map((c) => [c.currencyCode, c.isTaxInclusive])),
      },
    ]),
  );
}
