import type { ServiceContext } from '../../context.ts';
import type { PaymentMethodKind } from '../gateways/index.ts';

/**
 * What higher modules keep that names a payment method, asked before it is deleted. Invoicing and collections sit
 * above this module, so they answer through this port (`ctx.ports.paymentMethods`, filled by src/modulePorts.ts).
 * Payments refer to their method by a foreign key, which refuses the delete on its own.
 */
export interface PaymentMethodUses {
  invoices(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
  recurringInvoices(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
  /** Charges of it still waiting for the gateway's answer: their payment will name it. */
  openCollectionAttempts(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
}

/** A method that became its customer's primary (added as primary, or set primary). */
export interface NewPrimaryMethod {
  customerId: number;
  paymentMethodId: number;
  type: PaymentMethodKind;
  /** The gateway whose vault keeps a card; null for a bank account. */
  gatewayId: number | null;
}

/**
 * Collections retries the customer's failed card invoices with its new primary method, inside the transaction that
 * made it primary: the moment is this module's, whoever asked for it (the API, the portal, a capture widget).
 */
export type NewPrimaryListener = (ctx: ServiceContext, method: NewPrimaryMethod) => Promise<void>;

export interface PaymentMethodPorts extends PaymentMethodUses {
  newPrimary: NewPrimaryListener;
}

declare module '../../context.ts' {
  interface Ports {
    paymentMethods: PaymentMethodPorts;
  }
}
