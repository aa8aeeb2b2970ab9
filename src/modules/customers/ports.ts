import type { ServiceContext } from '../../context.ts';

/**
 * What higher modules keep of a customer, asked before it is deleted. The customers module sits below invoicing,
 * subscriptions, payment methods and the ledger, so it cannot ask them itself: they answer through this port
 * (`ctx.ports.customers`, filled by src/modulePorts.ts). The foreign keys to `customers` stay as the backstop.
 */
export interface CustomerUses {
  invoices(ctx: ServiceContext, customerId: number): Promise<number>;
  /** Ended ones included. */
  subscriptions(ctx: ServiceContext, customerId: number): Promise<number>;
  recurringInvoices(ctx: ServiceContext, customerId: number): Promise<number>;
  /** Payments, credit notes or adjustments. */
  moneyRecords(ctx: ServiceContext, customerId: number): Promise<boolean>;
  /** Deletes what goes with the customer (its payment methods), inside the transaction that deletes it. */
  deleteDetails(ctx: ServiceContext, customerId: number): Promise<void>;
}

declare module '../../context.ts' {
  interface Ports {
    customers: CustomerUses;
  }
}
