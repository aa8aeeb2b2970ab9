import type { ServiceContext } from '../../context.ts';
import { parseWireCalendarDate } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { taxShareOf } from '../../core/taxShare.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { findSellerDetails } from '../auth/index.ts';
import { customersByIds } from '../customers/index.ts';
import type { Customer } from '../customers/index.ts';
import { invoiceTaxedTotals, issuedInvoicesBetween, percentText } from '../invoicing/index.ts';
import type { TaxedInvoiceTotal } from '../invoicing/index.ts';
import {
  creditNoteLinesBetween,
  creditShownOnInvoicesBetween,
  creditedOnInvoices,
  moneyReceivedBetween,
} from '../ledger/index.ts';
import { grantsThatAreMoney, prepaidCreditSales } from '../credits/index.ts';
import { splitByRate, splitStatedByRate, supplyCategory, vatReportOf } from './vatReport.ts';
import type {
  CurrencyVatReport,
  RateShare,
  ReportDocument,
  StatedPart,
  SupplyCategory,
} from './vatReport.ts';

/**
 * The VAT report (docs/tax.md, "The VAT report"): what the VAT201 return asks of sales for a period, from the
 * period's documents, each listed, so the totals are their sums.
 *
 * - Invoice basis: the invoices dated in the period, as they were issued (prepaid credit that paid them as they were
 *   issued taken off, as the invoice shows), and the tax credit notes dated in it.
 * - Payments basis: the money received in the period (settled payments by their date, credit taxed when used on the
 *   day it paid), each part carrying its invoice's share of the VAT the invoice still carries after its credits.
 */

export type VatBasis = 'invoice' | 'payments';

export interface VatReport {
  from: PlainDate;
  to: PlainDate;
  basis: VatBasis;
  currencies: CurrencyVatReport[];
}

/** GET /v1/reports/vat and `billing report vat`: the period's wire dates checked (422 naming from or to). */
export function vatReportFromWire(
  ctx: ServiceContext,
  request: { from: string; to: string; basis?: VatBasis },
): Promise<VatReport> {
  const problems: FieldProblem[] = [];
  const from = parseWireCalendarDate(request.from, ctx.account.timeZone);
  const to = parseWireCalendarDate(request.to, ctx.account.timeZone);
  if (from === undefined) problems.push({ field: 'from', message: 'must be a date' });
  if (to === undefined) problems.push({ field: 'to', message: 'must be a date' });
  if (from && to && from > to)
    problems.push({ field: 'from', message: `must not be after to (${from} > ${to})` });
  if (problems.length > 0) throw new ValidationError(problems);
  return vatReport(ctx, { from: from!, to: to!, basis: request.basis ?? ctx.account.vat.basis });
}

export async function vatReport(
  ctx: ServiceContext,
  period: { from: PlainDate; to: PlainDate; basis: VatBasis },
): Promise<VatReport> {
  const documents =
    period.basis === 'invoice'
      ? await invoiceBasisDocuments(ctx, period.from, period.to)
      : await paymentsBasisDocuments(ctx, period.from, period.to);
  return { ...period, currencies: vatReportOf(documents) };
}

/** What places an invoice's documents in the report: its category, its customer, its rates. */
interface Placed {
  invoice: TaxedInvoiceTotal;
  category: SupplyCategory;
  customer: Customer | undefined;
  rates: string;
  /** Its lines by the rates they bear, when they bear different ones (splitByRate). */
  shares: RateShare[];
}

const ratesText = (taxes: readonly { name: string; perc: string }[]) =>
  taxes.map((tax) => `${tax.name} ${percentText(tax.perc)}%`).join(', ');

async function placeInvoices(
  ctx: ServiceContext,
  invoices: readonly TaxedInvoiceTotal[],
): Promise<Map<number, Placed>> {
  const ids = invoices.map((invoice) => invoice.id);
  const [sales, customers, seller] = [
    await prepaidCreditSales(ctx, ids),
    await customersByIds(
      ctx,
      invoices.map((invoice) => invoice.customerId),
    ),
    await findSellerDetails(ctx.db, ctx.account.id),
  ];
  return new Map(
    invoices.map((invoice) => {
      const customer = customers.get(invoice.customerId);
      const category = supplyCategory(
        { taxes: invoice.taxes, isNonSupply: sales.get(invoice.id) === 'when_used' },
        customer?.countryId ?? null,
        seller?.countryId ?? null,
      );
      const shares = (invoice.byRate ?? []).map((part) => ({ ...part, rates: ratesText(part.taxes) }));
      return [invoice.id, { invoice, category, customer, rates: ratesText(invoice.taxes), shares }];
    }),
  );
}

function documentOf(
  placed: Placed,
  kind: ReportDocument['kind'],
  fields: Pick<ReportDocument, 'number' | 'date' | 'taxCreditNoteId' | 'paymentId'>,
  amountIncMinor: number,
  taxMinor: number,
  stated: readonly StatedPart[] = [],
): ReportDocument[] {
  const { invoice, customer } = placed;
  const document: ReportDocument = {
    kind,
    ...fields,
    invoiceId: invoice.id,
    invoiceNum: invoice.invoiceNum,
    customerId: invoice.customerId,
    customerName: customer
      ? customer.company || [customer.name, customer.lastName].filter(Boolean).join(' ')
      : '',
    vatNo: customer?.vatNo ?? null,
    currencyCode: invoice.currencyCode,
    category: placed.category,
    rates: placed.rates,
    amountExMinor: amountIncMinor - taxMinor,
    taxMinor,
    amountIncMinor,
  };
  return stated.length > 0
    ? splitStatedByRate(document, placed.shares, stated)
    : splitByRate(document, placed.shares);
}

/**
 * Invoice basis: each invoice of the period as issued, less what prepaid credit carrying VAT took off it as it was
 * issued (shown on the invoice), then each tax credit note of the period, one line per invoice it reduces,
 * negative, and the prepaid credit given back in the period off earlier days' invoices, positive (the invoice owes
 * it again). Each figure is in the period of its own date, so a period once filed never changes. A cancelled
 * invoice is left out: it was never a supply.
 */
async function invoiceBasisDocuments(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<ReportDocument[]> {
  const invoices = (await issuedInvoicesBetween(ctx, from, to)).filter((invoice) => !invoice.isCancelled);
  const notes = await creditNoteLinesBetween(ctx, from, to);
  const shown = await creditShownOnInvoicesBetween(ctx, from, to);
  const periodIds = new Set(invoices.map((invoice) => invoice.id));
  const dateOf = new Map(invoices.map((invoice) => [invoice.id, invoice.invoiceDate]));
  const atIssue = shown.filter((credit) => dateOf.get(credit.invoiceId) === credit.date);
  const givenBack = shown.filter((credit) => dateOf.get(credit.invoiceId) !== credit.date);
  const others = [...notes.map((line) => line.invoiceId), ...givenBack.map((credit) => credit.invoiceId)];
  const earlier = await invoiceTaxedTotals(
    ctx,
    [...new Set(others)].filter((id) => !periodIds.has(id)),
  );
  const placed = await placeInvoices(ctx, [...invoices, ...earlier.values()]);
  const documents: ReportDocument[] = invoices.flatMap((invoice) => {
    const own = atIssue.filter((credit) => credit.invoiceId === invoice.id);
    const creditedMinor = own.reduce((sum, credit) => sum + credit.amountMinor, 0);
    const creditedTaxMinor = own.reduce((sum, credit) => sum + credit.taxMinor, 0);
    return documentOf(
      placed.get(invoice.id)!,
      'invoice',
      {
        number: String(invoice.invoiceNum ?? invoice.id),
        date: invoice.invoiceDate,
        taxCreditNoteId: null,
        paymentId: null,
      },
      invoice.totalMinor - creditedMinor,
      invoice.taxMinor - creditedTaxMinor,
    );
  });
  for (const line of notes) {
    const of = placed.get(line.invoiceId);
    if (!of || of.invoice.isCancelled) continue;
    documents.push(
      ...documentOf(
        of,
        'credit_note',
        {
          number: line.taxCreditNote.creditNumber,
          date: line.date,
          taxCreditNoteId: line.taxCreditNote.id,
          paymentId: null,
        },
        -line.amountMinor,
        -line.taxMinor,
        // A cut's credit states the rates of its days: each on its own row (docs/tax.md, "How a crossing period is
        // invoiced").
        line.taxParts.map((part) => ({
          positions: part.positions,
          amountMinor: -part.amountMinor,
          taxesMinor: part.taxesMinor.map((tax) => -tax),
        })),
      ),
    );
  }
  for (const credit of givenBack) {
    const of = placed.get(credit.invoiceId);
    if (!of || of.invoice.isCancelled) continue;
    documents.push(
      ...documentOf(
        of,
        'credit_returned',
        {
          number: String(of.invoice.invoiceNum ?? of.invoice.id),
          date: credit.date,
          taxCreditNoteId: null,
          paymentId: null,
        },
        -credit.amountMinor,
        -credit.taxMinor,
      ),
    );
  }
  return documents;
}

/**
 * Payments basis: the money received in the period on invoices, each part with its share of what the invoice still
 * carries of VAT after its credits (tax credit notes and prepaid credit carrying VAT took theirs off), rounded on
 * its own: the VAT of the money as it came, period by period.
 */
async function paymentsBasisDocuments(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<ReportDocument[]> {
  const received = await moneyReceivedBetween(ctx, from, to);
  const money = await grantsThatAreMoney(
    ctx,
    received.filter((part) => part.source.type === 'credit_grant').map((part) => part.source.id),
  );
  const parts = received.filter((part) => part.source.type === 'payment' || money.has(part.source.id));
  const invoiceIds = [...new Set(parts.map((part) => part.invoiceId))];
  const invoices = await invoiceTaxedTotals(ctx, invoiceIds);
  const placed = await placeInvoices(ctx, [...invoices.values()]);
  const credited = await creditedOnInvoices(ctx, invoiceIds);
  const documents: ReportDocument[] = [];
  const inOrder = [...parts].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : a.allocationId - b.allocationId,
  );
  for (const part of inOrder) {
    const of = placed.get(part.invoiceId);
    if (!of || of.invoice.isCancelled) continue;
    const left = {
      totalMinor: of.invoice.totalMinor - (credited.get(part.invoiceId)?.amountMinor ?? 0),
      taxMinor: of.invoice.taxMinor - (credited.get(part.invoiceId)?.taxMinor ?? 0),
    };
    const taxMinor = taxShareOf(left, part.amountMinor);
    documents.push(
      ...documentOf(
        of,
        'payment',
        {
          number: part.source.type === 'payment' ? `payment ${part.source.id}` : `credit ${part.source.id}`,
          date: part.date,
          taxCreditNoteId: null,
          paymentId: part.source.type === 'payment' ? part.source.id : null,
        },
        part.amountMinor,
        taxMinor,
      ),
    );
  }
  return documents;
}
