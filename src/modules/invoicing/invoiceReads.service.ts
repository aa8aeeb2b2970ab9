import { readTogether, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { groupBy } from '../../core/groupBy.ts';
import type { Page } from '../../core/paging.ts';
import { assertCustomerExists, customersByIds } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { invoiceFromRecord } from './invoice.ts';
import type { Invoice, InvoiceCharge, InvoiceRecord, InvoiceTaxRecord } from './invoice.ts';
import * as repo from './invoice.repository.ts';
import type { InvoiceFilter } from './invoice.repository.ts';
import { checkedDate } from './invoiceInput.ts';

/**
 * Invoices with their lines, taxes and customers: a fixed number of statements whatever their number (lines,
 * taxes and customers, each with one `where ... in`).
 */
async function assembleInvoices(ctx: ServiceContext, records: InvoiceRecord[]): Promise<Invoice[]> {
  if (records.length === 0) return [];
  const ids = records.map((record) => record.id);
  // Three reads that need nothing of each other: one round trip on PostgreSQL.
  const [charges, taxes, customers] = await readTogether(
    ctx,
    (ctx) => repo.listCharges(ctx.db, ctx.account.id, ids),
    (ctx) => repo.listTaxes(ctx.db, ctx.account.id, ids),
    (ctx) => customersByIds(ctx, [...new Set(records.map((record) => record.customerId))]),
  );
  return invoicesFromParts(ctx, { records, charges, taxes }, customers);
}

/** The customers of invoices picked by their ids, for the customers module's read (invoiceCustomers.repository.ts). */
export { customersOfInvoices } from './invoiceCustomers.repository.ts';

/** Invoices as stored, their customers left to the caller: invoicePartsByIds. */
export interface InvoiceParts {
  records: InvoiceRecord[];
  charges: InvoiceCharge[];
  taxes: InvoiceTaxRecord[];
}

/**
 * The account's invoices with these ids (ids it cannot see are left out), with their lines and taxes, in one
 * round trip on PostgreSQL: for a caller that reads their customers beside them (readModels/invoices.view.ts).
 */
export async function invoicePartsByIds(ctx: ServiceContext, ids: readonly number[]): Promise<InvoiceParts> {
  const [records, charges, taxes] = await readTogether(
    ctx,
    (ctx) => repo.findInvoices(ctx.db, ctx.account.id, ids),
    (ctx) => repo.listCharges(ctx.db, ctx.account.id, ids),
    (ctx) => repo.listTaxes(ctx.db, ctx.account.id, ids),
  );
  return { records, charges, taxes };
}

/** The invoices of their parts, each with its customer (of `customers`, by id), in the parts' order. */
export function invoicesFromParts<C extends Customer>(
  ctx: ServiceContext,
  parts: InvoiceParts,
  customers: ReadonlyMap<number, C>,
): (Invoice & { customer: C })[] {
  const charges = groupBy(parts.charges, (c) => c.invoiceId);
  const taxes = groupBy(parts.taxes, (t) => t.invoiceId);
  const on = today(ctx);
  return parts.records.map((record) =>
    invoiceFromRecord(
      record,
      customers.get(record.customerId)!,
      charges.get(record.id) ?? [],
      taxes.get(record.id) ?? [],
      on,
    ),
  );
}

/** The invoice as stored, without its lines (404 for an invoice the account cannot see). */
export async function getInvoiceRecord(ctx: ServiceContext, invoiceId: number): Promise<InvoiceRecord> {
  const record = await repo.findInvoice(ctx.db, ctx.account.id, invoiceId);
  if (!record) throw new NotFoundError('Invoice', invoiceId);
  return record;
}

export async function getInvoice(ctx: ServiceContext, invoiceId: number): Promise<Invoice> {
  return (await assembleInvoices(ctx, [await getInvoiceRecord(ctx, invoiceId)]))[0]!;
}

/** The account's invoices with these ids, as getInvoice reads them (ids it cannot see are left out). */
export async function invoicesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, Invoice>> {
  const invoices = await assembleInvoices(ctx, await repo.findInvoices(ctx.db, ctx.account.id, ids));
  return new Map(invoices.map((invoice) => [invoice.id!, invoice]));
}

/** The invoiceNum of each invoice (null: a draft has none yet), by id: what a bank file's remittance line names. */
export function invoiceNumbersByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, number | null>> {
  return repo.findInvoiceNumbers(ctx.db, ctx.account.id, ids);
}

export interface InvoiceListFilter {
  /** Wire dates (spec: startDate and endDate, inclusive bounds on InvoiceDate). */
  startDate?: string;
  endDate?: string;
}

export async function listInvoices(
  ctx: ServiceContext,
  page: Page,
  filter: InvoiceListFilter = {},
): Promise<Invoice[]> {
  const problems: FieldProblem[] = [];
  const dates: InvoiceFilter = {};
  const from = checkedDate(ctx, filter.startDate, 'startDate', problems);
  const to = checkedDate(ctx, filter.endDate, 'endDate', problems);
  if (from) dates.from = from;
  if (to) dates.to = to;
  if (dates.from && dates.to && dates.from > dates.to) {
    problems.push({ field: 'startDate', message: `must not be after endDate (${dates.from} > ${dates.to})` });
  }
  if (problems.length) throw new ValidationError(problems);
  return assembleInvoices(ctx, await repo.listInvoices(ctx.db, ctx.account.id, page, dates));
}

export async function listInvoicesOfCustomer(
  ctx: ServiceContext,
  customerId: number,
  page: Page,
): Promise<Invoice[]> {
  await assertCustomerExists(ctx, customerId);
  return assembleInvoices(ctx, await repo.listInvoices(ctx.db, ctx.account.id, page, { customerId }));
}

/** Each invoice's tax fractions, in the invoice's order of taxes (ids the account cannot see are left out). */
export async function invoiceTaxPercs(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, string[]>> {
  const taxes = await repo.listTaxes(ctx.db, ctx.account.id, [...new Set(invoiceIds)]);
  const percs = new Map<number, string[]>();
  for (const tax of taxes) percs.set(tax.invoiceId, [...(percs.get(tax.invoiceId) ?? []), tax.perc]);
  return percs;
}

/** A part of an invoice's service taxed at its own rates: the period of a line that names the taxes it bears. */
export interface InvoiceTaxPart {
  start: string;
  end: string;
  /** The percs of the taxes the line bears. */
  taxPercs: string[];
  /** Their positions in the invoice's taxes. */
  taxPositions: number[];
}

/**
 * The parts of each invoice's service whose lines bear only some of its taxes (a period cut at a change of rate,
 * docs/tax.md "Supplies that span a change"), by start; an invoice whose lines bear all its taxes has none.
 */
export async function invoiceTaxParts(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceTaxPart[]>> {
  const ids = [...new Set(invoiceIds)];
  const [charges, taxes] = await readTogether(
    ctx,
    (c) => repo.listCharges(c.db, c.account.id, ids),
    (c) => repo.listTaxes(c.db, c.account.id, ids),
  );
  const percsOf = groupBy(taxes, (tax) => tax.invoiceId);
  const parts = new Map<number, InvoiceTaxPart[]>();
  for (const charge of charges) {
    const { taxPositions, periodStart, periodEnd, invoiceId } = charge;
    if (taxPositions === null || periodStart === null || periodEnd === null || invoiceId === null) continue;
    if (charge.amountIncMinor <= 0) continue;
    const percs = percsOf.get(invoiceId) ?? [];
    const part = {
      start: periodStart,
      end: periodEnd,
      taxPercs: taxPositions.map((i) => percs[i]?.perc ?? '0'),
      taxPositions,
    };
    parts.set(invoiceId, [...(parts.get(invoiceId) ?? []), part]);
  }
  for (const list of parts.values())
    list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return parts;
}

export function countInvoicesOfCustomer(ctx: ServiceContext, customerId: number): Promise<number> {
  return repo.countInvoicesOfCustomer(ctx.db, ctx.account.id, customerId);
}

/** How many invoices, of any status, name the payment method (a payment method in use cannot be deleted). */
export function countInvoicesUsingPaymentMethod(
  ctx: ServiceContext,
  paymentMethodId: number,
): Promise<number> {
  return repo.countInvoicesUsingPaymentMethod(ctx.db, ctx.account.id, paymentMethodId);
}
