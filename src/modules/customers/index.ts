/** Customers with their contacts, notes and custom fields. Routes: customers.routes.ts, contacts.routes.ts, notes.routes.ts. */
export type {
  BillingProfile,
  Customer,
  CustomerFigures,
  CustomerStatus,
  CustomerWithFigures,
} from './customer.service.ts';
export {
  assertCustomerExists,
  billingProfiles,
  countCustomersWithCurrency,
  createCustomer,
  customersByIds,
  getCustomer,
  lockCustomerForMoney,
} from './customer.service.ts';
export type { CustomerUses } from './customerUses.ts';
export { registerCustomerUses } from './customerUses.ts';
/** Wire pieces other modules embed: an invoice carries its customer. */
export { CustomerOut } from './customers.schemas.ts';
export { toCustomerDto } from './customers.serializer.ts';
