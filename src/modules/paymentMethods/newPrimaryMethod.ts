import type { ServiceContext } from '../../context.ts';
import type { PaymentMethodKind } from '../gateways/index.ts';

/**
 * A method that became its customer's primary (added as primary, or set primary): collections, a higher module,
 * retries the customer's failed card invoices with it. It answers through this port, connected once at start
 * (src/connectModules.ts), and runs inside the transaction that made the method primary.
 */
export interface NewPrimaryMethod {
  customerId: number;
  paymentMethodId: number;
  type: PaymentMethodKind;
  /** The gateway whose vault keeps a card; null for a bank account. */
  gatewayId: number | null;
}

export type NewPrimaryListener = (ctx: ServiceContext, method: NewPrimaryMethod) => Promise<void>;

let connected: NewPrimaryListener | undefined;

export function registerNewPrimaryListener(listener: NewPrimaryListener): void {
  connected = listener;
}

export function newPrimaryListener(): NewPrimaryListener {
  if (!connected)
    throw new Error('the new-primary listener is not registered: call connectModules() at start');
  return connected;
}
