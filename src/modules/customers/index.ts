import type { App } from '../../http/types.ts';
import { registerContactRoutes } from './contacts.routes.ts';
import { registerCustomerRoutes } from './customers.routes.ts';
import { registerNoteRoutes } from './notes.routes.ts';

/** Customers with their contacts, notes and custom fields. */
export function registerCustomersModule(app: App): void {
  registerCustomerRoutes(app);
  registerContactRoutes(app);
  registerNoteRoutes(app);
}

export type { BillingProfile, Customer, CustomerStatus } from './customer.service.ts';
export { billingProfiles } from './customer.service.ts';
export {
  assertCustomerExists,
  countCustomersWithCurrency,
  customersByIds,
  getCustomer,
  lockCustomerForMoney,
} from './customer.service.ts';
export { CustomerOut } from './customers.schemas.ts';
export { toCustomerDto } from './customers.serializer.ts';
