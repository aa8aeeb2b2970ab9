import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import type { PlainDate } from '../../core/calendar.ts';
import { invoiceTaxedTotals } from '../invoicing/index.ts';
import { nextCreditNumber } from './creditNumbers.ts';
import { announceTaxCreditNotes } from './taxCreditNoteNotice.ts';
import * as repo from './reduction.repository.ts';
import * as taxCreditNoteRepo from './taxCreditNote.repository.ts';
import { sourceKey, taxedReductions } from './reduction.ts';
import { sumTaxParts } from './reductionTaxParts.ts';
import type { ReductionTaxPart } from './reductionTaxParts.ts';
import type {
  InvoiceReduction,
  ReducedSoFar,
  ReducingChange,
  ReductionChange,
  ReductionSource,
  ReductionSourceType,
} from './reduction.ts';

/**
 * Reductions of invoices' consideration with their VAT (docs/tax.md, "The VAT in a reduction"), recorded in the
 * transaction that moves the money: by the allocation writer for sources whose allocations reduce what they pay
 * (credit notes, negative adjustments made through the API, prepaid credit that carries VAT), and stated by a
 * subscription's credit for the invoice of the time it credits.
 */

/** A change to what a source takes off an invoice, dated as asked. */
export interface ReductionRequest extends Omit<ReductionChange, 'date'> {
  date: PlainDate | 'invoice';
}

/** Records the changes with their VAT, in order, under the invoices' locks the caller holds. */
export async function recordReductions(
  ctx: ServiceContext,
  requests: readonly ReductionRequest[],
): Promise<void> {
  const changes = requests.filter((request) => request.amountMinor !== 0);
  if (changes.length === 0) return;
  const invoiceIds = [...new Set(changes.map((change) => change.invoiceId))];
  const invoices = await invoiceTaxedTotals(ctx, invoiceIds);
  const soFar = await reducedSoFar(ctx, invoiceIds);
  // A reduction is never dated before the supply it reduces: a credit note of January allocated to an invoice of
  // March reduces it in March (docs/tax.md, "Tax credit notes").
  const dated = changes.map((change) => {
    const invoiceDate = invoices.get(change.invoiceId)?.invoiceDate ?? '';
    return {
      ...change,
      date: change.date === 'invoice' || change.date < invoiceDate ? invoiceDate : change.date,
    };
  });
  await repo.insertReductions(
    ctx.db,
    ctx.account.id,
    taxedReductions(dated, invoices, soFar),
    nowInstant(ctx),
  );
}

async function reducedSoFar(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, ReducedSoFar>> {
  const soFar = new Map<number, ReducedSoFar>();
  for (const sum of await repo.sumsOnInvoices(ctx.db, ctx.account.id, invoiceIds)) {
    const reduced = soFar.get(sum.invoiceId) ?? { amountMinor: 0, taxMinor: 0, bySource: new Map() };
    reduced.amountMinor += sum.amountMinor;
    reduced.taxMinor += sum.taxMinor;
    const source = { type: sum.sourceType as ReductionSourceType, id: sum.sourceId };
    reduced.bySource.set(sourceKey(source), { amountMinor: sum.amountMinor, taxMinor: sum.taxMinor });
    soFar.set(sum.invoiceId, reduced);
  }
  return soFar;
}

/**
 * The allocation writer's step: the invoices' money moved by sources that reduce a supply becomes reductions, each
 * invoice's change once per source; prepaid credit applied after issue gets its tax credit note first.
 */
export async function recordReductionsOfAllocations(
  ctx: ServiceContext,
  changes: readonly ReducingChange[],
): Promise<void> {
  const requests: ReductionRequest[] = [];
  const documented: number[] = [];
  for (const { source, plan } of changes) {
    if (!source.reduces || source.type === 'payment') continue;
    for (const { target, deltaMinor } of plan.targetDeltas) {
      if (target.type !== 'invoice' || deltaMinor === 0) continue;
      const reduces = source.reduces;
      const taxCreditNoteId =
        reduces.newCreditNote && deltaMinor > 0
          ? await insertPrepaidCreditNote(ctx, { ...source, invoiceId: target.id }, reduces)
          : null;
      if (taxCreditNoteId !== null) documented.push(taxCreditNoteId);
      requests.push({
        customerId: source.customerId,
        invoiceId: target.id,
        source: { type: source.type, id: source.id },
        amountMinor: deltaMinor,
        date: reduces.date,
        taxCreditNoteId,
      });
    }
  }
  await recordReductions(ctx, requests);
  await announceTaxCreditNotes(ctx, documented);
}

/** The tax credit note of prepaid credit that took VAT off an issued invoice (docs/tax.md, "Prepaid credit"). */
async function insertPrepaidCreditNote(
  ctx: ServiceContext,
  credit: { customerId: number; currencyCode: string; invoiceId: number },
  { date, newCreditNote }: { date: PlainDate; newCreditNote: { reason: string } },
): Promise<number> {
  return taxCreditNoteRepo.insertTaxCreditNote(
    ctx.db,
    ctx.account.id,
    {
      customerId: credit.customerId,
      currencyCode: credit.currencyCode,
      source: { type: 'prepaid_credit', id: credit.invoiceId },
      creditNumber: await nextCreditNumber(ctx),
      date,
      reason: newCreditNote.reason,
    },
    nowInstant(ctx),
  );
}

/**
 * A credit note or an adjustment edited: its document takes the number, date and reason, and its reductions the date,
 * never before the invoice each reduces (docs/tax.md, "Tax credit notes"). The caller guards a new number's
 * uniqueness (creditNumbers.ts).
 */
export async function redocumentSource(
  ctx: ServiceContext,
  source: { type: 'credit_note' | 'adjustment'; id: number },
  changes: { creditNumber?: string; date: PlainDate; reason: string },
): Promise<void> {
  const [document] = await taxCreditNoteRepo.findOfSources(ctx.db, ctx.account.id, source.type, [source.id]);
  if (document)
    await taxCreditNoteRepo.renumber(ctx.db, ctx.account.id, document.id, {
      creditNumber: changes.creditNumber ?? document.creditNumber,
      date: changes.date,
      reason: changes.reason,
    });
  const rows = await repo.listOfSources(ctx.db, ctx.account.id, source.type, [source.id]);
  const invoices = await invoiceTaxedTotals(ctx, [...new Set(rows.map((row) => row.invoiceId))]);
  const byDate = new Map<PlainDate, number[]>();
  for (const row of rows) {
    const invoiceDate = invoices.get(row.invoiceId)?.invoiceDate ?? changes.date;
    const date = changes.date < invoiceDate ? invoiceDate : changes.date;
    byDate.set(date, [...(byDate.get(date) ?? []), row.id]);
  }
  for (const [date, ids] of byDate) await repo.redate(ctx.db, ctx.account.id, ids, date);
}

/** What credits have taken off each invoice, taxes included, and the VAT in it, by id (none: left out). */
export async function creditedOnInvoices(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, { amountMinor: number; taxMinor: number }>> {
  const credited = new Map<number, { amountMinor: number; taxMinor: number }>();
  for (const sum of await repo.sumsOnInvoices(ctx.db, ctx.account.id, invoiceIds)) {
    const figure = credited.get(sum.invoiceId) ?? { amountMinor: 0, taxMinor: 0 };
    figure.amountMinor += sum.amountMinor;
    figure.taxMinor += sum.taxMinor;
    credited.set(sum.invoiceId, figure);
  }
  return credited;
}

/** One credit's reduction of an invoice, netted, with the tax credit note that documents it (none: on the invoice). */
export interface InvoiceCreditOnDocument {
  source: ReductionSource;
  taxCreditNote: { id: number; creditNumber: string } | null;
  amountMinor: number;
  taxMinor: number;
}

/**
 * Each invoice's reductions by credit and document, in the order they were first made, for what its documents say
 * (docs/tax.md, "What an invoice shows"); a credit that gave back all it took is left out.
 */
export async function creditsOnInvoiceDocuments(
  ctx: ServiceContext,
  invoiceIds: readonly number[],
): Promise<Map<number, InvoiceCreditOnDocument[]>> {
  const rows = await repo.listOnInvoices(ctx.db, ctx.account.id, invoiceIds);
  const documents = await documentsOfReductions(ctx, rows);
  const byInvoice = new Map<number, Map<string, InvoiceCreditOnDocument>>();
  for (const row of rows) {
    const document = documents.get(row.taxCreditNoteId ?? sourceKey(row.source)) ?? null;
    const key = `${sourceKey(row.source)} ${document?.id ?? ''}`;
    const credits = byInvoice.get(row.invoiceId) ?? new Map<string, InvoiceCreditOnDocument>();
    const credit = credits.get(key) ?? {
      source: row.source,
      taxCreditNote: document,
      amountMinor: 0,
      taxMinor: 0,
    };
    credit.amountMinor += row.amountMinor;
    credit.taxMinor += row.taxMinor;
    credits.set(key, credit);
    byInvoice.set(row.invoiceId, credits);
  }
  return new Map(
    [...byInvoice].map(([invoiceId, credits]) => [
      invoiceId,
      [...credits.values()].filter((credit) => credit.amountMinor !== 0 || credit.taxMinor !== 0),
    ]),
  );
}

/**
 * Prepaid credit shown on invoices, by the day it moved, within [from, to]: taken off as each was issued (dated the
 * invoice's day) or given back later (dated that day). For the VAT report (docs/tax.md, "The VAT report").
 */
export function creditShownOnInvoicesBetween(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<InvoiceReduction[]> {
  return repo.listShownBetween(ctx.db, ctx.account.id, from, to);
}

/** What one tax credit note took off one invoice on one day. */
export interface DatedCreditNoteLine {
  taxCreditNote: { id: number; creditNumber: string };
  invoiceId: number;
  date: PlainDate;
  /** Taxes included; negative where it gave back. */
  amountMinor: number;
  taxMinor: number;
  /** What of it states its rates (a cut's credit, reductionTaxParts.ts), summed by positions; none: shared. */
  taxParts: ReductionTaxPart[];
}

/**
 * What tax credit notes took off invoices within [from, to], each on the day it was taken off (a credit note
 * allocated after it was made reduces on the day of the supply it reduces: recordReductions), by document, invoice
 * and day. For the VAT report (docs/tax.md, "The VAT report"): a period's figures are those dated in it.
 */
export async function creditNoteLinesBetween(
  ctx: ServiceContext,
  from: PlainDate,
  to: PlainDate,
): Promise<DatedCreditNoteLine[]> {
  const rows = await repo.listDocumentedBetween(ctx.db, ctx.account.id, from, to);
  const documents = await documentsOfReductions(ctx, rows);
  const lines = new Map<string, DatedCreditNoteLine>();
  for (const row of rows) {
    const document = documents.get(row.taxCreditNoteId ?? sourceKey(row.source));
    if (!document) continue;
    const key = `${document.id} ${row.invoiceId} ${row.date}`;
    const line = lines.get(key) ?? {
      taxCreditNote: { id: document.id, creditNumber: document.creditNumber },
      invoiceId: row.invoiceId,
      date: row.date,
      amountMinor: 0,
      taxMinor: 0,
      taxParts: [],
    };
    line.amountMinor += row.amountMinor;
    line.taxMinor += row.taxMinor;
    if (row.taxParts) line.taxParts = sumTaxParts([line.taxParts, row.taxParts]);
    lines.set(key, line);
  }
  return [...lines.values()].filter((line) => line.amountMinor !== 0 || line.taxMinor !== 0);
}

/** The documents of the rows: by id for prepaid credit's, by their source's `type id` for the others. */
async function documentsOfReductions(
  ctx: ServiceContext,
  rows: readonly InvoiceReduction[],
): Promise<Map<number | string, { id: number; creditNumber: string }>> {
  const documents = new Map<number | string, { id: number; creditNumber: string }>();
  const ids = [
    ...new Set(rows.flatMap((row) => (row.taxCreditNoteId === null ? [] : [row.taxCreditNoteId]))),
  ];
  for (const note of await taxCreditNoteRepo.findByIds(ctx.db, ctx.account.id, ids))
    documents.set(note.id, note);
  for (const type of ['credit_note', 'adjustment'] as const) {
    const sourceIds = [
      ...new Set(rows.filter((row) => row.source.type === type).map((row) => row.source.id)),
    ];
    for (const note of await taxCreditNoteRepo.findOfSources(ctx.db, ctx.account.id, type, sourceIds))
      documents.set(sourceKey(note.source as ReductionSource), note);
  }
  return documents;
}
