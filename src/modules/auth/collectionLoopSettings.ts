import { wireAmountToMinor } from '../../core/money.ts';
import { isEmailAddress, optionalText } from '../../core/text.ts';
import type { LateChargeHandling } from '../../context.ts';
import type { FieldProblem } from '../../errors.ts';
import type { AccountChanges } from './account.ts';

/**
 * The settings of the collection loop (docs/gateways.md, "The collection loop"): the e-mails customers receive, credit
 * applied before collecting, batches submitted on their own, and where the staff's notices go.
 */

/** A change: undefined keeps a value; null restores the default reminder days or clears the staff address. */
export interface CollectionLoopInput {
  sendPaymentReceipts?: boolean;
  sendPaymentFailedEmails?: boolean;
  sendInvoiceReminders?: boolean;
  invoiceReminderDays?: number[] | null;
  applyCreditFirst?: boolean;
  autoSubmitBatches?: boolean;
  staffEmail?: string | null;
  /** In major units of the account's currency; null clears it. */
  smallInvoiceAmount?: number | null;
  lateChargesOnPaidInvoices?: LateChargeHandling;
}

/** Reminders three days before the due date, on it, and a week, two weeks and a month after it. */
export const DEFAULT_REMINDER_DAYS: readonly number[] = [-3, 0, 7, 14, 30];
export const REMINDER_DAYS_MAX = 10;
export const REMINDER_DAY_MIN = -30;
export const REMINDER_DAY_MAX = 90;
export const STAFF_EMAIL_MAX = 254;

function reminderDaysProblem(days: readonly number[]): string | undefined {
  const increasing = days.every((day, i) => i === 0 || day > days[i - 1]!);
  const inRange = days.every(
    (day) => Number.isSafeInteger(day) && day >= REMINDER_DAY_MIN && day <= REMINDER_DAY_MAX,
  );
  if (days.length <= REMINDER_DAYS_MAX && increasing && inRange) return undefined;
  return `must be at most ${REMINDER_DAYS_MAX} whole days from ${REMINDER_DAY_MIN} to ${REMINDER_DAY_MAX} relative to the due date, each later than the one before`;
}

/** The settings a change writes, its problems keyed by the wire names of PUT /v1/account. */
export function collectionLoopChanges(
  input: CollectionLoopInput,
  currencyCode: string,
  problems: FieldProblem[],
): AccountChanges {
  const changes: AccountChanges = {};
  if (input.sendPaymentReceipts !== undefined) changes.sendPaymentReceipts = input.sendPaymentReceipts;
  if (input.sendPaymentFailedEmails !== undefined)
    changes.sendPaymentFailedEmails = input.sendPaymentFailedEmails;
  if (input.sendInvoiceReminders !== undefined) changes.sendInvoiceReminders = input.sendInvoiceReminders;
  if (input.applyCreditFirst !== undefined) changes.applyCreditFirst = input.applyCreditFirst;
  if (input.autoSubmitBatches !== undefined) changes.autoSubmitBatches = input.autoSubmitBatches;
  if (input.lateChargesOnPaidInvoices !== undefined)
    changes.lateChargesOnPaidInvoices = input.lateChargesOnPaidInvoices;
  const days = input.invoiceReminderDays;
  if (days !== undefined) {
    const problem = days === null ? undefined : reminderDaysProblem(days);
    if (problem) problems.push({ field: 'InvoiceReminderDays', message: problem });
    changes.invoiceReminderDays = days;
  }
  if (input.staffEmail !== undefined) {
    const email = optionalText(input.staffEmail) ?? null;
    if (email !== null && (email.length > STAFF_EMAIL_MAX || !isEmailAddress(email))) {
      problems.push({ field: 'StaffEmail', message: 'must be an e-mail address' });
    }
    changes.staffEmail = email;
  }
  if (input.smallInvoiceAmount !== undefined) {
    const amount =
      input.smallInvoiceAmount === null ? null : wireAmountToMinor(input.smallInvoiceAmount, currencyCode);
    if (amount !== null && 'message' in amount)
      problems.push({ field: 'SmallInvoiceAmount', message: amount.message });
    else changes.smallInvoiceMinor = amount === null ? null : amount.minor;
  }
  return changes;
}
