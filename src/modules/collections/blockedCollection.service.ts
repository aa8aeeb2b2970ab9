import type { ServiceContext } from '../../context.ts';
import { heldCollectionProblem, heldCollectionReason } from '../invoicing/index.ts';
import type { CardProblemCode, CollectionProblemCode, HeldCollection } from '../invoicing/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import { getInvoice, setCollectionProblem, setCollectionSchedule } from '../invoicing/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import { paymentMethodNeededMail } from './collectionMails.ts';
import { payLinkFor, queueCustomerMails } from './customerMails.ts';
import { amountText } from './noticeWords.ts';
import { queueStaffMail } from './staffNotices.ts';

/** Problems of the account's gateways, which only its staff can fix: the customer is not asked to. */
const MERCHANT_PROBLEMS: ReadonlySet<CollectionProblemCode> = new Set([
  'no_gateway',
  'gateway_not_usable',
  'gateway_cannot_collect',
]);

/**
 * An invoice that follows its customer came due, and the customer's payment settings cannot collect it (docs/
 * gateways.md, "When the settings cannot collect"). The first time for a given problem: the invoice records it
 * (`CollectionProblem`), `invoice.collection_blocked` is emitted, and the customer and its contacts are e-mailed
 * once, asking them to add a method; or, when the account's gateways are at fault (none, disabled, a live account's
 * test gateway), its staff. Nothing happens when the same problem was told already. Runs in the caller's
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
  if (MERCHANT_PROBLEMS.has(blocked.problem)) {
    await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
    return queueStaffMail(ctx, {
      subject: `Invoice ${issued.invoiceNum} cannot be collected: the account's gateway`,
      blocks: [
        {
          paragraph: `Invoice ${issued.invoiceNum} (customer ${invoice.customerId}, ${amountText(invoice.currencyCode, invoice.openMinor)}) is due and cannot be collected: ${blocked.message}.`,
        },
        {
          paragraph:
            'Nothing the customer can do fixes this: give the account (or the customer) a gateway that collects, and the next collection run collects it.',
        },
      ],
    });
  }
  const seller = await documentSeller(ctx);
  await queueCustomerMails(
    ctx,
    invoice.customerId,
    paymentMethodNeededMail(
      {
        signature: [mailSenderName(seller), ...sellerLines(seller)],
        payLink: (recipient) => payLinkFor(ctx, recipient, invoice.id),
      },
      { invoiceNum: issued.invoiceNum, currencyCode: invoice.currencyCode, amountMinor: invoice.openMinor },
      blocked,
    ),
  );
  await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
  return true;
}

/**
 * A due card invoice that names its own collection, whose gateway or card cannot be charged (docs/gateways.md, "When
 * the settings cannot collect"): it records why (`CollectionProblem`), has no next try until someone
 * acts (the customer may then pay it, and is reminded), emits `invoice.collection_blocked`, and the account's staff
 * are told once per problem: the invoice's own card was chosen by the business, so the customer is not asked to
 * add one. In the caller's transaction, under the customer's lock; true when mail was queued.
 */
export async function reportUnchargeable(
  ctx: ServiceContext,
  invoice: CollectableInvoice,
  { problem, code }: HeldCollection<CardProblemCode>,
): Promise<boolean> {
  if (heldCollectionReason(invoice.reportedProblem) === problem) return false;
  const ref = { type: 'invoice', id: invoice.id };
  const before = await snapshotResource(ctx, ref);
  await setCollectionProblem(ctx, invoice.id, heldCollectionProblem(problem, code));
  await setCollectionSchedule(ctx, invoice.id, { addTry: false, nextTryDate: null });
  await emitEvent(ctx, 'invoice.collection_blocked', ref, { before });
  const { invoiceNum } = await getInvoice(ctx, invoice.id);
  return queueStaffMail(ctx, {
    subject: `Invoice ${invoiceNum} cannot be charged: ${problem}`,
    blocks: [
      {
        paragraph: `Invoice ${invoiceNum} (customer ${invoice.customerId}, ${amountText(invoice.currencyCode, invoice.openMinor)}) names its own card, and it cannot be charged: ${problem}.`,
      },
      {
        paragraph:
          'Give the invoice another card or gateway, or collect it another way; until then it is not tried, and the customer is reminded to pay it.',
      },
    ],
  });
}
