import type { Selectable } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { FeatureValuesTable } from './tables.ts';
import type { FeatureValue, FeatureValueOwner, Grant } from './feature.ts';

const VALUE_COLUMNS = [
  'id',
  'feature_id',
  'package_id',
  'subscription_id',
  'enabled',
  'limit_quantity',
  'config_value',
  'updated_at',
] as const;

type ValueRow = Pick<Selectable<FeatureValuesTable>, (typeof VALUE_COLUMNS)[number]>;

function valueFromRow(row: ValueRow): FeatureValue {
  const owner: FeatureValueOwner =
    row.package_id !== null
      ? { type: 'package', id: Number(row.package_id) }
      : { type: 'subscription', id: Number(row.subscription_id) };
  return {
    id: Number(row.id),
    featureId: Number(row.feature_id),
    owner,
    enabled: Boolean(row.enabled),
    limit: row.limit_quantity,
    value: row.config_value,
    updatedAt: row.updated_at,
  };
}

const ownerColumn = (owner: FeatureValueOwner) =>
  owner.type === 'package' ? ('package_id' as const) : ('subscription_id' as const);

export async function findValuesByIds(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<FeatureValue[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('feature_values')
    .select(VALUE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map(valueFromRow);
}

/** The values one package or subscription has, by feature id order. */
export async function listValuesOf(
  db: Db,
  accountId: number,
  owner: FeatureValueOwner,
): Promise<FeatureValue[]> {
  const rows = await db
    .selectFrom('feature_values')
    .select(VALUE_COLUMNS)
    .where('account_id', '=', accountId)
    .where(ownerColumn(owner), '=', owner.id)
    .orderBy('feature_id')
    .execute();
  return rows.map(valueFromRow);
}

/** Every value the packages and subscriptions give (of one feature, when named). */
export async function listValuesFor(
  db: Db,
  accountId: number,
  owners: { packageIds: readonly number[]; subscriptionIds: readonly number[] },
  featureId?: number,
): Promise<FeatureValue[]> {
  if (owners.packageIds.length === 0 && owners.subscriptionIds.length === 0) return [];
  let query = db
    .selectFrom('feature_values')
    .select(VALUE_COLUMNS)
    .where('account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        ...(owners.packageIds.length > 0 ? [eb('package_id', 'in', [...owners.packageIds])] : []),
        ...(owners.subscriptionIds.length > 0
          ? [eb('subscription_id', 'in', [...owners.subscriptionIds])]
          : []),
      ]),
    );
  if (featureId !== undefined) query = query.where('feature_id', '=', featureId);
  return (await query.orderBy('id').execute()).map(valueFromRow);
}

export async function findValue(
  db: Db,
  accountId: number,
  owner: FeatureValueOwner,
  featureId: number,
): Promise<FeatureValue | undefined> {
  const row = await db
    .selectFrom('feature_values')
    .select(VALUE_COLUMNS)
    .where('account_id', '=', accountId)
    .where(ownerColumn(owner), '=', owner.id)
    .where('feature_id', '=', featureId)
    .executeTakeFirst();
  return row && valueFromRow(row);
}

/**
 * Sets the owner's value of the feature, made or replaced in one statement (two concurrent PUTs of the same value
 * cannot both insert); its id.
 */
export async function upsertValue(
  db: Db,
  accountId: number,
  owner: FeatureValueOwner,
  featureId: number,
  grant: Grant,
  at: string,
): Promise<number> {
  const column = ownerColumn(owner);
  const row = await db
    .insertInto('feature_values')
    .values({
      account_id: accountId,
      feature_id: featureId,
      package_id: owner.type === 'package' ? owner.id : null,
      subscription_id: owner.type === 'subscription' ? owner.id : null,
      enabled: grant.enabled,
      limit_quantity: grant.limit,
      config_value: grant.value,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns([column, 'feature_id', 'account_id']).doUpdateSet({
        enabled: grant.enabled,
        limit_quantity: grant.limit,
        config_value: grant.value,
        updated_at: at,
      }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function deleteValue(db: Db, accountId: number, valueId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('feature_values')
    .where('account_id', '=', accountId)
    .where('id', '=', valueId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** How many packages and subscriptions give the feature (a feature in use cannot be deleted). */
export async function countValuesOfFeature(db: Db, accountId: number, featureId: number): Promise<number> {
  const row = await db
    .selectFrom('feature_values')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('feature_id', '=', featureId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
