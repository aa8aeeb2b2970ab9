import { dateAt } from '../../core/calendar.ts';
import type { CollectionProblemCode } from './customerCollection.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import { dateForDocument } from './documentText.ts';

/**
 * The words of an invoice's collection note (automaticCollectionNotes) for a customer: what will be taken, when and
 * from where, or what the customer must do when it cannot be. Never an internal id (docs/gateways.md, "What the
 * invoice says of its collection").
 */

/** The note of a method that will be charged: a card on or after the due date, a debit on its next try's date. */
export function collectingWords(
  method: PaymentMethod,
  invoice: { dueDate: string; nextTryDate: string | null },
  timeZone: string,
): string | undefined {
  if (!method.isValid) return methodNotValidWords(method);
  const on = `on or after ${dateForDocument(invoice.dueDate)}`;
  if (method.creditCard) {
    return `This amount will be charged to ${method.creditCard.cardType} ending ${method.creditCard.lastFour} ${on}.`;
  }
  if (!method.bankAccount) return undefined;
  // The debit's date is the one the collection plans (NextTryDate), or before it is set the one it will plan
  // (automaticCollectionNotes); "on or after" the due date only when the mandate allows none.
  const when =
    invoice.nextTryDate === null ? on : `on ${dateForDocument(dateAt(invoice.nextTryDate, timeZone))}`;
  return `This amount will be debited ${when} from account ending ${method.bankAccount.lastFour}.`;
}

function methodNotValidWords(method: PaymentMethod): string | undefined {
  if (method.creditCard) {
    return `Your card ending ${method.creditCard.lastFour} can no longer be used: please add a new card, or pay this invoice another way.`;
  }
  return method.bankAccount
    ? `Your bank account ending ${method.bankAccount.lastFour} can no longer be debited: please give us other bank details, or pay this invoice another way.`
    : undefined;
}

const ANOTHER_WAY = 'or pay this invoice another way';

/**
 * What the customer must do when their payment settings cannot collect the invoice: the problem in words
 * (`primary`: their primary payment method, when they have one), never the staff's CollectionProblem.
 */
export function blockedWords(
  problem: CollectionProblemCode,
  asked: 'credit_card' | 'debit_order',
  primary: PaymentMethod | undefined,
): string {
  const wanted = asked === 'credit_card' ? 'a card' : 'a bank account';
  switch (problem) {
    case 'payment_method_not_valid':
      return (primary && methodNotValidWords(primary)) ?? `Please add ${wanted}, ${ANOTHER_WAY}.`;
    case 'no_payment_method':
    case 'payment_method_of_other_kind':
      return `We have no ${asked === 'credit_card' ? 'card' : 'bank account'} to collect this amount from: please add ${wanted}, ${ANOTHER_WAY}.`;
    case 'card_at_other_gateway':
      return `Please add your card again so that we can charge it, ${ANOTHER_WAY}.`;
    default:
      return `We cannot collect this amount automatically at the moment: please pay this invoice another way, or contact us.`;
  }
}
