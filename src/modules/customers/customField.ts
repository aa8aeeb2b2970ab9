/** A custom field the account defines for its customers (its Key), and a customer's value for one. */
export interface CustomField {
  id: number;
  key: string;
}

export interface CustomFieldValue {
  key: string;
  value: string | null;
}

/** A customer's stored value for one field: customers without one have no entry. */
export interface StoredCustomValue {
  customerId: number;
  fieldId: number;
  value: string | null;
}
