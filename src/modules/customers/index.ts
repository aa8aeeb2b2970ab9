/** Customers with their contacts, notes and custom fields. Routes: customers.routes.ts, contacts.routes.ts, notes.routes.ts. */
export type { Contact, Customer, CustomerStatus, Note } from './customer.ts';
export type {
  BillingProfile,
  CustomerFigure,
  CustomerDeletion,
  CustomerFigures,
  CustomerOfRow,
  CustomerPick,
  CustomerRecords,
  CustomerInput,
  CustomerWithFigures,
} from './customer.service.ts';
export {
  assertCustomerExists,
  billingProfiles,
  countCustomersWithCurrency,
  createCustomer,
  customerReadModel,
  customersByIds,
  customerInUse,
  deleteCustomerRecord,
  editCustomer,
  getCustomer,
  listStatementCustomers,
  lockCustomerForMoney,
  lockCustomersForMoney,
  moveStatementDate,
  setCustomerSuspended,
  startCustomerDeletion,
} from './customer.service.ts';
/** The customers' state other modules join in their own statements (docs/architecture.md, "Tables and their owners"). */
export { customerStates } from './customerStates.ts';
/** Notices to customers beyond invoices and collections (docs/tax.md, "What customers are told"). */
export type { CustomerNotice } from './customerNotice.ts';
export { queueCustomerNotice } from './customerNotice.ts';
export { customerIdsByReferences } from './customerReferences.ts';
export { editContact, getContact, listContacts } from './contact.service.ts';
/** The customer portal's view of a contact's login (docs/design/portal.md, "Sign-in"). */
export type { ContactCredentials } from './contactCredentials.service.ts';
export {
  findContactByUsername,
  findContactCredentials,
  findFirstLoginOfCustomer,
  usernameKey,
  rehashContactPassword,
  setContactPassword,
} from './contactCredentials.service.ts';
/** Wire pieces other modules embed: an invoice carries its customer. */
export { CustomerOut } from './customers.schemas.ts';
/** The API's limits on a customer's fields, which the portal's billing details keep too. */
export { EditCustomerBody } from './customers.schemas.ts';
export { toCustomerDto } from './customers.serializer.ts';
/** What events show of contacts, notes, custom fields and a customer's custom field values (src/readModels/). */
export { contactsByIds } from './contact.service.ts';
export { toContactDto } from './contacts.serializer.ts';
export { notesByIds } from './note.service.ts';
export { toNoteDto } from './notes.serializer.ts';
export { customFieldValues, customFieldsByIds } from './customField.service.ts';
export { toCustomFieldDto, toCustomerWithCustomFieldsDto } from './customers.serializer.ts';

/** Every event type this module emits (docs/webhooks.md lists them; a test triggers each). */
export const CUSTOMER_EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.archived',
  'customer.reopened',
  'customer.suspended',
  'customer.unsuspended',
  'customer_contact.created',
  'customer_contact.updated',
  'customer_contact.deleted',
  'customer_contact.credentials_sent',
  'customer_contact.password_changed',
  'customer_note.created',
  'customer_note.updated',
  'customer_note.deleted',
  'custom_field.created',
  'custom_field.deleted',
] as const;
