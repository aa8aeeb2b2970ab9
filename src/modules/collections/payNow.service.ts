import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { FailureReason } from '../../core/dunning.ts';
import { emitEvents } from '../events/index.ts';
import {
  GatewayTimeoutError,
  canCharge,
  chargeStoredMethod,
  getGateway,
  isGatewayUsable,
} from '../gateways/index.ts';
import type { ChargeResult, Gateway } from '../gateways/index.ts';
import { lockInvoicesForAllocation, setCollectionSchedule } from '../invoicing/index.ts';
import { findPaymentIdOfCharge, recordCollectedPayment, withLockedCustomer } from '../ledger/index.ts';
import { primaryPaymentMethodsOf, unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import * as repo from './collectionAttempt.repository.ts';

/**
 * A customer paying invoices now, present, with the primary card (the customer portal's Pay and "Pay all overdue";
 * docs/portal.md, "Paying and payment methods"). Told in the order of a collection attempt
 * (collection.service.ts): what is owed and the card are read under the customer's lock, the card is charged
 * outside any transaction with the caller's idempotency key, and the payment is recorded under the lock again,
 * allocated to what each invoice still owes. Unlike an automatic attempt, a decline records nothing: the customer
 * reads the reason at once, and the invoices' schedule of retries is left as it was.
 */

export interface PayNowInput {
  customerId: number;
  invoiceIds: readonly number[];
  /**
   * The same key is the same payment: a form sent twice charges once and records once. The card's id is added to
   * it, so that after a decline another primary card is a new charge rather than the first card's answer again.
   */
  idempotencyKey: string;
  /** What the customer was shown and agreed to pay; another total now is `changed`, and nothing is charged. */
  expectedMinor: number;
}

export type PayNowOutcome =
  | {
      outcome: 'paid' | 'pending';
      paymentId: number;
      amountMinor: number;
      currencyCode: string;
      method: PaymentMethod;
    }
  | { outcome: 'declined' | 'error'; reason: FailureReason; method: PaymentMethod }
  /** The gateway did not answer: sending the same form again asks it again under the same key. */
  | { outcome: 'unanswered'; method: PaymentMethod }
  | { outcome: 'nothing_owed' }
  | { outcome: 'changed'; owedMinor: number; currencyCode: string }
  /** An automatic charge of one of the invoices is waiting for its answer. */
  | { outcome: 'in_flight' }
  | { outcome: 'no_card'; primary: PaymentMethod | undefined };

interface Plan {
  allocations: { invoiceId: number; amountMinor: number }[];
  totalMinor: number;
  currencyCode: string;
  gateway: Gateway;
  method: PaymentMethod;
}

/** Charges the customer's primary card for what the invoices owe, and records the payment allocated to them. */
export async function payInvoicesNow(ctx: ServiceContext, input: PayNowInput): Promise<PayNowOutcome> {
  const planned = await planPayment(ctx, input);
  if (!('allocations' in planned)) return planned;
  let result: ChargeResult;
  try {
    result = await chargeStoredMethod(ctx, planned.gateway, {
      token: planned.method.token,
      amountMinor: planned.totalMinor,
      currencyCode: planned.currencyCode,
      idempotencyKey: `${input.idempotencyKey}:m${planned.method.id}`,
      description: `Invoices ${planned.allocations.map((a) => a.invoiceId).join(', ')}`,
    });
  } catch (error) {
    if (!(error instanceof GatewayTimeoutError)) throw error;
    return { outcome: 'unanswered', method: planned.method };
  }
  if (result.outcome === 'declined' || result.outcome === 'error') {
    return { outcome: result.outcome, reason: result.reason, method: planned.method };
  }
  const paymentId = await recordPayment(ctx, input.customerId, planned, result);
  return {
    outcome: result.outcome === 'succeeded' ? 'paid' : 'pending',
    paymentId,
    amountMinor: planned.totalMinor,
    currencyCode: planned.currencyCode,
    method: planned.method,
  };
}

/** What each invoice owes and the card to charge, read under the customer's lock. */
function planPayment(ctx: ServiceContext, input: PayNowInput): Promise<Plan | PayNowOutcome> {
  return withLockedCustomer(ctx, input.customerId, async (tctx, customer) => {
    const targets = (await lockInvoicesForAllocation(tctx, input.customerId, input.invoiceIds, [])).filter(
      (target) => !target.refusal && target.openMinor > 0 && target.currencyCode === customer.currencyCode,
    );
    if (targets.length === 0) return { outcome: 'nothing_owed' } as const;
    const ids = targets.map((target) => target.id);
    if ((await repo.listInvoicesWithOpenAttempts(tctx.db, tctx.account.id, ids)).length > 0) {
      return { outcome: 'in_flight' } as const;
    }
    const totalMinor = targets.reduce((sum, target) => sum + target.openMinor, 0);
    if (totalMinor !== input.expectedMinor) {
      return { outcome: 'changed', owedMinor: totalMinor, currencyCode: customer.currencyCode } as const;
    }
    const primaryId = (await primaryPaymentMethodsOf(tctx, [input.customerId])).get(
      input.customerId,
    )?.paymentMethodId;
    const method =
      primaryId === undefined
        ? undefined
        : (await unopenedPaymentMethodsByIds(tctx, [primaryId])).get(primaryId);
    const gateway =
      method?.gatewayId == null ? undefined : await getGateway(tctx, method.gatewayId).catch(() => undefined);
    if (
      !method ||
      method.type !== 'credit_card' ||
      !method.isValid ||
      !gateway ||
      !isGatewayUsable(gateway) ||
      !canCharge(gateway)
    ) {
      return { outcome: 'no_card', primary: method } as const;
    }
    return {
      allocations: targets.map((target) => ({ invoiceId: target.id, amountMinor: target.openMinor })),
      totalMinor,
      currencyCode: customer.currencyCode,
      gateway,
      method,
    };
  });
}

/**
 * The payment of a charge that went through, allocated to what each invoice owes now (money that came meanwhile
 * by other means leaves the rest unallocated). A charge already recorded (the same form sent twice: the gateway
 * answered both with one charge) is not recorded again.
 */
function recordPayment(
  ctx: ServiceContext,
  customerId: number,
  plan: Plan,
  result: Extract<ChargeResult, { outcome: 'succeeded' | 'pending' }>,
): Promise<number> {
  return withLockedCustomer(ctx, customerId, async (tctx) => {
    const recorded = await findPaymentIdOfCharge(tctx, customerId, result.chargeId);
    if (recorded !== undefined) return recorded;
    const owed = new Map(
      (
        await lockInvoicesForAllocation(
          tctx,
          customerId,
          plan.allocations.map((a) => a.invoiceId),
          [],
        )
      ).map((target) => [target.id, target.refusal ? 0 : Math.max(0, target.openMinor)]),
    );
    const allocations = plan.allocations.map((a) => ({
      invoiceId: a.invoiceId,
      amountMinor: Math.min(a.amountMinor, owed.get(a.invoiceId) ?? 0),
    }));
    const payment = await recordCollectedPayment(tctx, {
      customerId,
      invoiceId: null,
      allocateMinor: 0,
      allocations,
      currencyCode: plan.currencyCode,
      amountMinor: plan.totalMinor,
      date: today(tctx),
      method: 'credit_card',
      paymentMethodId: plan.method.id,
      state: result.outcome === 'succeeded' ? 'settled' : 'pending',
      ref: result.chargeId,
      memo: `Paid by the customer in the portal through gateway ${plan.gateway.id}`,
    });
    // Paid now: no automatic try of these invoices is due any more.
    for (const allocation of allocations) {
      if (allocation.amountMinor === owed.get(allocation.invoiceId)) {
        await setCollectionSchedule(tctx, allocation.invoiceId, { addTry: false, nextTryDate: null });
      }
    }
    await emitEvents(tctx, payment.events);
    return payment.paymentId;
  });
}
