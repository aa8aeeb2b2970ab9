import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { emitEvents, snapshotResources } from '../events/index.ts';
import { listOwedInvoicesForNewPrimary, setCollectionMethodAndTry } from '../invoicing/index.ts';
import type { NewPrimaryMethod } from '../paymentMethods/index.ts';

/**
 * A customer's new primary method (docs/gateways.md, "A new card", as Recurly does). A card: its customer's owed
 * card invoices at that card's gateway are collected from it from now on. Those that follow the customer are
 * collected from whatever the customer's settings then name (docs/gateways.md). Either way, those already tried (a
 * retry scheduled, stopped by a hard or customer-action failure, or exhausted) are tried again at once, one never
 * tried keeps its first try, and the problem the customer was told of (no usable method) is forgotten, so that the
 * next run collects or bundles them. Runs in the transaction that made the method primary; each invoice changed
 * emits `invoice.updated`.
 */
export async function retryWithNewPrimary(ctx: ServiceContext, method: NewPrimaryMethod): Promise<void> {
  const card = method.type === 'credit_card' ? method.gatewayId : null;
  if (method.type === 'credit_card' && card === null) return;
  const invoices = await listOwedInvoicesForNewPrimary(
    ctx,
    method.customerId,
    card === null ? undefined : { gatewayId: card },
  );
  const now = nowInstant(ctx);
  const changes = invoices.flatMap((invoice) => {
    // A debit order that was presented keeps the rail's schedule; a card tried before is tried again now.
    const retryNow = invoice.numTries > 0 && method.type === 'credit_card';
    const nextTryDate = retryNow ? now : invoice.nextTryDate;
    const paymentMethodId = invoice.followsCustomer ? null : method.paymentMethodId;
    const unchanged =
      (invoice.followsCustomer || invoice.paymentMethodId === method.paymentMethodId) &&
      invoice.nextTryDate === nextTryDate &&
      invoice.reportedProblem === null;
    return unchanged ? [] : [{ id: invoice.id, paymentMethodId, nextTryDate }];
  });
  if (changes.length === 0) return;
  const before = await snapshotResources(
    ctx,
    'invoice',
    changes.map((change) => change.id),
  );
  for (const change of changes) {
    await setCollectionMethodAndTry(ctx, change.id, {
      paymentMethodId: change.paymentMethodId,
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
