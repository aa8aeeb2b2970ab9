import type { ServiceContext } from '../../context.ts';
import { documentSeller, mailSenderName } from '../auth/index.ts';
import { getCustomer, queueCustomerNotice } from '../customers/index.ts';
import type { PaymentMethod } from './paymentMethod.ts';
import { ownEntry } from '../../core/ownEntry.ts';

/**
 * The customer asked to check a bank account its bank did not verify (docs/gateways/netcash.md, "Account
 * verification"). It is what a debit order returned because the account cannot be debited tells the customer
 * (collections' notice of a failed collection: why, in the bank's words, and that the account will not be debited),
 * without an invoice: no debit was made. Sent as the account's other notices to customers are (the seller's letter,
 * a copy to the staff when asked for), when the account sends failure notices (SendPaymentFailedEmails), in the
 * caller's transaction; true when an e-mail was queued.
 */

/** Why the bank did not verify the account, in a customer's words (never a code, never the ID number). */
const REASON_WORDS: Readonly<Record<string, string>> = {
  invalid_account: 'Your bank told us the account number is not valid at the branch given.',
  account_closed: 'Your bank told us the account is not open.',
  debits_not_allowed: 'Your bank told us the account does not accept debit orders.',
  account_holder_mismatch: 'Your bank told us the ID number given is not the account holder’s.',
};

export async function noticeBankAccountNotVerified(
  ctx: ServiceContext,
  method: PaymentMethod,
  reason: string,
): Promise<boolean> {
  if (!ctx.account.collectionLoop.sendPaymentFailed || method.bankAccount === null) return false;
  const customer = await getCustomer(ctx, method.customerId);
  const seller = mailSenderName(await documentSeller(ctx));
  const lastFour = method.bankAccount.lastFour;
  const account = lastFour ? `the bank account ending ${lastFour}` : 'your bank account';
  return queueCustomerNotice(ctx, customer, {
    subject: `Please check your bank account details for ${seller}`,
    blocks: [
      { paragraph: `Your bank could not confirm ${account} for debit orders to ${seller}.`, strong: true },
      { paragraph: ownEntry(REASON_WORDS, reason) ?? 'Your bank could not confirm the account.' },
      {
        paragraph:
          'We will not debit this account. Please check the account number, the branch code and the ID number you ' +
          'gave us, and reply to this e-mail with the right details or another account.',
      },
    ],
  });
}
