import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import type { Page } from '../../core/paging.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import * as repo from './customFields.repository.ts';
import type { CustomField, CustomFieldValue } from './customField.ts';

export type { CustomField, CustomFieldValue } from './customField.ts';

export async function listCustomFields(ctx: ServiceContext, page: Page): Promise<CustomField[]> {
  return repo.listCustomFields(ctx.db, ctx.account.id, page);
}

export async function createCustomField(ctx: ServiceContext, key: string): Promise<CustomField> {
  const trimmed = key.trim();
  if (trimmed === '') throw ValidationError.field('Key', 'must not be blank');
  try {
    const id = await withTransaction(ctx, async (tctx) => {
      const fieldId = await repo.insertCustomField(
        tctx.db,
        ctx.account.id,
        trimmed,
        ctx.clock.now().toISOString(),
      );
      await emitEvent(tctx, 'custom_field.created', customFieldRef(fieldId));
      return fieldId;
    });
    return { id, key: trimmed };
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError('custom_field_exists', `Custom field "${trimmed}" exists`);
    throw error;
  }
}

/**
 * Deletes the field definition and every customer's value for it. Only `custom_field.deleted` announces it: the
 * customers' objects lose the field from then on, without a `customer.updated` each (the same goes for a new field).
 */
export async function deleteCustomField(ctx: ServiceContext, fieldId: number): Promise<void> {
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, customFieldRef(fieldId));
    if (!(await repo.deleteCustomField(tctx.db, ctx.account.id, fieldId))) {
      throw new NotFoundError('Custom field', fieldId);
    }
    await emitEvent(tctx, 'custom_field.deleted', customFieldRef(fieldId), { before });
  });
}

const customFieldRef = (id: number) => ({ type: 'custom_field', id });

/** The account's field definitions with these ids, by id. */
export async function customFieldsByIds(
  ctx: ServiceContext,
  fieldIds: readonly number[],
): Promise<Map<number, CustomField>> {
  const fields = await repo.findCustomFields(ctx.db, ctx.account.id, fieldIds);
  return new Map(fields.map((field) => [field.id, field]));
}

/** Every customer gets every field of the account, in definition order, with null where no value is set. */
export async function customFieldValues(
  ctx: ServiceContext,
  customerIds: number[],
): Promise<Map<number, CustomFieldValue[]>> {
  const [fields, values] = await Promise.all([
    repo.listCustomFields(ctx.db, ctx.account.id),
    repo.listCustomValues(ctx.db, ctx.account.id, customerIds),
  ]);
  const byCustomer = new Map<number, Map<number, string | null>>();
  for (const value of values) {
    if (!byCustomer.has(value.customerId)) byCustomer.set(value.customerId, new Map());
    byCustomer.get(value.customerId)!.set(value.fieldId, value.value);
  }
  return new Map(
    customerIds.map((customerId) => [
      customerId,
      fields.map((field) => ({
        key: field.key,
        value: byCustomer.get(customerId)?.get(field.id) ?? null,
      })),
    ]),
  );
}

export async function setCustomFieldValues(
  ctx: ServiceContext,
  customerId: number,
  values: CustomFieldValue[],
): Promise<void> {
  const fields = new Map((await repo.listCustomFields(ctx.db, ctx.account.id)).map((f) => [f.key, f.id]));
  const problems = values.flatMap((value, index) =>
    fields.has(value.key.trim())
      ? []
      : [
          {
            field: `CustomFields[${index}].Key`,
            message: `"${value.key}" is not a custom field of this account`,
          },
        ],
  );
  if (problems.length) throw new ValidationError(problems);
  for (const value of values) {
    const text = value.value?.trim();
    await repo.upsertCustomValue(ctx.db, {
      accountId: ctx.account.id,
      customerId,
      fieldId: fields.get(value.key.trim())!,
      value: text ? text : null,
    });
  }
}
