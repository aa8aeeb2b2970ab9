import crypto from 'node:crypto';
import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { MAX_BATCH_LINES, earliestActionDate, isRail, onBusinessDay } from '../../core/batches.ts';
import type { BatchState, Rail } from '../../core/batches.ts';
import { dateAt, maxDate, startOfDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { emitEvent } from '../events/index.ts';
import { collectsBatches, gatewayAccepts, getGateway, isGatewayUsable } from '../gateways/index.ts';
import { findInvoiceDue, listInvoicesDue, setCollectionProblem } from '../invoicing/index.ts';
import { reportBlockedCollection } from '../collections/index.ts';
import type { CollectableInvoice } from '../invoicing/index.ts';
import { checkBatchLinePayment, createBatchLinePayment, withLockedCustomer } from '../ledger/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import { batchRef } from './batch.service.ts';
import { recordLine } from './batchLine.service.ts';

/**
 * Due debit-order invoices go into open automatic batches, one per gateway, currency, rail and action date, at most
 * 500 lines each (docs/design/batches.md, "States"). Bundling never submits: a person reviews and submits each batch
 * (PUT /v1/batches/submit), as the public service does. An invoice is bundled when its due date (or the date it is
 * to be presented again) is within the lead time a batch submitted today needs; its action date is that date, or the
 * earliest the rail allows when that has passed, on a business day.
 */

const PAGE = 100;

interface Bundleable {
  invoice: CollectableInvoice;
  gatewayId: number;
  paymentMethodId: number;
  rail: Rail;
  actionDate: PlainDate;
}

/** What an invoice is bundled as, or undefined when it cannot be bundled now. */
async function bundleable(ctx: ServiceContext, invoice: CollectableInvoice): Promise<Bundleable | undefined> {
  const { gatewayId, paymentMethodId } = invoice;
  if (gatewayId === null || paymentMethodId === null) return undefined;
  const gateway = await getGateway(ctx, gatewayId).catch(() => undefined);
  if (!gateway || !isGatewayUsable(gateway) || !gatewayAccepts(gateway, 'bank_account')) return undefined;
  if (!collectsBatches(gateway)) return undefined;
  const method = (await unopenedPaymentMethodsByIds(ctx, [paymentMethodId])).get(paymentMethodId);
  const rail = method?.bankAccount?.debitMethod;
  // An account not yet validated would fail the build: it waits until it is (ValidateBankAccount).
  if (!method || method.customerId !== invoice.customerId || !method.isValid || !rail || !isRail(rail)) {
    return undefined;
  }
  const wanted = invoice.nextTryDate ? dateAt(invoice.nextTryDate, ctx.account.timeZone) : invoice.dueDate;
  const actionDate = onBusinessDay(maxDate(wanted, earliestActionDate(rail, today(ctx))));
  return { invoice, gatewayId, paymentMethodId, rail, actionDate };
}

/** Adds a line for what the invoice owes to an open automatic batch (a new one when none has room). */
async function bundle(ctx: ServiceContext, item: Bundleable): Promise<void> {
  const { invoice, gatewayId, paymentMethodId, rail, actionDate } = item;
  await withLockedCustomer(ctx, invoice.customerId, async (ctx) => {
    const line = await checkBatchLinePayment(ctx, {
      customerId: invoice.customerId,
      amount: { value: minorToDecimalText(invoice.openMinor, invoice.currencyCode) },
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
          amount: { value: minorToDecimalText(invoice.openMinor, invoice.currencyCode) },
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
    const batchId = await openAutoBatchFor(ctx, {
      gatewayId,
      currencyCode: invoice.currencyCode,
      rail,
      actionDate,
    });
    const payment = await createBatchLinePayment(ctx, line);
    await recordLine(ctx, batchId, rail, payment.id, invoice.id);
  });
}

/** The open automatic batch of this key with room, locked, or a new one. */
async function openAutoBatchFor(ctx: ServiceContext, key: AutoBatchKey): Promise<number> {
  const found = await repo.findOpenAutoBatch(ctx.db, ctx.account.id, key);
  const locked = found && (await repo.lockBatch(ctx.db, ctx.account.id, found.id));
  if (locked?.state === 'open') {
    const lines =
      (await repo.figuresOfBatches(ctx.db, ctx.account.id, [locked.id])).get(locked.id)?.lines ?? 0;
    if (lines < MAX_BATCH_LINES) return locked.id;
  }
  return newAutoBatch(ctx, key);
}

interface AutoBatchKey {
  gatewayId: number;
  currencyCode: string;
  rail: Rail;
  actionDate: PlainDate;
}

async function newAutoBatch(ctx: ServiceContext, key: AutoBatchKey): Promise<number> {
  const now = nowInstant(ctx);
  const token = crypto.randomUUID();
  const id = await repo.insertBatch(ctx.db, {
    account_id: ctx.account.id,
    batch_token: token,
    currency_code: key.currencyCode,
    gateway_id: key.gatewayId,
    action_date: key.actionDate,
    notes: `Debit orders due by ${key.actionDate}`,
    state: 'open' satisfies BatchState,
    rail: key.rail,
    is_auto: true,
    created_at: now,
    updated_at: now,
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

/** Bundles every due debit-order invoice of the account; returns how many lines it added. */
export async function bundleDueDebitOrders(ctx: ServiceContext): Promise<number> {
  // As far ahead as the longest lead of any rail (SA two-day debit orders).
  const horizon = earliestActionDate('debit_order', today(ctx));
  let bundled = 0;
  for (let afterId = 0; ;) {
    const due = await listInvoicesDue(
      ctx,
      'debit_order',
      startOfDate(horizon, ctx.account.timeZone),
      horizon,
      PAGE,
      afterId,
    );
    for (const invoice of due) {
      try {
        if (invoice.blocked) {
          await reportBlocked(ctx, invoice.id, invoice.customerId, horizon);
          continue;
        }
        const item = await bundleable(ctx, invoice);
        if (!item) continue;
        await bundle(ctx, item);
        bundled += 1;
      } catch (error) {
        // Paid meanwhile, or its customer changed: the next run sees it as it is then.
        ctx.log.warn({ err: error, invoiceId: invoice.id }, 'bundling a debit-order invoice failed');
      }
    }
    if (due.length < PAGE) break;
    afterId = due.at(-1)!.id;
  }
  return bundled;
}
