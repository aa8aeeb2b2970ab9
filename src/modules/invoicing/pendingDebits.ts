import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { dateForDocument } from './documentText.ts';

/**
 * A payment allocated to an invoice that the bank has not yet paid (a debit order in a batch, or any payment still
 * Pending): the invoice's documents show it as still due, with when and from where it will be taken
 * (docs/spec-decisions.md, "Pending debits on documents"). The ledger, a higher module, answers through this port
 * (connected once at start in src/connectModules.ts).
 */
export interface PendingDebit {
  invoiceId: number;
  paymentId: number;
  /** What of the payment is allocated to the invoice. */
  amountMinor: number;
  /** The payment's date: for a batch's line, the batch's action date. */
  date: PlainDate;
  /** The last four digits of the bank account debited; null for a pending payment not taken from one. */
  accountLastFour: string | null;
}

export type PendingDebitsReader = (
  ctx: ServiceContext,
  invoiceIds: readonly number[],
) => Promise<PendingDebit[]>;

let connected: PendingDebitsReader | undefined;

export function registerPendingDebits(port: PendingDebitsReader): void {
  connected = port;
}

/** The pending debits of each invoice, by invoice id (an invoice with none is absent). */
export async function pendingDebitsOf(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, PendingDebit[]>> {
  if (!connected)
    throw new Error('the pending-debits port is not registered: call connectModules() at start');
  const result = new Map<number, PendingDebit[]>();
  if (invoiceIds.length === 0) return result;
  for (const debit of await connected(ctx, invoiceIds)) {
    const list = result.get(debit.invoiceId) ?? [];
    list.push(debit);
    result.set(debit.invoiceId, list);
  }
  return result;
}

/**
 * "To be debited on 25 Jan 2027 from account ending 0001", or "Payment pending since 25 Jan 2027": from when and
 * where only, so that a statement's pending payment, which is no one invoice's, is worded by the same rule.
 */
export function pendingDebitWords(debit: Pick<PendingDebit, 'date' | 'accountLastFour'>): string {
  return debit.accountLastFour === null
    ? `Payment pending since ${dateForDocument(debit.date)}`
    : `To be debited on ${dateForDocument(debit.date)} from account ending ${debit.accountLastFour}`;
}
