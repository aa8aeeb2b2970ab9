import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';

/**
 * The date each pending payment is presented to the bank: its batch's action date, which a late batch's re-dating
 * moves (docs/spec-decisions.md, "Pending debits on documents"). Batches, a higher module, answer through this port
 * (connected once at start in src/connectModules.ts); a payment in no batch is left out, and its line keeps the
 * payment's own date.
 */
export type DebitDatesReader = (
  ctx: ServiceContext,
  paymentIds: readonly number[],
) => Promise<ReadonlyMap<number, PlainDate>>;

let connected: DebitDatesReader | undefined;

export function registerDebitDates(port: DebitDatesReader): void {
  connected = port;
}

export function debitDatesOf(
  ctx: ServiceContext,
  paymentIds: readonly number[],
): Promise<ReadonlyMap<number, PlainDate>> {
  if (!connected) throw new Error('the debit-dates port is not registered: call connectModules() at start');
  if (paymentIds.length === 0) return Promise.resolve(new Map());
  return connected(ctx, paymentIds);
}
