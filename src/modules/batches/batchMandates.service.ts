import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { collectionPeriod, collectionTermsProblem, scheduledDateOf } from '../mandates/index.ts';
import type { MandateTerms } from '../mandates/index.ts';
import { debiCheckCollectionProblem, emandatesOfPaymentMethods } from '../mandates/index.ts';
import type { Emandate } from '../mandates/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';

/**
 * docs/design/mandates.md, "Checks at build time" (docs/design/batches.md, "Build checks"): each line whose bank
 * account is linked to an eMandate is checked against it when the batch is built. What each line that fails breaks
 * (by payment id), naming the mandate and the rule; such a line leaves the batch (docs/gateways.md, "One customer
 * never holds up a batch").
 */
export async function mandateProblems(
  ctx: ServiceContext,
  batch: BatchRecord,
  lines: readonly BatchLine[],
): Promise<Map<number, string>> {
  const methodIds = [...new Set(lines.map((line) => line.paymentMethodId!))];
  const mandates = await emandatesOfPaymentMethods(ctx, methodIds);
  const problems = new Map<number, string>();
  if (mandates.size === 0) return problems;
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
    noteCollection(other.paymentMethodId!, other.actionDate);
  }
  const mixed = mixesDebiCheck(lines, mandates);
  for (const line of lines) {
    const mandate = mandates.get(line.paymentMethodId!);
    if (!mandate) continue;
    const problem =
      debiCheckLineProblem(mandate, batch.gatewayId, mixed) ??
      lineMandateProblem(mandate, line, batch.actionDate, collected.get(mandate.paymentMethodId!));
    // A line that leaves is not collected: it takes no period from the lines after it.
    if (problem) problems.set(line.paymentId, `eMandate ${mandate.debit.contractRef}: ${problem}`);
    else noteCollection(mandate.paymentMethodId!, batch.actionDate);
  }
  return problems;
}

/** Whether the batch holds DebiCheck collections beside ordinary debit orders. */
function mixesDebiCheck(lines: readonly BatchLine[], mandates: ReadonlyMap<number, Emandate>): boolean {
  const kinds = new Set(lines.map((line) => mandates.get(line.paymentMethodId!)?.debiCheck != null));
  return kinds.size > 1;
}

/**
 * A DebiCheck mandate's line (docs/design/mandates.md, "DebiCheck"): collected only once the bank authenticated the
 * mandate, through the gateway that registered it, in a batch of DebiCheck collections (Netcash takes them in a
 * file of their own: docs/gateways/netcash.md, "DebiCheck"). Undefined for an ordinary mandate, or when it may go.
 */
function debiCheckLineProblem(mandate: Emandate, gatewayId: number, mixed: boolean): string | undefined {
  if (mandate.debiCheck === null) return undefined;
  const problem = debiCheckCollectionProblem(mandate.debiCheck);
  if (problem) return problem;
  if (mandate.debiCheck.gatewayId !== gatewayId) {
    return `its DebiCheck authentication is with gateway ${mandate.debiCheck.gatewayId}, not this batch's ${gatewayId}`;
  }
  if (mixed)
    return 'a DebiCheck collection goes in a batch of DebiCheck collections only, not with ordinary debit orders';
  return undefined;
}

/**
 * The schedule's date a collection stands for: a date moved off a weekend or a public holiday is checked as the
 * scheduled date it was moved from (docs/gateways.md, "Debit orders on the mandate's day").
 */
const scheduledAs = (terms: MandateTerms, actionDate: PlainDate): PlainDate =>
  scheduledDateOf(terms, actionDate) ?? actionDate;

function lineMandateProblem(
  mandate: Emandate,
  line: Pick<BatchLine, 'amountMinor' | 'currencyCode'>,
  actionDate: PlainDate,
  earlier: readonly PlainDate[] = [],
): string | undefined {
  // Signed stands for active; a DebiCheck mandate's bank authentication is checked apart (docs/design/mandates.md,
  // "DebiCheck").
  if (mandate.status !== 'signed') return `the mandate is ${mandate.status}, not signed`;
  const terms = mandate.debit;
  const scheduled = scheduledAs(terms, actionDate);
  const period = collectionPeriod(terms, scheduled);
  const earlierInPeriod =
    period === undefined
      ? undefined
      : earlier.find((date) => collectionPeriod(terms, scheduledAs(terms, date)) === period);
  return collectionTermsProblem(
    terms,
    { actionDate: scheduled, amountMinor: line.amountMinor, currencyCode: line.currencyCode },
    earlierInPeriod,
  );
}

/**
 * Whether a debit whose line left a batch with its mandate's problem can be made now (bundling asks before it
 * bundles it again: docs/gateways.md, "One customer never holds up a batch"): the mandate's refusal of a debit of
 * this amount on this date, or undefined when it allows it (or there is no mandate).
 */
export async function mandateRefusal(
  ctx: ServiceContext,
  paymentMethodId: number,
  debit: { actionDate: PlainDate; amountMinor: number; currencyCode: string },
): Promise<string | undefined> {
  const mandate = (await emandatesOfPaymentMethods(ctx, [paymentMethodId])).get(paymentMethodId);
  if (!mandate) return undefined;
  const debiCheckProblem = mandate.debiCheck && debiCheckCollectionProblem(mandate.debiCheck);
  if (debiCheckProblem) return `eMandate ${mandate.debit.contractRef}: ${debiCheckProblem}`;
  const earlier = (await repo.listCollectionsFrom(ctx.db, ctx.account.id, [paymentMethodId], 0)).map(
    (other) => other.actionDate,
  );
  const problem = lineMandateProblem(
    mandate,
    { amountMinor: debit.amountMinor, currencyCode: debit.currencyCode },
    debit.actionDate,
    earlier,
  );
  return problem === undefined ? undefined : `eMandate ${mandate.debit.contractRef}: ${problem}`;
}
