import type { ServiceContext } from '../../context.ts';
import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { EventToEmit } from '../events/index.ts';
import { countCollectionTries } from '../invoicing/index.ts';
import { allocationsOfSources } from '../ledger/index.ts';
import type { BatchLine } from './batch.ts';

/**
 * The batch is on its way to the bank: each invoice its lines pay has one more try (NumTries counts attempts that
 * reached a gateway: docs/design/batches.md, "NumTries for debits"), and its NextTryDate stays the action date, the
 * day the bank presents it (docs/gateways.md, "Debit orders on the mandate's day").
 */
export async function countTries(
  ctx: ServiceContext,
  lines: readonly BatchLine[],
  actionDate: PlainDate,
): Promise<EventToEmit[]> {
  const allocations = await allocationsOfSources(
    ctx,
    'payment',
    lines.map((line) => line.paymentId),
  );
  // In id order, as the ledger locks invoices: two transactions never wait on each other's.
  const invoiceIds = [
    ...new Set(
      [...allocations.values()].flatMap((ofPayment) =>
        ofPayment.filter((a) => a.targetType === 'invoice').map((a) => a.targetId),
      ),
    ),
  ].sort((a, b) => a - b);
  return countCollectionTries(ctx, invoiceIds, startOfDate(actionDate, ctx.account.timeZone));
}
