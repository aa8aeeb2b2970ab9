import type { CollectionProblemCode } from '../invoicing/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { messageBody } from '../mail/index.ts';
import type { MailRecipient } from './customerMails.ts';
import { amountText } from './noticeWords.ts';

/**
 * The e-mails collection sends customers beyond receipts and failure notices (customerNotices.ts): each template
 * takes what it mentions and returns the message in text and HTML (src/modules/mail/messageBody.ts), addressed to
 * each recipient once queueCustomerMails (customerMails.ts) knows them.
 */
export type CustomerMail = (recipient: MailRecipient) => { subject: string; text: string; html: string };

/** What a collection was taken from: a card, or a bank account by debit order. */
export type CollectedFrom = 'card' | 'bank_account';

/** The invoice a message is about, as it names it. */
export interface MailedInvoice {
  invoiceNum: number | null;
  currencyCode: string;
  /** What the customer is asked to pay: what the failed collection tried to take, or what the invoice owes. */
  amountMinor: number;
}

/** What the customer is asked to do about each problem, in the e-mail's words. */
const REMEDY: Readonly<Record<CollectionProblemCode, string>> = {
  no_payment_method: 'add a payment method',
  payment_method_of_other_kind: 'add a payment method of the kind you chose to pay by',
  payment_method_not_valid: 'add a new payment method',
  no_gateway: 'contact us',
  gateway_not_usable: 'contact us',
  gateway_cannot_collect: 'contact us',
  card_at_other_gateway: 'add your card again',
};

/** The seller's name first, then its address and contact lines, as every message to a customer signs. */
export interface Signed {
  signature: string[];
  /** The link that lets this recipient pay the invoice, when the service knows its origin. */
  payLink: (recipient: MailRecipient) => string | undefined;
}

/** The customer's payment settings cannot collect a due invoice: what is wrong, and what to do about it. */
export function paymentMethodNeededMail(
  signed: Signed,
  invoice: MailedInvoice,
  blocked: { problem: CollectionProblemCode; message: string },
): CustomerMail {
  const seller = signed.signature[0] ?? '';
  const subject = `Invoice ${invoice.invoiceNum} from ${seller}: we need a payment method`;
  return (recipient) => {
    const link = signed.payLink(recipient);
    const blocks: MessageBlock[] = [
      {
        paragraph: `Invoice ${invoice.invoiceNum} (${amountText(invoice.currencyCode, invoice.amountMinor)}) is due, and we could not collect it automatically: ${blocked.message}.`,
        strong: true,
      },
      {
        paragraph: `Please ${REMEDY[blocked.problem]}, or pay the invoice another way. We will collect it as soon as we can.`,
      },
      ...(link ? [{ link, text: `Pay invoice ${invoice.invoiceNum}` }] : []),
    ];
    return {
      subject,
      ...messageBody({
        title: subject,
        greeting: `Dear ${recipient.name},`,
        blocks,
        signature: signed.signature,
      }),
    };
  };
}
