import type { ServiceContext } from '../../context.ts';
import type { PaymentMethodKind } from '../gateways/index.ts';

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

/**
 * What payment methods ask of collections, above them, at their own moment (`ctx.ports.paymentMethods`, filled by
 * src/modulePorts.ts). Whether a method may be deleted is no port: the flow that deletes it counts what names it
 * (src/flows/deletePaymentMethod.ts).
 */
export interface PaymentMethodPorts {
  newPrimary: NewPrimaryListener;
}

declare module '../../context.ts' {
  interface Ports {
    paymentMethods: PaymentMethodPorts;
  }
}
