import type { Selectable } from 'kysely';
import type { CustomFieldsTable, CustomerCustomValuesTable } from './tables.ts';
import type { CustomField, StoredCustomValue } from './customField.ts';

// The custom field tables' columns become the domain's names here, and nowhere else.

export function customFieldFromRow(
  row: Pick<Selectable<CustomFieldsTable>, 'id' | 'field_key'>,
): CustomField {
  return { id: row.id, key: row.field_key };
}

export function customValueFromRow(
  row: Pick<Selectable<CustomerCustomValuesTable>, 'customer_id' | 'custom_field_id' | 'value'>,
): StoredCustomValue {
  return { customerId: row.customer_id, fieldId: row.custom_field_id, value: row.value };
}
