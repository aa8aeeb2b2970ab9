import { childrenByParent } from '../../core/groupBy.ts';
import { inTransaction, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Page } from '../../core/paging.ts';
import { isScheme } from './pricing.ts';
import type { Scheme } from './pricing.ts';
import { requiredText } from '../../core/text.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import type { Db } from '../../storage/database.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import * as repo from './component.repository.ts';
import type { VersionScope } from './component.repository.ts';
import type {
  Component,
  ComponentRecord,
  ComponentVersion,
  ComponentVersionRecord,
  VersionCurrency,
} from './component.ts';
import {
  assertCurrenciesEnabled,
  checkedComponent,
  checkedPrices,
  pricesForScheme,
  schemeProblems,
  throwIfAny,
} from './componentInput.ts';
import type { ComponentInput, VersionInput } from './componentInput.ts';
import {
  assertLinkChangeAllowed,
  assertLinkFitsType,
  assertMetricOpen,
  metricCodesByIds,
  requestedMetricId,
} from './componentMetric.service.ts';
import { assertPackageGroupExists } from './packageGroup.service.ts';
import { lockVersionedItem } from './versioning.repository.ts';
import { changeVersions, deleteItemWithVersions } from './versioning.service.ts';
import type { VersionedKind } from './versioning.service.ts';

/**
 * The prices of the versions in the scope, by version id: currencies with their brackets, one statement per
 * level, each `where ... in (...)` over the scope. Every level is ordered by id.
 */
export async function pricesByVersion(
  db: Db,
  accountId: number,
  scope: VersionScope,
): Promise<(versionId: number) => VersionCurrency[]> {
  const currencies = await repo.listCurrencies(db, accountId, scope);
  const bracketsOf = childrenByParent(
    await repo.listBrackets(db, accountId, scope),
    (b) => b.componentVersionCurrencyId,
  );
  return childrenByParent(
    currencies.map((currency) => ({ ...currency, brackets: bracketsOf(currency.id) })),
    (c) => c.componentVersionId,
  );
}

/** Versions with their prices and brackets, in a fixed number of statements however many there are. */
export async function nestVersions(
  db: Db,
  accountId: number,
  versions: ComponentVersionRecord[],
  scope: VersionScope,
): Promise<ComponentVersion[]> {
  if (versions.length === 0) return [];
  const pricesOf = await pricesByVersion(db, accountId, scope);
  return versions.map((version) => ({ ...version, currencies: pricesOf(version.id) }));
}

async function withVersions(ctx: ServiceContext, components: ComponentRecord[]): Promise<Component[]> {
  const componentIds = components.map((component) => component.id);
  const versions = await repo.listVersionsOfComponents(ctx.db, ctx.account.id, componentIds);
  const versionsOf = childrenByParent(
    await nestVersions(ctx.db, ctx.account.id, versions, { componentIds }),
    (v) => v.componentId,
  );
  const metricIds = components.flatMap((component) =>
    component.metricId === null ? [] : [component.metricId],
  );
  const metricCodes = await metricCodesByIds(ctx, metricIds);
  return components.map((component) => ({
    ...component,
    metricCode: component.metricId === null ? null : (metricCodes.get(component.metricId) ?? null),
    versions: versionsOf(component.id),
  }));
}

export const componentRef = (id: number) => ({ type: 'component', id });
export const componentVersionRef = (id: number) => ({ type: 'component_version', id });

/** Components as the steps they share with packages see them (versioning.service.ts). */
export const COMPONENTS: VersionedKind<ComponentVersionRecord> = {
  table: 'components',
  name: 'Component',
  itemRef: componentRef,
  versionRef: componentVersionRef,
  listVersions: (db, accountId, componentId) => repo.listVersionsOfComponents(db, accountId, [componentId]),
};

/** The account's components with these ids, by id, as GET /v1/components/{id} shows them. */
export async function componentsByIds(
  ctx: ServiceContext,
  componentIds: readonly number[],
): Promise<Map<number, Component>> {
  const components = await withVersions(ctx, await repo.findComponents(ctx.db, ctx.account.id, componentIds));
  return new Map(components.map((component) => [component.id, component]));
}

/** The account's component versions with these ids (componentVersionID), by id. */
export async function componentVersionsByIds(
  ctx: ServiceContext,
  versionIds: readonly number[],
): Promise<Map<number, ComponentVersion>> {
  const records = await repo.findVersions(ctx.db, ctx.account.id, versionIds);
  const versions = await nestVersions(ctx.db, ctx.account.id, records, {
    versionIds: records.map((record) => record.id),
  });
  return new Map(versions.map((version) => [version.id, version]));
}

export async function findComponentOrThrow(
  ctx: ServiceContext,
  componentId: number,
): Promise<ComponentRecord> {
  const component = await repo.findComponent(ctx.db, ctx.account.id, componentId);
  if (!component) throw new NotFoundError('Component', componentId);
  return component;
}

export async function getComponent(ctx: ServiceContext, componentId: number): Promise<Component> {
  return (await withVersions(ctx, [await findComponentOrThrow(ctx, componentId)]))[0]!;
}

export async function listComponents(ctx: ServiceContext, page: Page): Promise<Component[]> {
  return withVersions(ctx, await repo.listComponents(ctx.db, ctx.account.id, page));
}

/** Public notes, Catalogue: component codes are unique (per account). */
async function assertCodeFree(ctx: ServiceContext, code: string, componentId?: number): Promise<void> {
  const holder = await repo.findComponentIdByCode(ctx.db, ctx.account.id, code);
  if (holder && holder.id !== componentId) {
    throw new ConflictError(
      'component_code_taken',
      `ComponentCode "${code}" belongs to component ${holder.id}`,
    );
  }
}

function codeConflict(error: unknown, code: string | undefined): unknown {
  return isUniqueViolation(error)
    ? new ConflictError('component_code_taken', `ComponentCode "${code}" belongs to another component`)
    : error;
}

const FIRST_VERSION_PRICES = 'ComponentVersion.ComponentVersionCurrencies';

/** Spec, Components POST: the component with its first version, VersionNo 1, which is the default. */
export async function createComponent(
  ctx: ServiceContext,
  input: ComponentInput & { componentCode: string },
  version: VersionInput,
): Promise<Component> {
  const problems: FieldProblem[] = [];
  const fields = checkedComponent(input, problems);
  const versionName = requiredText(version.versionName, 'ComponentVersion.VersionName', problems);
  const checked = checkedPrices(FIRST_VERSION_PRICES, version.currencies ?? [], problems);
  const prices = isScheme(fields.scheme ?? '')
    ? pricesForScheme(fields.scheme as Scheme, FIRST_VERSION_PRICES, checked, problems)
    : [];
  throwIfAny(problems);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  await assertCurrenciesEnabled(ctx, FIRST_VERSION_PRICES, prices);
  const code = fields.componentCode!;
  await assertCodeFree(ctx, code);
  const metricId = (await requestedMetricId(ctx, input.metricCode)) ?? null;
  assertLinkFitsType(fields.type, metricId, true);

  const now = nowInstant(ctx);
  let componentId: number;
  try {
    componentId = await ctx.db.transaction().execute(async (trx) => {
      if (metricId !== null) await assertMetricOpen(inTransaction(ctx, trx), metricId);
      const id = await repo.insertComponent(trx, {
        ...fields,
        metricId,
        componentCode: code,
        accountId: ctx.account.id,
        lastVersionNo: 1,
        createdAt: now,
      });
      const versionId = await repo.insertVersion(trx, {
        accountId: ctx.account.id,
        componentId: id,
        versionNo: 1,
        versionName,
        isDefault: true,
        // Our choice: the blueprint version is active unless the request says otherwise.
        isActive: version.isActive ?? true,
        createdAt: now,
      });
      await repo.insertVersionCurrencies(trx, ctx.account.id, versionId, prices);
      await emitEvents(inTransaction(ctx, trx), [
        { type: 'component.created', ref: componentRef(id) },
        { type: 'component_version.created', ref: componentVersionRef(versionId) },
      ]);
      return id;
    });
  } catch (error) {
    throw codeConflict(error, code);
  }
  return getComponent(ctx, componentId);
}

/**
 * Spec, Components PUT: replaces the component's own fields (its versions are edited on their own paths).
 * ComponentCode may change, staying unique; left out, it stays. `subscriptions`: how many carry it, counted by the
 * flow that edits it in the same transaction (src/flows/componentChanges.ts); its MetricCode stays while any does.
 */
export async function editComponentRecord(
  ctx: ServiceContext,
  componentId: number,
  input: ComponentInput,
  subscriptions: number,
): Promise<void> {
  const problems: FieldProblem[] = [];
  const changes = checkedComponent(input, problems);
  throwIfAny(problems);
  const current = await findComponentOrThrow(ctx, componentId);
  await assertPackageGroupExists(ctx, input.packageGroupId, 'packageGroupID');
  if (changes.componentCode !== undefined) await assertCodeFree(ctx, changes.componentCode, componentId);
  changes.metricId = await requestedMetricId(ctx, input.metricCode);
  assertLinkFitsType(changes.type, changes.metricId ?? current.metricId, changes.metricId !== undefined);
  // NOTE: Type and Scheme may change while subscriptions carry the component; docs/spec-decisions.md, "Components",
  // says why. A new Scheme must fit every version's prices (docs/spec-decisions.md, "Pricing models").
  try {
    await withTransaction(ctx, async (tctx) => {
      if (changes.scheme !== current.scheme) {
        const locked = await lockVersionedItem(tctx.db, 'components', ctx.account.id, componentId);
        if (!locked) throw new NotFoundError('Component', componentId);
        await assertSchemeFitsPrices(tctx, componentId, changes.scheme as Scheme);
      }
      assertLinkChangeAllowed(current, changes.metricId, subscriptions);
      if (changes.metricId) await assertMetricOpen(tctx, changes.metricId);
      const before = await snapshotResource(tctx, componentRef(componentId));
      if (!(await repo.updateComponent(tctx.db, ctx.account.id, componentId, changes))) {
        throw new NotFoundError('Component', componentId);
      }
      await emitEvent(tctx, 'component.updated', componentRef(componentId), { before });
    });
  } catch (error) {
    throw codeConflict(error, changes.componentCode);
  }
}

/** A Scheme that some version's prices do not fit is refused, naming the version and currency. */
async function assertSchemeFitsPrices(
  ctx: ServiceContext,
  componentId: number,
  scheme: Scheme,
): Promise<void> {
  const versions = await repo.listVersionsOfComponents(ctx.db, ctx.account.id, [componentId]);
  const pricesOf = await pricesByVersion(ctx.db, ctx.account.id, { componentIds: [componentId] });
  const problems: FieldProblem[] = [];
  for (const version of versions) {
    for (const currency of pricesOf(version.id)) {
      const misfits = schemeProblems(scheme, 'prices', {
        brackets: currency.brackets,
        packageFields: {
          packageSize: currency.pack?.packageSize ?? null,
          price: currency.pack?.price ?? null,
          freeUnits: currency.pack?.freeUnits ?? null,
        },
      });
      for (const misfit of misfits) {
        problems.push({
          field: 'Scheme',
          message:
            `the prices of version ${version.versionNo} in ${currency.currencyCode} do not fit ${scheme}: ` +
            `${misfit.field.replace(/^prices\.?/, '')}: ${misfit.message}; edit the version's prices first`,
        });
      }
    }
  }
  throwIfAny(problems.slice(0, 1));
}

/**
 * Deletes the component with its versions and prices, given how many subscriptions carry it (ended ones included:
 * their usage refers to it), counted by the flow that deletes it in the same transaction
 * (src/flows/componentChanges.ts). A component on any is a 409 `component_in_use`; take it off them first
 * (components/modify).
 */
export async function deleteComponentRecord(
  ctx: ServiceContext,
  componentId: number,
  subscriptions: number,
): Promise<void> {
  await changeVersions(ctx, COMPONENTS, componentId, async (trx, versions) => {
    if (subscriptions > 0) {
      throw new ConflictError(
        'component_in_use',
        `Component ${componentId} is on ${subscriptions} subscription(s); make it inactive instead`,
      );
    }
    await deleteItemWithVersions(ctx, trx, COMPONENTS, componentId, versions);
  });
}

/** The ids of the component's versions: what the flows count subscriptions on (src/flows/componentChanges.ts). */
export async function componentVersionIds(ctx: ServiceContext, componentId: number): Promise<number[]> {
  return (await repo.listVersionsOfComponents(ctx.db, ctx.account.id, [componentId])).map((v) => v.id);
}
