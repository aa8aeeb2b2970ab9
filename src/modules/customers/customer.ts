/** Spec: comp_status; the original's values are Active, Suspended and Archived (archived = not isActive). */
export type CustomerStatus = 'Active' | 'Suspended' | 'Archived';

/**
 * A customer as the domain sees it, made from its row by `customerFromRow` (customer.mapper.ts): what other
 * modules read of a customer, so a column can be renamed without touching them.
 */
export interface Customer {
  id: number;
  reference: string | null;
  isCompany: boolean;
  name: string;
  lastName: string | null;
  registrationNumber: string | null;
  vatNo: string | null;
  company: string | null;
  email: string | null;
  emailCc: string | null;
  cell: string | null;
  tel: string | null;
  fax: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  zipCode: string | null;
  countryState: string | null;
  countryId: number | null;
  countryStateId: number | null;
  primaryGatewayId: number | null;
  currencyCode: string;
  isSuspended: boolean;
  /** An instant (ISO 8601, UTC); null unless suspended. */
  suspendedAt: string | null;
  isActive: boolean;
  isWaiveTaxes: boolean;
  paymentMethod: string | null;
  autoSendInvoice: boolean;
  autoSendStatement: boolean;
  statementDate: string | null;
  statementLastSentAt: string | null;
  /** The day of the month its new monthly subscriptions renew on (docs/pricing.md, "Bill-cycle day"); null: the account's. */
  billCycleDay: number | null;
  createdAt: string;
  updatedAt: string;
  status: CustomerStatus;
}

/** The fields a create or edit sets, in the order they were checked: a field left out is left as it is. */
export type CustomerChanges = Partial<Omit<Customer, 'id' | 'createdAt' | 'status' | 'statementLastSentAt'>>;

/** A customer to store: the defaults, then what the request set. */
export type NewCustomer = CustomerChanges & {
  accountId: number;
  name: string;
  currencyCode: string;
  createdAt: string;
  updatedAt: string;
};

/** What the bill run needs of a customer: the currency billed and where taxes are decided. */
export interface BillingProfile {
  currencyCode: string;
  countryId: number | null;
  countryStateId: number | null;
  isWaiveTaxes: boolean;
  /** Public notes: a suspended or archived customer's subscriptions stop billing. */
  isBillable: boolean;
  /** autoSendInvoice and an e-mail address: the customer's new invoices are e-mailed (see queueInvoiceMails). */
  sendsInvoices: boolean;
}

export function customerStatus(flags: { isActive: boolean; isSuspended: boolean }): CustomerStatus {
  if (!flags.isActive) return 'Archived';
  return flags.isSuspended ? 'Suspended' : 'Active';
}

/** A customer's contact, made by `contactFromRow` (contact.repository.ts). Its password hash is never read here. */
export interface Contact {
  id: number;
  customerId: number;
  name: string;
  lastName: string;
  email: string;
  cell: string | null;
  username: string | null;
  isActive: boolean;
  createdAt: string;
}

/** A note on a customer, made by `noteFromRow` (note.repository.ts). */
export interface Note {
  id: number;
  customerId: number;
  note: string;
  noteType: string;
  /** Spec: DateUTC, set when the note is added. */
  createdAt: string;
}
