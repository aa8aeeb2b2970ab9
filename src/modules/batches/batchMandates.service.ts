import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { collectionPeriod, collectionTermsProblem } from '../../core/mandateChecks.ts';
import { emandatesOfPaymentMethods } from '../mandates/index.ts';
import type { Emandate } from '../mandates/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLineWithPayment, BatchRow } from './batch.repository.ts';

/**
 * docs/design/mandates.md, "Checks at build time" (docs/design/batches.md, "Build checks"): each line whose bank
 * account is linked to an eMandate is checked against it when the batch is built. What each line that fails breaks,
 * naming its payment and customer and the rule; none when every line keeps to its mandate.
 */
export async function mandateProblems(
  ctx: ServiceContext,
  batch: BatchRow,
  lines: readonly BatchLineWithPayment[],
): Promise<string[]> {
  const methodIds = [...new Set(lines.map((line) => line.payment_method_id!))];
  const mandates = await emandatesOfPaymentMethods(ctx, methodIds);
  if (mandates.size === 0) return [];
  // Collections already made or on their way, then this batch's own lines in order: a line is refused when an
  // earlier one from the same account falls in its period.
  const collected = new Map<number, PlainDate[]>();
  const noteCollection = (methodId: number, date: PlainDate) =>
    collected.set(methodId, [...(collected.get(methodId) ?? []), date]);
  for (const other of await repo.listCollectionsFrom(
    ctx.db,
    ctx.account.id,
    [...mandates.keys()],
    batch.id,
  )) {
    noteCollection(other.payment_method_id!, other.action_date);
  }
  const problems: string[] = [];
  for (const line of lines) {
    const mandate = mandates.get(line.payment_method_id!);
    if (!mandate) continue;
    const problem = lineMandateProblem(
      mandate,
      line,
      batch.action_date,
      collected.get(mandate.paymentMethodId!),
    );
    if (problem) {
      problems.push(
        `payment ${line.payment_id} (customer ${line.customer_id}): eMandate ${mandate.debit.contractRef}: ${problem}`,
      );
    }
    noteCollection(mandate.paymentMethodId!, batch.action_date);
  }
  return problems;
}

function lineMandateProblem(
  mandate: Emandate,
  line: BatchLineWithPayment,
  actionDate: PlainDate,
  earlier: readonly PlainDate[] = [],
): string | undefined {
  // Signed stands for active until the bank's authentication is built (docs/spec-decisions.md, "eMandates").
  if (mandate.status !== 'signed') return `the mandate is ${mandate.status}, not signed`;
  const terms = mandate.debit;
  const period = collectionPeriod(terms, actionDate);
  const earlierInPeriod =
    period === undefined ? undefined : earlier.find((date) => collectionPeriod(terms, date) === period);
  return collectionTermsProblem(
    terms,
    { actionDate, amountMinor: line.amount_minor, currencyCode: line.currency_code },
    earlierInPeriod,
  );
}
