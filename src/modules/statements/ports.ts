import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * The date each pending payment is presented to the bank: its batch's action date, which a late batch's re-dating
 * moves (docs/spec-decisions.md, "Pending debits on documents"). Batches, a higher module, answer through this port
 * (`ctx.ports.statements`, filled by src/modulePorts.ts); a payment in no batch is left out, and its line keeps the
 * payment's own date.
 */
export type DebitDatesReader = (
  ctx: ServiceContext,
  paymentIds: readonly number[],
) => Promise<ReadonlyMap<number, PlainDate>>;

export interface StatementPorts {
  debitDates: DebitDatesReader;
}

declare module '../../context.ts' {
  interface Ports {
    statements: StatementPorts;
  }
}
