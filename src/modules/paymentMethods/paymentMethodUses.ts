import type { ServiceContext } from '../../context.ts';

/**
 * What higher modules keep that names a payment method, asked before it is deleted. Invoicing sits above this
 * module, so it answers through this port, connected once at start (src/connectModules.ts). Payments refer to
 * their method by a foreign key, which refuses the delete on its own.
 */
export interface PaymentMethodUses {
  invoices(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
  recurringInvoices(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
  /** Charges of it still waiting for the gateway's answer: their payment will name it. */
  openCollectionAttempts(ctx: ServiceContext, paymentMethodId: number): Promise<number>;
}

let connected: PaymentMethodUses | undefined;

export function registerPaymentMethodUses(uses: PaymentMethodUses): void {
  connected = uses;
}

export function paymentMethodUses(): PaymentMethodUses {
  if (!connected) throw new Error('payment method uses are not registered: call connectModules() at start');
  return connected;
}
