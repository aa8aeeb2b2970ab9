import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { isRail } from '../../core/bankingDays.ts';
import { startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { plannedActionDate } from '../mandates/index.ts';
import { emandatesOfPaymentMethods } from '../mandates/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';

/** A debit-order invoice whose first presentation the debit run has not planned yet. */
export interface UnplannedDebit {
  invoiceId: number;
  dueDate: PlainDate;
  method: PaymentMethod;
}

/**
 * The NextTryDate the debit run will give each of these invoices (docs/gateways.md, "Debit orders on the mandate's
 * day"), by invoice id: its bank account's mandate's day on or after its due date, off weekends and public holidays,
 * by the run's one rule (modules/mandates/mandateChecks.ts `plannedActionDate`). The invoice e-mail is written in the bill run
 * that makes the invoice, before the debit run plans it: it announces the same day as the PDF read later. Left out:
 * an invoice whose mandate allows no debit (the run will say why), or whose method is no bank account on a rail.
 */
export async function plannedDebitTries(
  ctx: ServiceContext,
  debits: readonly UnplannedDebit[],
): Promise<Map<number, string>> {
  const planned = new Map<number, string>();
  const onRail = debits.flatMap((debit) => {
    const rail = debit.method.bankAccount?.debitMethod;
    return rail !== undefined && isRail(rail) ? [{ ...debit, rail }] : [];
  });
  if (onRail.length === 0) return planned;
  const mandates = await emandatesOfPaymentMethods(
    ctx,
    onRail.flatMap((debit) => (debit.rail === 'debit_order' ? [debit.method.id] : [])),
  );
  for (const debit of onRail) {
    const mandate = debit.rail === 'debit_order' ? mandates.get(debit.method.id) : undefined;
    const plan = plannedActionDate(
      debit.rail,
      debit.dueDate,
      today(ctx),
      mandate && { contractRef: mandate.debit.contractRef, status: mandate.status, terms: mandate.debit },
    );
    if ('actionDate' in plan)
      planned.set(debit.invoiceId, startOfDate(plan.actionDate, ctx.account.timeZone));
  }
  return planned;
}
