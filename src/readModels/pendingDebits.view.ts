import type { ServiceContext } from '../context.ts';
import type { PendingDebit } from '../modules/invoicing/index.ts';
import { debitDatesOfPayments } from '../modules/batches/index.ts';
import { allocationsToTargets, paymentsByIds } from '../modules/ledger/index.ts';
import { unopenedPaymentMethodsByIds } from '../modules/paymentMethods/index.ts';

/**
 * The pending payments allocated to each invoice, with the bank account each is taken from (invoicing's
 * pending-debits port, filled by src/modulePorts.ts), dated by their batches' action dates: four statements for
 * any number of invoices.
 */
export async function pendingDebitsToInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<PendingDebit[]> {
  const allocations = [...(await allocationsToTargets(ctx, 'invoice', invoiceIds)).values()]
    .flat()
    .filter((allocation) => allocation.sourceType === 'payment');
  if (allocations.length === 0) return [];
  const payments = await paymentsByIds(ctx, [...new Set(allocations.map((a) => a.sourceId))]);
  const pending = allocations.filter((a) => payments.get(a.sourceId)?.state === 'pending');
  if (pending.length === 0) return [];
  const methodIds = pending.flatMap((a) => payments.get(a.sourceId)!.paymentMethodId ?? []);
  const methods = await unopenedPaymentMethodsByIds(ctx, [...new Set(methodIds)]);
  const debitDates = await debitDatesOfPayments(ctx, [...new Set(pending.map((a) => a.sourceId))]);
  return pending.map((allocation) => {
    const payment = payments.get(allocation.sourceId)!;
    const method = payment.paymentMethodId === null ? undefined : methods.get(payment.paymentMethodId);
    return {
      invoiceId: allocation.targetId,
      paymentId: payment.id,
      amountMinor: allocation.amountMinor,
      date: debitDates.get(payment.id) ?? payment.date,
      accountLastFour: method?.bankAccount?.lastFour ?? null,
    };
  });
}
