import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import { listOwedCardInvoicesOfCustomer, setCollectionMethodAndTry } from '../invoicing/index.ts';
import type { NewPrimaryMethod } from '../paymentMethods/index.ts';

/**
 * A customer's new primary card (design note collections.md §4.2, as Recurly does): its owed card invoices at that
 * card's gateway are collected from it from now on, and those already tried (a retry scheduled, stopped by a hard
 * or customer-action failure, or exhausted) are tried again at once; one never tried keeps its first try. Runs
 * in the transaction that made the card primary; each invoice changed emits `invoice.updated`.
 */
export async function retryWithNewPrimary(ctx: ServiceContext, method: NewPrimaryMethod): Promise<void> {
  if (method.type !== 'credit_card' || method.gatewayId === null) return;
  const invoices = await listOwedCardInvoicesOfCustomer(ctx, method.customerId, method.gatewayId);
  const now = nowInstant(ctx);
  const changes = invoices.flatMap((invoice) => {
    // Tried before: again now. Never tried: its first try stays where it is (its due date, or a technical
    // error's back-off).
    const nextTryDate = invoice.numTries > 0 ? now : invoice.nextTryDate;
    const unchanged =
      invoice.paymentMethodId === method.paymentMethodId && invoice.nextTryDate === nextTryDate;
    return unchanged ? [] : [{ id: invoice.id, nextTryDate }];
  });
  if (changes.length === 0) return;
  const before = await snapshotResources(
    ctx,
    'invoice',
    changes.map((change) => change.id),
  );
  for (const change of changes) {
    await setCollectionMethodAndTry(ctx, change.id, {
      paymentMethodId: method.paymentMethodId,
      nextTryDate: change.nextTryDate,
    });
  }
  await emitEvents(
    ctx,
    changes.map((change) => ({
      type: 'invoice.updated',
      ref: { type: 'invoice', id: change.id },
      before: before.get(change.id),
    })),
  );
}
