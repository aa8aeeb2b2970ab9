import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { packageNamesByIds } from '../catalogue/index.ts';
import { getCustomer, queueCustomerNotice } from '../customers/index.ts';
import { dateForDocument } from '../invoicing/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import type { SubscriptionRecord } from './subscription.ts';

/** The three notices of a pause (docs/subscriptions.md, "Pause and resume"). */
export type PauseNoticeKind = 'paused' | 'resuming' | 'resumed';

type PausedRecord = Pick<SubscriptionRecord, 'id' | 'customerId' | 'packageId'> & {
  pauseDate: PlainDate | null;
  resumeDate: PlainDate | null;
};

function noticeText(
  kind: PauseNoticeKind,
  plan: string,
  row: PausedRecord,
  credited: boolean,
): { subject: string; blocks: MessageBlock[] } {
  const resume = row.resumeDate === null ? null : dateForDocument(row.resumeDate);
  if (kind === 'paused') {
    const until = resume === null ? 'until you resume it' : `until ${resume}`;
    return {
      subject: `Your ${plan} subscription is paused`,
      blocks: [
        {
          paragraph: `Your subscription to ${plan} is paused from ${dateForDocument(row.pauseDate!)} ${until}.`,
          strong: true,
        },
        {
          paragraph: credited
            ? 'Nothing is invoiced while it is paused; the days not used of the period you paid are credited.'
            : 'Nothing is invoiced while it is paused.',
        },
      ],
    };
  }
  if (kind === 'resuming') {
    return {
      subject: `Your ${plan} subscription resumes on ${resume}`,
      blocks: [
        { paragraph: `Your subscription to ${plan} resumes on ${resume}.`, strong: true },
        { paragraph: 'It is invoiced again from that day.' },
      ],
    };
  }
  return {
    subject: `Your ${plan} subscription has resumed`,
    blocks: [{ paragraph: `Your subscription to ${plan} has resumed from ${resume}.`, strong: true }],
  };
}

/**
 * A customer told of a pause, in the transaction that makes or reaches it, when the account sends pause notices
 * (SendPauseNotices, on by default): confirmed when it is made, resuming soon three days before a dated resume (by
 * the bill run, with `subscription.pause_will_end`), resumed on the day.
 */
export async function noticePause(
  ctx: ServiceContext,
  row: PausedRecord,
  kind: PauseNoticeKind,
  credited = false,
): Promise<void> {
  if (!ctx.account.notices.pauses) return;
  const customer = await getCustomer(ctx, row.customerId);
  const [named] = await packageNamesByIds(ctx, [row.packageId]);
  const plan = named?.name ?? `subscription ${row.id}`;
  if (await queueCustomerNotice(ctx, customer, noticeText(kind, plan, row, credited))) ctx.mailQueued();
}
