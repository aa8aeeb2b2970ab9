import type { ServiceContext } from '../../context.ts';
import { findContactCredentials, getCustomer, listContacts } from '../customers/index.ts';
import { queueMail } from '../mail/index.ts';
import { invoicePayLink } from './payLink.ts';

/** Whom a message goes to, for the words and links that differ per recipient. */
export interface MailRecipient {
  name: string;
  /** A contact that signs in to the customer portal: its links open the portal's pages. */
  hasPortalLogin: boolean;
}

export type MessageFor = (recipient: MailRecipient) => { subject: string; text: string; html?: string };

/**
 * Queues one message to the customer's Email (copied to EmailCC) and one to each active contact with an address,
 * each address once, in the caller's transaction; each message is made for its recipient. True when any was queued.
 */
export async function queueCustomerMails(
  ctx: ServiceContext,
  customerId: number,
  message: MessageFor,
): Promise<boolean> {
  const customer = await getCustomer(ctx, customerId);
  const contacts = await listContacts(ctx, { limit: 200, offset: 0 }, customerId);
  const recipients = new Map<string, { cc: string | null; recipient: MailRecipient }>();
  const customerName = [customer.name, customer.lastName].filter(Boolean).join(' ');
  if (customer.email) {
    recipients.set(customer.email, {
      cc: customer.emailCc,
      recipient: { name: customerName, hasPortalLogin: false },
    });
  }
  for (const contact of contacts) {
    if (!contact.isActive || !contact.email || recipients.has(contact.email)) continue;
    const credentials = await findContactCredentials(ctx, contact.id);
    recipients.set(contact.email, {
      cc: null,
      recipient: {
        name: [contact.name, contact.lastName].filter(Boolean).join(' ') || customerName,
        hasPortalLogin: Boolean(credentials?.username && credentials.passwordHash),
      },
    });
  }
  for (const [to, { cc, recipient }] of recipients) {
    const { subject, text, html } = message(recipient);
    await queueMail(ctx.db, ctx, ctx.account.id, { to, cc, subject, text, ...(html ? { html } : {}) });
  }
  return recipients.size > 0;
}

/**
 * The link that lets the recipient pay one invoice (docs/hosted-pages.md, "Paying one invoice"): the portal's page
 * of the invoice, which carries its pay form, for a contact who signs in to the portal of an account that has one
 * (the portal's /invoices/{id}/pay takes only the form's POST), else the signed pay link that needs no account.
 * Undefined when the service knows no origin to write links with.
 */
export function payLinkFor(
  ctx: ServiceContext,
  recipient: MailRecipient,
  invoiceId: number,
): string | undefined {
  if (recipient.hasPortalLogin && ctx.account.portalSlug && ctx.publicUrl) {
    return `${ctx.publicUrl}/portal/${ctx.account.portalSlug}/invoices/${invoiceId}`;
  }
  return invoicePayLink(ctx, invoiceId);
}
