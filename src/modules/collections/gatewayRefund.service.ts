import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { wireAmountToMinor } from '../../core/money.ts';
import { optionalText } from '../../core/text.ts';
import { GatewayTimeoutError, canCharge, getGateway, refundCharge } from '../gateways/index.ts';
import type { Gateway, RefundResult } from '../gateways/index.ts';
import { topUpInvoicesHoldingCredit } from '../credits/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import {
  assertRefundable,
  confirmRefund,
  getPayment,
  releaseRefund,
  reserveRefund,
} from '../ledger/index.ts';
import type { PaidInvoices, Payment } from '../ledger/index.ts';
import * as attempts from './collectionAttempt.repository.ts';
import * as repo from './refundAttempt.repository.ts';
import type { RefundAttempt } from './collectionAttempt.ts';
import { noticeRefundMade } from './customerNotices.ts';

export interface PaymentRefundInput {
  /** Undefined: all that is left to refund. */
  amount?: string;
  memo?: string | null;
  /** Default `credit` (docs/spec-decisions.md, "Refunds through a gateway"). */
  paidInvoices?: PaidInvoices;
  creditNumber?: string;
  /** Only the money the payment paid this invoice (a paid top-up's unused credit, grantRefund.service.ts). */
  onlyInvoiceId?: number;
  /** In place of `amount`: the money to refund, worked out under the customer's lock (grantRefund.service.ts). */
  amountUnderLock?: (ctx: ServiceContext) => Promise<number>;
}

/**
 * Refunds a card payment through the gateway that charged it (beyond the spec: `POST /v1/payments/{id}/refund`),
 * as card collection charges: claimed (every ledger change of the refund, and an attempt with its own idempotency
 * key, in one transaction under the customer's lock, so two refunds at once cannot both take the same money), then
 * asked of the gateway outside any transaction, then confirmed or undone. An attempt whose answer was lost (a
 * timeout, a crash) is finished by the next collection run, which asks again with the same key: refunded once,
 * recorded once. Money that paid invoices is taken too: `paidInvoices` says whether those invoices are credited
 * (the default) or reopened (docs/gateways.md "Refunds").
 */
export async function refundPayment(
  ctx: ServiceContext,
  paymentId: number,
  input: PaymentRefundInput,
): Promise<Payment> {
  const payment = await getPayment(ctx, paymentId);
  const problems: FieldProblem[] = [];
  const amountMinor =
    input.amount === undefined ? undefined : checkedAmount(input.amount, payment.currencyCode, problems);
  const paidInvoices = input.paidInvoices ?? 'credit';
  const memo = optionalText(input.memo) ?? null;
  const creditNumber = input.creditNumber === undefined ? undefined : input.creditNumber.trim();
  if (creditNumber === '') problems.push({ field: 'CreditNumber', message: 'must not be blank' });
  if (creditNumber !== undefined && paidInvoices === 'reopen') {
    problems.push({
      field: 'CreditNumber',
      message: 'numbers the credit note of PaidInvoices credit; reopen issues none',
    });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  assertRefundable(payment);
  if (paidInvoices === 'reopen') await assertNoTopUpReopened(ctx, payment);
  const { charge, gateway } = await refundingGateway(ctx, payment);
  const attempt = await reserveRefund(
    ctx,
    {
      paymentId,
      amountMinor: input.amountUnderLock ?? amountMinor,
      paidInvoices,
      onlyInvoiceId: input.onlyInvoiceId,
      memo: memo ?? `Refunded through gateway ${gateway.id}`,
      creditNote: { creditNumber, memo: `Refund of payment ${paymentId}${memo ? `: ${memo}` : ''}` },
    },
    (tctx, reservation) =>
      repo.insertAttempt(
        tctx.db,
        {
          accountId: tctx.account.id,
          paymentId,
          adjustmentId: reservation.adjustmentId,
          gatewayId: gateway.id,
          chargeId: charge.chargeId,
          amountMinor: reservation.amountMinor,
          currencyCode: payment.currencyCode,
          idempotencyKey: `refund_${reservation.adjustmentId}`,
          state: 'started',
          startedAt: nowInstant(tctx),
          leasedAt: tctx.wallClock.now().toISOString(),
          paidInvoices: reservation.paidInvoices,
          creditNoteId: reservation.creditNoteId,
        },
        reservation.fromInvoices,
      ),
  );
  const result = await askGateway(ctx, attempt);
  if (!result) {
    throw new ConflictError(
      'refund_unanswered',
      `Gateway ${gateway.id} did not answer; the refund stays reserved and the service asks again until it does`,
    );
  }
  if (result.outcome !== 'succeeded' && result.outcome !== 'pending') {
    throw new ConflictError(
      'refund_declined',
      `Gateway ${gateway.id} refused the refund (${result.rawCode}); nothing was refunded, released or credited`,
    );
  }
  return getPayment(ctx, paymentId);
}

/**
 * The gateway and the provider's charge a card payment came from: its collection attempt's; for a payment a
 * capture session recorded (the pay page, the portal's new card and top-ups, the widget's sales; capturedCharges.ts),
 * its session's gateway and charge, whether or not the card was kept; else, for a payment the customer made present
 * in the portal (which leaves no attempt, payNow.service.ts), its card's gateway and its `Ref`, the charge id the
 * gateway's late answers find it by too (docs/gateways.md, "Refunds"). Undefined for money not charged by a gateway.
 */
export async function chargeOfPayment(
  ctx: ServiceContext,
  payment: Payment,
): Promise<{ gatewayId: number; chargeId: string } | undefined> {
  const attempt = await attempts.findChargeOfPayment(ctx.db, ctx.account.id, payment.id);
  if (attempt)
    return attempt.chargeId ? { gatewayId: attempt.gatewayId, chargeId: attempt.chargeId } : undefined;
  const captured = await ctx.ports.collections.capturedCharges(ctx, payment.id);
  if (captured) return captured;
  if (payment.paymentMethodId === null || payment.ref === null) return undefined;
  const method = (await unopenedPaymentMethodsByIds(ctx, [payment.paymentMethodId])).get(
    payment.paymentMethodId,
  );
  return method?.gatewayId ? { gatewayId: method.gatewayId, chargeId: payment.ref } : undefined;
}

/** The charge to refund and the gateway that made it; 409 for money no gateway charged to a card. */
async function refundingGateway(
  ctx: ServiceContext,
  payment: Payment,
): Promise<{ charge: { gatewayId: number; chargeId: string }; gateway: Gateway }> {
  const charge = await chargeOfPayment(ctx, payment);
  if (!charge) {
    throw new ConflictError(
      'payment_not_refundable',
      `Payment ${payment.id} was not collected and settled through a gateway: record money paid back with an adjustment`,
    );
  }
  const gateway = await getGateway(ctx, charge.gatewayId);
  if (!canCharge(gateway)) {
    throw new ConflictError(
      'payment_not_refundable',
      `Payment ${payment.id} was not charged to a card by a gateway: a bank debit is refunded by the debtor's bank`,
    );
  }
  return { charge, gateway };
}

/**
 * A refund that reopens a paid top-up's invoice would leave the customer both the money and the credit it bought:
 * such a refund credits the invoice instead, which takes the credit out with the money (docs/credits.md, "Crediting
 * a top-up"). Refused whether or not this refund's money would reach the top-up: which invoices it takes from is
 * settled under the customer's lock, and a refund of the rest can name its Amount with PaidInvoices credit.
 */
async function assertNoTopUpReopened(ctx: ServiceContext, payment: Payment): Promise<void> {
  const paid = payment.allocations.filter((allocation) => allocation.targetType === 'invoice');
  const [topUpInvoiceId] = await topUpInvoicesHoldingCredit(
    ctx,
    paid.map((allocation) => allocation.targetId),
  );
  if (topUpInvoiceId === undefined) return;
  throw new ConflictError(
    'top_up_reopen_refused',
    `Payment ${payment.id} paid top-up invoice ${topUpInvoiceId}, whose credit the customer still holds: a refund ` +
      'cannot reopen it. Refund with PaidInvoices credit, which takes that credit out with the money, or refund ' +
      'the credit itself (POST /v1/credit-grants/{id}/refund)',
  );
}

function checkedAmount(amount: string, currencyCode: string, problems: FieldProblem[]): number | undefined {
  const read = wireAmountToMinor(amount, currencyCode);
  if (!('minor' in read)) problems.push({ field: 'Amount', message: read.message });
  else if (read.minor <= 0) problems.push({ field: 'Amount', message: 'must be above 0' });
  else return read.minor;
  return undefined;
}

/** Asks the gateway for the attempt's refund and records the answer; undefined when no answer came. */
async function askGateway(ctx: ServiceContext, attempt: RefundAttempt): Promise<RefundResult | undefined> {
  let result: RefundResult;
  try {
    result = await refundCharge(ctx, await getGateway(ctx, attempt.gatewayId), {
      chargeId: attempt.chargeId,
      amountMinor: attempt.amountMinor,
      currencyCode: attempt.currencyCode,
      idempotencyKey: attempt.idempotencyKey,
    });
  } catch (error) {
    if (error instanceof GatewayTimeoutError) return undefined;
    throw error;
  }
  if (result.outcome === 'succeeded') {
    await settleRefund(ctx, attempt, result.refundId, 'started');
  } else if (result.outcome === 'pending') {
    // The money stays reserved until the provider's late word (a webhook): refund_settled or refund_failed.
    await repo.finishAttempt(ctx.db, ctx.account.id, attempt.id, {
      state: 'pending',
      refundId: result.refundId,
    });
  } else {
    await undoRefund(ctx, attempt, result.rawCode, 'started');
  }
  return result;
}

/** The refund went through: its reservation confirmed, once; whether this call confirmed it. */
async function settleRefund(
  ctx: ServiceContext,
  attempt: RefundAttempt,
  refundId: string,
  from: 'started' | 'pending',
): Promise<boolean> {
  const refund = { paymentId: attempt.paymentId, adjustmentId: attempt.adjustmentId, refundId };
  const settled = await confirmRefund(ctx, refund, async (tctx) => {
    const finished = await repo.finishAttempt(
      tctx.db,
      tctx.account.id,
      attempt.id,
      { state: 'succeeded', refundId },
      from,
    );
    if (finished) await noticeRefundMade(tctx, attempt);
    return finished;
  });
  ctx.mailQueued();
  return settled;
}

/** The refund did not go through: what it took given back to the payment and its invoices, once; whether this call did. */
async function undoRefund(
  ctx: ServiceContext,
  attempt: RefundAttempt,
  rawCode: string,
  from: 'started' | 'pending',
): Promise<boolean> {
  const undo = {
    paymentId: attempt.paymentId,
    adjustmentId: attempt.adjustmentId,
    fromInvoices: await repo.takenFromInvoices(ctx.db, ctx.account.id, attempt.id),
    creditNoteId: attempt.creditNoteId,
  };
  return releaseRefund(ctx, undo, (tctx) =>
    repo.finishAttempt(tctx.db, tctx.account.id, attempt.id, { state: 'declined', rawCode }, from),
  );
}

/**
 * The provider's late word on a pending refund (docs/gateways.md, "Late events"): settled, it is confirmed as an
 * immediate refund would have been; failed, the money is the business's again and the invoices owe what they did.
 * Whether this call changed the refund: the attempt found pending may be finished meanwhile by a copy of the same
 * webhook, and only the copy whose conditional update took it says so.
 */
export async function applyRefundEvent(
  ctx: ServiceContext,
  gatewayId: number,
  event: { refundId: string; kind: 'refund_settled' | 'refund_failed'; code: string },
): Promise<boolean> {
  const attempt = await repo.findPendingAttempt(ctx.db, ctx.account.id, gatewayId, event.refundId);
  if (!attempt) return false;
  if (event.kind === 'refund_settled') return settleRefund(ctx, attempt, event.refundId, 'pending');
  return undoRefund(ctx, attempt, event.code, 'pending');
}

/** Refunds whose answer never came (leased before `staleBefore`, wall-clock): asked again with their key. */
export async function finishUnansweredRefunds(ctx: ServiceContext, staleBefore: string): Promise<void> {
  for (const attempt of await repo.listStaleAttempts(ctx.db, ctx.account.id, staleBefore)) {
    try {
      await askGateway(ctx, attempt);
    } catch (error) {
      ctx.log.error({ err: error, refundAttemptId: attempt.id }, 'finishing an unanswered refund failed');
    }
  }
}
