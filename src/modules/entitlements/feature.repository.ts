import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import type { FeaturesTable } from './tables.ts';
import type { Feature, FeatureType } from './feature.ts';

const FEATURE_COLUMNS = [
  'id',
  'code',
  'name',
  'descrip',
  'type',
  'metric_id',
  'created_at',
  'updated_at',
] as const;

type FeatureRow = Pick<Selectable<FeaturesTable>, (typeof FEATURE_COLUMNS)[number]>;

function featureFromRow(row: FeatureRow): Feature {
  return {
    id: Number(row.id),
    code: row.code,
    name: row.name,
    descrip: row.descrip,
    type: row.type as FeatureType,
    metricId: row.metric_id === null ? null : Number(row.metric_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** What a feature is made or edited with. */
export interface FeatureFields {
  code: string;
  name: string;
  descrip: string | null;
  type: FeatureType;
  metricId: number | null;
}

export async function findFeatures(db: Db, accountId: number, ids: readonly number[]): Promise<Feature[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('features')
    .select(FEATURE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map(featureFromRow);
}

export async function findFeatureByCode(
  db: Db,
  accountId: number,
  code: string,
): Promise<Feature | undefined> {
  const row = await db
    .selectFrom('features')
    .select(FEATURE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('code', '=', code)
    .executeTakeFirst();
  return row && featureFromRow(row);
}

export async function listFeatures(db: Db, accountId: number, page: Page): Promise<Feature[]> {
  const rows = await db
    .selectFrom('features')
    .select(FEATURE_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(featureFromRow);
}

export async function insertFeature(
  db: Db,
  accountId: number,
  fields: FeatureFields,
  at: string,
): Promise<number> {
  const inserted = await db
    .insertInto('features')
    .values({
      account_id: accountId,
      code: fields.code,
      name: fields.name,
      descrip: fields.descrip,
      type: fields.type,
      metric_id: fields.metricId,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(inserted.id);
}

export async function updateFeature(
  db: Db,
  accountId: number,
  featureId: number,
  fields: FeatureFields,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('features')
    .set({
      code: fields.code,
      name: fields.name,
      descrip: fields.descrip,
      metric_id: fields.metricId,
      updated_at: at,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', featureId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Its kept check-and-record answers go with it (the foreign key cascades). */
export async function deleteFeature(db: Db, accountId: number, featureId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('features')
    .where('account_id', '=', accountId)
    .where('id', '=', featureId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
