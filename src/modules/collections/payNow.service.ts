import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { FailureReason } from '../gateways/index.ts';
import { emitEvents } from '../events/index.ts';
import {
  GatewayTimeoutError,
  canCharge,
  chargeStoredMethod,
  getGateway,
  isGatewayUsable,
} from '../gateways/index.ts';
import type { StoredChargeResult as ChargeResult, Gateway } from '../gateways/index.ts';
import { lockInvoicesForAllocation, setCollectionSchedule } from '../invoicing/index.ts';
import type { AllocatableInvoice } from '../invoicing/index.ts';
import { findPaymentIdOfCharge, recordCollectedPayment, withLockedCustomer } from '../ledger/index.ts';
import { primaryPaymentMethodsOf, unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import { noticePaymentCollected } from './customerNotices.ts';
import { invoicesWithSalesInFlight } from './salesInFlightOf.ts';
import { applyCreditFirst } from './creditFirst.ts';

/**
 * A customer paying invoices now, present, with the primary card (the customer portal's Pay and "Pay all overdue";
 * docs/portal.md, "Paying and payment methods"). Told in the order of a collection attempt
 * (collection.service.ts): what is owed and the card are read under the customer's lock, the card is charged
 * outside any transaction with the caller's idempotency key, and the payment is recorded under the lock again,
 * allocated to what each invoice still owes. While the charge is in flight, each invoice it pays has a `started`
 * attempt carrying the charge's key: an automatic attempt (which skips started invoices) or another session's
 * payment (`in_flight`) cannot charge the invoices meanwhile, and a charge whose answer never came (a timeout, a
 * crash) is finished by asking the gateway again with the key: by the same form sent again, or by the next
 * collection run (finishUnansweredPortalPayments). Unlike an automatic attempt, an answered charge leaves no attempt:
 * a decline records nothing (the customer reads the reason at once, and the invoices' schedule of retries is left as
 * it was), and a payment is its own record.
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
  paymentMethodId: number;
  /** The card's vault token, sealed: opened only inside the gateway's call. */
  sealedToken: string;
  /** The charge's idempotency key, carried by its `started` attempts. */
  key: string;
}

/** Charges the customer's primary card for what the invoices owe, and records the payment allocated to them. */
export async function payInvoicesNow(ctx: ServiceContext, input: PayNowInput): Promise<PayNowOutcome> {
  const planned = await planPayment(ctx, input);
  if (!('plan' in planned)) return planned;
  const { plan, method } = planned;
  const answered = await chargeAndRecord(ctx, input.customerId, plan);
  if (answered === 'unanswered') return { outcome: 'unanswered', method };
  if (answered.outcome === 'declined' || answered.outcome === 'error') {
    return { outcome: answered.outcome, reason: answered.reason, method };
  }
  return {
    outcome: answered.outcome === 'succeeded' ? 'paid' : 'pending',
    paymentId: answered.paymentId,
    amountMinor: plan.totalMinor,
    currencyCode: plan.currencyCode,
    method,
  };
}

/**
 * Asks the gateway for the plan's charge (again, under its key, when it was asked before) and records its answer:
 * the payment, or on a decline the charge's attempts gone; a charge still unanswered keeps them.
 */
async function chargeAndRecord(
  ctx: ServiceContext,
  customerId: number,
  plan: Plan,
): Promise<'unanswered' | Extract<ChargeResult, { outcome: 'declined' | 'error' }> | Recorded> {
  let result: ChargeResult;
  try {
    result = await chargeStoredMethod(ctx, plan.gateway, {
      sealedToken: plan.sealedToken,
      amountMinor: plan.totalMinor,
      currencyCode: plan.currencyCode,
      idempotencyKey: plan.key,
      description: `Invoices ${plan.allocations.map((a) => a.invoiceId).join(', ')}`,
    });
  } catch (error) {
    if (!(error instanceof GatewayTimeoutError)) throw error;
    return 'unanswered';
  }
  if (result.outcome === 'declined' || result.outcome === 'error') {
    await withLockedCustomer(ctx, customerId, (tctx) =>
      repo.deleteStartedRowsOfKey(tctx.db, tctx.account.id, plan.key),
    );
    return result;
  }
  return { outcome: result.outcome, paymentId: await recordPayment(ctx, customerId, plan, result) };
}

interface Recorded {
  outcome: 'succeeded' | 'pending';
  paymentId: number;
}

/**
 * What each invoice owes and the card to charge, read under the customer's lock, and the charge's `started`
 * attempts written there. The same form sent again while its charge is unanswered finds its own attempts: it asks
 * the gateway again under the same key, for the amounts first planned.
 */
function planPayment(
  ctx: ServiceContext,
  input: PayNowInput,
): Promise<{ plan: Plan; method: PaymentMethod } | PayNowOutcome> {
  return withLockedCustomer(ctx, input.customerId, async (tctx, customer) => {
    const targets = (await lockInvoicesForAllocation(tctx, input.customerId, input.invoiceIds, [])).filter(
      (target) => !target.refusal && target.openMinor > 0 && target.currencyCode === customer.currencyCode,
    );
    if (targets.length === 0) return { outcome: 'nothing_owed' } as const;
    const ids = targets.map((target) => target.id);
    const totalMinor = targets.reduce((sum, target) => sum + target.openMinor, 0);
    const primaryId = (await primaryPaymentMethodsOf(tctx, [input.customerId])).get(
      input.customerId,
    )?.paymentMethodId;
    const method =
      primaryId === undefined
        ? undefined
        : (await unopenedPaymentMethodsByIds(tctx, [primaryId])).get(primaryId);
    const key = method && `${repo.PORTAL_KEY_PREFIX}${input.idempotencyKey}:m${method.id}`;
    const open = await repo.listOpenAttemptsOfInvoices(tctx.db, tctx.account.id, ids);
    // A new card's sale of one of them (the portal's "Pay with a new card") is under way or awaits its record.
    if ((await invoicesWithSalesInFlight(tctx, ids)).size > 0) return { outcome: 'in_flight' } as const;
    if (open.length > 0) {
      if (key === undefined || open.some((row) => repo.chargeKeyOfRow(row.idempotencyKey) !== key)) {
        return { outcome: 'in_flight' } as const;
      }
      const resumed = await resumedPlan(tctx, key);
      return resumed && method ? { plan: resumed, method } : ({ outcome: 'in_flight' } as const);
    }
    if (totalMinor !== input.expectedMinor) {
      return { outcome: 'changed', owedMinor: totalMinor, currencyCode: customer.currencyCode } as const;
    }
    // Credit first (docs/portal.md, "Paying and payment methods"): the customer's own money pays what it can, and
    // the card only the rest, less than the page showed; an invoice the credit paid is not charged at all.
    const owing = await owingAfterCredit(tctx, input.customerId, targets);
    if (owing.length === 0) return { outcome: 'nothing_owed' } as const;
    const gateway =
      method?.gatewayId == null ? undefined : await getGateway(tctx, method.gatewayId).catch(() => undefined);
    if (
      !method ||
      key === undefined ||
      method.type !== 'credit_card' ||
      method.vaultTokenSealed === null ||
      !method.isValid ||
      !gateway ||
      !isGatewayUsable(gateway) ||
      !canCharge(gateway)
    ) {
      return { outcome: 'no_card', primary: method } as const;
    }
    const tries = await repo.countAttemptsOfInvoices(tctx.db, tctx.account.id, ids);
    for (const target of owing) {
      await repo.insertAttempt(tctx.db, {
        accountId: tctx.account.id,
        invoiceId: target.id,
        customerId: input.customerId,
        attemptNo: (tries.get(target.id) ?? 0) + 1,
        idempotencyKey: repo.portalRowKey(key, target.id),
        gatewayId: gateway.id,
        paymentMethodId: method.id,
        sealedToken: method.vaultTokenSealed,
        amountMinor: target.openMinor,
        currencyCode: customer.currencyCode,
        state: 'started',
        startedAt: nowInstant(tctx),
        leasedAt: tctx.wallClock.now().toISOString(),
      });
    }
    return {
      plan: {
        allocations: owing.map((target) => ({ invoiceId: target.id, amountMinor: target.openMinor })),
        totalMinor: owing.reduce((sum, target) => sum + target.openMinor, 0),
        currencyCode: customer.currencyCode,
        gateway,
        paymentMethodId: method.id,
        sealedToken: method.vaultTokenSealed,
        key,
      },
      method,
    };
  });
}

/** The invoices with what each still owes once the customer's credit is applied (when the account applies it). */
async function owingAfterCredit(
  ctx: ServiceContext,
  customerId: number,
  targets: readonly AllocatableInvoice[],
): Promise<AllocatableInvoice[]> {
  const owed = await applyCreditFirst(
    ctx,
    targets.map((target) => ({ id: target.id, customerId, currencyCode: target.currencyCode })),
  );
  return targets
    .map((target) => ({ ...target, openMinor: owed.get(target.id) ?? target.openMinor }))
    .filter((target) => target.openMinor > 0);
}

/** The plan of a charge asked before under `key` and not answered yet, from its `started` attempts. */
async function resumedPlan(ctx: ServiceContext, key: string): Promise<Plan | undefined> {
  const rows = await repo.listStartedRowsOfKey(ctx.db, ctx.account.id, key);
  const first = rows[0];
  if (!first) return undefined;
  return {
    allocations: rows.map((row) => ({ invoiceId: row.invoiceId, amountMinor: row.amountMinor })),
    totalMinor: rows.reduce((sum, row) => sum + row.amountMinor, 0),
    currencyCode: first.currencyCode,
    // NOTE: even a gateway disabled since is asked: the charge may have been made, and only the provider knows.
    gateway: await getGateway(ctx, first.gatewayId),
    paymentMethodId: first.paymentMethodId,
    sealedToken: first.sealedToken,
    key,
  };
}

/**
 * Portal charges left unanswered (a timeout the customer did not send again, a crash between the charge and its
 * record), finished by the collection run as its own unanswered attempts are: the gateway is asked again under the
 * charge's key, and its answer recorded. Returns how many were answered.
 */
export async function finishUnansweredPortalPayments(
  ctx: ServiceContext,
  staleBefore: string,
): Promise<number> {
  let answered = 0;
  for (const key of await repo.listStalePortalKeys(ctx.db, ctx.account.id, staleBefore, 100)) {
    try {
      const rows = await repo.listStartedRowsOfKey(ctx.db, ctx.account.id, key);
      const plan = await resumedPlan(ctx, key);
      if (!plan || !rows[0]) continue;
      if ((await chargeAndRecord(ctx, rows[0].customerId, plan)) !== 'unanswered') answered += 1;
    } catch (error) {
      // The next run asks again; one charge must not hold back the others.
      ctx.log.error({ err: error, key }, 'finishing an unanswered portal payment failed');
    }
  }
  return answered;
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
    await repo.deleteStartedRowsOfKey(tctx.db, tctx.account.id, plan.key);
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
      paymentMethodId: plan.paymentMethodId,
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
    // The customer's receipt (docs/gateways.md, "The collection loop"); a pending charge's comes when it settles.
    if (result.outcome === 'succeeded') await noticePaymentCollected(tctx, payment.paymentId);
    return payment.paymentId;
  });
}
