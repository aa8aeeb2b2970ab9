import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { Rail } from '../../core/bankingDays.ts';
import type { DebitProblemCode } from '../invoicing/index.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { queueStaffMail } from '../collections/index.ts';
import {
  allocationsOfSources,
  deleteBatchLinePayment,
  getPayment,
  withLockedCustomer,
} from '../ledger/index.ts';
import type { Gateway } from '../gateways/index.ts';
import type { PaymentMethod, openedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { mandateProblems } from './batchMandates.service.ts';
import { markLineProblem } from './batchPlan.service.ts';
import { netcashLineProblem } from './netcashBatchFile.ts';

/**
 * One customer never holds up a batch (docs/gateways.md, "One customer never holds up a batch"): at the build, a line
 * that cannot be made leaves the batch with its reason, and the others go on to the gateway.
 */

/** Why a line cannot be made: what cannot be used, and the reason in words. */
export interface LeavingReason {
  code: DebitProblemCode;
  reason: string;
}

type Methods = Awaited<ReturnType<typeof openedPaymentMethodsByIds>>;

/**
 * Why a bank account that is not valid is not, when its verification with the debtor's bank says (docs/gateways/
 * netcash.md, "Account verification"): it failed, with the bank's words and the reason, or its answer is awaited.
 */
export function verificationWords(
  paymentMethodId: number,
  bank: NonNullable<PaymentMethod['bankAccount']>,
): string | undefined {
  const verification = bank.verification;
  if (verification?.status === 'failed') {
    return `bank account ${paymentMethodId} failed its verification with the bank: ${verification.detail ?? 'refused'} (${verification.reason})`;
  }
  if (verification?.status === 'pending') {
    return `bank account ${paymentMethodId} is waiting for its verification with the bank`;
  }
  return undefined;
}

/** What keeps the line's bank account from being debited in this batch, or undefined when it can be. */
function bankAccountProblem(
  line: BatchLine,
  batch: BatchRecord,
  gateway: Gateway,
  rail: Rail,
  methods: Methods,
): string | undefined {
  if (line.currencyCode !== batch.currencyCode)
    return `the debit is in ${line.currencyCode}, not ${batch.currencyCode}`;
  const method = methods.get(line.paymentMethodId!);
  if (!method || method.customerId !== line.customerId) {
    return `bank account ${line.paymentMethodId} was deleted`;
  }
  if (method.bankAccount?.debitMethod !== rail) return `bank account ${method.id} is not a ${rail} account`;
  if (!method.isValid) {
    return (
      verificationWords(method.id, method.bankAccount!) ??
      `bank account ${method.id} is not valid (POST /v1/ValidateBankAccount it first)`
    );
  }
  // A debit Netcash's file cannot carry (a holder name with nothing to write in ASCII) leaves, not the whole file.
  if (gateway.type === 'netcash') return netcashLineProblem(line, method);
  return undefined;
}

/**
 * The lines of the batch that cannot be made, each with its reason: the bank account first (for a netcash gateway,
 * also whether the file can carry it), then the eMandate (docs/design/mandates.md, "Checks at build time"). A line no longer pending is not among them: nothing is
 * collected for it (badLines' caller leaves it out of the file).
 */
export async function badLines(
  ctx: ServiceContext,
  batch: BatchRecord,
  gateway: Gateway,
  rail: Rail,
  lines: readonly BatchLine[],
  methods: Methods,
): Promise<Map<number, LeavingReason>> {
  const bad = new Map<number, LeavingReason>();
  const pending = lines.filter((line) => line.state === 'pending');
  for (const line of pending) {
    const reason = bankAccountProblem(line, batch, gateway, rail, methods);
    if (reason) bad.set(line.paymentId, { code: 'bank_account_not_usable', reason });
  }
  // Both told when both fail: a cancelled mandate also makes its bank account not valid.
  for (const [paymentId, reason] of await mandateProblems(ctx, batch, pending)) {
    const account = bad.get(paymentId);
    bad.set(
      paymentId,
      account
        ? { ...account, reason: `${account.reason}; ${reason}` }
        : { code: 'mandate_not_usable', reason },
    );
  }
  return bad;
}

/** The lines that leave, as the batch's BuildError names them when none is left to send. */
export const leavingText = (lines: readonly BatchLine[], bad: ReadonlyMap<number, LeavingReason>): string =>
  lines
    .filter((line) => bad.has(line.paymentId))
    .map(
      (line) => `payment ${line.paymentId} (customer ${line.customerId}): ${bad.get(line.paymentId)!.reason}`,
    )
    .join('; ');

/** A line that left the batch, as the staff's e-mail lists it. */
interface LeftLine {
  line: BatchLine;
  why: LeavingReason;
  invoiceIds: number[];
}

/**
 * The bad lines leave the batch being built, each in its own transaction under its customer's lock, as a line
 * removed from an open batch does: its payment deleted, the invoices it paid owe again, each marked with the
 * problem (CollectionProblem, `invoice.collection_blocked`, no NextTryDate); then one e-mail to the staff lists them.
 * A line the batch no longer holds as it was built (cancelled or submitted again meanwhile) stays. The lines that
 * left.
 */
export async function removeBadLines(
  ctx: ServiceContext,
  built: BatchRecord,
  lines: readonly BatchLine[],
  bad: ReadonlyMap<number, LeavingReason>,
): Promise<number> {
  const left: LeftLine[] = [];
  for (const line of lines) {
    const why = bad.get(line.paymentId);
    if (!why) continue;
    const invoiceIds = await removeLine(ctx, built, line, why);
    if (invoiceIds) left.push({ line, why, invoiceIds });
  }
  if (left.length > 0) await tellStaff(ctx, built, left);
  return left.length;
}

/** One line out of the batch with its reason; the invoices it paid, or undefined when it stayed. */
async function removeLine(
  ctx: ServiceContext,
  built: BatchRecord,
  line: BatchLine,
  why: LeavingReason,
): Promise<number[] | undefined> {
  return withLockedCustomer(ctx, line.customerId, async (tctx) => {
    const payment = await getPayment(tctx, line.paymentId);
    if (payment.state !== 'pending') return undefined;
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, built.id);
    if (batch?.state !== 'build' || batch.submittedAt !== built.submittedAt) return undefined;
    const allocations = (await allocationsOfSources(tctx, 'payment', [line.paymentId])).get(line.paymentId);
    const invoiceIds = [
      ...new Set((allocations ?? []).filter((a) => a.targetType === 'invoice').map((a) => a.targetId)),
    ].sort((a, b) => a - b);
    await deleteBatchLinePayment(tctx, payment);
    for (const invoiceId of invoiceIds) {
      await markLineProblem(tctx, {
        invoiceId,
        customerId: line.customerId,
        currencyCode: line.currencyCode,
        amountMinor: line.amountMinor,
        problem: why.reason,
        code: why.code,
      });
    }
    return invoiceIds;
  });
}

/** One e-mail per build, listing every line that left. */
async function tellStaff(ctx: ServiceContext, batch: BatchRecord, left: readonly LeftLine[]): Promise<void> {
  const mailed = await withTransaction(ctx, (tctx) =>
    queueStaffMail(tctx, {
      subject: `Batch ${batch.token}: ${left.length} debit order(s) left out`,
      blocks: [
        {
          paragraph: `These debit orders could not be made and were taken out of batch ${batch.token} (action date ${batch.actionDate}); the others go ahead:`,
        },
        {
          figures: left.map(({ line, why, invoiceIds }) => [
            `Payment ${line.paymentId}, customer ${line.customerId}${invoiceIds.length > 0 ? `, invoice ${invoiceIds.join(', ')}` : ''}, ${line.currencyCode} ${minorToDecimalText(line.amountMinor, line.currencyCode)}`,
            why.reason,
          ]),
        },
        {
          paragraph:
            'Each invoice shows why as its CollectionProblem. Fix the mandate or the bank account (a new valid account, a usable mandate), or collect the invoice another way; the run bundles it again once it can.',
        },
      ],
    }),
  );
  if (mailed) ctx.mailQueued();
}
