import type { ServiceContext } from '../../context.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { getInvoice, setCollectionProblem } from '../invoicing/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { queueCustomerMails } from './customerMails.ts';

/** What the customer is asked to do about each problem, in the e-mail's words. */
const REMEDY = {
  no_payment_method: 'add a payment method',
  payment_method_of_other_kind: 'add a payment method of the kind you chose to pay by',
  payment_method_not_valid: 'add a new payment method',
  no_gateway: 'contact us',
  gateway_not_usable: 'contact us',
  gateway_cannot_collect: 'contact us',
  card_at_other_gateway: 'add your card again',
} as const;

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
  const amount = `${invoice.currencyCode} ${minorToDecimalText(invoice.openMinor, invoice.currencyCode)}`;
  await queueCustomerMails(ctx, invoice.customerId, (name) => ({
    subject: `Invoice ${issued.invoiceNum} from ${ctx.account.name}: we need a payment method`,
    text: [
      `Dear ${name},`,
      '',
      `Invoice ${issued.invoiceNum} (${amount}) is due, and we could not collect it automatically: ${blocked.message}.`,
      `Please ${REMEDY[blocked.problem]}, or pay the invoice another way. We will collect it as soon as we can.`,
      '',
      ctx.account.name,
    ].join('\n'),
  }));
  await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
  return true;
}
