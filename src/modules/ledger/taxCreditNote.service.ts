import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { Page } from '../../core/paging.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { checkedWireDate } from '../../core/calendar.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import * as reductionRepo from './reduction.repository.ts';
import * as repo from './taxCreditNote.repository.ts';
import type { InvoiceReduction } from './reduction.ts';
import { sumTaxParts, taxOfParts, taxesByPosition } from './reductionTaxParts.ts';
import type { ReductionTaxPart } from './reductionTaxParts.ts';
import type { TaxCreditNoteKind, TaxCreditNoteRecord } from './taxCreditNote.ts';

/**
 * Tax credit notes as documents (docs/tax.md, "Tax credit notes"): each with the invoices it reduces, what it
 * takes off each with the VAT in it (per tax), and what of it reduces no supply yet (a credit note's money not
 * applied to an invoice). Read from the register and the reductions of its source.
 */

/** One tax invoice a tax credit note reduces: the invoice, and what it takes off it. */
export interface TaxCreditNoteLine {
  invoiceId: number;
  invoiceNum: number | null;
  invoiceDate: PlainDate;
  /** Taxes included. */
  amountMinor: number;
  taxMinor: number;
  /**
   * The VAT by the invoice's taxes: at the rates its reductions state (a cut's credit, reductionTaxParts.ts), the
   * rest split over the taxes in proportion to their totals.
   */
  taxes: { name: string; perc: string; amountMinor: number }[];
}

export interface TaxCreditNote {
  id: number;
  kind: TaxCreditNoteKind;
  customerId: number;
  currencyCode: string;
  creditNumber: string;
  date: PlainDate;
  reason: string;
  creditNoteId: number | null;
  adjustmentId: number | null;
  /** The credit's amount: a credit note's or an adjustment's Amount; prepaid credit's, what it took off. */
  amountMinor: number;
  lines: TaxCreditNoteLine[];
  /** What of amountMinor reduces no supply (yet): money not applied to an invoice; no VAT in it. */
  unappliedMinor: number;
  taxMinor: number;
}

export async function getTaxCreditNote(ctx: ServiceContext, id: number): Promise<TaxCreditNote> {
  const [record] = await repo.findByIds(ctx.db, ctx.account.id, [id]);
  if (!record) throw new NotFoundError('Tax credit note', id);
  return (await assemble(ctx, [record]))[0]!;
}

/** The account's tax credit notes with these ids, by id (unknown ids left out). */
export async function taxCreditNotesByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, TaxCreditNote>> {
  const notes = await assemble(ctx, await repo.findByIds(ctx.db, ctx.account.id, ids));
  return new Map(notes.map((note) => [note.id, note]));
}

/** The account's tax credit notes, of one customer or all, dated within the range when given, by number order. */
export async function listTaxCreditNotes(
  ctx: ServiceContext,
  filter: { customerId?: number; from?: PlainDate; to?: PlainDate },
  page?: Page,
): Promise<TaxCreditNote[]> {
  if (filter.customerId !== undefined) await assertCustomerExists(ctx, filter.customerId);
  return assemble(ctx, await repo.listTaxCreditNotes(ctx.db, ctx.account.id, filter, page));
}

/** listTaxCreditNotes for a request: its dates (wire dates) checked, a 422 naming `from` or `to`. */
export function listTaxCreditNotesFromWire(
  ctx: ServiceContext,
  filter: { customerId?: number; from?: string; to?: string },
  page: Page,
): Promise<TaxCreditNote[]> {
  const problems: FieldProblem[] = [];
  const dateOf = (text: string | undefined, field: string) => {
    if (text === undefined) return undefined;
    return checkedWireDate(text, ctx.account.timeZone, field, problems);
  };
  const from = dateOf(filter.from, 'from');
  const to = dateOf(filter.to, 'to');
  if (from && to && from > to)
    problems.push({ field: 'from', message: `must not be after to (${from} > ${to})` });
  if (problems.length > 0) throw new ValidationError(problems);
  return listTaxCreditNotes(
    ctx,
    {
      ...(filter.customerId === undefined ? {} : { customerId: filter.customerId }),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    },
    page,
  );
}

/** The documents of these sources (credit notes, adjustments), by source id. */
export async function taxCreditNotesOfSources(
  ctx: ServiceContext,
  kind: 'credit_note' | 'adjustment',
  sourceIds: readonly number[],
): Promise<Map<number, TaxCreditNote>> {
  const records = await repo.findOfSources(ctx.db, ctx.account.id, kind, sourceIds);
  const notes = await assemble(ctx, records);
  return new Map(
    notes.map((note) => [(kind === 'credit_note' ? note.creditNoteId : note.adjustmentId)!, note]),
  );
}

async function assemble(
  ctx: ServiceContext,
  records: readonly TaxCreditNoteRecord[],
): Promise<TaxCreditNote[]> {
  const reductions = await reductionsOf(ctx, records);
  const amounts = await sourceAmounts(ctx, records);
  const invoices = await invoicesByIds(ctx, [
    ...new Set([...reductions.values()].flat().map((r) => r.invoiceId)),
  ]);
  return records.map((record) => {
    const lines = linesOf(reductions.get(record.id) ?? [], invoices);
    const reducedMinor = lines.reduce((sum, line) => sum + line.amountMinor, 0);
    const amountMinor = amounts.get(`${record.source.type} ${record.source.id}`) ?? reducedMinor;
    return {
      id: record.id,
      kind: record.source.type,
      customerId: record.customerId,
      currencyCode: record.currencyCode,
      creditNumber: record.creditNumber,
      date: record.date,
      reason: record.reason,
      creditNoteId: record.source.type === 'credit_note' ? record.source.id : null,
      adjustmentId: record.source.type === 'adjustment' ? record.source.id : null,
      amountMinor,
      lines,
      unappliedMinor: Math.max(0, amountMinor - reducedMinor),
      taxMinor: lines.reduce((sum, line) => sum + line.taxMinor, 0),
    };
  });
}

/** Each document's reductions: its source's (a credit note's, an adjustment's), or those it documents. */
async function reductionsOf(
  ctx: ServiceContext,
  records: readonly TaxCreditNoteRecord[],
): Promise<Map<number, InvoiceReduction[]>> {
  const byDocument = new Map<number, InvoiceReduction[]>();
  const add = (id: number, reduction: InvoiceReduction) =>
    byDocument.set(id, [...(byDocument.get(id) ?? []), reduction]);
  for (const kind of ['credit_note', 'adjustment'] as const) {
    const ofKind = records.filter((record) => record.source.type === kind);
    const documentOf = new Map(ofKind.map((record) => [record.source.id, record.id]));
    const rows = await reductionRepo.listOfSources(ctx.db, ctx.account.id, kind, [...documentOf.keys()]);
    for (const row of rows) add(documentOf.get(row.source.id)!, row);
  }
  const prepaid = records.filter((record) => record.source.type === 'prepaid_credit').map((r) => r.id);
  for (const row of await reductionRepo.listOfTaxCreditNotes(ctx.db, ctx.account.id, prepaid))
    add(row.taxCreditNoteId!, row);
  return byDocument;
}

/** The Amount of each credit note and adjustment among the documents' sources, by `type id`. */
async function sourceAmounts(
  ctx: ServiceContext,
  records: readonly TaxCreditNoteRecord[],
): Promise<Map<string, number>> {
  const amounts = new Map<string, number>();
  for (const kind of ['credit_note', 'adjustment'] as const) {
    const ids = records.filter((record) => record.source.type === kind).map((record) => record.source.id);
    for (const [id, amountMinor] of await repo.amountsOfSources(ctx.db, ctx.account.id, kind, ids))
      amounts.set(`${kind} ${id}`, amountMinor);
  }
  return amounts;
}

/** One line per invoice, its reductions summed (a part given back nets out); an invoice left at nothing goes. */
function linesOf(
  reductions: readonly InvoiceReduction[],
  invoices: ReadonlyMap<number, Invoice>,
): TaxCreditNoteLine[] {
  const sums = new Map<number, { amountMinor: number; taxMinor: number; stated: ReductionTaxPart[][] }>();
  for (const reduction of reductions) {
    const sum = sums.get(reduction.invoiceId) ?? { amountMinor: 0, taxMinor: 0, stated: [] };
    sum.amountMinor += reduction.amountMinor;
    sum.taxMinor += reduction.taxMinor;
    if (reduction.taxParts) sum.stated.push([...reduction.taxParts]);
    sums.set(reduction.invoiceId, sum);
  }
  return [...sums]
    .filter(([, sum]) => sum.amountMinor !== 0 || sum.taxMinor !== 0)
    .map(([invoiceId, sum]) => {
      const invoice = invoices.get(invoiceId);
      const taxes = invoice?.taxes ?? [];
      const stated = sumTaxParts(sum.stated);
      const parts = taxesByPosition(
        taxes.map((tax) => tax.totalMinor),
        stated,
        sum.taxMinor - taxOfParts(stated),
      );
      return {
        invoiceId,
        invoiceNum: invoice?.invoiceNum ?? null,
        invoiceDate: invoice?.invoiceDate ?? '',
        amountMinor: sum.amountMinor,
        taxMinor: sum.taxMinor,
        taxes: taxes.map((tax, i) => ({ name: tax.name, perc: tax.perc, amountMinor: parts[i]! })),
      };
    });
}
