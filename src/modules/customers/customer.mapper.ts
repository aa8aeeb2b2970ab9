import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CustomersTable } from './tables.ts';
import { customerStatus } from './customer.ts';
import type { BillingProfile, Customer, CustomerChanges, NewCustomer } from './customer.ts';

/** The one place a customer's columns become the domain's names (booleans read with Boolean(): SQLite's are 1/0). */
export function customerFromRow(row: Selectable<CustomersTable>): Customer {
  const isActive = Boolean(row.is_active);
  const isSuspended = Boolean(row.is_suspended);
  return {
    id: row.id,
    reference: row.reference,
    isCompany: Boolean(row.is_company),
    name: row.name,
    lastName: row.last_name,
    registrationNumber: row.registration_number,
    vatNo: row.vat_no,
    company: row.company,
    email: row.email,
    emailCc: row.email_cc,
    cell: row.cell,
    tel: row.tel,
    fax: row.fax,
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    state: row.state,
    country: row.country,
    zipCode: row.zip_code,
    countryState: row.country_state,
    countryId: row.country_id,
    countryStateId: row.country_state_id,
    primaryGatewayId: row.primary_gateway_id,
    currencyCode: row.currency_code,
    isSuspended,
    suspendedAt: row.suspended_at,
    isActive,
    isWaiveTaxes: Boolean(row.is_waive_taxes),
    paymentMethod: row.payment_method,
    autoSendInvoice: Boolean(row.auto_send_invoice),
    autoSendStatement: Boolean(row.auto_send_statement),
    statementDate: row.statement_date,
    statementLastSentAt: row.statement_last_sent_at,
    billCycleDay: row.bill_cycle_day,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: customerStatus({ isActive, isSuspended }),
  };
}

/** Each writable field and its column. */
const COLUMN_OF = {
  accountId: 'account_id',
  reference: 'reference',
  isCompany: 'is_company',
  name: 'name',
  lastName: 'last_name',
  registrationNumber: 'registration_number',
  vatNo: 'vat_no',
  company: 'company',
  email: 'email',
  emailCc: 'email_cc',
  cell: 'cell',
  tel: 'tel',
  fax: 'fax',
  address1: 'address1',
  address2: 'address2',
  city: 'city',
  state: 'state',
  country: 'country',
  zipCode: 'zip_code',
  countryState: 'country_state',
  countryId: 'country_id',
  countryStateId: 'country_state_id',
  primaryGatewayId: 'primary_gateway_id',
  currencyCode: 'currency_code',
  isSuspended: 'is_suspended',
  suspendedAt: 'suspended_at',
  isActive: 'is_active',
  isWaiveTaxes: 'is_waive_taxes',
  paymentMethod: 'payment_method',
  autoSendInvoice: 'auto_send_invoice',
  autoSendStatement: 'auto_send_statement',
  statementDate: 'statement_date',
  billCycleDay: 'bill_cycle_day',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const satisfies Record<keyof NewCustomer, keyof CustomersTable>;

/** The columns the fields set, in the order the fields were given (undefined ones left out). */
function columnsOf(fields: Partial<NewCustomer>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field in fields) {
    const value = fields[field as keyof NewCustomer];
    if (value !== undefined) row[COLUMN_OF[field as keyof NewCustomer]] = value;
  }
  return row;
}

export function customerChangesToRow(
  changes: CustomerChanges,
): Updateable<Omit<CustomersTable, 'id' | 'account_id' | 'created_at'>> {
  return columnsOf(changes);
}

export function newCustomerToRow(customer: NewCustomer): Insertable<CustomersTable> {
  return columnsOf(customer) as Insertable<CustomersTable>;
}

export function billingProfileFromRow(
  row: Pick<
    Selectable<CustomersTable>,
    | 'currency_code'
    | 'country_id'
    | 'country_state_id'
    | 'is_waive_taxes'
    | 'is_active'
    | 'is_suspended'
    | 'auto_send_invoice'
    | 'email'
  >,
): BillingProfile {
  return {
    currencyCode: row.currency_code,
    countryId: row.country_id,
    countryStateId: row.country_state_id,
    isWaiveTaxes: Boolean(row.is_waive_taxes),
    isBillable: Boolean(row.is_active) && !row.is_suspended,
    sendsInvoices: Boolean(row.auto_send_invoice) && Boolean(row.email),
  };
}
