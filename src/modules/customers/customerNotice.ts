import type { ServiceContext } from '../../context.ts';
import { documentSeller, sellerLines, mailSenderName } from '../auth/index.ts';
import { messageBody, queueMail } from '../mail/index.ts';
import type { AttachmentRef, MessageBlock } from '../mail/index.ts';
import type { Customer } from './customer.ts';

/** A notice: its subject, its body's blocks, and a document attached (rendered when it is delivered). */
export interface CustomerNotice {
  subject: string;
  blocks: MessageBlock[];
  attachment?: AttachmentRef;
}

/**
 * A notice to a customer beyond its invoices and collections (docs/tax.md, "What customers are told"): to its
 * Email, copied to EmailCC, in text and HTML with the seller's signature, queued in the caller's transaction; and the
 * same to the staff address (StaffEmail, else the seller's ContactEmail) when the account asks for copies. False
 * when nothing was queued (no address); the caller tells the mail worker (ctx.mailQueued).
 */
export async function queueCustomerNotice(
  ctx: ServiceContext,
  customer: Customer,
  notice: CustomerNotice,
): Promise<boolean> {
  const seller = await documentSeller(ctx);
  const signature = [mailSenderName(seller), ...sellerLines(seller)];
  const name = [customer.name, customer.lastName].filter(Boolean).join(' ') || customer.company || 'customer';
  const letter = (greeting: string) =>
    messageBody({ title: notice.subject, greeting, blocks: notice.blocks, signature });
  let queued = false;
  if (customer.email) {
    await queueMail(ctx.db, ctx, ctx.account.id, {
      to: customer.email,
      cc: customer.emailCc,
      subject: notice.subject,
      ...letter(`Dear ${name},`),
      attachment: notice.attachment ?? null,
    });
    queued = true;
  }
  const staff = ctx.account.collectionLoop.staffEmail ?? seller.details.email;
  if (ctx.account.notices.copyStaff && staff) {
    await queueMail(ctx.db, ctx, ctx.account.id, {
      to: staff,
      cc: null,
      subject: `Copy: ${notice.subject} (customer ${customer.id})`,
      ...letter(`Hello, this is the copy of what ${name} (customer ${customer.id}) was sent.`),
      attachment: notice.attachment ?? null,
    });
    queued = true;
  }
  return queued;
}
