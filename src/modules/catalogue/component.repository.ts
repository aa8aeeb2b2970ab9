import type { PackagePrice } from './packagePricing.ts';
import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import { catalogueChanged } from './catalogueRevision.repository.ts';
import { findVersionRowByNo, findVersionRows, listVersionRowsOf } from './versioning.repository.ts';
import type {
  ComponentBracket,
  ComponentFields,
  ComponentRecord,
  ComponentVersionRecord,
  NewComponent,
  NewComponentVersion,
  VersionCurrencyRecord,
  VersionOfComponent,
} from './component.ts';
import {
  bracketFromRow,
  componentFieldsToRow,
  componentFromRow,
  componentVersionFromRow,
  newComponentToRow,
  newComponentVersionToRow,
  versionCurrencyFromRow,
  versionOfComponentFromRow,
} from './component.mapper.ts';

/** A version's prices as stored: one entry per currency, brackets (or blocks) as canonical decimal strings. */
export interface NewVersionCurrency {
  currencyCode: string;
  brackets: { price: string; qtyFrom: string; qtyTill: string | null; flatPrice: string | null }[];
  pack: PackagePrice | null;
  /** null: the account's isTaxInclusive. */
  isTaxInclusive?: boolean | null;
}

const COMPONENT_COLUMNS = [
  'id',
  'account_id',
  'package_group_id',
  'component_code',
  'name',
  'descrip',
  'is_active',
  'unit_name',
  'term',
  'term_type',
  'type',
  'scheme',
  'last_version_no',
  'created_at',
  'metric_id',
] as const;

const CURRENCY_COLUMNS = [
  'component_version_currencies.id',
  'component_version_currencies.account_id',
  'component_version_currencies.component_version_id',
  'component_version_currencies.currency_code',
  'component_version_currencies.package_size',
  'component_version_currencies.package_price',
  'component_version_currencies.free_units',
  'component_version_currencies.is_tax_inclusive',
] as const;

const BRACKET_COLUMNS = [
  'component_brackets.id',
  'component_brackets.account_id',
  'component_brackets.component_version_currency_id',
  'component_brackets.price',
  'component_brackets.qty_from',
  'component_brackets.qty_till',
  'component_brackets.flat_price',
] as const;

/**
 * Which versions the nested reads cover: every version of some components (a list of components, whose versions
 * are not paged) or some versions (a page of one component's versions). Both are at most a page of ids, so the
 * `in (...)` lists stay far below the dialects' parameter limits however many versions and currencies there are.
 */
export type VersionScope = { componentIds: number[] } | { versionIds: number[] };

export async function findComponent(
  db: Db,
  accountId: number,
  componentId: number,
): Promise<ComponentRecord | undefined> {
  const row = await db
    .selectFrom('components')
    .select(COMPONENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', componentId)
    .executeTakeFirst();
  return row && componentFromRow(row);
}

export async function findComponents(
  db: Db,
  accountId: number,
  componentIds: readonly number[],
): Promise<ComponentRecord[]> {
  if (componentIds.length === 0) return [];
  const rows = await db
    .selectFrom('components')
    .select(COMPONENT_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...componentIds])
    .orderBy('id')
    .execute();
  return rows.map(componentFromRow);
}

export async function findVersions(
  db: Db,
  accountId: number,
  versionIds: readonly number[],
): Promise<ComponentVersionRecord[]> {
  return (await findVersionRows(db, 'components', accountId, versionIds)).map(componentVersionFromRow);
}

export function findComponentIdByCode(
  db: Db,
  accountId: number,
  code: string,
): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('components')
    .select('id')
    .where('account_id', '=', accountId)
    .where('component_code', '=', code)
    .executeTakeFirst();
}

export async function listComponents(db: Db, accountId: number, page: Page): Promise<ComponentRecord[]> {
  const rows = await db
    .selectFrom('components')
    .select(COMPONENT_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(componentFromRow);
}

export async function insertComponent(db: Db, component: NewComponent): Promise<number> {
  const inserted = await db
    .insertInto('components')
    .values(newComponentToRow(component))
    .returning('id')
    .executeTakeFirstOrThrow();
  await catalogueChanged(db, component.accountId);
  return inserted.id;
}

export async function updateComponent(
  db: Db,
  accountId: number,
  componentId: number,
  fields: ComponentFields,
): Promise<boolean> {
  const result = await db
    .updateTable('components')
    .set(componentFieldsToRow(fields))
    .where('account_id', '=', accountId)
    .where('id', '=', componentId)
    .executeTakeFirst();
  await catalogueChanged(db, accountId);
  return result.numUpdatedRows > 0n;
}

/** Every version of each of the components (a list of components does not page their versions), in id order. */
export async function listVersionsOfComponents(
  db: Db,
  accountId: number,
  componentIds: readonly number[],
): Promise<ComponentVersionRecord[]> {
  const rows = await listVersionRowsOf(db, 'components', accountId, componentIds);
  return rows.map(componentVersionFromRow);
}

/** A page of one component's versions, in VersionNo order. */
export async function listVersionsOfComponent(
  db: Db,
  accountId: number,
  componentId: number,
  page: Page,
): Promise<ComponentVersionRecord[]> {
  const rows = await listVersionRowsOf(db, 'components', accountId, [componentId], page);
  return rows.map(componentVersionFromRow);
}

export async function findVersionByNo(
  db: Db,
  accountId: number,
  componentId: number,
  versionNo: number,
): Promise<ComponentVersionRecord | undefined> {
  const row = await findVersionRowByNo(db, 'components', accountId, componentId, versionNo);
  return row && componentVersionFromRow(row);
}

export async function listCurrencies(
  db: Db,
  accountId: number,
  scope: VersionScope,
): Promise<VersionCurrencyRecord[]> {
  const ids = 'componentIds' in scope ? scope.componentIds : scope.versionIds;
  if (ids.length === 0) return [];
  let query = db
    .selectFrom('component_version_currencies')
    .select(CURRENCY_COLUMNS)
    .where('component_version_currencies.account_id', '=', accountId);
  query =
    'componentIds' in scope
      ? query
          .innerJoin(
            'component_versions',
            'component_versions.id',
            'component_version_currencies.component_version_id',
          )
          .where('component_versions.component_id', 'in', ids)
      : query.where('component_version_currencies.component_version_id', 'in', ids);
  const rows = await query.orderBy('component_version_currencies.id').execute();
  return rows.map(versionCurrencyFromRow);
}

export async function listBrackets(
  db: Db,
  accountId: number,
  scope: VersionScope,
): Promise<ComponentBracket[]> {
  const ids = 'componentIds' in scope ? scope.componentIds : scope.versionIds;
  if (ids.length === 0) return [];
  const query = db
    .selectFrom('component_brackets')
    .innerJoin(
      'component_version_currencies',
      'component_version_currencies.id',
      'component_brackets.component_version_currency_id',
    )
    .select(BRACKET_COLUMNS)
    .where('component_brackets.account_id', '=', accountId);
  const rows = await (
    'componentIds' in scope
      ? query
          .innerJoin(
            'component_versions',
            'component_versions.id',
            'component_version_currencies.component_version_id',
          )
          .where('component_versions.component_id', 'in', ids)
      : query.where('component_version_currencies.component_version_id', 'in', ids)
  )
    .orderBy('component_brackets.id')
    .execute();
  return rows.map(bracketFromRow);
}

export async function insertVersion(db: Db, version: NewComponentVersion): Promise<number> {
  const inserted = await db
    .insertInto('component_versions')
    .values(newComponentVersionToRow(version))
    .returning('id')
    .executeTakeFirstOrThrow();
  await catalogueChanged(db, version.accountId);
  return inserted.id;
}

export async function updateVersion(
  db: Db,
  accountId: number,
  versionId: number,
  changes: { versionName: string; isActive: boolean },
): Promise<void> {
  await db
    .updateTable('component_versions')
    .set({ version_name: changes.versionName, is_active: changes.isActive })
    .where('account_id', '=', accountId)
    .where('id', '=', versionId)
    .execute();
  await catalogueChanged(db, accountId);
}

/** Makes one version the component's default and every other one not: one statement, so never two defaults. */
export async function setDefaultVersion(
  db: Db,
  accountId: number,
  componentId: number,
  versionId: number,
): Promise<void> {
  await db
    .updateTable('component_versions')
    .set((eb) => ({ is_default: eb('id', '=', versionId).$castTo<boolean>() }))
    .where('account_id', '=', accountId)
    .where('component_id', '=', componentId)
    .execute();
  await catalogueChanged(db, accountId);
}

/** Replaces a version's prices: its currencies (with their brackets, by cascade) go, the given ones come. */
export async function replaceVersionCurrencies(
  db: Db,
  accountId: number,
  versionId: number,
  currencies: NewVersionCurrency[],
): Promise<void> {
  await db
    .deleteFrom('component_version_currencies')
    .where('account_id', '=', accountId)
    .where('component_version_id', '=', versionId)
    .execute();
  await catalogueChanged(db, accountId);
  await insertVersionCurrencies(db, accountId, versionId, currencies);
}

/** Per currency: one insert for the currency (its id is needed), one for its brackets, in the order given. */
export async function insertVersionCurrencies(
  db: Db,
  accountId: number,
  versionId: number,
  currencies: NewVersionCurrency[],
): Promise<void> {
  for (const currency of currencies) {
    const inserted = await db
      .insertInto('component_version_currencies')
      .values({
        account_id: accountId,
        component_version_id: versionId,
        currency_code: currency.currencyCode,
        package_size: currency.pack?.packageSize ?? null,
        package_price: currency.pack?.price ?? null,
        free_units: currency.pack?.freeUnits ?? null,
        is_tax_inclusive: currency.isTaxInclusive ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (currency.brackets.length === 0) continue;
    // NOTE: one multi-row insert numbers its rows in list order on both dialects, so ids keep the bracket order.
    await db
      .insertInto('component_brackets')
      .values(
        currency.brackets.map((bracket) => ({
          account_id: accountId,
          component_version_currency_id: inserted.id,
          price: bracket.price,
          qty_from: bracket.qtyFrom,
          qty_till: bracket.qtyTill,
          flat_price: bracket.flatPrice,
        })),
      )
      .execute();
  }
  if (currencies.length > 0) await catalogueChanged(db, accountId);
}

/** Component versions by id with their component's name, unit and scheme (usage pricing). */
export async function findVersionsWithComponents(
  db: Db,
  accountId: number,
  versionIds: number[],
): Promise<VersionOfComponent[]> {
  const rows = await db
    .selectFrom('component_versions')
    .innerJoin('components', 'components.id', 'component_versions.component_id')
    .select([
      'component_versions.id',
      'component_versions.component_id',
      'component_versions.version_no',
      'components.name',
      'components.unit_name',
      'components.scheme',
      'components.metric_id',
    ])
    .where('component_versions.account_id', '=', accountId)
    .where('component_versions.id', 'in', versionIds)
    .execute();
  return rows.map(versionOfComponentFromRow);
}
