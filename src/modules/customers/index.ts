export { registerCustomerRoutes } from './customers.routes.ts';
export type { Customer, CustomerStatus } from './customer.service.ts';
export { assertCustomerExists, getCustomer } from './customer.service.ts';
