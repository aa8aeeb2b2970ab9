import type { Page } from '../../core/paging.ts';
import type { Db } from '../../storage/database.ts';
import type { CustomField, StoredCustomValue } from './customField.ts';
import { customFieldFromRow, customValueFromRow } from './customField.mapper.ts';

/** The account's fields in definition order: a page of them, or all when no page is given. */
export async function listCustomFields(db: Db, accountId: number, page?: Page): Promise<CustomField[]> {
  const rows = await db
    .selectFrom('custom_fields')
    .select(['id', 'field_key'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .$if(page !== undefined, (qb) => qb.limit(page!.limit).offset(page!.offset))
    .execute();
  return rows.map(customFieldFromRow);
}

export async function findCustomFields(
  db: Db,
  accountId: number,
  fieldIds: readonly number[],
): Promise<CustomField[]> {
  if (fieldIds.length === 0) return [];
  const rows = await db
    .selectFrom('custom_fields')
    .select(['id', 'field_key'])
    .where('account_id', '=', accountId)
    .where('id', 'in', [...fieldIds])
    .orderBy('id')
    .execute();
  return rows.map(customFieldFromRow);
}

export async function insertCustomField(
  db: Db,
  accountId: number,
  key: string,
  createdAt: string,
): Promise<number> {
  const row = await db
    .insertInto('custom_fields')
    .values({ account_id: accountId, field_key: key, created_at: createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteCustomField(db: Db, accountId: number, fieldId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('custom_fields')
    .where('account_id', '=', accountId)
    .where('id', '=', fieldId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function listCustomValues(
  db: Db,
  accountId: number,
  customerIds: number[],
): Promise<StoredCustomValue[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom('customer_custom_values')
    .select(['customer_id', 'custom_field_id', 'value'])
    .where('account_id', '=', accountId)
    .where('customer_id', 'in', customerIds)
    .execute();
  return rows.map(customValueFromRow);
}

export async function upsertCustomValue(
  db: Db,
  value: { accountId: number; customerId: number; fieldId: number; value: string | null },
): Promise<void> {
  await db
    .insertInto('customer_custom_values')
    .values({
      account_id: value.accountId,
      customer_id: value.customerId,
      custom_field_id: value.fieldId,
      value: value.value,
    })
    .onConflict((oc) =>
      oc.columns(['customer_id', 'custom_field_id', 'account_id']).doUpdateSet({ value: value.value }),
    )
    .execute();
}
