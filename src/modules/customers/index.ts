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

export type { Customer, CustomerStatus } from './customer.service.ts';
export { assertCustomerExists, countCustomersWithCurrency, getCustomer } from './customer.service.ts';
