import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import {
  canCharge,
  gatewaysByIds,
  isGatewayUsable,
  isTestGatewayOfLiveAccount,
  testGatewayOnLiveWords,
} from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import {
  findInvoicesDue,
  lockInvoicesForCollection,
  setCollectionProblem,
  setCollectionSchedules,
} from '../invoicing/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { withLockedCustomers } from '../ledger/index.ts';
import { isUniqueViolation } from '../../storage/database.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './collectionAttempt.repository.ts';
import type { CollectionAttempt } from './collectionAttempt.ts';
import { reportBlockedCollection, reportUnchargeable } from './blockedCollection.service.ts';
import type { CardProblemCode, HeldCollection } from '../invoicing/index.ts';
import { applyCreditFirst } from './creditFirst.ts';
import { invoicesWithSalesInFlight } from './salesInFlightOf.ts';

/**
 * The claim of a collection batch (docs/gateways.md, "Batches of a collection run"): the next attempt at each due
 * invoice started under its customer's lock, with the amount the invoice owes and an idempotency key, before any
 * gateway is called; or the attempts a crash left `started`, taken up again with the keys they were claimed with.
 */

/** An attempt claimed, with what its charge needs. */
export interface Claimed {
  attemptId: number;
  attemptNo: number;
  invoiceId: number;
  customerId: number;
  currencyCode: string;
  amountMinor: number;
  idempotencyKey: string;
  /** The gateway was asked before under this key and its answer never came: it is looked up first. */
  askedBefore: boolean;
  gateway: Gateway;
  paymentMethodId: number;
  /** The card's vault token, sealed: opened only inside the gateway's call. */
  sealedToken: string;
}

/** The gateway and card token an invoice is charged through, or why it cannot be charged. */
type Chargeable = { gateway: Gateway; sealedToken: string } | HeldCollection<CardProblemCode>;

/**
 * The gateway and card token each invoice is charged through, or why not, in words for its CollectionProblem
 * (docs/gateways.md, "When the settings cannot collect").
 */
async function chargeableMethods(
  ctx: ServiceContext,
  invoices: readonly CollectableInvoice[],
): Promise<Map<number, Chargeable>> {
  const gateways = await gatewaysByIds(ctx, [
    ...new Set(invoices.flatMap((invoice) => (invoice.gatewayId === null ? [] : [invoice.gatewayId]))),
  ]);
  const methods = await unopenedPaymentMethodsByIds(ctx, [
    ...new Set(
      invoices.flatMap((invoice) => (invoice.paymentMethodId === null ? [] : [invoice.paymentMethodId])),
    ),
  ]);
  const chargeable = new Map<number, Chargeable>();
  for (const invoice of invoices) {
    const { gatewayId, paymentMethodId } = invoice;
    if (gatewayId === null || paymentMethodId === null) continue;
    const gateway = gateways.get(gatewayId);
    const method = methods.get(paymentMethodId);
    const gatewayProblem =
      !gateway || !isGatewayUsable(gateway)
        ? gateway && isTestGatewayOfLiveAccount(ctx.account, gateway)
          ? testGatewayOnLiveWords(gatewayId)
          : `gateway ${gatewayId} is disabled or retired`
        : !canCharge(gateway)
          ? `gateway ${gatewayId} does not charge cards`
          : undefined;
    const cardProblem =
      !method || method.customerId !== invoice.customerId
        ? `card ${paymentMethodId} no longer exists`
        : method.type !== 'credit_card' || method.vaultTokenSealed === null
          ? `payment method ${paymentMethodId} is not a card`
          : !method.isValid
            ? `card ${paymentMethodId} is not valid`
            : undefined;
    chargeable.set(
      invoice.id,
      gatewayProblem
        ? { problem: gatewayProblem, code: 'gateway_not_usable' }
        : cardProblem
          ? { problem: cardProblem, code: 'card_not_usable' }
          : { gateway: gateway!, sealedToken: method!.vaultTokenSealed! },
    );
  }
  return chargeable;
}

/**
 * The batch's claims in one transaction; when it fails (another process started one of its attempts at the same
 * moment, or one invoice cannot be claimed), each invoice is claimed on its own.
 */
export async function claimBatch(
  ctx: ServiceContext,
  listed: readonly CollectableInvoice[],
): Promise<Claimed[]> {
  try {
    return await claimAttempts(ctx, listed);
  } catch (error) {
    if (listed.length > 1) {
      const claimed: Claimed[] = [];
      for (const invoice of listed) claimed.push(...(await claimBatch(ctx, [invoice])));
      return claimed;
    }
    // Another process started this attempt at the same moment: it is theirs.
    if (!isUniqueViolation(error)) {
      // One invoice must not hold back the others; the next run tries it again.
      ctx.log.error({ err: error, invoiceId: listed[0]?.id }, 'collecting an invoice failed');
    }
    return [];
  }
}

/**
 * Starts the next attempt at each invoice, unless it is paid, in flight, no longer due or has no usable method.
 * Everything is read again under the customers' locks: the list they came from may be stale.
 */
async function claimAttempts(ctx: ServiceContext, listed: readonly CollectableInvoice[]): Promise<Claimed[]> {
  let mailQueued = false;
  const customerIds = listed.map((invoice) => invoice.customerId);
  const claimed = await withLockedCustomers(ctx, customerIds, async (tctx) => {
    const invoices = await invoicesStillDue(tctx, listed);
    const ids = invoices.map((invoice) => invoice.id);
    const attempts = await repo.listAttemptsOfInvoices(tctx.db, tctx.account.id, ids);
    const sold = await invoicesWithSalesInFlight(tctx, ids);
    const inFlight = (id: number) =>
      sold.has(id) || (attempts.get(id) ?? []).some((attempt) => attempt.state === 'started');
    // Credit first: the customers' own money pays what it can before a card is charged for the rest; not an
    // invoice whose charge is in flight, which its answer may pay.
    await applyCreditFirst(
      tctx,
      invoices.filter((invoice) => !inFlight(invoice.id)),
    );
    const targets = new Map(
      (await lockInvoicesForCollection(tctx, ids)).map((target) => [target.id, target]),
    );
    const usable = await chargeableMethods(tctx, invoices);
    const chosen = await chooseClaims(tctx, invoices, { attempts, inFlight, targets, usable });
    if (chosen.mailQueued) mailQueued = true;
    return await startAttempts(tctx, chosen.claims, chosen.problemsSolved);
  });
  if (mailQueued) ctx.mailQueued();
  return claimed;
}

/** The listed invoices still due for a card collection, read again under the lock. */
async function invoicesStillDue(
  tctx: ServiceContext,
  listed: readonly CollectableInvoice[],
): Promise<CollectableInvoice[]> {
  return await findInvoicesDue(
    tctx,
    'credit_card',
    listed.map((invoice) => invoice.id),
    nowInstant(tctx),
    today(tctx),
  );
}

/** What the claim decides each invoice by, read under the customers' locks. */
interface ClaimFacts {
  attempts: Awaited<ReturnType<typeof repo.listAttemptsOfInvoices>>;
  inFlight: (invoiceId: number) => boolean;
  targets: Map<number, Awaited<ReturnType<typeof lockInvoicesForCollection>>[number]>;
  usable: Awaited<ReturnType<typeof chargeableMethods>>;
}

/**
 * The next attempt at each invoice that owes, is not in flight and has a chargeable method; a blocked or
 * unchargeable one is reported to the customer instead.
 */
async function chooseClaims(
  tctx: ServiceContext,
  invoices: readonly CollectableInvoice[],
  { attempts, inFlight, targets, usable }: ClaimFacts,
): Promise<{ claims: Omit<Claimed, 'attemptId'>[]; problemsSolved: number[]; mailQueued: boolean }> {
  let mailQueued = false;
  const claims: Omit<Claimed, 'attemptId'>[] = [];
  const problemsSolved: number[] = [];
  for (const invoice of invoices) {
    const target = targets.get(invoice.id);
    if (!target || target.refusal || target.openMinor <= 0) continue;
    const tried = attempts.get(invoice.id) ?? [];
    if (inFlight(invoice.id)) continue;
    if (invoice.blocked) {
      if (await reportBlockedCollection(tctx, invoice)) mailQueued = true;
      continue;
    }
    const { paymentMethodId } = invoice;
    const method = usable.get(invoice.id);
    if (!method || paymentMethodId === null) continue;
    if ('problem' in method) {
      if (await reportUnchargeable(tctx, invoice, method)) mailQueued = true;
      continue;
    }
    const attemptNo = tried.length + 1;
    claims.push({
      attemptNo,
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      currencyCode: invoice.currencyCode,
      amountMinor: target.openMinor,
      idempotencyKey: `inv_${invoice.id}_try_${attemptNo}`,
      askedBefore: false,
      gateway: method.gateway,
      paymentMethodId,
      sealedToken: method.sealedToken,
    });
    if (invoice.reportedProblem !== null) problemsSolved.push(invoice.id);
  }
  return { claims, problemsSolved, mailQueued };
}

/** Stores the claims as started attempts, holds their invoices' next tries, and clears the problems they solve. */
async function startAttempts(
  tctx: ServiceContext,
  claims: readonly Omit<Claimed, 'attemptId'>[],
  problemsSolved: readonly number[],
): Promise<Claimed[]> {
  const attemptIds = await repo.insertAttempts(
    tctx.db,
    claims.map((claim) => ({
      accountId: tctx.account.id,
      invoiceId: claim.invoiceId,
      customerId: claim.customerId,
      attemptNo: claim.attemptNo,
      idempotencyKey: claim.idempotencyKey,
      gatewayId: claim.gateway.id,
      paymentMethodId: claim.paymentMethodId,
      sealedToken: claim.sealedToken,
      amountMinor: claim.amountMinor,
      currencyCode: claim.currencyCode,
      state: 'started',
      startedAt: nowInstant(tctx),
      leasedAt: tctx.wallClock.now().toISOString(),
    })),
  );
  // In flight: no next try until this one is answered (docs/design/collections.md, "NumTries and NextTryDate").
  await setCollectionSchedules(
    tctx,
    claims.map((claim) => claim.invoiceId),
    { addTry: false, nextTryDate: null },
  );
  // The customer's settings can collect it again: the problem they were told of is solved.
  for (const invoiceId of problemsSolved) await setCollectionProblem(tctx, invoiceId, null);
  return claims.map((claim) => ({ ...claim, attemptId: attemptIds.get(claim.invoiceId)! }));
}

/**
 * Attempts left `started` (a crash, a timeout), to be finished by asking the gateway again with their keys and the
 * tokens they charged. NOTE: even a gateway disabled since is asked: the charge may have been made, and only the
 * provider knows.
 */
export async function claimedFromAttempts(
  ctx: ServiceContext,
  attempts: readonly CollectionAttempt[],
): Promise<Claimed[]> {
  const gateways = await gatewaysByIds(ctx, [...new Set(attempts.map((attempt) => attempt.gatewayId))]);
  return attempts.flatMap((attempt) => {
    const gateway = gateways.get(attempt.gatewayId);
    if (!gateway) {
      ctx.log.error({ attemptId: attempt.id }, 'finishing an unanswered charge failed: its gateway is gone');
      return [];
    }
    return [
      {
        attemptId: attempt.id,
        attemptNo: attempt.attemptNo,
        invoiceId: attempt.invoiceId,
        customerId: attempt.customerId,
        currencyCode: attempt.currencyCode,
        amountMinor: attempt.amountMinor,
        idempotencyKey: attempt.idempotencyKey,
        askedBefore: true,
        gateway,
        paymentMethodId: attempt.paymentMethodId,
        sealedToken: attempt.sealedToken,
      },
    ];
  });
}
