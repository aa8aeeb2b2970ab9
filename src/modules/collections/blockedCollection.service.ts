import type { ServiceContext } from '../../context.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { getInvoice, setCollectionProblem } from '../invoicing/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { paymentMethodNeededMail } from './collectionMails.ts';
import { queueCustomerMails } from './customerMails.ts';

/**
 * An invoice that follows its customer came due, and the customer's payment settings cannot collect it (docs/
 * gateways.md, "When the settings cannot collect"). The first time for a given problem: the invoice records it
 * (`CollectionProblem`), `invoice.collection_blocked` is emitted, and the customer and its contacts are e-mailed
 * once, asking them to add a method. Nothing happens when the same problem was told already. Runs in the caller's
 * transaction, under the customer's lock; true when mail was queued (the caller wakes the mail worker after it
 * commits).
 */
export async function reportBlockedCollection(
  ctx: ServiceContext,
  invoice: CollectableInvoice,
): Promise<boolean> {
  const blocked = invoice.blocked;
  if (!blocked || invoice.reportedProblem === blocked.problem) return false;
  const ref = { type: 'invoice', id: invoice.id };
  const before = await snapshotResource(ctx, ref);
  await setCollectionProblem(ctx, invoice.id, blocked.problem);
  const issued = await getInvoice(ctx, invoice.id);
  await queueCustomerMails(
    ctx,
    invoice.customerId,
    paymentMethodNeededMail(
      ctx.account.name,
      { invoiceNum: issued.invoiceNum, currencyCode: invoice.currencyCode, amountMinor: invoice.openMinor },
      blocked,
    ),
  );
  await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
  return true;
}
