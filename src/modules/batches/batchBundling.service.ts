import crypto from 'node:crypto';
import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { isRail } from '../../core/bankingDays.ts';
import { bundlingHorizon, MAX_BATCH_LINES } from './batchRules.ts';
import type { BatchState } from './batchRules.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { addDays, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { handedToCustomer, heldCollectionReason } from '../invoicing/index.ts';
import type { DebitProblemCode, HeldCollection } from '../invoicing/index.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvent } from '../events/index.ts';
import { collectsBatches, gatewayAccepts, getGateway, isGatewayUsable } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { findInvoiceDue, listInvoicesDue, setCollectionProblem } from '../invoicing/index.ts';
import { applyCreditFirst, reportBlockedCollection } from '../collections/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { checkBatchLinePayment, createBatchLinePayment, withLockedCustomer } from '../ledger/index.ts';
import { emandatesOfPaymentMethods } from '../mandates/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import { verificationWords } from './batchBuildLines.service.ts';
import * as repo from './batch.repository.ts';
import { batchRef } from './batch.service.ts';
import { recordLine } from './batchLine.service.ts';
import { mandateRefusal } from './batchMandates.service.ts';
import { meetInBatch } from './carriedDebits.service.ts';
import { planActionDate, reportLineProblem, showPlannedDate, wantedDate } from './batchPlan.service.ts';
import { netcashHolderProblem } from './netcashBatchFile.ts';

/**
 * Due debit-order invoices go into open automatic batches, one per gateway, currency, rail, action date and kind of
 * mandate (DebiCheck collections apart from ordinary debit orders), at most 500 lines each (docs/design/batches.md, "States"). Each invoice's action date is planned as soon as the run sees it
 * (batchPlan.service.ts: the mandate's day on or after its due date, on a business day) and shown as its NextTryDate;
 * it is bundled into the batch of that date when the date is within the lead time a batch submitted today needs.
 * Submitting is a person's act, or the run's when the account asks for it (batchSubmission.service.ts).
 */

const PAGE = 100;

/** How far ahead the run plans: invoices due within a year show their action date. */
const PLAN_AHEAD_DAYS = 366;

interface Bundleable {
  invoice: CollectableInvoice;
  gatewayId: number;
  paymentMethodId: number;
  rail: Rail;
  /** Collected under a DebiCheck mandate: such debits go in batches of their own. */
  debiCheck: boolean;
  actionDate: PlainDate;
}

type Collector = Omit<Bundleable, 'invoice' | 'actionDate'>;
/** Why nothing can debit the invoice now, in words for its CollectionProblem, and what is missing. */
type NoCollector = HeldCollection<DebitProblemCode>;

/**
 * The gateway and bank account that collect the invoice, or what is missing (docs/gateways.md, "No due debit
 * without a plan or a problem"): the invoice's own gateway and bank account, or those its customer's settings
 * resolve to (an invoice whose settings cannot collect it is `blocked` and never asked here).
 */
async function collectorOf(
  ctx: ServiceContext,
  invoice: CollectableInvoice,
): Promise<Collector | NoCollector> {
  const { gatewayId, paymentMethodId } = invoice;
  if (gatewayId === null) {
    return { problem: 'no gateway is set to collect it', code: 'gateway_not_usable' };
  }
  if (paymentMethodId === null) {
    return { problem: 'no bank account is set to debit', code: 'bank_account_not_usable' };
  }
  const gateway = await getGateway(ctx, gatewayId).catch(() => undefined);
  const gatewayProblem = debitGatewayProblem(gateway, gatewayId);
  if (gatewayProblem !== undefined) return { problem: gatewayProblem, code: 'gateway_not_usable' };
  const method = (await unopenedPaymentMethodsByIds(ctx, [paymentMethodId])).get(paymentMethodId);
  const rail = method?.bankAccount?.debitMethod;
  if (!method || method.customerId !== invoice.customerId) {
    return { problem: `bank account ${paymentMethodId} no longer exists`, code: 'bank_account_not_usable' };
  }
  if (!rail || !isRail(rail)) {
    return {
      problem: `payment method ${paymentMethodId} is not a bank account`,
      code: 'bank_account_not_usable',
    };
  }
  // Not valid: not validated yet (ValidateBankAccount), or the bank refused it; the build would fail it.
  if (!method.isValid) {
    const problem =
      verificationWords(method.id, method.bankAccount!) ?? `bank account ${paymentMethodId} is not valid`;
    return { problem, code: 'bank_account_not_usable' };
  }
  // A holder Netcash's file cannot carry would leave every batch it joined: told here, once, in the build's words.
  const unwritable = gateway!.type === 'netcash' ? netcashHolderProblem(method) : undefined;
  if (unwritable !== undefined) return { problem: unwritable, code: 'bank_account_not_usable' };
  const mandate = (await emandatesOfPaymentMethods(ctx, [paymentMethodId])).get(paymentMethodId);
  return { gatewayId, paymentMethodId, rail, debiCheck: mandate?.debiCheck != null };
}

/** Why the gateway cannot collect debit orders now, or undefined when it can. */
function debitGatewayProblem(gateway: Gateway | undefined, gatewayId: number): string | undefined {
  if (!gateway || !isGatewayUsable(gateway)) return `gateway ${gatewayId} is disabled or retired`;
  if (!gatewayAccepts(gateway, 'bank_account') || !collectsBatches(gateway)) {
    return `gateway ${gatewayId} does not collect debit orders`;
  }
  return undefined;
}

/**
 * What the invoice's line collects: what it still owes. The one place that decides a due invoice's line amount, so
 * that what else pays it first (a customer's credit) is applied here, before a line is made.
 */
async function lineAmountMinor(ctx: ServiceContext, invoice: CollectableInvoice): Promise<number> {
  return owedAfterCredit(ctx, invoice);
}

/**
 * Adds a line for what the invoice owes to an open automatic batch (a new one when none has room), or joins it to
 * the line its bank account already has in that batch's period, or hands it to its customer when it would take
 * another invoice's date (meetInBatch: docs/gateways.md, "Months that stay in step"). Whether it joined the batch.
 */
async function bundle(ctx: ServiceContext, item: Bundleable): Promise<boolean> {
  const { invoice, gatewayId, paymentMethodId, rail, debiCheck, actionDate } = item;
  const amountMinor = await lineAmountMinor(ctx, invoice);
  if (amountMinor <= 0) return false;
  const amount = { value: minorToDecimalText(amountMinor, invoice.currencyCode) };
  const key = { gatewayId, currencyCode: invoice.currencyCode, rail, debiCheck, actionDate };
  const meeting = await withLockedCustomer(ctx, invoice.customerId, async (ctx) => {
    const line = await checkBatchLinePayment(ctx, {
      customerId: invoice.customerId,
      amount,
      currencyCode: invoice.currencyCode,
      date: { value: actionDate },
      method: rail,
      paymentMethodId,
      memo: `Invoice ${invoice.id}, collected by debit order`,
      autoApply: false,
      allocations: [
        {
          allocationId: null,
          field: 'PaymentApplied[0]',
          amount,
          amountField: 'PaymentApplied[0].amount',
          target: { value: { type: 'invoice', id: invoice.id } },
          targetField: 'PaymentApplied[0].invoiceID',
        },
      ],
      allocationsField: 'PaymentApplied',
    });
    // The customer's settings can collect it again: the problem they were told of is solved.
    if (invoice.reportedProblem !== null) await setCollectionProblem(ctx, invoice.id, null);
    // The batch is locked after the customer and before the allocation locks the invoice: the lock order of every
    // line change.
    const found = await repo.findOpenAutoBatch(ctx.db, ctx.account.id, key);
    const locked = found && (await repo.lockBatch(ctx.db, ctx.account.id, found.id));
    const met = await meetInBatch(ctx, locked?.state === 'open' ? locked.id : undefined, {
      ...item,
      amountMinor,
    });
    if (met.outcome === 'add') {
      const batchId = await openAutoBatchFor(ctx, key);
      const payment = await createBatchLinePayment(ctx, line);
      await recordLine(ctx, batchId, rail, payment.id, invoice.id);
    }
    if (met.outcome !== 'handed_over') await showPlannedDate(ctx, invoice.id, actionDate);
    return met;
  });
  if (meeting.mailed) ctx.mailQueued();
  return meeting.outcome !== 'handed_over';
}

/** The open automatic batch of this key with room, locked, or a new one. */
async function openAutoBatchFor(ctx: ServiceContext, key: AutoBatchKey): Promise<number> {
  const found = await repo.findOpenAutoBatch(ctx.db, ctx.account.id, key);
  const locked = found && (await repo.lockBatch(ctx.db, ctx.account.id, found.id));
  if (locked?.state === 'open') {
    if ((await repo.countLines(ctx.db, ctx.account.id, locked.id)) < MAX_BATCH_LINES) return locked.id;
  }
  return newAutoBatch(ctx, key);
}

interface AutoBatchKey {
  gatewayId: number;
  currencyCode: string;
  rail: Rail;
  /** DebiCheck collections and ordinary debit orders never share a file (docs/gateways/netcash.md, "DebiCheck"). */
  debiCheck: boolean;
  actionDate: PlainDate;
}

async function newAutoBatch(ctx: ServiceContext, key: AutoBatchKey): Promise<number> {
  const now = nowInstant(ctx);
  const token = crypto.randomUUID();
  const id = await repo.insertBatch(ctx.db, {
    accountId: ctx.account.id,
    token,
    currencyCode: key.currencyCode,
    gatewayId: key.gatewayId,
    actionDate: key.actionDate,
    notes: `${key.debiCheck ? 'DebiCheck collections' : 'Debit orders'} due by ${key.actionDate}`,
    state: 'open' satisfies BatchState,
    rail: key.rail,
    isAuto: true,
    isDebiCheck: key.debiCheck,
    createdAt: now,
    updatedAt: now,
  });
  await emitEvent(ctx, 'batch.created', batchRef(token));
  return id;
}

/**
 * Tells the customer, once, that its settings cannot collect the invoice (docs/gateways.md), read again under its
 * lock: its settings may have changed since the list was taken.
 */
async function reportBlocked(
  ctx: ServiceContext,
  invoiceId: number,
  customerId: number,
  horizon: PlainDate,
): Promise<void> {
  const told = await withLockedCustomer(ctx, customerId, async (tctx) => {
    const invoice = await findInvoiceDue(
      tctx,
      'debit_order',
      invoiceId,
      startOfDate(horizon, ctx.account.timeZone),
      horizon,
    );
    return invoice ? reportBlockedCollection(tctx, invoice) : false;
  });
  if (told) ctx.mailQueued();
}

/**
 * What the invoice owes once the customer's own money is applied to it (docs/gateways.md, "Credit first"), under the
 * customer's lock: the line is for the remainder, and an invoice the credit paid gets no line.
 */
async function owedAfterCredit(ctx: ServiceContext, invoice: CollectableInvoice): Promise<number> {
  const owed = await withLockedCustomer(ctx, invoice.customerId, (tctx) => applyCreditFirst(tctx, [invoice]));
  return owed.get(invoice.id) ?? invoice.openMinor;
}

/**
 * One owed debit-order invoice, as the run finds it: a line in the batch of its action date when that date is within
 * `horizon`; else its planned action date shown; a problem reported when it is due and cannot be collected. Whether
 * a line was added.
 */
async function takeInvoice(
  ctx: ServiceContext,
  invoice: CollectableInvoice,
  horizon: PlainDate,
): Promise<boolean> {
  // Handed to its customer to pay (docs/gateways.md, "Months that stay in step"): never debited again by the run.
  if (handedToCustomer(invoice.reportedProblem)) return false;
  const due = wantedDate(ctx, invoice) <= horizon;
  if (invoice.blocked) {
    if (due) await reportBlocked(ctx, invoice.id, invoice.customerId, horizon);
    return false;
  }
  // Planned and not due yet: nothing to do until it is.
  if (!due && invoice.nextTryDate !== null) return false;
  const collector = await collectorOf(ctx, invoice);
  if ('problem' in collector) {
    // Due with nothing to debit it: the invoice says what is missing, and the staff are told (docs/gateways.md,
    // "No due debit without a plan or a problem"); cleared once a run can plan it again.
    if (due) await reportProblem(ctx, invoice, collector.problem, collector.code);
    return false;
  }
  const plan = await planActionDate(ctx, invoice, collector.paymentMethodId, collector.rail);
  if ('problem' in plan) {
    if (due) await reportProblem(ctx, invoice, plan.problem);
    return false;
  }
  // A debit that left a batch waits until its problem is solved: the bank account is checked by collectorOf, the
  // mandate here, with what the line would collect (docs/gateways.md, "One customer never holds up a batch").
  const leftWith = heldCollectionReason(invoice.reportedProblem);
  if (leftWith !== null) {
    const refusal = await mandateRefusal(ctx, collector.paymentMethodId, {
      actionDate: plan.actionDate,
      amountMinor: await lineAmountMinor(ctx, invoice),
      currencyCode: invoice.currencyCode,
    });
    if (refusal !== undefined) {
      if (due) await reportProblem(ctx, invoice, refusal);
      return false;
    }
  }
  if (plan.actionDate > horizon) {
    await withLockedCustomer(ctx, invoice.customerId, async (tctx) => {
      // Solved: the invoice shows its planned date instead of the problem.
      if (leftWith !== null) await setCollectionProblem(tctx, invoice.id, null);
      await showPlannedDate(tctx, invoice.id, plan.actionDate);
    });
    return false;
  }
  return bundle(ctx, { invoice, ...collector, actionDate: plan.actionDate });
}

/** docs/gateways.md, "One customer never holds up a batch": the invoice says why, the staff are told. */
async function reportProblem(
  ctx: ServiceContext,
  invoice: CollectableInvoice,
  problem: string,
  code?: DebitProblemCode,
): Promise<void> {
  const told = await withLockedCustomer(ctx, invoice.customerId, (tctx) =>
    reportLineProblem(tctx, {
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      currencyCode: invoice.currencyCode,
      amountMinor: invoice.openMinor,
      problem,
      ...(code === undefined ? {} : { code }),
    }),
  );
  if (told) ctx.mailQueued();
}

/** Plans and bundles every owed debit-order invoice of the account; returns how many lines it added. */
export async function bundleDueDebitOrders(ctx: ServiceContext): Promise<number> {
  // As far ahead as the longest lead of any rail (SA two-day debit orders), and the days before a batch's last safe
  // day on which its staff are told of it (docs/gateways.md, "Batches that go out").
  const horizon = bundlingHorizon('debit_order', today(ctx));
  const planUntil = addDays(today(ctx), PLAN_AHEAD_DAYS);
  let bundled = 0;
  for (let afterId = 0; ;) {
    const owed = await listInvoicesDue(
      ctx,
      'debit_order',
      startOfDate(planUntil, ctx.account.timeZone),
      planUntil,
      PAGE,
      afterId,
    );
    for (const invoice of owed) {
      try {
        if (await takeInvoice(ctx, invoice, horizon)) bundled += 1;
      } catch (error) {
        // Paid meanwhile, or its customer changed: the next run sees it as it is then.
        ctx.log.warn({ err: error, invoiceId: invoice.id }, 'bundling a debit-order invoice failed');
      }
    }
    if (owed.length < PAGE) break;
    afterId = owed.at(-1)!.id;
  }
  return bundled;
}
