/** The bill run's side of recurring invoices: billing one, the due ones, and parking a record it cannot bill. */
import { emitEvent, emitEvents, snapshotResource } from '../events/index.ts';
import { invoiceRef, recurringInvoiceRef, withRecurringInvoiceEvents } from './invoicingEvents.ts';
import { inTransaction, nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { planRecurringInvoices } from './recurringBilling.ts';
import { getCustomer } from '../customers/index.ts';
import type { NewInvoice } from './invoice.ts';
import { insertInvoices } from './invoiceInsert.service.ts';
import { queueInvoiceMails } from './invoiceMail.service.ts';
import { scheduleOf } from './recurringInvoice.ts';
import * as repo from './recurringInvoice.repository.ts';
import { lockRecurringInvoice } from './recurringInvoiceReads.service.ts';

/**
 * Makes the invoices due today (the account's today, from ctx.clock) for one recurring invoice, in one
 * transaction: the row is locked, the periods due are planned (recurringBilling.ts), one issued invoice is made
 * per period (Source Auto, the charges and taxes copied), each period is recorded (the unique (recurring invoice,
 * period) makes a second invoice for a period impossible), the schedule advances and the invoice e-mails are
 * queued for customers with autoSendInvoice. Returns the new invoices' ids (none when nothing is due, it is
 * cancelled or parked, or its customer is archived or suspended). At most MAX_PERIODS_PER_PLAN invoices per call:
 * call again while it returns some and listDueRecurringInvoiceIds still lists it.
 * Throws BillingInvariantError on a record the planner refuses (the caller parks it with parkRecurringInvoice).
 */
export async function billRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
): Promise<number[]> {
  const on = today(ctx);
  const ids = await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockRecurringInvoice(tctx, recurringInvoiceId);
    if (row.isCancelled || row.parkedAt !== null) return [];
    const customer = await getCustomer(tctx, row.customerId);
    if (!customer.isActive || customer.isSuspended) return [];
    const plan = planRecurringInvoices(scheduleOf(row, ctx.account.timeZone), on);
    if (plan.periods.length === 0) return [];

    const charges = await repo.listCharges(trx, ctx.account.id, [recurringInvoiceId]);
    const taxes = await repo.listTaxes(trx, ctx.account.id, [recurringInvoiceId]);
    const invoices: NewInvoice[] = plan.periods.map((period) => ({
      customerId: row.customerId,
      currencyCode: row.currencyCode,
      invoiceDate: period.invoiceDate,
      source: 'Auto',
      isDraft: false,
      collectionMethod: row.collectionMethod,
      gatewayId: row.gatewayId,
      customerPaymentMethodId: row.customerPaymentMethodId,
      // Left unset, the account's default notes and terms apply (spec, Invoice).
      notes: row.invoiceNotes ?? undefined,
      terms: row.invoiceTerms ?? undefined,
      recurringInvoiceId,
      charges: charges.map((charge) => ({
        descrip: charge.descrip,
        qty: charge.qty,
        unitCostEx: charge.unitCostEx,
        isTaxInclusive: charge.isTaxInclusive,
        line: charge.line,
        displayOrder: charge.displayOrder,
        periodStart: period.start,
        periodEnd: period.end,
      })),
      taxes: taxes.map((tax) => ({ name: tax.name, perc: tax.perc })),
    }));
    const before = await snapshotResource(tctx, recurringInvoiceRef(recurringInvoiceId));
    const invoiceIds = await insertInvoices(tctx, invoices);
    await repo.insertPeriods(
      trx,
      ctx.account.id,
      recurringInvoiceId,
      plan.periods.map((period, i) => ({
        periodNo: period.periodNo,
        start: period.start,
        end: period.end,
        invoiceId: invoiceIds[i]!,
      })),
    );
    await repo.updateRecurringInvoice(trx, ctx.account.id, recurringInvoiceId, {
      state: plan.next,
      updatedAt: nowInstant(ctx),
    });
    const sent = await queueInvoiceMails(tctx, invoiceIds);
    await emitEvents(tctx, [
      { type: 'recurring_invoice.renewed', ref: before.ref, before },
      ...sent.map((id) => ({ type: 'invoice.sent', ref: invoiceRef(id) })),
    ]);
    return invoiceIds;
  });
  if (ids.length) ctx.mailQueued();
  return ids;
}

/**
 * The account's recurring invoices with an invoice due by `today`: not cancelled, not parked, whose customer is
 * active and not suspended; earliest due first.
 */
export function listDueRecurringInvoiceIds(
  ctx: ServiceContext,
  on: PlainDate,
  limit: number,
): Promise<number[]> {
  return repo.listDueRecurringInvoiceIds(ctx.db, ctx.account.id, on, limit);
}

/**
 * Sets a recurring invoice aside from billing with the reason (a record that breaks an invariant), as Kill Bill
 * parks an account rather than bill it wrongly. An edit of its schedule does not unpark it; this is for the
 * operator to look at.
 */
export async function parkRecurringInvoice(
  ctx: ServiceContext,
  recurringInvoiceId: number,
  reason: string,
): Promise<void> {
  const now = nowInstant(ctx);
  await withTransaction(ctx, async (tctx) => {
    const before = await snapshotResource(tctx, recurringInvoiceRef(recurringInvoiceId));
    if (
      !(await repo.updateRecurringInvoice(tctx.db, ctx.account.id, recurringInvoiceId, {
        parkedReason: reason,
        parkedAt: now,
      }))
    ) {
      throw new NotFoundError('Recurring invoice', recurringInvoiceId);
    }
    await emitEvent(tctx, 'recurring_invoice.updated', before.ref, { before });
  });
}

/**
 * Takes a parked recurring invoice back into billing once its record is mended (409 unless parked). Should it still
 * break an invariant, the next bill run parks it again with the reason.
 */
export async function unparkRecurringInvoice(ctx: ServiceContext, recurringInvoiceId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const tctx = inTransaction(ctx, trx);
    const row = await lockRecurringInvoice(tctx, recurringInvoiceId);
    if (row.parkedAt === null) {
      throw new ConflictError('recurring_invoice_not_parked', `Recurring invoice ${row.id} is not parked`);
    }
    await withRecurringInvoiceEvents(tctx, row.id, 'recurring_invoice.updated', () =>
      repo.updateRecurringInvoice(trx, ctx.account.id, row.id, { parkedReason: null, parkedAt: null }),
    );
  });
}
