import type { ServiceContext } from '../../context.ts';
import type { EventToEmit } from '../events/index.ts';

/**
 * What happens to the bank account linked to a mandate that was cancelled: payment methods, a higher module, makes
 * it invalid (isValid false) and answers the events it owes, inside the cancel's transaction
 * (`ctx.ports.mandates`, filled by src/modulePorts.ts).
 */
export type MandateCancelledListener = (
  ctx: ServiceContext,
  paymentMethodId: number,
) => Promise<EventToEmit[]>;

export interface MandatePorts {
  cancelled: MandateCancelledListener;
}

declare module '../../context.ts' {
  interface Ports {
    mandates: MandatePorts;
  }
}
