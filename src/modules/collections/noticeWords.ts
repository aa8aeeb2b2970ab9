import { dateAt } from '../../core/calendar.ts';
import { retryClassOf, FAILURE_REASONS } from '../gateways/index.ts';
import type { FailureReason } from '../gateways/index.ts';
import type { ReturnReason } from './returnReasons.ts';
import { minorToDecimalText } from '../../core/money.ts';

/**
 * The words of the collection loop's e-mails to customers (docs/gateways.md, "The collection loop"): why a payment
 * failed in a sentence a customer understands, never a code, and dates as a person writes them, in the account's
 * time zone.
 */

/** A card's decline (src/modules/gateways/failureReasons.ts, FailureReason), one sentence each. */
const CARD_REASONS: Readonly<Record<FailureReason, string>> = {
  insufficient_funds: 'Your bank declined the payment because there was not enough money available.',
  card_declined: 'Your bank declined the payment without giving us a reason.',
  expired_card: 'The card has expired.',
  lost_card: 'The card was reported lost.',
  stolen_card: 'The card was reported stolen.',
  invalid_account: 'Your bank told us the card or account number is not valid.',
  account_closed: 'Your bank told us the account has been closed.',
  debits_not_allowed: 'Your bank does not allow this kind of payment from the account.',
  account_holder_mismatch: 'Your bank told us the name does not match the account holder.',
  authentication_required: 'Your bank asks you to confirm this payment yourself before it can go through.',
  processing_error: 'The payment could not be processed because of a technical problem.',
  gateway_timeout: 'The payment could not be processed because your bank did not answer in time.',
};

/** A debit order's return (src/modules/collections/returnReasons.ts, ReturnReason), one sentence each. */
const RETURN_REASON_WORDS: Readonly<Record<ReturnReason, string>> = {
  insufficient_funds: 'Your bank returned the debit order because there was not enough money in the account.',
  uncleared_funds: 'Your bank returned the debit order because the money in the account had not cleared yet.',
  account_closed: 'Your bank returned the debit order because the account has been closed.',
  invalid_account: 'Your bank returned the debit order because the account number is not valid.',
  debits_not_allowed: 'Your bank returned the debit order because the account does not accept debit orders.',
  payment_stopped: 'The debit order was stopped at your request.',
  authorisation_revoked: 'The debit order was returned because its authority was cancelled.',
  unauthorised: 'Your bank returned the debit order because it found no authority for it.',
  disputed: 'The debit order was disputed with your bank.',
  deceased: 'Your bank returned the debit order because the account holder has died.',
  account_frozen: 'Your bank returned the debit order because the account is frozen.',
  legal: 'Your bank returned the debit order for a legal reason.',
  consecutive_unpaids: 'Your bank returned the debit order because earlier debit orders were unpaid.',
  expired_card: 'The card has expired.',
  lost_stolen: 'The card was reported lost or stolen.',
  authentication_required: 'Your bank asks you to confirm this payment yourself before it can go through.',
  technical: 'The debit order could not be processed because of a technical problem at the bank.',
  unclassified: 'Your bank returned the payment unpaid.',
};

/** A reason no table here knows: a general sentence rather than the code. */
const GENERAL = 'The payment did not go through.';

/** Why the payment failed, in a customer's words; a reason of neither vocabulary gets a general sentence. */
export function reasonSentence(reason: string, from: 'card' | 'bank_account'): string {
  const cards = CARD_REASONS as Readonly<Record<string, string>>;
  const returns = RETURN_REASON_WORDS as Readonly<Record<string, string>>;
  const first = from === 'bank_account' ? returns : cards;
  const second = from === 'bank_account' ? cards : returns;
  return (
    Object.hasOwn(first, reason) ? first[reason] : Object.hasOwn(second, reason) ? second[reason] : GENERAL
  )!;
}

/** Whether the reason means the customer must confirm the payment with its bank (3-D Secure, a bank's approval). */
export const needsAuthentication = (reason: string) => reason === 'authentication_required';

/** Whether the reason means the card (or account) can never be used again: a hard decline. */
export function methodUnusable(reason: string): boolean {
  if (!Object.hasOwn(FAILURE_REASONS, reason)) return false;
  return retryClassOf(reason as FailureReason) === 'hard';
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A calendar date as a letter writes it: "2026-12-14" → "14 December 2026". */
export function longDate(date: string): string {
  const [year, month, day] = date.slice(0, 10).split('-').map(Number);
  return `${day} ${MONTHS[month! - 1]} ${year}`;
}

/** A plain date or an instant as the date it is in the account's time zone, written as a letter writes it. */
export function longDateIn(dateOrInstant: string, timeZone: string): string {
  return longDate(dateOrInstant.length > 10 ? dateAt(dateOrInstant, timeZone) : dateOrInstant);
}

export const amountText = (currencyCode: string, minor: number) =>
  `${currencyCode} ${minorToDecimalText(minor, currencyCode)}`;
