import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { packageNamesByIds } from '../catalogue/index.ts';
import { getCustomer, queueCustomerNotice } from '../customers/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import { taxCreditNotesOfSources } from '../ledger/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * A customer told of a cancelled subscription (docs/tax.md, "What customers are told"): what ends when, and the
 * credit for unused time with its credit note, in the cancelling transaction, when the account sends cancellation
 * notices (SendCancellationNotices, on by default). `subscription.cancelled` is the cancellation's own event.
 */
export async function noticeCancellation(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  cancelled: {
    cancelDate: PlainDate;
    atRenewal: boolean;
    credits: readonly { adjustmentId?: number | null }[];
  },
): Promise<void> {
  if (!ctx.account.notices.cancellations) return;
  const customer = await getCustomer(ctx, row.customerId);
  const [named] = await packageNamesByIds(ctx, [row.packageId]);
  const plan = named?.name ?? `subscription ${row.id}`;
  const notes = await taxCreditNotesOfSources(
    ctx,
    'adjustment',
    cancelled.credits.flatMap((credit) => (credit.adjustmentId ? [credit.adjustmentId] : [])),
  );
  const money = (minor: number) => `${row.currencyCode} ${minorToDecimalText(minor, row.currencyCode)}`;
  const ends = dateForDocument(cancelled.cancelDate);
  const blocks: MessageBlock[] = [
    {
      paragraph: cancelled.atRenewal
        ? `Your subscription to ${plan} is cancelled: it runs until the end of its term, ${ends}, and is not renewed.`
        : `Your subscription to ${plan} is cancelled from ${ends}.`,
      strong: true,
    },
    ...[...notes.values()].map((note) => ({
      paragraph:
        `${money(note.amountMinor)} of credit for the time not used is on credit note ${note.creditNumber}; ` +
        'it pays your open and next invoices.',
    })),
  ];
  if (await queueCustomerNotice(ctx, customer, { subject: `Your ${plan} subscription is cancelled`, blocks }))
    ctx.mailQueued();
}
