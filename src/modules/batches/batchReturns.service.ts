import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { earliestActionDate, onBusinessDay } from '../../core/bankingDays.ts';
import { nextPresentation } from './batchRules.ts';
import type { BatchState } from './batchRules.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { addDays, maxDate, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { mandatedActionDate } from '../mandates/index.ts';
import { parseNachaReturns } from './bankFiles/nachaReturns.ts';
import { achReason, saEftReason, sepaReason } from '../collections/index.ts';
import type { ReasonMapping, ReturnReason } from '../collections/index.ts';
import { parsePain002 } from './bankFiles/sepaStatusReport.ts';
import {
  afterRetriesRanOut,
  noticeCollectionFailed,
  noticeDebitMoved,
  noticeRetriesRanOut,
} from '../collections/index.ts';
import type { UncollectedInvoice } from '../collections/index.ts';
import { emitEvent, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import { getGateway, makesBankFiles } from '../gateways/index.ts';
import { getInvoice, setCollectionSchedule } from '../invoicing/index.ts';
import { paymentsByIds, reversePayment, settlePayment, withLockedCustomer } from '../ledger/index.ts';
import { emandatesOfPaymentMethods } from '../mandates/index.ts';
import { invalidatePaymentMethod } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { getBatchRecord } from './batch.service.ts';
import { receiptOfSettledLine } from './batchReceipts.service.ts';
import { carryDebit } from './carriedDebits.ts';
import type { CarriedDebit } from './carriedDebits.ts';
import { handToCustomer } from './carriedDebits.service.ts';
import { collectedByDebitOrder } from './debitCollection.service.ts';
import { netcashStatementReports } from './netcashBatchFile.ts';

/**
 * What the bank says about a batch's lines after the fact: an unpaid (a return, a reject, a dispute, a refund) fails
 * its line's payment and reopens its invoices, whenever it comes (docs/design/batches.md, "States": also after
 * `processed`). Reports come from the gateway (batchRun.service.ts), from the bank's files uploaded for a bankfile
 * gateway, or one line at a time through the API.
 */

/**
 * Returns that say the account itself can no longer be debited: its isValid goes false (docs/design/batches.md,
 * "Return reasons").
 */
const INVALIDATING: ReadonlySet<ReturnReason> = new Set([
  'account_closed',
  'invalid_account',
  'debits_not_allowed',
  'deceased',
  'account_frozen',
  'legal',
]);

const REASONS_BY_RAIL: Readonly<Record<Rail, (code: string) => ReasonMapping>> = {
  debit_order: saEftReason,
  ach: achReason,
  sepa: sepaReason,
};

/**
 * When and how a returned debit is presented again (docs/gateways.md, "Returns presented again"): null when the
 * return may not be retried or the rail's presentations are used up; else, under an eMandate, on its next
 * collection date that a batch submitted today can still make: alone, or, when that period will have a debit of
 * its own (`recurs`: a subscription's), together with it or handed to the customer (carryDebit: docs/gateways.md,
 * "Months that stay in step"); without one, alone, the rail's gap after the return, on a business day.
 */
async function nextPresentationPlan(
  ctx: ServiceContext,
  rail: Rail,
  retryable: boolean,
  presented: number,
  debit: { paymentMethodId: number; amountMinor: number; recurs: boolean },
): Promise<CarriedDebit | null> {
  const on = today(ctx);
  const gap = nextPresentation(rail, retryable, presented, on);
  if (gap === null) return null;
  const mandate =
    rail === 'debit_order'
      ? (await emandatesOfPaymentMethods(ctx, [debit.paymentMethodId])).get(debit.paymentMethodId)
      : undefined;
  if (!mandate) return { way: 'alone', actionDate: onBusinessDay(gap, rail) };
  if (mandate.status !== 'signed') return null;
  // At least a week after the return, so that an ad hoc or weekly mandate is not presented again two days later.
  const from = maxDate(earliestActionDate(rail, on), addDays(on, MANDATED_GAP_DAYS));
  const next = mandatedActionDate(mandate.debit, from);
  return next === undefined ? null : carryDebit(mandate.debit, next, debit.amountMinor, debit.recurs);
}

/** The least time between a return and the next presentation under a mandate (docs/gateways.md, "Returns presented again"). */
const MANDATED_GAP_DAYS = 7;

/** A returned debit's invoice, as the customer is told of it. */
interface ReturnedInvoice extends UncollectedInvoice {
  reason: string;
  paymentMethodId: number;
  nextTryDate: PlainDate | null;
  together?: boolean;
  customerPays?: boolean;
}

/**
 * Fails the line with the rail's `code`: the payment Failed with its reason, its invoices owe the money again
 * (`invoice.payment_failed`), the bank account invalid when the reason says so, and each debit-order invoice
 * presented again when the rail allows, its NextTryDate the date, or handed to its customer; else its presentations
 * have run out (`invoice.collection_exhausted`, the staff told, the account's actions). The customer is told of every
 * return (docs/gateways.md, "Returns presented again").
 */
export async function applyUnpaid(
  ctx: ServiceContext,
  batch: BatchRecord,
  line: BatchLine,
  code: string,
): Promise<void> {
  const rail = batch.rail as Rail;
  const mapping = REASONS_BY_RAIL[rail](code);
  const payment = (await paymentsByIds(ctx, [line.paymentId])).get(line.paymentId);
  const paid = (payment?.allocations ?? []).filter((a) => a.targetType === 'invoice');
  let ranOut = false;
  let mailed = false;
  await reversePayment(ctx, line.paymentId, { reason: mapping.reason, code }, async (tctx) => {
    const events: EventToEmit[] = [];
    if (INVALIDATING.has(mapping.reason)) {
      events.push(...(await invalidatePaymentMethod(tctx, line.paymentMethodId!)));
    }
    for (const allocation of paid) {
      const returned: ReturnedInvoice = {
        customerId: line.customerId,
        invoiceId: allocation.targetId,
        currencyCode: batch.currencyCode,
        amountMinor: allocation.amountMinor,
        reason: mapping.reason,
        paymentMethodId: line.paymentMethodId!,
        nextTryDate: null,
      };
      const outcome = await returnInvoice(tctx, { rail, retryable: mapping.retryable, batch }, returned);
      events.push(...outcome.events);
      if (outcome.ranOut) ranOut = true;
      mailed = true;
    }
    return events;
  });
  if (mailed) ctx.mailQueued();
  if (ranOut) await afterRetriesRanOut(ctx, line.customerId);
}

/**
 * One invoice of a returned line, in the reversal's transaction: it owes the money again, is presented again,
 * handed to its customer or has run out of presentations, and its customer is told which.
 */
async function returnInvoice(
  tctx: ServiceContext,
  how: { rail: Rail; retryable: boolean; batch: BatchRecord },
  returned: ReturnedInvoice,
): Promise<{ events: EventToEmit[]; ranOut: boolean }> {
  const invoice = await getInvoice(tctx, returned.invoiceId);
  // Read after the bank account was made invalid above: a customer's debit order it blocks still counts.
  const byDebitOrder = await collectedByDebitOrder(tctx, invoice);
  const ref = { type: 'invoice', id: returned.invoiceId };
  const before = await snapshotResource(tctx, ref);
  const events: EventToEmit[] = [{ type: 'invoice.payment_failed', ref, before }];
  let plan: CarriedDebit | null = null;
  if (byDebitOrder) {
    // A subscription's invoice: its next renewal will want the next period's debit.
    const recurs = invoice.subscriptionId !== null;
    plan = await nextPresentationPlan(tctx, how.rail, how.retryable, invoice.numTries, {
      ...returned,
      recurs,
    });
    await presentAgain(tctx, returned, plan);
    if (plan === null) events.push({ type: 'invoice.collection_exhausted', ref });
  }
  // One notice per return; the last one says no presentation follows, and the staff are told with it.
  const failure = { ...returned, from: 'bank_account' as const };
  if (byDebitOrder && plan === null) {
    // Used up when the return could be retried but no presentation is left; else stopped by its reason.
    await noticeRetriesRanOut(tctx, { ...failure, exhausted: how.retryable });
  } else if (!(await noticeCollectionFailed(tctx, failure)) && plan !== null) {
    // The account sends no failure notices, but a debit's new date is told whatever it sends.
    await noticeDebitMoved(tctx, {
      ...returned,
      from: how.batch.actionDate,
      to: plan.way === 'customer' ? null : plan.actionDate,
      together: plan.way === 'together',
      why: 'Your bank returned the debit order unpaid.',
    });
  }
  return { events, ranOut: byDebitOrder && plan === null };
}

/** Sets the invoice's next presentation as the plan says, and notes it for the customer's notice. */
async function presentAgain(
  tctx: ServiceContext,
  returned: ReturnedInvoice,
  plan: CarriedDebit | null,
): Promise<void> {
  if (plan?.way === 'customer') {
    await handToCustomer(tctx, returned.invoiceId, plan.actionDate);
    returned.customerPays = true;
    return;
  }
  returned.nextTryDate = plan?.actionDate ?? null;
  returned.together = plan?.way === 'together';
  await setCollectionSchedule(tctx, returned.invoiceId, {
    addTry: false,
    nextTryDate: plan && startOfDate(plan.actionDate, tctx.account.timeZone),
  });
}

/**
 * A settled debit: the invoices it paid in full have no next try, and the customer gets a receipt once the rail's
 * return window has passed (docs/gateways.md, "Receipts after the return window"). Its own transaction after the
 * settlement's: a crash between the two loses the receipt, never the money.
 */
async function afterSettled(ctx: ServiceContext, batch: BatchRecord, line: BatchLine): Promise<void> {
  const payment = (await paymentsByIds(ctx, [line.paymentId])).get(line.paymentId);
  await withLockedCustomer(ctx, line.customerId, async (tctx) => {
    for (const allocation of payment?.allocations ?? []) {
      if (allocation.targetType !== 'invoice') continue;
      const invoice = await getInvoice(tctx, allocation.targetId);
      if (invoice.balances.balanceMinor > 0 || invoice.nextTryDate === null) continue;
      const ref = { type: 'invoice', id: allocation.targetId };
      const before = await snapshotResource(tctx, ref);
      await setCollectionSchedule(tctx, allocation.targetId, { addTry: false, nextTryDate: null });
      await emitEvent(tctx, 'invoice.updated', ref, { before });
    }
    await receiptOfSettledLine(tctx, batch, line.paymentId);
  });
  ctx.mailQueued();
}

/** Lines a run or an upload settled and returned. */
export interface LineCounts {
  settled: number;
  returned: number;
}

/** Another process answered the line first (two runs at once): nothing is left to do. */
const ANSWERED_MEANWHILE = new Set(['payment_not_pending', 'payment_failed']);

/**
 * Applies one report on a line: `paid` settles it while pending (on the batch's action date); `unpaid` fails it.
 */
export async function applyReport(
  ctx: ServiceContext,
  batch: BatchRecord,
  line: BatchLine,
  report: { outcome: 'paid' | 'unpaid'; code: string | null },
  counts: LineCounts,
): Promise<void> {
  if (report.outcome === 'paid' && line.state !== 'pending') return;
  try {
    if (report.outcome === 'paid') await settlePayment(ctx, line.paymentId, batch.actionDate);
    else await applyUnpaid(ctx, batch, line, report.code ?? '');
  } catch (error) {
    if (error instanceof ConflictError && ANSWERED_MEANWHILE.has(error.code)) return;
    throw error;
  }
  if (report.outcome === 'paid') await afterSettled(ctx, batch, line);
  if (report.outcome === 'paid') counts.settled += 1;
  else counts.returned += 1;
}

const REPORTING_STATES: readonly BatchState[] = ['submitted', 'processing', 'processed'];

function assertReporting(batch: BatchRecord): void {
  if (!REPORTING_STATES.includes(batch.state)) {
    throw new ConflictError(
      'batch_not_submitted',
      `Batch ${batch.token} is ${batch.state}: the bank reports only on a submitted batch`,
    );
  }
}

/**
 * A line is paid only once the bank processes its batch (from its action date): before, the batch may still be
 * cancelled. The same rule for a result recorded by hand and for a bank's file (docs/gateways.md, "The bankfile
 * gateway").
 */
function assertPayable(batch: BatchRecord, what: string): void {
  if (batch.state === 'submitted') {
    throw new ConflictError(
      'batch_not_processing',
      `Batch ${batch.token} is submitted: ${what} (a line is paid once the bank processes the batch, from its action date)`,
    );
  }
}

/** An entry about a line that does not match it (a Netcash unpaid of another amount): it changed nothing. */
export interface MismatchedEntry {
  /** The entry's 1-based line in the file. */
  line: number;
  paymentId: number;
  reason: string;
}

export interface ReturnsOutcome {
  returned: number;
  settled: number;
  /** Entries that change nothing: accepted-but-not-settled statuses, notifications of change, lines failed already. */
  unchanged: number;
  mismatched: MismatchedEntry[];
}

interface FileReport {
  lineRef: string;
  outcome: 'paid' | 'unpaid' | 'none';
  code: string | null;
}

/** The reports in a pain.002 status report (SEPA) or a NACHA return file, checked to be about this batch's file. */
function reportsOfDocument(batch: BatchRecord, document: string): FileReport[] {
  if (document.trimStart().startsWith('<')) {
    if (batch.rail !== 'sepa')
      throw ValidationError.field('document', `batch ${batch.token} is not a sepa batch`);
    const report = parsePain002(document);
    if (batch.providerRef !== null && report.originalMessageId !== batch.providerRef) {
      throw ValidationError.field(
        'document',
        `the report answers message ${report.originalMessageId}, not this batch's file (${batch.providerRef})`,
      );
    }
    return report.transactions.map((tx) => ({
      lineRef: tx.originalEndToEndId,
      outcome: tx.status === 'RJCT' ? 'unpaid' : tx.status === 'ACSC' ? 'paid' : 'none',
      code: tx.reasonCode ?? 'MS03',
    }));
  }
  if (batch.rail !== 'ach')
    throw ValidationError.field('document', `batch ${batch.token} is not an ach batch`);
  return parseNachaReturns(document).map((entry) => ({
    lineRef: entry.individualId.trim(),
    outcome: entry.kind === 'return' ? 'unpaid' : 'none',
    code: entry.kind === 'return' ? entry.returnReasonCode : null,
  }));
}

/**
 * Records the bank's answer to a bankfile gateway's batch from its file: a SEPA pain.002 status report (RJCT fails
 * the line with its reason code, ACSC settles it) or a NACHA return file (each return fails its entry); for a
 * netcash gateway's debit orders, Netcash's statement (docs/gateways/netcash.md, "Statements"). Every entry
 * must be a line of the batch, or nothing is recorded (422 naming the unknown references); a file that settles a
 * line of a batch still only submitted records nothing either (409, as the line's result by hand answers).
 */
export async function uploadBatchReturns(
  ctx: ServiceContext,
  token: string,
  document: string,
): Promise<ReturnsOutcome> {
  const batch = await getBatchRecord(ctx, token);
  assertReporting(batch);
  if (!makesBankFiles(await getGateway(ctx, batch.gatewayId))) {
    throw new ConflictError(
      'batch_not_bank_file',
      `Batch ${token} goes through a provider, which reports on it itself; record a line's result with PUT /v1/batches/payments/{paymentID}/result`,
    );
  }
  const lines = new Map(
    (await repo.listLines(ctx.db, ctx.account.id, batch.id)).map((line) => [String(line.paymentId), line]),
  );
  // A Netcash statement covers the whole Netcash account: only its entries about this batch's lines are read, and
  // one that does not match its line's amount and sign is told, not applied (docs/gateways/netcash.md, "Statements").
  const mismatched: MismatchedEntry[] = [];
  const reports =
    batch.rail === 'debit_order'
      ? netcashStatementReports(
          document,
          new Map([...lines].map(([ref, line]) => [ref, line.amountMinor])),
        ).flatMap((report): FileReport[] => {
          if (report.outcome !== 'mismatched') return [report];
          mismatched.push({
            line: report.entryLine,
            paymentId: Number(report.lineRef),
            reason: report.reason,
          });
          return [];
        })
      : reportsOfDocument(batch, document);
  const unknown = reports.filter((report) => !lines.has(report.lineRef)).map((report) => report.lineRef);
  if (unknown.length > 0) {
    throw ValidationError.field(
      'document',
      `names entries that are not lines of this batch: ${unknown.join(', ')}`,
    );
  }
  const settling = reports.filter((report) => report.outcome === 'paid').map((report) => report.lineRef);
  if (settling.length > 0) {
    assertPayable(
      batch,
      `the file settles ${settling.join(', ')}; upload it again once the batch is processing`,
    );
  }
  const counts: LineCounts = { settled: 0, returned: 0 };
  let unchanged = 0;
  for (const report of reports) {
    const line = lines.get(report.lineRef)!;
    if (
      report.outcome === 'none' ||
      line.state === 'failed' ||
      (report.outcome === 'paid' && line.state !== 'pending')
    ) {
      unchanged += 1;
      continue;
    }
    await applyReport(ctx, batch, line, { outcome: report.outcome, code: report.code }, counts);
  }
  return { ...counts, unchanged, mismatched };
}

/**
 * Records one line's result by hand (a bank's report read by a person, a provider's portal): `paid` settles a
 * pending line, `unpaid` with the rail's code fails it, even after the batch was processed (a late return).
 */
export async function recordLineResult(
  ctx: ServiceContext,
  paymentId: number,
  result: { status: 'paid' | 'unpaid'; reasonCode?: string },
): Promise<void> {
  const found = await repo.findLine(ctx.db, ctx.account.id, paymentId);
  const line = await repo.findLineWithPayment(ctx.db, ctx.account.id, paymentId);
  if (!found || !line) throw new NotFoundError('Batch payment', paymentId);
  const [batch] = await repo.findBatches(ctx.db, ctx.account.id, [found.batchId]);
  assertReporting(batch!);
  if (result.status === 'paid') assertPayable(batch!, `payment ${paymentId} cannot be paid yet`);
  if (result.status === 'unpaid' && !result.reasonCode) {
    throw ValidationError.field(
      'ReasonCode',
      'is required for an unpaid line (the rail’s code: 02, R01, AM04...)',
    );
  }
  if (line.state === 'failed' || (result.status === 'paid' && line.state !== 'pending')) {
    throw new ConflictError('batch_line_final', `Payment ${paymentId} is ${line.state} already`);
  }
  const counts: LineCounts = { settled: 0, returned: 0 };
  await applyReport(ctx, batch!, line, { outcome: result.status, code: result.reasonCode ?? null }, counts);
}
