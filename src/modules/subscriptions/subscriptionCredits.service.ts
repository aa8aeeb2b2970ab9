import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { issueCreditNoteAdjustment } from '../ledger/index.ts';
import type { ReductionTaxPart } from '../ledger/index.ts';
import {
  insertCredit,
  linkCreditAdjustment,
  listPeriodsEndingAfter,
} from './subscriptionChanges.repository.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * A credit owed to a subscription's customer: its amount (taxes included), its words, its service time and the
 * invoice that billed that time, whose supply it reduces (null when none did).
 */
export interface CreditToIssue {
  amountMinor: number;
  descrip: string;
  start: PlainDate;
  end: PlainDate;
  invoiceId: number | null;
  /**
   * A cut's credit of an invoice at two rates: what it takes of each rate (docs/tax.md, "How a crossing period is
   * invoiced").
   */
  taxParts?: readonly ReductionTaxPart[];
}

/**
 * Records the credit (subscription_credits) and, when above zero, issues it in the caller's transaction as a
 * `credit_note` negative adjustment (docs/spec-decisions.md, "Credits of subscriptions"), auto-applied to the
 * customer's earliest open invoices when asked: a tax credit note of the invoice that billed the time it credits,
 * wherever its money goes (docs/tax.md, "Tax credit notes"). Returns the adjustment's id, or null for a credit of nothing.
 */
export async function issueSubscriptionCredit(
  ctx: ServiceContext,
  row: SubscriptionRecord,
  credit: CreditToIssue,
  options: { date: PlainDate; autoApply: boolean },
): Promise<number | null> {
  const creditId = await insertCredit(ctx.db, ctx.account.id, row.id, row.customerId, {
    currencyCode: row.currencyCode,
    amountMinor: credit.amountMinor,
    descrip: credit.descrip,
    periodStart: credit.start,
    periodEnd: credit.end,
    createdAt: nowInstant(ctx),
  });
  if (credit.amountMinor <= 0) return null;
  const adjustmentId = await issueCreditNoteAdjustment(ctx, {
    customerId: row.customerId,
    subscriptionId: row.id,
    currencyCode: row.currencyCode,
    amountMinor: credit.amountMinor,
    date: options.date,
    ref: `SUB-${row.id}-CREDIT-${creditId}`,
    memo: credit.descrip,
    autoApply: options.autoApply,
    reduces:
      credit.invoiceId === null
        ? []
        : [
            {
              invoiceId: credit.invoiceId,
              amountMinor: credit.amountMinor,
              taxParts: credit.taxParts ?? null,
            },
          ],
  });
  await linkCreditAdjustment(ctx.db, ctx.account.id, creditId, adjustmentId);
  return adjustmentId;
}

/**
 * The invoice that billed the subscription's period holding `date`: what a usage correction carried as a credit
 * corrects (docs/tax.md, "Tax credit notes"); null when no invoice billed it.
 */
export async function invoiceOfTime(
  ctx: ServiceContext,
  subscriptionId: number,
  date: PlainDate,
): Promise<number | null> {
  const periods = await listPeriodsEndingAfter(ctx.db, ctx.account.id, subscriptionId, date);
  return periods.find((period) => period.periodStart <= date && period.invoiceId !== null)?.invoiceId ?? null;
}
