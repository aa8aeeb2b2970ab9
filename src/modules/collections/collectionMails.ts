import type { CollectionProblemCode } from '../../core/customerCollection.ts';
import { minorToDecimalText } from '../../core/money.ts';

/**
 * The e-mails collection sends customers, as texts: each template takes what it mentions and returns the message,
 * addressed by name once queueCustomerMails (customerMails.ts) knows each recipient.
 */
export type CustomerMail = (customerName: string) => { subject: string; text: string };

/** The invoice a message is about, as it names it. */
export interface MailedInvoice {
  invoiceNum: number | null;
  currencyCode: string;
  /** What the customer is asked to pay: what the failed collection tried to take, or what the invoice owes. */
  amountMinor: number;
}

/** What a collection that ran out of retries was taken from, for the words of the e-mail. */
const FAILED_FROM = {
  card: { tried: 'charge your card', failed: 'it was declined', instead: 'give us a new card' },
  bank_account: {
    tried: 'debit your bank account',
    failed: 'the bank returned it unpaid',
    instead: 'give us other bank details',
  },
} as const;

export type CollectedFrom = keyof typeof FAILED_FROM;

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

const amountOf = (invoice: MailedInvoice) =>
  `${invoice.currencyCode} ${minorToDecimalText(invoice.amountMinor, invoice.currencyCode)}`;

/** Retries ran out (dunning): the last failure's reason, and the two ways left to pay. */
export function retriesRanOutMail(
  seller: string,
  invoice: MailedInvoice,
  reason: string,
  from: CollectedFrom,
): CustomerMail {
  const words = FAILED_FROM[from];
  return (name) => ({
    subject: `We could not collect payment for invoice ${invoice.invoiceNum} from ${seller}`,
    text: [
      `Dear ${name},`,
      '',
      `We tried to ${words.tried} for invoice ${invoice.invoiceNum} (${amountOf(invoice)}) and ${words.failed} (${reason.replaceAll('_', ' ')}). We will not try again.`,
      `Please pay the invoice another way, or ${words.instead}.`,
      '',
      seller,
    ].join('\n'),
  });
}

/** The customer's payment settings cannot collect a due invoice: what is wrong, and what to do about it. */
export function paymentMethodNeededMail(
  seller: string,
  invoice: MailedInvoice,
  blocked: { problem: CollectionProblemCode; message: string },
): CustomerMail {
  return (name) => ({
    subject: `Invoice ${invoice.invoiceNum} from ${seller}: we need a payment method`,
    text: [
      `Dear ${name},`,
      '',
      `Invoice ${invoice.invoiceNum} (${amountOf(invoice)}) is due, and we could not collect it automatically: ${blocked.message}.`,
      `Please ${REMEDY[blocked.problem]}, or pay the invoice another way. We will collect it as soon as we can.`,
      '',
      seller,
    ].join('\n'),
  });
}
