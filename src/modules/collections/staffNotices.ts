import type { ServiceContext } from '../../context.ts';
import { getSellerDetails } from '../auth/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';

/**
 * Notices to the account's own staff (docs/gateways.md, "The collection loop"): a batch that must be submitted
 * today, a debit that cannot be built, an invoice whose collection ran out. They go to the account's StaffEmail, or
 * else its seller ContactEmail, in the caller's transaction; an account with neither is told by the event alone.
 */
export async function queueStaffMail(
  ctx: ServiceContext,
  message: { subject: string; blocks: MessageBlock[] },
): Promise<boolean> {
  const to = ctx.account.collectionLoop.staffEmail ?? (await getSellerDetails(ctx)).email;
  if (!to) return false;
  const { text, html } = messageBody({
    title: message.subject,
    greeting: 'Hello,',
    blocks: message.blocks,
    signature: [`${ctx.account.name}, billing`],
  });
  await queueMail(ctx.db, ctx, ctx.account.id, { to, cc: null, subject: message.subject, text, html });
  return true;
}
