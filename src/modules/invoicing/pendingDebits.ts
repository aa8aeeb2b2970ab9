import type { ServiceContext } from '../../context.ts';
import { dateForDocument } from './documentText.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { PendingDebit } from './ports.ts';

/** The pending debits of each invoice, by invoice id (an invoice with none is absent). */
export async function pendingDebitsOf(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, PendingDebit[]>> {
  const result = new Map<number, PendingDebit[]>();
  if (invoiceIds.length === 0) return result;
  for (const debit of await ctx.ports.invoicing.pendingDebits(ctx, invoiceIds)) {
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

/** The date each pending payment is presented to the bank, by payment id (one in no batch is absent). */
export function debitDatesOf(
  ctx: ServiceContext,
  paymentIds: readonly number[],
): Promise<ReadonlyMap<number, PlainDate>> {
  if (paymentIds.length === 0) return Promise.resolve(new Map());
  return ctx.ports.invoicing.debitDates(ctx, paymentIds);
}
