/** Pricing and inserting: the one way invoices are made, for the API and the bill run alike. */
import { nowInstant, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { addDays } from '../../core/calendar.ts';
import { invoiceBalances, invoiceStatus, priceInvoice } from './invoiceMath.ts';
import type { InvoiceMoney, PricedInvoice } from './invoiceMath.ts';
import { getCustomer } from '../customers/index.ts';
import { firstCollectionTry } from './invoiceCollection.service.ts';
import type { Invoice, NewInvoice, NewInvoiceCharge } from './invoice.ts';
import * as repo from './invoice.repository.ts';
import type { NewInvoiceRow } from './invoice.repository.ts';
import { invoiceChargeFromRow, taxPositionsToColumn } from './invoice.mapper.ts';
import { tellInvoicesIssued } from './invoiceCredit.ts';
import { invoiceRef } from './invoicingEvents.ts';
import { emitEvents } from '../events/index.ts';

export function chargeRowsOf(
  accountId: number,
  invoiceId: number,
  charges: readonly NewInvoiceCharge[],
  priced: PricedInvoice,
) {
  return charges.map((charge, i) => ({
    account_id: accountId,
    invoice_id: invoiceId,
    line: charge.line ?? i + 1,
    descrip: charge.descrip,
    qty: charge.qty,
    unit_cost_ex: charge.unitCostEx,
    is_tax_inclusive: charge.isTaxInclusive ?? false,
    amount_ex_minor: priced.charges[i]!.amountExMinor,
    amount_inc_minor: priced.charges[i]!.amountIncMinor,
    display_order: charge.displayOrder ?? i + 1,
    period_start: charge.periodStart ?? null,
    period_end: charge.periodEnd ?? null,
    metric_code: charge.metered?.metricCode ?? null,
    usage_group: charge.metered?.group ?? null,
    usage_quantity: charge.metered?.quantity ?? null,
    component_id: charge.componentId ?? null,
    tax_positions: taxPositionsToColumn(charge.taxPositions),
  }));
}

export function taxRowsOf(accountId: number, invoiceId: number, taxes: NewInvoice['taxes']) {
  return taxes.map((tax) => ({
    account_id: accountId,
    invoice_id: invoiceId,
    name: tax.name,
    perc: tax.perc,
  }));
}

/** What an invoice takes from the account's settings where it leaves a field unset. */
function accountDefaults(ctx: ServiceContext, invoice: NewInvoice) {
  return {
    dueDate: invoice.dueDate ?? addDays(invoice.invoiceDate, ctx.account.invoiceDueDays),
    // Spec, Invoice: the default note and terms apply when unset on add.
    notes: invoice.notes === undefined ? ctx.account.invoiceNotes : invoice.notes,
    terms: invoice.terms === undefined ? ctx.account.invoiceTerms : invoice.terms,
  };
}

export function priceNewInvoice(invoice: NewInvoice): PricedInvoice {
  return priceInvoice(
    invoice.charges,
    invoice.taxes.map((t) => t.perc),
    invoice.currencyCode,
  );
}

/**
 * Inserts invoices in the caller's transaction (ctx.db is the open transaction); numbers the non-drafts; emits
 * their `invoice.created`; pays the issued ones from credit; returns their ids in input order. No validation beyond what the database enforces: callers pass checked data.
 * A handful of statements per call whatever the number of invoices: one to take the numbers, then multi-row
 * inserts of invoices, lines and taxes.
 */
export async function insertInvoices(
  ctx: ServiceContext,
  invoices: NewInvoice[],
  options: { payWithCredit: boolean } = { payWithCredit: true },
): Promise<number[]> {
  if (invoices.length === 0) return [];
  const accountId = ctx.account.id;
  const now = nowInstant(ctx);
  const issued = invoices.filter((invoice) => !invoice.isDraft).length;
  // Spec, Invoice: invoiceNum is account-unique and sequential; drafts get theirs when finalized.
  let nextNum = issued > 0 ? (await repo.takeInvoiceNumbers(ctx.db, accountId, issued)) - issued + 1 : 0;
  const priced = invoices.map(priceNewInvoice);
  const rows: NewInvoiceRow[] = invoices.map((invoice, i) => {
    const { dueDate, notes, terms } = accountDefaults(ctx, invoice);
    return {
      account_id: accountId,
      customer_id: invoice.customerId,
      invoice_num: invoice.isDraft ? null : nextNum++,
      reference: invoice.reference ?? null,
      po_number: invoice.poNumber ?? null,
      currency_code: invoice.currencyCode,
      invoice_date: invoice.invoiceDate,
      due_date: dueDate,
      is_draft: invoice.isDraft,
      is_cancelled: false,
      source: invoice.source,
      collection_method: invoice.collectionMethod ?? null,
      gateway_id: invoice.gatewayId ?? null,
      customer_payment_method_id: invoice.customerPaymentMethodId ?? null,
      next_try_date: firstCollectionTry(
        {
          isDraft: invoice.isDraft,
          collectionMethod: invoice.collectionMethod ?? null,
          gatewayId: invoice.gatewayId ?? null,
          customerPaymentMethodId: invoice.customerPaymentMethodId ?? null,
          dueDate,
        },
        ctx.account.timeZone,
      ),
      notes,
      terms,
      total_minor: priced[i]!.totalMinor,
      subscription_id: invoice.subscriptionId ?? null,
      recurring_invoice_id: invoice.recurringInvoiceId ?? null,
      created_at: now,
      updated_at: now,
    };
  });

  const ids = await repo.insertInvoiceRows(ctx.db, rows);
  await repo.insertChargeRows(
    ctx.db,
    invoices.flatMap((invoice, i) => chargeRowsOf(accountId, ids[i]!, invoice.charges, priced[i]!)),
  );
  await repo.insertTaxRows(
    ctx.db,
    invoices.flatMap((invoice, i) => taxRowsOf(accountId, ids[i]!, invoice.taxes)),
  );
  // Created before anything pays them, so that a webhook receiver hears of each invoice before its payment.
  await emitEvents(
    ctx,
    ids.map((id) => ({ type: 'invoice.created', ref: invoiceRef(id) })),
  );
  // Issued invoices are paid from the customer's credit grants as they are issued (docs/credits.md, "Consumption
  // order"); a paid top-up's own invoice never is, and the bill run pays its invoices once its usage credits exist
  // (its callers say so).
  if (options.payWithCredit) await payIssuedWithCredit(ctx, invoices, ids);
  return ids;
}

/** Pays the issued ones of these inserted invoices from the customers' credit grants, in the caller's transaction. */
export async function payIssuedWithCredit(
  ctx: ServiceContext,
  invoices: readonly NewInvoice[],
  ids: readonly number[],
): Promise<void> {
  await tellInvoicesIssued(
    ctx,
    invoices.flatMap((invoice, i) =>
      invoice.isDraft
        ? []
        : [{ invoiceId: ids[i]!, customerId: invoice.customerId, currencyCode: invoice.currencyCode }],
    ),
  );
}

/**
 * An unsaved invoice, priced as insertInvoices would store it, with null ids (a subscription's upcoming invoice).
 * Render it with toInvoiceDto and unsavedInvoiceOut (after the read model in src/readModels adds its figures).
 */
export async function previewInvoice(ctx: ServiceContext, invoice: NewInvoice): Promise<Invoice> {
  const customer = await getCustomer(ctx, invoice.customerId);
  const priced = priceNewInvoice(invoice);
  const money: InvoiceMoney = {
    totalMinor: priced.totalMinor,
    paidActualMinor: 0,
    paidPendingMinor: 0,
    negativeAdjsMinor: 0,
  };
  const { dueDate, notes, terms } = accountDefaults(ctx, invoice);
  const charges = chargeRowsOf(ctx.account.id, 0, invoice.charges, priced).map((row) => ({
    ...invoiceChargeFromRow({ ...row, id: 0 }),
    id: null,
    invoiceId: null,
  }));
  return {
    id: null,
    customer,
    invoiceNum: null,
    reference: invoice.reference ?? null,
    poNumber: invoice.poNumber ?? null,
    currencyCode: invoice.currencyCode,
    invoiceDate: invoice.invoiceDate,
    dueDate,
    dateSent: null,
    updatedAt: null,
    isDraft: invoice.isDraft,
    isCancelled: false,
    source: invoice.source,
    collectionMethod: invoice.collectionMethod ?? null,
    gatewayId: invoice.gatewayId ?? null,
    customerPaymentMethodId: invoice.customerPaymentMethodId ?? null,
    followsCustomer: (invoice.collectionMethod ?? null) === null,
    collectionProblem: null,
    numTries: 0,
    nextTryDate: null,
    notes,
    terms,
    subscriptionId: invoice.subscriptionId ?? null,
    recurringInvoiceId: invoice.recurringInvoiceId ?? null,
    money,
    balances: invoiceBalances(money),
    exTotalMinor: priced.exTotalMinor,
    status: invoiceStatus({ ...money, isDraft: invoice.isDraft, isCancelled: false, dueDate }, today(ctx)),
    charges,
    taxes: invoice.taxes.map((tax, i) => ({
      id: null,
      invoiceId: null,
      name: tax.name,
      perc: tax.perc,
      totalMinor: priced.taxTotalsMinor[i]!,
    })),
  };
}
