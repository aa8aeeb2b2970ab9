import type { ServiceContext } from '../../context.ts';
import { getCustomer, listContacts } from '../customers/index.ts';
import { queueMail } from '../mail/index.ts';

/**
 * Queues one message to the customer's Email (copied to EmailCC) and one to each active contact with an address,
 * each address once, in the caller's transaction.
 */
export async function queueCustomerMails(
  ctx: ServiceContext,
  customerId: number,
  message: (customerName: string) => { subject: string; text: string },
): Promise<void> {
  const customer = await getCustomer(ctx, customerId);
  const contacts = await listContacts(ctx, { limit: 200, offset: 0 }, customerId);
  const { subject, text } = message([customer.name, customer.lastName].filter(Boolean).join(' '));
  const recipients = new Map<string, string | null>();
  if (customer.email) recipients.set(customer.email, customer.emailCc);
  for (const contact of contacts) {
    if (contact.isActive && contact.email && !recipients.has(contact.email))
      recipients.set(contact.email, null);
  }
  for (const [to, cc] of recipients) await queueMail(ctx.db, ctx, ctx.account.id, { to, cc, subject, text });
}
